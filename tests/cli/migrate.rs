//! A store whose blobs an older version kept flat in `.gpp/objects/`:
//! read as it is, reported by `doctor`, fanned out by `graphex migrate`
//! (which says what it moves) or by the next write.

use std::path::Path;

use crate::harness::Repo;

/// Moves every blob back to `objects/HASH`, as an older version kept them;
/// returns how many.
fn flatten(root: &Path) -> usize {
    let objects = root.join(".gpp/objects");
    let mut n = 0;
    for sub in std::fs::read_dir(&objects).unwrap() {
        let sub = sub.unwrap().path();
        if !sub.is_dir() {
            continue;
        }
        let prefix = sub.file_name().unwrap().to_string_lossy().into_owned();
        for blob in std::fs::read_dir(&sub).unwrap() {
            let blob = blob.unwrap().path();
            let rest = blob.file_name().unwrap().to_string_lossy().into_owned();
            std::fs::rename(&blob, objects.join(format!("{prefix}{rest}"))).unwrap();
            n += 1;
        }
        std::fs::remove_dir(&sub).unwrap();
    }
    n
}

/// Blob files directly in `objects/`, and in its fan-out directories.
fn layout(root: &Path) -> (usize, usize) {
    let objects = root.join(".gpp/objects");
    let (mut flat, mut fanned) = (0, 0);
    for e in std::fs::read_dir(&objects).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            assert_eq!(name.len(), 2, "{name}");
            for inner in std::fs::read_dir(&p).unwrap() {
                let rest = inner.unwrap().file_name().to_string_lossy().into_owned();
                assert_eq!(rest.len(), 62, "{name}/{rest}");
                fanned += 1;
            }
        } else if name.len() == 64 {
            flat += 1;
        }
    }
    (flat, fanned)
}

/// What `doctor` says of the blob layout (the test's weak KDF is a finding
/// of its own, so its exit status is not this check's).
fn doctor_says(repo: &Repo) -> String {
    let out = repo.master().args(["doctor", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let blobs = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "blobs present")
        .unwrap();
    assert_eq!(blobs["outcome"], "ok", "{blobs}");
    let c = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "blob layout")
        .unwrap();
    assert_eq!(c["outcome"], "ok", "{c}");
    c["detail"].as_str().unwrap().to_owned()
}

/// Adds a service named each of `names`, described as "NAME words".
fn add_services(repo: &Repo, names: &[&str]) {
    for name in names {
        repo.ok(&[
            "add",
            "--type",
            "service",
            "--name",
            name,
            "-d",
            &format!("{name} words"),
        ]);
    }
}

#[test]
fn an_older_flat_store_is_read_then_fanned_out_by_migrate_or_the_next_write() {
    let repo = Repo::new();
    add_services(&repo, &["orders", "billing", "auth"]);
    repo.ok(&["update", "orders", "-d", "orders words, again"]);
    let (flat, fanned) = layout(repo.root());
    assert_eq!(flat, 0, "new blobs are fanned out");
    assert!(fanned >= 4, "{fanned}");
    let n = flatten(repo.root());
    assert_eq!(layout(repo.root()), (n, 0));

    // Read as it is; doctor says so and what moves it.
    assert!(repo.ok(&["show", "orders"]).contains("orders words, again"));
    let said = doctor_says(&repo);
    assert!(
        said.contains(&format!("{n} of {n} blob file(s) are still flat")),
        "{said}"
    );
    assert!(said.contains("graphex migrate"), "{said}");

    let dry = repo.json(repo.master(), &["migrate", "--dry-run", "--json"]);
    assert_eq!(dry["blobs_fanned_out"], n);
    assert_eq!(dry["dry_run"], true);
    assert_eq!(layout(repo.root()), (n, 0), "a dry run moves nothing");
    let text = repo.ok(&["migrate"]);
    assert!(text.contains(&format!("moved {n} blob file(s)")), "{text}");
    assert_eq!(layout(repo.root()), (0, n));
    assert!(doctor_says(&repo).contains(&format!("{n} blob file(s), fanned out")));
    assert!(repo.ok(&["migrate"]).contains("nothing to migrate"));
    repo.locked()
        .args(["migrate"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("master"));

    // Flat again: the next write moves them all, beside its own blob.
    flatten(repo.root());
    repo.ok(&["add", "--type", "service", "--name", "payments", "-d", "payments words"]);
    assert_eq!(layout(repo.root()), (0, n + 1));
    for name in ["orders", "billing", "auth", "payments"] {
        assert!(repo.ok(&["show", name]).contains(&format!("{name} words")));
    }
    assert!(
        repo.ok(&["history", "orders"]).contains("orders words"),
        "old versions too"
    );
}

/// How schema v9 laid a store out (the engine's tests use the same script).
const V9_LAYOUT: &str = include_str!("../../src/engine/store/testdata/v9_layout.sql");
/// A new store laid out as v10 made it, before any edge (one edge a row).
const V10_EMPTY: &str = include_str!("../../src/engine/store/testdata/v10_empty.sql");

/// The store's schema, and what `doctor` says of it.
fn schema_of(repo: &Repo) -> (u32, String) {
    let conn = rusqlite::Connection::open(repo.root().join(".gpp/graphex/graph.db")).unwrap();
    let version = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
    // (The test's weak KDF is a finding of its own: the exit status is not this check's.)
    let out = repo.master().args(["doctor", "--json"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (outcome, detail) = crate::doctor::outcome(&report, "schema");
    assert_eq!(outcome, "ok", "{detail}");
    (version, detail.to_owned())
}

#[test]
fn a_v9_index_is_laid_out_as_v10_then_grouped_by_migrate_only_and_reads_the_same() {
    let repo = Repo::new();
    let (version, said) = schema_of(&repo);
    assert_eq!(version, 11, "a new store holds its edges in groups: {said}");
    let conn = rusqlite::Connection::open(repo.root().join(".gpp/graphex/graph.db")).unwrap();
    conn.execute_batch(V10_EMPTY).unwrap();
    add_services(&repo, &["orders", "billing"]);
    repo.ok(&["link", "orders", "uses", "billing"]);
    conn.execute_batch(V9_LAYOUT).unwrap();
    drop(conn);
    let shown = repo.ok(&["show", "orders"]);

    // A write leaves the older layout as it is; doctor says what lays it out.
    repo.ok(&["add", "--type", "service", "--name", "auth", "-d", "auth words"]);
    let (version, said) = schema_of(&repo);
    assert_eq!(version, 9);
    assert!(said.contains("`graphex migrate` lays it out as v10"), "{said}");
    assert!(
        repo.ok(&["status"]).contains("schema  v9"),
        "status names the store's own schema"
    );

    let dry = repo.json(repo.master(), &["migrate", "--dry-run", "--json"]);
    assert_eq!(
        (dry["index_relaid"].as_bool(), dry["schema"].as_u64()),
        (Some(true), Some(9))
    );
    assert_eq!(schema_of(&repo).0, 9, "a dry run changes nothing");
    let text = repo.ok(&["migrate"]);
    assert!(text.contains("laid graph.db out as schema v10: "), "{text}");
    assert!(text.contains("checked against the seal"), "{text}");
    assert!(
        text.contains("needs every tier's key"),
        "the master cannot group: {text}"
    );
    assert!(!text.contains("blob file"), "no blob moved: {text}");
    let (version, said) = schema_of(&repo);
    assert_eq!(version, 10, "{said}");
    assert!(said.contains("at the human level holds the edges in groups"), "{said}");
    let again = repo.ok(&["migrate"]);
    assert!(
        again.contains("nothing to migrate at this level") && again.contains("--unlock human"),
        "{again}"
    );
    assert_eq!(repo.ok(&["show", "orders"]), shown);

    // The human groups the edges.
    let dry = repo.json(repo.human(), &["migrate", "--dry-run", "--json"]);
    assert_eq!(dry["edge_groups"].as_u64(), Some(1), "{dry}");
    let out = repo.human().args(["migrate"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("held the edges in 1 group(s): graph.db at schema v11"),
        "{text}"
    );
    assert!(!text.contains("without its free pages"), "said once: {text}");
    let (version, said) = schema_of(&repo);
    assert_eq!(version, 11, "{said}");
    assert!(
        repo.ok(&["migrate"])
            .contains("nothing to migrate: the store is in today's layout")
    );
    assert_eq!(repo.ok(&["show", "orders"]), shown);
    let out = repo.ok(&["query", "orders -> uses -> *"]);
    assert!(out.contains("billing"), "{out}");

    // A version number set back by hand does not match the layout: named.
    for (set, laid) in [(9, 11), (10, 11)] {
        let conn = rusqlite::Connection::open(repo.root().join(".gpp/graphex/graph.db")).unwrap();
        conn.pragma_update(None, "user_version", set).unwrap();
        drop(conn);
        let out = repo.master().args(["doctor", "--json"]).output().unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let (outcome, detail) = crate::doctor::outcome(&report, "schema");
        assert_eq!(outcome, "finding", "{detail}");
        assert!(
            detail.contains(&format!("says v{set} but is laid out as v{laid}")),
            "{detail}"
        );
    }
}
