//! Another process's commits applied row by row (`delta`): a tracking
//! session ends up with exactly what a fresh open sees, at every level,
//! without reading everything again; what does not check out is read in
//! full and named.

use std::path::Path;

use super::tests::{creds, edge, new_store, node, open_at};
use super::*;
use crate::model::NodePatch;

/// What a session serves from its catalog, in a fixed order.
fn view(s: &Store) -> (Vec<String>, Vec<String>) {
    let mut nodes: Vec<String> = s.catalog().nodes().map(|n| format!("{n:?}")).collect();
    let mut edges: Vec<String> = s.catalog().edges().map(|e| format!("{e:?}")).collect();
    nodes.sort();
    edges.sort();
    (nodes, edges)
}

/// What `status` says of the index, and of the readable nodes.
type Counts = (Vec<TierCount>, Option<String>, Vec<(String, u64)>);

fn counts(s: &Store) -> Counts {
    let r = s.status().unwrap();
    let breakdown = r.by_status.into_iter().chain(r.by_type).collect();
    (r.tiers, r.last_update, breakdown)
}

/// A master's counts come from its tally of every row, not from two scans:
/// they must be the index's own, however the rows came.
fn tallied_counts_are_the_index_s(s: &Store, level: Level, what: &str) {
    let tallied = s.verified.rows_per_tier();
    assert_eq!(tallied.is_some(), level >= Level::Master, "{what}: tallied at {level}");
    if let Some(tallied) = tallied {
        assert_eq!(
            tallied,
            s.count_rows().unwrap(),
            "{what}: the tallied rows are the index's"
        );
    }
}

/// Runs `change` in a writer of its own, then checks that the tracking
/// `reader` applies it row by row and matches a fresh open, its counts too
/// (taken before the change, then moved by the rows).
fn after(root: &Path, reader: &mut Store, level: Level, what: &str, change: impl FnOnce(&mut Store)) {
    let _ = counts(reader);
    let mut writer = open_at(root, Level::Human);
    change(&mut writer);
    drop(writer);
    let loads = reader.full_loads;
    assert!(reader.refresh().unwrap(), "{what}: the commit is seen");
    assert_eq!(reader.full_loads, loads, "{what}: applied row by row, not reloaded");
    let fresh = open_at(root, level);
    assert_eq!(view(reader), view(&fresh), "{what} at {level}");
    assert_eq!(counts(reader), counts(&fresh), "{what}: status at {level}");
    tallied_counts_are_the_index_s(reader, level, what);
    tallied_counts_are_the_index_s(&fresh, level, what);
}

#[test]
fn commits_of_another_process_are_applied_row_by_row_at_every_level() {
    for level in [Level::Master, Level::Human, Level::Agent] {
        let (_dir, root) = new_store();
        let _ = creds(Level::Agent, &root);
        let mut reader = open_at(&root, level);
        reader.track_changes().unwrap();
        after(&root, &mut reader, level, "adds", |w| {
            w.add_node(node("gateway", Tier::Public, "entry")).unwrap();
            w.add_node(node("orders", Tier::AgentReadable, "orders")).unwrap();
            w.add_node(node("vault", Tier::AgentRestricted, "keys")).unwrap();
            w.add_node(node("payroll", Tier::HumanOnly, "salaries")).unwrap();
        });
        after(&root, &mut reader, level, "links", |w| {
            w.link(edge("gateway", "calls", "orders")).unwrap();
            w.link(edge("orders", "depends-on", "vault")).unwrap();
        });
        after(&root, &mut reader, level, "an update", |w| {
            let patch = NodePatch {
                description: Some("orders, second words".into()),
                ..NodePatch::default()
            };
            w.update_node("orders", &patch).unwrap();
        });
        after(&root, &mut reader, level, "a tier raise", |w| {
            let patch = NodePatch {
                tier: Some(Tier::AgentRestricted),
                ..NodePatch::default()
            };
            w.update_node("orders", &patch).unwrap();
        });
        after(&root, &mut reader, level, "an unlink", |w| {
            w.unlink("gateway", "calls", "orders").unwrap();
        });
        after(&root, &mut reader, level, "an undo that removes a node", |w| {
            w.add_node(node("scratch", Tier::Public, "to be undone")).unwrap();
            w.undo().unwrap();
        });
        // The reader's reads check against the rows it took.
        if level >= Level::Master {
            assert!(reader.node("vault").is_ok());
        }
        assert!(reader.node("gateway").is_ok());
    }
}

#[test]
fn the_sessions_own_writes_keep_it_ready_for_the_next_delta() {
    let (_dir, root) = new_store();
    let mut reader = open_at(&root, Level::Master);
    reader.track_changes().unwrap();
    reader.add_node(node("own", Tier::Public, "mine")).unwrap();
    reader
        .add_node(node("also-own", Tier::AgentRestricted, "mine"))
        .unwrap();
    let _ = counts(&reader);
    reader.link(edge("own", "calls", "also-own")).unwrap();
    assert_eq!(
        counts(&reader),
        counts(&open_at(&root, Level::Master)),
        "moved by its own commit"
    );
    tallied_counts_are_the_index_s(&reader, Level::Master, "its own commits");
    reader.add_node(node("third", Tier::Public, "mine")).unwrap();
    assert_eq!(
        counts(&reader),
        counts(&open_at(&root, Level::Master)),
        "its own node counted by type and status"
    );
    after(
        &root,
        &mut reader,
        Level::Master,
        "a commit after the session's own",
        |w| {
            w.add_node(node("theirs", Tier::AgentReadable, "another process"))
                .unwrap();
            w.link(edge("theirs", "calls", "own")).unwrap();
        },
    );
}

/// A session's own batch of many edges (sealed and counted on a helper
/// thread, never held as row keys: see `edge_fold`) leaves it with the
/// tags another process's commit then counts out: an unlink of one of those
/// edges and a tier raise that moves others are applied row by row.
#[test]
fn a_sessions_own_batch_of_edges_keeps_it_ready_for_the_next_delta() {
    let (_dir, root) = new_store();
    let mut reader = open_at(&root, Level::Human);
    reader.track_changes().unwrap();
    let loads = reader.full_loads;
    let tiers = [
        Tier::Public,
        Tier::AgentReadable,
        Tier::AgentRestricted,
        Tier::HumanOnly,
    ];
    let mut batch = Batch::default();
    for i in 0..40 {
        batch.add_node(node(&format!("n{i}"), tiers[i % 4], "batch"));
    }
    for i in 0..40 {
        for j in 0..20 {
            batch.link(edge(&format!("n{i}"), "calls", &format!("n{}", (i + j + 1) % 40)));
        }
    }
    assert!(
        batch.edge_count() > crate::parallel::MIN_PARALLEL,
        "sealed on a helper thread"
    );
    reader.apply_batch(batch, Durability::Deferred).unwrap();
    tallied_counts_are_the_index_s(&reader, Level::Human, "its own batch");
    after(&root, &mut reader, Level::Human, "an unlink of a batch edge", |w| {
        w.unlink("n0", "calls", "n1").unwrap();
    });
    after(
        &root,
        &mut reader,
        Level::Human,
        "a tier raise moving batch edges",
        |w| {
            let patch = NodePatch {
                tier: Some(Tier::HumanOnly),
                ..NodePatch::default()
            };
            w.update_node("n5", &patch).unwrap();
        },
    );
    assert_eq!(reader.full_loads, loads, "never read in full since it began to track");
}

/// A commit, then a row it wrote altered outside Graphex: the delta does
/// not check out, and the full check names the damage.
#[test]
fn a_row_altered_after_a_commit_is_named_by_the_full_check() {
    for level in [Level::Master, Level::Agent] {
        let (_dir, root) = new_store();
        let _ = creds(Level::Agent, &root);
        let mut reader = open_at(&root, level);
        reader.track_changes().unwrap();
        let mut writer = open_at(&root, Level::Master);
        writer.add_node(node("orders", Tier::AgentReadable, "orders")).unwrap();
        drop(writer);
        refused_after(&root, &mut reader, level, "UPDATE nodes SET version = version + 1");
    }
}

/// Runs `sql` on the index outside Graphex, then checks that the reader's
/// next refresh refuses it, read in full to name it.
fn refused_after(root: &Path, reader: &mut Store, level: Level, sql: &str) {
    let conn = rusqlite::Connection::open(Layout::new(root).db()).unwrap();
    assert_eq!(conn.execute(sql, []).unwrap(), 1, "{sql}");
    drop(conn);
    let loads = reader.full_loads;
    let err = reader.refresh().unwrap_err();
    assert!(matches!(err, Error::Integrity { .. }), "{level}: {err}");
    assert!(reader.full_loads > loads, "{level}: read in full to name it");
}

/// A row deleted with no timeline entry naming it, alongside a real commit:
/// the manifest still vouches for it, so the delta checks out and the
/// session goes on serving the row as it verified it; the full check it
/// runs when idle names the deletion.
#[test]
fn a_row_deleted_beside_a_commit_is_caught_by_the_idle_check() {
    let (_dir, root) = new_store();
    let mut writer = open_at(&root, Level::Master);
    writer.add_node(node("gateway", Tier::Public, "entry")).unwrap();
    writer.add_node(node("orders", Tier::Public, "orders")).unwrap();
    writer.link(edge("gateway", "calls", "orders")).unwrap();
    drop(writer);
    let mut reader = open_at(&root, Level::Master);
    reader.track_changes().unwrap();
    let mut writer = open_at(&root, Level::Master);
    writer.add_node(node("billing", Tier::Public, "bills")).unwrap();
    drop(writer);
    let conn = rusqlite::Connection::open(Layout::new(&root).db()).unwrap();
    assert_eq!(conn.execute("DELETE FROM edges", []).unwrap(), 1);
    drop(conn);
    assert!(reader.refresh().unwrap());
    assert_eq!(reader.catalog().edge_count(), 1, "still the edge it verified");
    assert!(reader.partly_checked());
    let err = reader.check_in_full().unwrap_err();
    assert!(matches!(err, Error::Integrity { .. }), "{err}");
}

/// A session keeps half of each edge row's tag; once one is counted out
/// the totals are compared by their first halves, and a row altered beside
/// the next commit is still refused (and named by the full check).
#[test]
fn after_an_edge_is_counted_out_by_half_an_altered_row_is_still_refused() {
    for level in [Level::Master, Level::Agent] {
        let (_dir, root) = new_store();
        let _ = creds(Level::Agent, &root);
        let mut writer = open_at(&root, Level::Master);
        for name in ["a", "b", "c"] {
            writer.add_node(node(name, Tier::Public, "public")).unwrap();
        }
        writer.link(edge("a", "calls", "b")).unwrap();
        writer.link(edge("a", "calls", "c")).unwrap();
        drop(writer);
        let mut reader = open_at(&root, level);
        reader.track_changes().unwrap();
        after(&root, &mut reader, level, "an unlink", |w| {
            w.unlink("a", "calls", "b").unwrap();
        });
        let totals = &reader.verified.tracked.as_ref().expect("tracking").totals;
        assert!(totals.halved, "{level}: an edge row was counted out by half its tag");
        let mut writer = open_at(&root, Level::Master);
        writer.link(edge("b", "calls", "c")).unwrap();
        drop(writer);
        refused_after(
            &root,
            &mut reader,
            level,
            "UPDATE edges SET digest = randomblob(16) WHERE seq = (SELECT MAX(seq) FROM edges)",
        );
    }
}

/// An edge row altered outside Graphex after the session verified it (no
/// commit: the session has not looked again) is refused by the session's
/// next commit that would replace it, not folded out of the seal.
#[test]
fn a_commit_refuses_an_edge_row_altered_since_the_session_verified_it() {
    let (_dir, root) = new_store();
    let mut writer = open_at(&root, Level::Master);
    for name in ["a", "b"] {
        writer.add_node(node(name, Tier::Public, "public")).unwrap();
    }
    writer.link(edge("a", "calls", "b")).unwrap();
    drop(writer);
    let mut session = open_at(&root, Level::Master);
    session.track_changes().unwrap();
    let conn = rusqlite::Connection::open(Layout::new(&root).db()).unwrap();
    assert_eq!(conn.execute("UPDATE edges SET digest = randomblob(16)", []).unwrap(), 1);
    drop(conn);
    let err = session.unlink("a", "calls", "b").unwrap_err();
    assert!(
        matches!(&err, Error::Integrity { what, .. } if what.starts_with("edge ")),
        "{err:?}"
    );
}

#[test]
fn halves_compare_only_once_halved() {
    let a = [7u8; 32];
    let mut b = a;
    b[31] ^= 1;
    assert!(!super::tracked::same_acc(&a, &b, false));
    assert!(super::tracked::same_acc(&a, &b, true));
    b[0] ^= 1;
    assert!(!super::tracked::same_acc(&a, &b, true));
}

/// A write that moved no commit is never applied row by row.
#[test]
fn a_write_without_a_commit_is_read_in_full() {
    let (_dir, root) = new_store();
    let mut writer = open_at(&root, Level::Master);
    writer.add_node(node("gateway", Tier::Public, "entry")).unwrap();
    drop(writer);
    let mut reader = open_at(&root, Level::Master);
    reader.track_changes().unwrap();
    let conn = rusqlite::Connection::open(Layout::new(&root).db()).unwrap();
    conn.execute("UPDATE nodes SET version = version + 1", []).unwrap();
    drop(conn);
    let loads = reader.full_loads;
    assert!(reader.refresh().is_err());
    assert_eq!(reader.full_loads, loads + 1);
}

#[test]
fn another_process_s_batch_and_its_undo_are_applied_row_by_row_from_packed_rows() {
    let (_dir, root) = new_store();
    let mut reader = open_at(&root, Level::Human);
    reader.track_changes().unwrap();
    let mut batch = Batch::default();
    for i in 0..12 {
        batch.add_node(node(&format!("b{i}"), Tier::AgentReadable, "batch"));
    }
    for i in 0..11 {
        batch.link(edge(&format!("b{i}"), "calls", &format!("b{}", i + 1)));
    }
    after(&root, &mut reader, Level::Human, "a batch", |w| {
        w.apply_batch(batch, Durability::Deferred).unwrap();
    });
    // The undo's rows name what it removed, packed as the batch's were:
    // the session finds them there, or it would read everything again.
    after(&root, &mut reader, Level::Human, "the batch undone", |w| {
        w.undo().unwrap();
    });
    let packed: i64 = reader
        .conn
        .query_row(
            "SELECT COUNT(*) FROM timeline WHERE length(node_id) > 16 OR length(edge_id) > 16",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(packed >= 3, "the batch's two packed rows and the undo's: {packed}");
    assert_eq!(reader.catalog().nodes().count(), 0);
}
