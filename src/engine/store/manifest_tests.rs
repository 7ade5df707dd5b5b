//! The manifest: rows rolled back, deleted or relabelled in the index are
//! refused at open, by every session holding the key of their group, and a
//! row changed under an open session is refused when read.

use std::path::Path;

use super::manifest::digest;
use super::tests::{creds, new_store};
use super::*;
use crate::model::{Name, NewEdge, NewNode, NodePatch, NodeType, Relation};

fn node(name: &str, tier: Tier) -> NewNode {
    NewNode::new(
        Name::new(name).unwrap(),
        NodeType::new("service").unwrap(),
        format!("{name} v1"),
        tier,
    )
}

/// Two nodes linked, `a` updated once: its row's version 1 and 2 both exist.
fn store_with_history(tier: Tier) -> (tempfile::TempDir, std::path::PathBuf, OldRow) {
    let (dir, root) = new_store();
    // The agent's identity file, exported while the store is sound.
    let _ = creds(Level::Agent, &root);
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    s.add_node(node("a", tier)).unwrap();
    s.add_node(node("b", tier)).unwrap();
    s.link(NewEdge::new(
        Name::new("a").unwrap(),
        Relation::new("uses").unwrap(),
        Name::new("b").unwrap(),
    ))
    .unwrap();
    let old = row_of(&root, "a", &s);
    let patch = NodePatch {
        description: Some("a v2".into()),
        ..NodePatch::default()
    };
    s.update_node("a", &patch).unwrap();
    (dir, root, old)
}

/// The (version, blob, summary, digest) of a node's index row.
type OldRow = (i64, rusqlite::types::Value, Vec<u8>, Vec<u8>);

/// Node `name`'s index row as it is now.
fn row_of(root: &Path, name: &str, s: &Store) -> OldRow {
    let id = s.summary(name).unwrap().id;
    let conn = rusqlite::Connection::open(Layout::new(root).db()).unwrap();
    conn.query_row(
        "SELECT version, blob, summary, digest FROM nodes WHERE id = ?1",
        [id.as_bytes().as_slice()],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )
    .unwrap()
}

/// Puts node `id`'s older row back, consistently: AEAD alone accepts it.
fn roll_back(root: &Path, id: &crate::model::NodeId, old: &OldRow) {
    let (version, blob, summary, digest) = old;
    sql(
        root,
        "UPDATE nodes SET version = ?2, blob = ?3, summary = ?4, digest = ?5 WHERE id = ?1",
        rusqlite::params![id.as_bytes().as_slice(), version, blob, summary, digest],
    );
}

fn sql(root: &Path, statement: &str, args: impl rusqlite::Params) {
    let conn = rusqlite::Connection::open(Layout::new(root).db()).unwrap();
    conn.execute(statement, args).unwrap();
}

fn integrity_error(root: &Path, level: Level) -> String {
    match Store::open(root, &creds(level, root)) {
        Err(e @ Error::Integrity { .. }) => e.to_string(),
        other => panic!("{level}: expected an integrity error, got {other:?}"),
    }
}

#[test]
fn a_row_rolled_back_to_its_older_consistent_version_is_refused() {
    let (_dir, root, old) = store_with_history(Tier::AgentReadable);
    // Before: the store opens and serves v2.
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert_eq!(s.node("a").unwrap().description, "a v2");
    let id = s.summary("a").unwrap().id;
    drop(s);
    roll_back(&root, &id, &old);
    // The master compares every row with its own seal's tags.
    let msg = integrity_error(&root, Level::Master);
    assert!(msg.contains("master's seal"), "{msg}");
    // The agent, holding only the agent-readable key, sees it too, through
    // the manifest.
    let msg = integrity_error(&root, Level::Agent);
    assert!(msg.contains("rolled back"), "{msg}");
}

#[test]
fn deleted_node_and_edge_rows_are_refused() {
    for statement in [
        "DELETE FROM nodes WHERE id = (SELECT id FROM nodes ORDER BY seq DESC, id DESC LIMIT 1)",
        "DELETE FROM edges",
    ] {
        let (_dir, root, _) = store_with_history(Tier::AgentRestricted);
        sql(&root, statement, []);
        let msg = integrity_error(&root, Level::Master);
        assert!(msg.contains("deleted"), "{statement}: {msg}");
        // The agent cannot key the restricted group: it opens, and still
        // never sees restricted content.
        Store::open(&root, &creds(Level::Agent, &root)).unwrap();
    }
}

#[test]
fn a_forged_manifest_entry_is_refused() {
    let (_dir, root, _) = store_with_history(Tier::Public);
    sql(&root, "UPDATE manifest SET count = count + 1", []);
    let msg = integrity_error(&root, Level::Master);
    assert!(msg.contains("MAC"), "{msg}");
}

#[test]
fn a_public_row_is_covered_by_a_key_outsiders_do_not_hold() {
    // Public blobs are sealed with a key in the clear: anyone can write one.
    // Rolling a public row back is still caught at the agent and master levels.
    let (_dir, root, old) = store_with_history(Tier::Public);
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let id = s.summary("a").unwrap().id;
    drop(s);
    roll_back(&root, &id, &old);
    integrity_error(&root, Level::Agent);
    integrity_error(&root, Level::Master);
}

#[test]
fn a_row_changed_under_an_open_session_is_refused_on_read() {
    let (_dir, root, old) = store_with_history(Tier::AgentReadable);
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let id = s.summary("a").unwrap().id;
    roll_back(&root, &id, &old);
    let err = s.node("a").unwrap_err();
    assert!(err.to_string().contains("not the one the manifest verified"), "{err}");
}

#[test]
fn writes_keep_the_manifest_in_step() {
    let (_dir, root, _) = store_with_history(Tier::AgentReadable);
    let mut s = Store::open(&root, &creds(Level::Human, &root)).unwrap();
    // A tier raise moves a node and its edge between groups.
    let patch = NodePatch {
        tier: Some(Tier::HumanOnly),
        ..NodePatch::default()
    };
    s.update_node("b", &patch).unwrap();
    s.add_node(node("c", Tier::AgentRestricted)).unwrap();
    drop(s);
    for level in [Level::Agent, Level::Master, Level::Human] {
        Store::open(&root, &creds(level, &root)).unwrap();
    }
}

/// The public tier's key is in the clear: a locked session holds it, as
/// anyone with the repository does.
fn public_forger(root: &Path) -> Store {
    Store::open(root, &creds(Level::Locked, root)).unwrap()
}

#[test]
fn a_public_summary_or_edge_sealed_by_an_outsider_is_refused() {
    for what in ["summary", "edge"] {
        let (_dir, root, _) = store_with_history(Tier::Public);
        let forger = public_forger(&root);
        let (statement, target, forged) = if what == "summary" {
            let mut f = forger.summary("a").unwrap().clone();
            f.description = "forged by an outsider".into();
            let sealed = codec::seal_summary(&forger.keys, &f).unwrap();
            (
                "UPDATE nodes SET summary = ?2 WHERE id = ?1",
                f.id.as_bytes().to_vec(),
                sealed,
            )
        } else {
            // The group of a public edge, sealed again with one edge changed.
            let first = forger.catalog().edges().next().unwrap().clone();
            let mut group: Vec<crate::model::Edge> = forger
                .catalog()
                .outgoing(&first.from)
                .filter(|e| e.tier == first.tier)
                .cloned()
                .collect();
            group.sort_by_key(|e| e.id);
            group[0].relation = Relation::new("supersedes").unwrap();
            let id: Vec<u8> = forger
                .conn
                .query_row("SELECT id FROM edges WHERE tier = ?1", [first.tier.code()], |r| {
                    r.get(0)
                })
                .unwrap();
            let gid: [u8; 16] = id.as_slice().try_into().unwrap();
            let refs: Vec<&crate::model::Edge> = group.iter().collect();
            let sealed = codec::seal_edge_group(&forger.keys, &gid, first.tier, &first.from, &refs).unwrap();
            ("UPDATE edges SET sealed = ?2 WHERE id = ?1", id, sealed)
        };
        drop(forger);
        sql(&root, statement, rusqlite::params![target, forged]);
        // The record no longer matches its row's digest: every session refuses it.
        for level in [Level::Locked, Level::Agent, Level::Master] {
            integrity_error(&root, level);
        }
        // With the digest changed too, the manifest (keyed) catches it.
        let digest_update = statement
            .replace("summary = ?2", "digest = ?2")
            .replace("sealed = ?2", "digest = ?2");
        sql(
            &root,
            &digest_update,
            rusqlite::params![target, digest(&forged).to_vec()],
        );
        let msg = integrity_error(&root, Level::Master);
        assert!(msg.contains("master's seal"), "{what}: {msg}");
        let msg = integrity_error(&root, Level::Agent);
        assert!(msg.contains("manifest"), "{what}: {msg}");
    }
}

#[test]
fn a_public_snapshot_sealed_by_an_outsider_is_refused() {
    let (_dir, root, _) = store_with_history(Tier::Public);
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    s.refresh_snapshots(true).unwrap();
    drop(s);
    let forger = public_forger(&root);
    let (seq, _): (i64, String) = forger
        .conn
        .query_row("SELECT seq, blob FROM snapshots WHERE tier = 0", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    let mut nodes: Vec<_> = forger.catalog().nodes().cloned().collect();
    for n in &mut nodes {
        n.description = "forged by an outsider".into();
    }
    let edges: Vec<_> = forger.catalog().edges().cloned().collect();
    let sealed = codec::seal_snapshot(&forger.keys, Tier::Public, seq as u64, nodes.iter(), edges.iter()).unwrap();
    let hash = forger.objects.write(&sealed, Durability::Sync).unwrap();
    drop(forger);
    sql(&root, "UPDATE snapshots SET blob = ?1 WHERE tier = 0", [hash]);
    let msg = integrity_error(&root, Level::Master);
    assert!(msg.contains("snapshot"), "{msg}");
    integrity_error(&root, Level::Agent);
}

#[test]
fn a_group_deleted_with_its_manifest_entry_is_refused() {
    let (_dir, root, _) = store_with_history(Tier::AgentRestricted);
    for statement in [
        "DELETE FROM edges WHERE tier = 2",
        "DELETE FROM nodes WHERE tier = 2",
        "DELETE FROM manifest WHERE grp = 2",
    ] {
        sql(&root, statement, []);
    }
    let msg = integrity_error(&root, Level::Master);
    assert!(msg.contains("missing"), "{msg}");
}

#[test]
fn an_index_file_swapped_under_an_open_session_is_refused() {
    let (_dir, root, _) = store_with_history(Tier::AgentReadable);
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let db = Layout::new(&root).db();
    let copy = db.with_extension("copy");
    std::fs::copy(&db, &copy).unwrap();
    std::fs::rename(&copy, &db).unwrap();
    let Err(err) = s.load_catalog(true) else {
        panic!("a swapped index file was read")
    };
    assert!(err.to_string().contains("replaced"), "{err}");
}

#[test]
fn a_commit_keeps_the_last_row_written_for_each_id_in_order() {
    use super::manifest::{RowKey, last_per_row};
    let (a, b) = (NodeId::generate(), NodeId::generate());
    let e = crate::model::EdgeId::generate();
    let node = |id: NodeId, version: u64| RowKey::Node {
        id,
        tier: Tier::Public,
        version,
        blob: format!("{version}").into(),
        digest: [0; 16],
        token: super::manifest::RowToken::absent(),
    };
    let edge = |seq: u64| RowKey::Edge {
        id: e,
        tier: Tier::Public,
        seq,
        digest: [0; 16],
        token: super::manifest::RowToken::absent(),
        edges: 1,
        grouped: false,
    };
    let kept = last_per_row(vec![node(a, 1), edge(1), node(b, 1), node(a, 2), edge(2)]);
    assert_eq!(kept, vec![node(b, 1), node(a, 2), edge(2)]);
}

#[test]
fn a_row_keys_inline_token_tags_as_its_column_does() {
    use super::manifest::{RowKey, RowToken};
    use super::seal::SealTagger;
    let seal = SealTagger::new(&crate::crypto::SymmetricKey::from_bytes([3; 32]));
    let (id, e) = (NodeId::generate(), crate::model::EdgeId::generate());
    let blob = "ab".repeat(32);
    // A token as Graphex writes it, none, and columns it never writes.
    let columns: [&[u8]; 5] = [&[7; 32], &[], &[7; 31], &[7; 33], &[0; 32]];
    let mut tags = Vec::new();
    for raw in columns {
        let token = RowToken::of(raw);
        let node = RowKey::Node {
            id,
            tier: Tier::AgentReadable,
            version: 2,
            blob: blob.as_str().into(),
            digest: [5; 16],
            token,
        };
        let edge = RowKey::Edge {
            id: e,
            tier: Tier::HumanOnly,
            seq: 3,
            digest: [6; 16],
            token,
            edges: 1,
            grouped: false,
        };
        let by_column = seal.node(&id, Tier::AgentReadable, 2, &blob, &[5; 16], raw);
        assert_eq!(seal.row(&node), by_column, "node row, a {}-byte token", raw.len());
        assert_eq!(seal.row(&edge), seal.edge(&e, Tier::HumanOnly, 3, &[6; 16], raw, false));
        tags.push(by_column);
    }
    assert_eq!(RowToken::absent(), RowToken::of(&[]), "no token is an empty column");
    tags.sort_unstable();
    tags.dedup();
    assert_eq!(tags.len(), columns.len(), "every column has a tag of its own");
    // A bulk commit holds one key per row: no larger than it was, and no
    // allocation for the token.
    assert!(std::mem::size_of::<RowKey>() <= 96, "{}", std::mem::size_of::<RowKey>());
}
