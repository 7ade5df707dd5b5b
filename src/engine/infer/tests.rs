use std::collections::BTreeSet;
use std::path::Path;

use super::text::{clip, first_sentence, slug, strip_markdown};
use super::*;
use crate::model::Tier;
use crate::proposal::{INFERRED, MAX_CHANGES, MAX_EDGES_PER_NODE, Submission};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Two crates with a path dependency (one renamed), a third inheriting it
/// from the workspace, modules with `crate::` paths, docs, and things to
/// ignore.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "Cargo.toml",
        r#"[workspace]
members = ["crates/*", "tools/util", "fuzz"]
exclude = ["crates/excluded"]

[workspace.package]
description = "Shared   description"

[workspace.dependencies]
core-lib = { path = "crates/core" }
"#,
    );
    write(r, "crates/core/Cargo.toml", "[package]\nname = \"core-lib\"\n");
    write(
        r,
        "crates/core/src/lib.rs",
        "//! Core library.\npub mod store;\nmod model;\npub(crate) mod codec;\n#[cfg(test)]\nmod testkit;\n\
         #[cfg(test)] mod tests;\nmod missing;\n// mod commented;\n",
    );
    write(
        r,
        "crates/core/src/store/mod.rs",
        "//! The store keeps widgets on disk. It is fast.\n\nmod disk;\nuse crate::model::Widget;\n",
    );
    write(
        r,
        "crates/core/src/store/disk.rs",
        "use crate::{\n    model::{Widget, Gadget},\n    helpers,\n};\nfn f() { crate::store::x() }\n",
    );
    write(r, "crates/core/src/store/tests.rs", "use crate::codec::Encoded;\n");
    write(r, "crates/core/src/store/tests/more.rs", "use crate::codec::Encoded;\n");
    write(
        r,
        "crates/core/src/model.rs",
        "pub struct Widget;\npub struct Gadget;\n",
    );
    write(
        r,
        "crates/core/src/codec.rs",
        "//! # Codec\n//!\n//! Encodes `widgets`, e.g. as [JSON](https://json.org). Fast.\n\n\
         #[cfg(test)]\nmod tests {\n    use crate::store;\n}\n",
    );
    write(r, "crates/core/src/testkit.rs", "use crate::store;\n");
    write(
        r,
        "crates/app/Cargo.toml",
        r#"[package]
name = "My_App"
description.workspace = true

[dependencies]
corelib = { path = "../core", package = "core-lib" }
serde = "1"

[dev-dependencies]
util = { path = "../../tools/util" }
"#,
    );
    write(r, "crates/app/src/main.rs", "mod cli;\nfn main() {}\n");
    write(
        r,
        "crates/app/src/cli.rs",
        "use corelib::store::Store;\nuse util::text;\n",
    );
    write(
        r,
        "tools/util/Cargo.toml",
        "[package]\nname = \"util\"\ndescription = \"Small helpers.\"\n[lib]\npath = \"lib.rs\"\n\
         [dependencies]\ncore-lib = { workspace = true }\n",
    );
    write(r, "tools/util/lib.rs", "pub mod text;\n");
    write(r, "tools/util/text.rs", "//! Text helpers.\nuse core_lib::model;\n");
    write(r, "crates/broken/Cargo.toml", "[package\nname = \"broken\"\n");
    write(r, "crates/excluded/Cargo.toml", "[package]\nname = \"excluded\"\n");
    write(r, "fuzz/Cargo.toml", "[package]\nname = \"fuzzer\"\n");
    write(
        r,
        "README.md",
        "# Widget Platform\n\nThe widget platform builds **widgets** for everyone. It runs anywhere.\n\n\
         ## Overview\n\nNothing here.\n\n## Storage Engine\n\n\
         The **Blob Cache** keeps blobs in memory and the **blob cache** evicts them.\n\
         storage-engine uses blob-cache. core-lib is part of widget-platform.\n\
         my-app depends on core-lib. ghost uses core-lib.\n\n\
         ```sh\n# Not a heading\n**Not Bold** and **Not Bold**\n```\n\n## core-lib\n\nSame name as the crate.\n",
    );
    write(
        r,
        "docs/guide.md",
        "# The Guide\n\n- **Blob Cache.** Keeps hot blobs.\n\n## Widgets\n\nWidgets are small.\n",
    );
    write(r, "target/doc/ignored.md", "# Ignored Target\n");
    write(r, "node_modules/pkg/README.md", "# Ignored Package\n");
    write(r, ".github/notes.md", "# Ignored Hidden\n");
    dir
}

fn none(_: &str) -> bool {
    false
}

/// One line per change: `node NAME TYPE [suggested edges]` or `edge FROM REL TO`.
fn outline(inf: &Inference) -> Vec<String> {
    inf.changes
        .iter()
        .map(|c| match c {
            Change::AddNode {
                name,
                node_type,
                suggested_edges,
                ..
            } => {
                let edges: Vec<String> = suggested_edges
                    .iter()
                    .map(|(f, r, t)| format!(" [{f} {r} {t}]"))
                    .collect();
                format!("node {name} {node_type}{}", edges.concat())
            }
            Change::AddEdge { from, relation, to, .. } => format!("edge {from} {relation} {to}"),
            other => format!("unexpected {}", other.op()),
        })
        .collect()
}

fn node<'a>(inf: &'a Inference, wanted: &str) -> &'a Change {
    inf.changes
        .iter()
        .find(|c| matches!(c, Change::AddNode { name, .. } if name.as_str() == wanted))
        .unwrap_or_else(|| panic!("no node {wanted}: {:#?}", outline(inf)))
}

fn description(inf: &Inference, wanted: &str) -> String {
    match node(inf, wanted) {
        Change::AddNode { description, .. } => description.clone(),
        _ => unreachable!(),
    }
}

/// Checks the result is a valid proposal whose edges only join nodes that
/// exist or were added earlier.
fn assert_proposable(inf: &Inference, exists: &dyn Fn(&str) -> bool) {
    assert!(inf.changes.len() <= MAX_CHANGES);
    let sub = Submission {
        revises: None,
        agent: INFERRED.into(),
        trust: 50.0,
        session: "infer".into(),
        rationale: "inferred".into(),
        changes: inf.changes.clone(),
    };
    sub.validate().unwrap();
    let mut added: BTreeSet<String> = BTreeSet::new();
    for c in &inf.changes {
        if let Change::AddNode {
            name,
            confidence,
            suggested_edges,
            tier,
            ..
        } = c
        {
            assert!(confidence.is_some_and(|c| c < 1.0));
            assert_eq!(*tier, Tier::AgentReadable);
            assert!(suggested_edges.len() <= MAX_EDGES_PER_NODE);
            assert!(!exists(name.as_str()), "{name} exists");
            assert!(added.insert(name.to_string()), "{name} twice");
        }
        for (f, _, t) in c.edges() {
            for end in [f, t] {
                let ok = added.contains(end.as_str()) || exists(end.as_str());
                assert!(ok, "{end} is dangling in {c:?}");
            }
        }
    }
}

#[test]
fn infers_crates_modules_and_docs() {
    let dir = fixture();
    let inf = infer(dir.path(), &none).unwrap();
    let expected = [
        "node core-lib module",
        "node my-app service",
        "node util module",
        "node core-lib.codec module [core-lib contains core-lib.codec]",
        "node core-lib.model module [core-lib contains core-lib.model]",
        "node core-lib.store module [core-lib contains core-lib.store]",
        "node my-app.cli module [my-app contains my-app.cli]",
        "node util.text module [util contains util.text]",
        "node blob-cache concept",
        "node guide concept",
        "node storage-engine concept",
        "node widget-platform concept",
        "node widgets concept",
        "edge core-lib.store depends-on core-lib.model",
        "edge my-app depends-on core-lib",
        "edge my-app.cli depends-on core-lib",
        "edge util depends-on core-lib",
        "edge util.text depends-on core-lib",
        "edge guide related-to blob-cache",
        "edge storage-engine related-to blob-cache",
        "edge storage-engine uses blob-cache",
        "edge widget-platform contains core-lib",
    ];
    assert_eq!(outline(&inf), expected);
    assert_proposable(&inf, &none);

    assert_eq!(description(&inf, "core-lib"), "Rust crate core-lib at crates/core");
    assert_eq!(description(&inf, "my-app"), "Shared description");
    assert_eq!(description(&inf, "util"), "Small helpers.");
    assert_eq!(description(&inf, "core-lib.store"), "The store keeps widgets on disk.");
    assert_eq!(description(&inf, "core-lib.codec"), "Encodes widgets, e.g. as JSON.");
    assert_eq!(description(&inf, "core-lib.model"), "Module model of crate core-lib");
    assert_eq!(
        description(&inf, "storage-engine"),
        "The Blob Cache keeps blobs in memory and the blob cache evicts them."
    );
    assert_eq!(description(&inf, "blob-cache"), description(&inf, "storage-engine"));
    assert_eq!(description(&inf, "guide"), "Section \"The Guide\" of docs/guide.md");
    assert_eq!(description(&inf, "widgets"), "Widgets are small.");
    match node(&inf, "core-lib.store") {
        Change::AddNode {
            properties, confidence, ..
        } => {
            assert_eq!(properties["path"], "crates/core/src/store");
            assert_eq!(*confidence, Some(0.6));
        }
        _ => unreachable!(),
    }
    match node(&inf, "my-app") {
        Change::AddNode {
            properties, confidence, ..
        } => {
            assert_eq!(properties["path"], "crates/app");
            assert_eq!(properties["language"], "rust");
            assert_eq!(*confidence, Some(0.7));
        }
        _ => unreachable!(),
    }
    match node(&inf, "widgets") {
        Change::AddNode { properties, .. } => assert_eq!(properties["source"], "docs/guide.md"),
        _ => unreachable!(),
    }

    assert!(inf.sources.contains(&"crates/core/src/store/disk.rs".to_owned()));
    assert!(inf.sources.contains(&"docs/guide.md".to_owned()));
    for ignored in [
        "target/",
        "node_modules/",
        ".github/",
        "fuzz/",
        "tests.rs",
        "tests/",
        "excluded",
    ] {
        assert!(!inf.sources.iter().any(|s| s.contains(ignored)), "{ignored} read");
    }
    let mut sorted = inf.sources.clone();
    sorted.sort();
    assert_eq!(sorted, inf.sources);
    let notes = inf.skipped.join("\n");
    assert!(notes.contains("crates/broken/Cargo.toml: not valid TOML"), "{notes}");
    assert!(notes.contains("module missing has no file"), "{notes}");
}

#[test]
fn existing_nodes_are_not_proposed_but_their_edges_are() {
    let dir = fixture();
    let exists = |n: &str| matches!(n, "core-lib" | "core-lib.model" | "blob-cache");
    let inf = infer(dir.path(), &exists).unwrap();
    let lines = outline(&inf);
    for name in ["core-lib", "core-lib.model", "blob-cache"] {
        assert!(
            !lines.iter().any(|l| l.starts_with(&format!("node {name} "))),
            "{lines:#?}"
        );
        assert!(
            inf.skipped.iter().any(|s| s.starts_with(&format!("{name} ("))),
            "{:?}",
            inf.skipped
        );
    }
    for edge in [
        "edge core-lib contains core-lib.model",
        "edge core-lib.store depends-on core-lib.model",
        "edge my-app depends-on core-lib",
        "edge storage-engine related-to blob-cache",
        "edge storage-engine uses blob-cache",
    ] {
        assert!(lines.contains(&edge.to_owned()), "{edge}: {lines:#?}");
    }
    assert!(lines.contains(&"node core-lib.store module [core-lib contains core-lib.store]".to_owned()));
    assert_proposable(&inf, &exists);
}

#[test]
fn runs_are_deterministic() {
    let dir = fixture();
    let a = infer(dir.path(), &none).unwrap();
    let b = infer(dir.path(), &none).unwrap();
    assert_eq!(a, b);
}

#[test]
fn the_limit_keeps_crates_then_modules() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "Cargo.toml", "[package]\nname = \"big\"\n");
    let mut lib = String::new();
    for i in 0..250 {
        lib.push_str(&format!("pub mod m{i:03};\n"));
        write(
            r,
            &format!("src/m{i:03}.rs"),
            &format!("use crate::m{:03}::X;\n", (i + 1) % 250),
        );
    }
    write(r, "src/lib.rs", &lib);
    write(r, "README.md", "# Big Thing\n\nIt is big.\n");
    let inf = infer(r, &none).unwrap();
    assert_eq!(inf.changes.len(), MAX_CHANGES);
    let lines = outline(&inf);
    assert_eq!(lines[0], "node big module");
    assert!(lines[1..].iter().all(|l| l.starts_with("node big.m")), "{lines:#?}");
    let last = inf.skipped.last().unwrap();
    // 51 modules, their 51 `contains` edges, 250 `depends-on` edges, 1 heading.
    assert!(last.starts_with("353 more changes not proposed"), "{last}");
    assert!(last.contains("(modules: 51, code edges: 301, doc nodes: 1)"), "{last}");
    assert_proposable(&inf, &none);

    // With the first batch accepted, the rest comes next.
    let accepted: BTreeSet<String> = inf
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::AddNode { name, .. } => Some(name.to_string()),
            _ => None,
        })
        .collect();
    let exists = |n: &str| accepted.contains(n);
    let next = infer(r, &exists).unwrap();
    assert!(outline(&next).contains(&"node big.m249 module [big contains big.m249]".to_owned()));
    assert_proposable(&next, &exists);
}

#[test]
fn odd_input_is_skipped_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "Cargo.toml", "this is = = not toml");
    write(r, "notes.md", "#\n\n## ***\n\n# Usage\n\nText.\n\n**a**\n");
    std::fs::write(r.join("big.md"), vec![b'#'; 2 * 1024 * 1024]).unwrap();
    let inf = infer(r, &none).unwrap();
    assert!(inf.changes.is_empty(), "{:#?}", outline(&inf));
    let notes = inf.skipped.join("\n");
    assert!(notes.contains("Cargo.toml: not valid TOML"), "{notes}");
    assert!(notes.contains("big.md: not read (larger than 1 MiB)"), "{notes}");
    assert!(infer(&r.join("missing"), &none).is_err());
}

/// Attack: a workspace member (or a member's `src`) that is a symbolic
/// link to a directory outside the tree made `infer` read, and propose,
/// what lies there.
#[test]
fn symlinks_out_of_the_tree_are_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    let o = outside.path();
    write(
        o,
        "Cargo.toml",
        "[package]\nname = \"secret-pkg\"\ndescription = \"OUTSIDE-CANARY\"\n",
    );
    write(o, "src/lib.rs", "//! OUTSIDE-CANARY module.\npub mod hidden;\n");
    write(o, "src/hidden.rs", "//! OUTSIDE-CANARY too.\n");
    write(o, "notes.md", "# OUTSIDE-CANARY\n\nText.\n");
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "Cargo.toml",
        "[workspace]\nmembers = [\"core\", \"linked\", \"crates/*\"]\n",
    );
    write(r, "core/Cargo.toml", "[package]\nname = \"core\"\n");
    std::os::unix::fs::symlink(o.join("src"), r.join("core/src")).unwrap();
    std::os::unix::fs::symlink(o, r.join("linked")).unwrap();
    std::fs::create_dir_all(r.join("crates")).unwrap();
    std::os::unix::fs::symlink(o, r.join("crates/also")).unwrap();
    std::os::unix::fs::symlink(o, r.join("docs")).unwrap();
    let inf = infer(r, &none).unwrap();
    let all = format!("{:?}", inf.changes);
    assert!(!all.contains("OUTSIDE-CANARY") && !all.contains("secret"), "{all}");
    assert!(
        inf.sources
            .iter()
            .all(|s| !s.starts_with("linked") && !s.starts_with("core/src")),
        "{:?}",
        inf.sources
    );
    let notes = inf.skipped.join("\n");
    assert!(
        notes.contains("linked: not read (a symbolic link leads outside the tree)"),
        "{notes}"
    );
}

#[test]
fn text_helpers() {
    assert_eq!(
        slug("The Security Model, in plain words!", 64),
        "security-model-in-plain-words"
    );
    assert_eq!(slug("Ünïcode — only", 64), "n-code-only");
    assert_eq!(slug(&"words ".repeat(30), 64).len(), 59);
    assert_eq!(slug("***", 64), "");
    assert_eq!(
        strip_markdown("See [the **docs**](x.md) and `code`"),
        "See the docs and code"
    );
    assert_eq!(first_sentence("Uses e.g. tabs. Then more."), "Uses e.g. tabs.");
    assert_eq!(first_sentence("No end"), "No end");
    assert_eq!(clip("one two three", 8), "one two…");
    assert!(clip(&"x".repeat(400), 300).chars().count() <= 300);
}

#[test]
fn infers_this_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let inf = infer(&root, &none).unwrap();
    let lines = outline(&inf);
    for name in [
        "graphex",
        "graphex-engine",
        "graphex-engine.store",
        "graphex-engine.proposal",
    ] {
        node(&inf, name);
    }
    assert!(
        lines.contains(&"edge graphex depends-on graphex-engine".to_owned()),
        "{lines:#?}"
    );
    assert!(inf.changes.len() <= MAX_CHANGES);
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("testkit") || l.contains("graphex-fuzz")),
        "{lines:#?}"
    );
    assert_proposable(&inf, &none);
}
