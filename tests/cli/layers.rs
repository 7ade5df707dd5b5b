//! Layers point one way (the map in docs/development.md): the store imports nothing of
//! the operations above it, the key layer nothing of proposals or the
//! store, `config` nothing of projection or the store, and the console
//! nothing of the command line. Read from the source itself, so a new
//! import in the wrong direction fails here before review.

use std::path::{Path, PathBuf};

fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out
}

/// Test files are not part of a layer: they may reach anywhere.
fn is_test(path: &Path) -> bool {
    let name = path.file_name().unwrap().to_string_lossy();
    name == "tests.rs" || name.ends_with("_tests.rs") || name == "testkit.rs"
}

/// The files under `dir` (tests aside) that name any of `forbidden`.
fn offenders(dir: &str, forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let files = if root.is_file() { vec![root] } else { sources(&root) };
    let mut found = Vec::new();
    for path in files.into_iter().filter(|p| !is_test(p)) {
        let text = std::fs::read_to_string(&path).unwrap();
        for name in forbidden {
            let named = text.match_indices(name).any(|(i, _)| {
                // A whole path segment: `crate::query` but not `crate::query_history`.
                !text[i + name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            });
            if named {
                found.push(format!("{} names {name}", path.display()));
            }
        }
    }
    found
}

#[test]
fn layers_point_one_way() {
    let store_above = [
        "crate::proposal",
        "crate::audit",
        "crate::doctor",
        "crate::query",
        "crate::traverse",
        "crate::federation",
        "crate::project",
        "crate::interchange",
        "crate::synth",
        "crate::merge",
        "crate::rotate",
        "crate::rollback",
        "crate::as_of",
    ];
    let mut wrong = offenders("src/engine/store", &store_above);
    wrong.extend(offenders("src/engine/keys", &["crate::proposal", "crate::store"]));
    wrong.extend(offenders("src/engine/config.rs", &["crate::project", "crate::store"]));
    wrong.extend(offenders("src/app", &["crate::cli"]));
    // The store's row-level primitives (`store::kit`) are for the operations
    // that rewrite the index whole (a merge, a key rotation); every other
    // operation uses the store's API.
    let internals = [
        "store::kit",
        "store::rowmac",
        "store::manifest",
        "store::seal",
        "store::seal_log",
        "store::seal_timeline",
        "store::schema",
        "store::rotate",
        "store::audit_chain",
        "store::audit_merge",
        "store::merge_conflicts",
    ];
    for dir in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine")).unwrap() {
        let path = dir.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !["store", "merge", "rotate.rs"].contains(&name.as_str()) {
            wrong.extend(offenders(&format!("src/engine/{name}"), &internals));
        }
    }
    assert!(wrong.is_empty(), "imports against the layers:\n{}", wrong.join("\n"));
}

#[test]
fn the_layer_check_can_fail() {
    // The check itself finds what it looks for.
    let found = offenders("src/cli", &["crate::shared"]);
    assert!(
        !found.is_empty(),
        "the CLI uses the shared module, so this must find it"
    );
    assert!(offenders("src/engine/store", &["crate::nothing_is_named_this"]).is_empty());
}
