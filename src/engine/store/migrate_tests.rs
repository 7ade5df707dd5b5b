//! A store an older version laid out (schema v9): read, written and checked
//! as it is by every open, then laid out as v10 by `migrate` with every row
//! kept, and everything read, undone and checked as before.

use std::path::Path;

use super::tests::{creds, edge, new_store, node, open_at};
use super::*;
use crate::model::{NodePatch, Tier};

/// How schema v9 laid a store out (shared with the CLI's tests).
const V9_LAYOUT: &str = include_str!("testdata/v9_layout.sql");

fn raw(root: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(Layout::new(root).db()).unwrap()
}

fn version(root: &Path) -> u32 {
    raw(root)
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap()
}

/// Every row of every table the layout touches, and those the seal covers,
/// as text in a stable order.
fn rows(root: &Path) -> Vec<String> {
    let conn = raw(root);
    let tables = [
        "nodes",
        "node_versions",
        "edges",
        "timeline",
        "unlinked",
        "manifest",
        "seal",
        "decisions",
        "meta",
    ];
    tables
        .iter()
        .flat_map(|t| {
            let mut stmt = conn.prepare(&format!("SELECT * FROM {t} ORDER BY 1, 2")).unwrap();
            let n = stmt.column_count();
            stmt.query_map([], |r| {
                let cells: Vec<String> = (0..n).map(|i| format!("{:?}", r.get_ref(i).unwrap())).collect();
                Ok(format!("{t}: {}", cells.join(", ")))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect::<Vec<_>>()
        })
        .collect()
}

/// What a reader sees: every node and edge it reads, the timeline and one
/// node's history.
fn seen(root: &Path, level: Level) -> String {
    let s = open_at(root, level);
    let mut nodes: Vec<String> = s.catalog().nodes().map(|n| format!("{} {}", n.name, n.tier)).collect();
    nodes.sort();
    let mut edges: Vec<String> = s.catalog().edges().map(|e| s.describe_edge(e)).collect();
    edges.sort();
    let timeline = serde_json::to_string(&s.timeline(100).unwrap()).unwrap();
    let history = serde_json::to_string(&s.history("a").unwrap()).unwrap();
    format!("{nodes:?}\n{edges:?}\n{timeline}\n{history}")
}

/// A store of every tier with history, an unlinked edge and an update,
/// laid out as v9 did.
fn v9_store() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = new_store();
    assert_eq!(version(&root), SCHEMA_VERSION, "a new store is made at today's schema");
    raw(&root).execute_batch(super::schema_v10::V10_EMPTY).unwrap();
    let _ = creds(Level::Agent, &root);
    let mut s = open_at(&root, Level::Human);
    for (name, tier) in [
        ("a", Tier::Public),
        ("b", Tier::AgentReadable),
        ("c", Tier::AgentRestricted),
        ("h", Tier::HumanOnly),
    ] {
        s.add_node(node(name, tier, &format!("{name} words"))).unwrap();
    }
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "h"), ("a", "c")] {
        s.link(edge(from, "uses", to)).unwrap();
    }
    s.unlink("a", "uses", "c").unwrap();
    let patch = NodePatch {
        description: Some("a words, again".into()),
        ..NodePatch::default()
    };
    s.update_node("a", &patch).unwrap();
    drop(s);
    raw(&root).execute_batch(V9_LAYOUT).unwrap();
    assert_eq!(version(&root), UNMIGRATED_SCHEMA);
    (dir, root)
}

#[test]
fn a_v9_store_is_read_written_and_checked_as_it_is() {
    let (_dir, root) = v9_store();
    let mut s = open_at(&root, Level::Master);
    s.add_node(node("d", Tier::AgentReadable, "d words")).unwrap();
    s.link(edge("d", "uses", "a")).unwrap();
    let mut batch = Batch::default();
    // More rows than a slice a v9 commit inserts at a time (8 in tests).
    for i in 1..=12 {
        batch.add_node(node(&format!("e{i}"), Tier::AgentReadable, "batch"));
    }
    s.apply_batch(batch, Durability::Deferred).unwrap();
    // A v9 store is never packed: an older graphex reads every row it holds.
    let packed: i64 = raw(&root)
        .query_row("SELECT COUNT(*) FROM timeline WHERE length(node_id) > 16", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(packed, 0);
    let commit = i64::try_from(schema::commit_seq(&s.conn).unwrap()).unwrap();
    assert_eq!(s.commit_rows(commit).unwrap().len(), 12);
    s.check_timeline_sealed().unwrap();
    assert_eq!(s.history("e9").unwrap()[0].action.as_deref(), Some("add"));
    drop(s);
    assert_eq!(version(&root), UNMIGRATED_SCHEMA, "no open or write lays it out anew");
    let agent = seen(&root, Level::Agent);
    assert!(
        agent.starts_with(r#"["a public", "b agent-readable", "d agent-readable", "e1 agent-readable", "e10"#),
        "{agent}"
    );
    assert!(agent.contains(r#"["a -> uses -> b", "d -> uses -> a"]"#), "{agent}");
    // A history row cut from before another of its commit: the other's
    // origin is refused, not shown (found without counting the commit).
    let commit: i64 = raw(&root)
        .query_row("SELECT MAX(commit_seq) FROM timeline WHERE action = 'add'", [], |r| {
            r.get(0)
        })
        .unwrap();
    raw(&root)
        .execute(
            "DELETE FROM timeline WHERE seq = (SELECT MIN(seq) FROM timeline WHERE commit_seq = ?1)",
            [commit],
        )
        .unwrap();
    let refused = open_at(&root, Level::Master).history("e9").unwrap_err();
    assert!(matches!(refused, Error::Integrity { .. }), "{refused}");
    // Its rows are as protected as ever: a deleted edge row is refused.
    raw(&root)
        .execute("DELETE FROM edges WHERE rowid = (SELECT MAX(rowid) FROM edges)", [])
        .unwrap();
    assert!(matches!(
        Store::open(&root, &creds(Level::Master, &root)),
        Err(Error::Integrity { .. })
    ));
}

#[test]
fn migrate_lays_a_v9_store_out_as_v10_keeping_every_row_and_what_each_reader_sees() {
    let (_dir, root) = v9_store();
    let levels = [Level::Agent, Level::Master, Level::Human];
    let before: Vec<String> = levels.iter().map(|l| seen(&root, *l)).collect();
    let rows_before = rows(&root);

    let mut s = open_at(&root, Level::Master);
    let dry = s.migrate(true).unwrap();
    assert!(dry.index_relaid && dry.dry_run, "{dry:?}");
    assert_eq!(
        (dry.schema, dry.index_bytes_after),
        (UNMIGRATED_SCHEMA, dry.index_bytes_before)
    );
    assert_eq!(version(&root), UNMIGRATED_SCHEMA, "a dry run changes nothing");
    let done = s.migrate(false).unwrap();
    assert!(done.index_relaid && !done.dry_run, "{done:?}");
    // The master lays it out; grouping the edges needs every tier's key.
    assert_eq!(
        (done.schema, done.edge_groups, done.groups_need_human),
        (LEAN_SCHEMA, 0, true)
    );
    let again = s.migrate(false).unwrap();
    assert!(
        again.nothing_to_do() && again.groups_need_human,
        "a second run has nothing to do: {again:?}"
    );
    drop(s);

    assert_eq!(version(&root), LEAN_SCHEMA);
    assert_eq!(rows(&root), rows_before, "every row kept as it was");
    let after: Vec<String> = levels.iter().map(|l| seen(&root, *l)).collect();
    assert_eq!(after, before);
    let no_rowid = raw(&root).prepare("SELECT rowid FROM edges").map(|_| ());
    assert!(no_rowid.is_err(), "edges are keyed by their id alone");

    // The human groups the edges: one row per source and tier, each reader
    // seeing what it saw.
    let mut s = open_at(&root, Level::Human);
    let dry = s.migrate(true).unwrap();
    assert_eq!((dry.edge_groups, version(&root)), (3, LEAN_SCHEMA), "{dry:?}");
    let done = s.migrate(false).unwrap();
    assert_eq!(
        (done.schema, done.edge_groups, done.groups_need_human),
        (SCHEMA_VERSION, 3, false)
    );
    assert!(s.migrate(false).unwrap().nothing_to_do());
    drop(s);
    let grouped: Vec<String> = levels.iter().map(|l| seen(&root, *l)).collect();
    assert_eq!(grouped, before);
    let tokens: Vec<i64> = raw(&root)
        .prepare("SELECT length(token) FROM edges ORDER BY 1")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    // Blob names are kept as their 32 bytes, and read as the same text.
    let text_names: i64 = raw(&root)
        .query_row(
            "SELECT (SELECT COUNT(*) FROM nodes WHERE typeof(blob) != 'blob') \
             + (SELECT COUNT(*) FROM node_versions WHERE typeof(blob) != 'blob')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(text_names, 0);
    let one = i64::try_from(edge_groups::TOKEN).unwrap();
    assert_eq!(tokens, [one, one, one], "three groups of one edge, one token each");

    // Written, undone and checked on the new layout.
    let mut s = open_at(&root, Level::Master);
    s.link(edge("b", "calls", "a")).unwrap();
    s.undo().unwrap();
    drop(s);
    assert_eq!(seen(&root, Level::Master).lines().next(), before[1].lines().next());
    raw(&root)
        .execute("DELETE FROM edges WHERE id = (SELECT MAX(id) FROM edges)", [])
        .unwrap();
    assert!(matches!(
        Store::open(&root, &creds(Level::Master, &root)),
        Err(Error::Integrity { .. })
    ));
}

#[test]
fn only_the_master_migrates() {
    let (_dir, root) = v9_store();
    let mut agent = open_at(&root, Level::Agent);
    assert!(agent.migrate(false).is_err());
    drop(agent);
    assert_eq!(version(&root), UNMIGRATED_SCHEMA);
}
