//! Store tests: access per unlock level, tamper detection through the index,
//! the disk-exposure canary scan, tier raises, and crash safety.

use std::path::{Path, PathBuf};

use age::secrecy::SecretString;

use super::*;
use crate::keys::IdentityKind;
use crate::keys::KdfCost;
use crate::model::{Name, NewEdge, NewNode, NodePatch, NodeType, Relation, Status, Tier};

pub(crate) const PASS: &str = "correct horse battery staple";
pub(crate) const HUMAN: &str = "human only phrase";

/// A fresh store with a cheap KDF, plus its temp dir.
pub(crate) fn new_store() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    Store::init(
        &root,
        &SecretString::from(PASS),
        &SecretString::from(HUMAN),
        KdfCost(Some(4)),
    )
    .unwrap();
    (dir, root)
}

/// The store under `root`, opened at `level`.
pub(crate) fn open_at(root: &Path, level: Level) -> Store {
    Store::open(root, &creds(level, root)).unwrap()
}

pub(crate) fn creds(level: Level, root: &Path) -> Credentials {
    let mut c = Credentials::none();
    match level {
        Level::Locked => {}
        Level::Agent => {
            let path = root.join("agent.id");
            if !path.exists() {
                let s = Store::open(root, &creds(Level::Master, root)).unwrap();
                s.keys()
                    .export_identity(&s.layout().keys(), IdentityKind::Agent, &path)
                    .unwrap();
            }
            c.agent_identity_file = Some(path);
        }
        Level::Master => c.passphrase = Some(SecretString::from(PASS)),
        Level::Human => {
            c.passphrase = Some(SecretString::from(PASS));
            c.human_passphrase = Some(SecretString::from(HUMAN));
        }
    }
    c
}

pub(crate) fn node(name: &str, tier: Tier, description: &str) -> NewNode {
    NewNode::new(
        Name::new(name).unwrap(),
        NodeType::new("service").unwrap(),
        description,
        tier,
    )
}

pub(crate) fn edge(from: &str, rel: &str, to: &str) -> NewEdge {
    NewEdge::new(
        Name::new(from).unwrap(),
        Relation::new(rel).unwrap(),
        Name::new(to).unwrap(),
    )
}

/// One node per tier, named after it, linked in a chain.
fn four_tier_store() -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = new_store();
    let mut s = Store::open(&root, &creds(Level::Human, &root)).unwrap();
    for t in Tier::ALL {
        s.add_node(node(t.as_str(), t, &format!("{t} description"))).unwrap();
    }
    s.link(edge("public", "uses", "agent-readable")).unwrap();
    s.link(edge("agent-readable", "uses", "agent-restricted")).unwrap();
    s.link(edge("agent-restricted", "uses", "human-only")).unwrap();
    (dir, root)
}

#[test]
fn each_level_reads_exactly_its_tiers() {
    let (_dir, root) = four_tier_store();
    let human = Store::open(&root, &creds(Level::Human, &root)).unwrap();
    let ids: Vec<_> = Tier::ALL
        .iter()
        .map(|t| human.summary(t.as_str()).unwrap().id)
        .collect();
    for level in [Level::Locked, Level::Agent, Level::Master, Level::Human] {
        let s = Store::open(&root, &creds(level, &root)).unwrap();
        assert_eq!(s.level(), level);
        for (tier, id) in Tier::ALL.iter().zip(&ids) {
            if level.reads(*tier) {
                assert_eq!(s.node(tier.as_str()).unwrap().tier, *tier, "{level} reads {tier}");
            } else {
                assert!(
                    matches!(s.node(tier.as_str()), Err(Error::NotFound(_))),
                    "{level} must not see {tier}"
                );
                assert!(
                    matches!(s.node_by_id(id), Err(Error::TierLocked(..))),
                    "{level} by id {tier}"
                );
            }
        }
        // Edges: each sits at the tier of its more secret end.
        assert_eq!(s.catalog().edge_count(), (level as usize).min(3), "{level} edges");
        assert!(s.catalog().edges().all(|e| level.reads(e.tier)));
    }
}

#[test]
fn wrong_secrets_are_clear_errors() {
    let (_dir, root) = new_store();
    let mut c = Credentials::none();
    c.passphrase = Some(SecretString::from("wrong"));
    let err = Store::open(&root, &c).unwrap_err();
    assert!(matches!(err, Error::WrongSecret("passphrase", _)), "{err}");
    let mut c = creds(Level::Master, &root);
    c.human_passphrase = Some(SecretString::from("wrong"));
    assert!(matches!(
        Store::open(&root, &c).unwrap_err(),
        Error::WrongSecret("human passphrase", _)
    ));
    let mut c = Credentials::none();
    c.human_passphrase = Some(SecretString::from(HUMAN));
    assert!(matches!(Store::open(&root, &c).unwrap_err(), Error::MissingSecret(_)));
    // The agent identity is not the master identity.
    let agent = creds(Level::Agent, &root).agent_identity_file.unwrap();
    let mut c = Credentials::none();
    c.identity_file = Some(agent);
    assert!(matches!(
        Store::open(&root, &c).unwrap_err(),
        Error::WrongSecret("identity", _)
    ));
    let missing = tempfile::tempdir().unwrap();
    assert!(matches!(
        Store::open(missing.path(), &Credentials::none()),
        Err(Error::NoStore(_))
    ));
}

#[test]
fn a_master_identity_file_unlocks_like_the_passphrase() {
    let (_dir, root) = four_tier_store();
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let path = root.join("master.id");
    s.keys()
        .export_identity(&s.layout().keys(), IdentityKind::Master, &path)
        .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
    assert!(
        s.keys()
            .export_identity(&s.layout().keys(), IdentityKind::Master, &path)
            .is_err(),
        "no overwrite"
    );
    let mut c = Credentials::none();
    c.identity_file = Some(path);
    let s = Store::open(&root, &c).unwrap();
    assert_eq!((s.level(), s.catalog().node_count()), (Level::Master, 3));
}

#[test]
fn locked_and_agent_sessions_cannot_write() {
    let (_dir, root) = four_tier_store();
    for level in [Level::Locked, Level::Agent] {
        let mut s = Store::open(&root, &creds(level, &root)).unwrap();
        let err = s.add_node(node("x", Tier::Public, "d")).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Locked {
                    needed: Level::Master,
                    ..
                }
            ),
            "{err}"
        );
    }
    let mut master = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let err = master.add_node(node("y", Tier::HumanOnly, "d")).unwrap_err();
    assert!(matches!(err, Error::TierLocked(_, Tier::HumanOnly)), "{err}");
}

#[test]
fn names_are_unique_across_tiers_without_revealing_them() {
    let (_dir, root) = four_tier_store();
    let mut master = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert!(matches!(
        master.add_node(node("public", Tier::Public, "d")),
        Err(Error::NameTaken(_))
    ));
    assert!(matches!(
        master.add_node(node("human-only", Tier::Public, "d")),
        Err(Error::NameTakenHidden(_))
    ));
    assert!(matches!(
        master.link(edge("public", "uses", "agent-readable")),
        Err(Error::EdgeExists(_))
    ));
}

#[test]
fn lifecycle_and_updates_bump_versions() {
    let (_dir, root) = new_store();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    s.add_node(node("svc", Tier::Public, "v1")).unwrap();
    let patch = NodePatch {
        description: Some("v2".into()),
        ..NodePatch::default()
    };
    assert_eq!(s.update_node("svc", &patch).unwrap().version, 2);
    assert_eq!(
        s.set_status("svc", Status::Deprecated, Some("old")).unwrap().status,
        Status::Deprecated
    );
    let err = s.set_status("svc", Status::Deprecated, None).unwrap_err();
    assert!(matches!(err, Error::Transition { .. }), "{err}");
    s.set_status("svc", Status::Archived, None).unwrap();
    let restored = s.set_status("svc", Status::Active, Some("back")).unwrap();
    assert_eq!((restored.version, restored.status), (5, Status::Active));
    let full = Store::open(&root, &creds(Level::Master, &root))
        .unwrap()
        .node("svc")
        .unwrap();
    assert_eq!(
        (full.description.as_str(), full.status_reason.as_deref()),
        ("v2", Some("back"))
    );
    assert!(s.update_node("svc", &NodePatch::default()).is_err(), "empty patch");
    let err = s.set_status("svc", Status::Archived, None).unwrap_err();
    assert!(
        matches!(err, Error::Transition { .. }) && err.to_string().contains("deprecate it first"),
        "an active node is deprecated before it is archived: {err}"
    );
}

#[test]
fn self_loops_and_weights_outside_0_to_1_are_refused() {
    let (_dir, root) = new_store();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    s.add_node(node("a", Tier::Public, "a")).unwrap();
    s.add_node(node("b", Tier::Public, "b")).unwrap();
    let err = s.link(edge("a", "uses", "a")).unwrap_err();
    assert!(err.to_string().contains("cannot be linked to itself"), "{err}");
    for w in [1.5, -0.1, f64::NAN] {
        let mut e = edge("a", "uses", "b");
        e.weight = w;
        let err = s.link(e).unwrap_err();
        assert!(err.to_string().contains("a number from 0 to 1"), "{w}: {err}");
    }
    let mut e = edge("a", "uses", "b");
    e.weight = 0.4;
    assert_eq!(s.link(e).unwrap().weight, 0.4);
    assert_eq!(s.catalog().edge_count(), 1, "nothing else was written");
}

/// Sets a column of the `nodes` row of `name` behind the store's back.
fn poke(root: &Path, sql: &str, name: &str) {
    let s = Store::open(root, &creds(Level::Human, root)).unwrap();
    let id = s.summary(name).unwrap().id;
    let conn = rusqlite::Connection::open(Layout::new(root).db()).unwrap();
    conn.execute(sql, [id.as_bytes().as_slice()]).unwrap();
}

#[test]
fn changing_version_or_tier_in_the_index_is_detected() {
    for (sql, target) in [
        ("UPDATE nodes SET version = version + 1 WHERE id = ?1", "agent-readable"),
        ("UPDATE nodes SET tier = 0 WHERE id = ?1", "human-only"),
        ("UPDATE nodes SET tier = 0 WHERE id = ?1", "agent-restricted"),
    ] {
        let (_dir, root) = four_tier_store();
        poke(&root, sql, target);
        let err = Store::open(&root, &creds(Level::Human, &root)).unwrap_err();
        assert!(matches!(err, Error::Integrity { .. }), "{sql} on {target}: {err}");
    }
}

/// Every file under `.gpp/`, as bytes.
fn disk_image(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(&root.join(".gpp"), &mut out);
    out
}

pub(crate) fn files_containing(root: &Path, needle: &[u8]) -> Vec<PathBuf> {
    disk_image(root)
        .into_iter()
        .filter(|(_, bytes)| bytes.windows(needle.len()).any(|w| w == needle))
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn no_plaintext_of_a_non_public_node_reaches_the_disk() {
    let (_dir, root) = new_store();
    let mut s = Store::open(&root, &creds(Level::Human, &root)).unwrap();
    for t in Tier::ALL {
        let tag = t.as_str().replace('-', "");
        let mut n = node(&format!("canaryname{tag}"), t, &format!("canarydesc{tag}"));
        n.node_type = NodeType::new(&format!("canarytype{tag}")).unwrap();
        n.properties.insert("k".into(), format!("canaryprop{tag}"));
        n.body = Some(format!("canarybody{tag}"));
        s.add_node(n).unwrap();
    }
    for t in Tier::ALL {
        let tag = t.as_str().replace('-', "");
        let from = format!("canaryname{tag}");
        // The public canary links to the agent-readable one (no self-loops).
        let to = if t == Tier::Public {
            "canarynameagentreadable"
        } else {
            "canarynamepublic"
        };
        s.link(edge(&from, &format!("canaryrel{tag}"), to)).unwrap();
    }
    let scan = |when: &str| {
        assert!(root.join(".gpp/graphex/graph.db-wal").exists() || when == "after checkpoint");
        for t in [Tier::AgentReadable, Tier::AgentRestricted, Tier::HumanOnly] {
            let tag = t.as_str().replace('-', "");
            for field in ["name", "desc", "type", "prop", "body", "rel"] {
                let canary = format!("canary{field}{tag}");
                let hits = files_containing(&root, canary.as_bytes());
                assert!(hits.is_empty(), "{when}: {canary} found in {hits:?}");
            }
        }
    };
    scan("before checkpoint");
    s.checkpoint().unwrap();
    scan("after checkpoint");
    drop(s);
    scan("after checkpoint");
}

#[test]
fn raising_a_tier_leaves_no_copy_readable_with_the_lower_key() {
    let (_dir, root) = new_store();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    s.add_node(node("svc", Tier::Public, "first words")).unwrap();
    s.add_node(node("peer", Tier::Public, "peer")).unwrap();
    s.update_node(
        "svc",
        &NodePatch {
            description: Some("second words".into()),
            ..NodePatch::default()
        },
    )
    .unwrap();
    s.link(edge("svc", "uses", "peer")).unwrap();
    // Capture every public-key-readable artefact of `svc`: its blobs, summary and edge.
    let old_blobs: Vec<String> = {
        let mut st = s
            .conn
            .prepare(&format!(
                "SELECT {} FROM node_versions WHERE node_id = (SELECT id FROM nodes WHERE version = 2)",
                super::blob_name::BLOB_NAME
            ))
            .unwrap();
        st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    let old_summary: Vec<u8> = s
        .conn
        .query_row("SELECT summary FROM nodes WHERE version = 2", [], |r| r.get(0))
        .unwrap();
    let old_edge: Vec<u8> = s.conn.query_row("SELECT sealed FROM edges", [], |r| r.get(0)).unwrap();
    s.refresh_snapshots(true).unwrap();
    let snapshot_hash: String = s
        .conn
        .query_row("SELECT blob FROM snapshots WHERE tier = 0", [], |r| r.get(0))
        .unwrap();
    let old_snapshot = std::fs::read(Layout::new(&root).blob(&snapshot_hash)).unwrap();
    let old_contents: Vec<Vec<u8>> = old_blobs
        .iter()
        .map(|h| std::fs::read(Layout::new(&root).blob(h)).unwrap())
        .collect();
    s.checkpoint().unwrap();

    let raised = s
        .update_node(
            "svc",
            &NodePatch {
                tier: Some(Tier::AgentRestricted),
                ..NodePatch::default()
            },
        )
        .unwrap();
    assert_eq!(raised.tier, Tier::AgentRestricted);
    let e = s.catalog().edges().next().unwrap();
    assert_eq!(e.tier, Tier::AgentRestricted, "the edge follows its most secret end");

    let window = |b: &[u8]| b[b.len() - 40..b.len() - 8].to_vec();
    for (hash, bytes) in old_blobs.iter().zip(&old_contents) {
        assert!(!Layout::new(&root).blob(hash).exists(), "old blob {hash} removed");
        let hits = files_containing(&root, &window(bytes));
        assert!(hits.is_empty(), "old blob bytes still in {hits:?}");
    }
    assert!(
        files_containing(&root, &window(&old_summary)).is_empty(),
        "old summary gone"
    );
    assert!(files_containing(&root, &window(&old_edge)).is_empty(), "old edge gone");
    assert!(
        files_containing(&root, &window(&old_snapshot)).is_empty(),
        "old public snapshot gone"
    );
    assert_eq!(
        s.snapshot_seq(Tier::Public).unwrap(),
        None,
        "dropped, too small to rebuild yet"
    );
    drop(s);

    // A locked session sees neither the node nor the edge; history is intact at master level.
    let locked = Store::open(&root, &Credentials::none()).unwrap();
    assert!(locked.summary("svc").is_err() && locked.catalog().edge_count() == 0);
    let master = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert_eq!(master.node("svc").unwrap().description, "second words");
    let versions: i64 = master
        .conn
        .query_row("SELECT COUNT(*) FROM node_versions WHERE tier = 2", [], |r| r.get(0))
        .unwrap();
    assert_eq!(versions, 3, "every version re-sealed under agent-restricted");
}

#[test]
fn a_crash_between_blob_write_and_index_commit_keeps_the_old_state() {
    let (_dir, root) = new_store();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    s.add_node(node("kept", Tier::AgentReadable, "v1")).unwrap();
    s.inject_fault("after-blobs");
    assert!(matches!(
        s.add_node(node("lost", Tier::Public, "x")),
        Err(Error::InjectedFault(_))
    ));
    let patch = NodePatch {
        description: Some("v2".into()),
        ..NodePatch::default()
    };
    assert!(matches!(s.update_node("kept", &patch), Err(Error::InjectedFault(_))));
    drop(s);
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert!(matches!(s.summary("lost"), Err(Error::NotFound(_))));
    let kept = s.node("kept").unwrap();
    assert_eq!((kept.version, kept.description.as_str()), (1, "v1"));
    let blobs = crate::store::Objects::new(Layout::new(&root).objects())
        .list()
        .unwrap()
        .len();
    assert_eq!(blobs, 3, "one live blob and two harmless orphans");
}

#[test]
fn status_counts_hidden_tiers_without_their_breakdown() {
    let (_dir, root) = four_tier_store();
    let locked = Store::open(&root, &Credentials::none()).unwrap().status().unwrap();
    assert_eq!(locked.total_nodes, 4);
    assert!(locked.tiers.iter().all(|t| t.nodes == 1));
    assert_eq!(
        locked.by_type.values().sum::<u64>(),
        1,
        "only the public node's type is shown"
    );
    let human = Store::open(&root, &creds(Level::Human, &root))
        .unwrap()
        .status()
        .unwrap();
    assert_eq!(human.by_status.get("active"), Some(&4));
    assert!(human.last_update.is_some());
}

/// Everything in a catalog, sorted, for comparisons.
fn catalog_image(c: &Catalog) -> (Vec<String>, Vec<String>) {
    let mut nodes: Vec<String> = c.nodes().map(|n| format!("{n:?}")).collect();
    let mut edges: Vec<String> = c.edges().map(|e| format!("{e:?}")).collect();
    nodes.sort();
    edges.sort();
    (nodes, edges)
}

#[test]
fn snapshots_plus_later_rows_load_exactly_what_the_rows_say() {
    let (_dir, root) = new_store();
    let mut s = Store::open(&root, &creds(Level::Human, &root)).unwrap();
    let batch = crate::synth::generate(crate::synth::SynthSpec {
        nodes: 600,
        edges: 2000,
        seed: 3,
    });
    s.apply_batch(batch, Durability::Deferred).unwrap();
    for t in Tier::ALL {
        assert!(
            s.snapshot_seq(t).unwrap().is_some(),
            "{t}: a large batch leaves a snapshot"
        );
    }
    // A few changes after the snapshots, below the rebuild threshold.
    let some: Vec<String> = s.catalog().nodes().take(5).map(|n| n.name.to_string()).collect();
    let patch = NodePatch {
        description: Some("changed after the snapshot".into()),
        ..NodePatch::default()
    };
    s.update_node(&some[0], &patch).unwrap();
    s.set_status(&some[1], Status::Deprecated, None).unwrap();
    s.add_node(node("late", Tier::AgentReadable, "added after the snapshot"))
        .unwrap();
    s.link(edge("late", "uses", &some[2])).ok();
    let top = s
        .catalog()
        .nodes()
        .find(|n| n.tier < Tier::HumanOnly)
        .unwrap()
        .name
        .to_string();
    s.update_node(
        &top,
        &NodePatch {
            tier: Some(Tier::HumanOnly),
            ..NodePatch::default()
        },
    )
    .unwrap();
    drop(s);
    for level in [Level::Locked, Level::Agent, Level::Master, Level::Human] {
        let s = Store::open(&root, &creds(level, &root)).unwrap();
        let (rows_only, _, _) = s.load_catalog(false).unwrap();
        assert_eq!(catalog_image(s.catalog()), catalog_image(&rows_only), "{level}");
        assert_eq!(s.catalog().by_name("late").is_some(), level >= Level::Agent);
        assert_eq!(s.catalog().by_name(&top).is_some(), level == Level::Human);
    }
}

#[test]
fn queries_and_traversals_see_mutations_at_once() {
    let (_dir, root) = new_store();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    for n in ["a", "b", "c"] {
        s.add_node(node(n, Tier::Public, n)).unwrap();
    }
    s.link(edge("a", "uses", "b")).unwrap();
    let count = |s: &Store, q: &str| crate::query::run(s.catalog(), q).unwrap().total_results;
    assert_eq!(count(&s, "a -> uses -> *"), 1);
    s.link(edge("b", "uses", "c")).unwrap();
    assert_eq!(count(&s, "a -> uses -> * --depth 2"), 2);
    let f = crate::traverse::Filter::default();
    assert_eq!(
        crate::traverse::shortest_path(s.catalog(), "a", "c", false, &f)
            .unwrap()
            .unwrap()
            .len(),
        3
    );
    s.set_status("b", Status::Deprecated, None).unwrap();
    assert_eq!(
        count(&s, "a -> uses -> * --depth 2"),
        2,
        "deprecated b is shown, flagged"
    );
    assert_eq!(
        count(&s, "a -> uses -> * --depth 2 --status active"),
        0,
        "deprecated b blocks an active-only walk"
    );
    s.set_status("b", Status::Active, None).unwrap();
    s.update_node(
        "c",
        &NodePatch {
            tier: Some(Tier::AgentRestricted),
            ..NodePatch::default()
        },
    )
    .unwrap();
    assert_eq!(
        count(&s, "a -> uses -> * --depth 2 --tier public"),
        1,
        "c and its edge moved up"
    );
    assert_eq!(count(&s, "a -> uses -> * --depth 2"), 2, "master still reads them");
}

#[test]
fn a_session_that_missed_another_processs_write_refuses_to_write() {
    let (_dir, root) = new_store();
    let mut a = open_at(&root, Level::Master);
    a.add_node(node("svc", Tier::Public, "x")).unwrap();
    let mut b = open_at(&root, Level::Master);
    b.add_node(node("vault", Tier::Public, "y")).unwrap();
    b.link(edge("svc", "uses", "vault")).unwrap();
    // `a` does not know the edge: raising `svc` from it would leave that edge
    // sealed under the public key. It must refuse instead.
    let raise = NodePatch {
        tier: Some(Tier::AgentRestricted),
        ..NodePatch::default()
    };
    assert!(matches!(a.update_node("svc", &raise), Err(Error::Stale)));
    let mut fresh = open_at(&root, Level::Master);
    fresh.update_node("svc", &raise).unwrap();
    let locked = open_at(&root, Level::Locked);
    assert_eq!(locked.catalog().edge_count(), 0, "the edge moved up with its end");
}

#[test]
fn a_damaged_index_is_named_not_a_crash() {
    let (_dir, root) = new_store();
    std::fs::write(Layout::new(&root).db(), b"garbage that is not sqlite").unwrap();
    let err = Store::open(&root, &Credentials::none()).unwrap_err();
    assert!(
        err.to_string().contains("graph.db") && err.to_string().contains("not a readable SQLite database"),
        "{err}"
    );
}

#[test]
fn an_empty_index_is_refused_and_left_empty() {
    let (_dir, root) = new_store();
    let db = Layout::new(&root).db();
    std::fs::write(&db, b"").unwrap();
    let err = Store::open(&root, &Credentials::none()).unwrap_err();
    assert!(err.to_string().contains("empty (0 bytes)"), "{err}");
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0, "no schema written into it");
}

#[test]
fn every_commit_counts_what_each_tier_key_sealed() {
    let (_dir, root) = new_store();
    let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    assert_eq!(schema::sealings(s.conn()).unwrap(), None, "nothing sealed yet");
    s.add_node(node("a", Tier::AgentReadable, "a")).unwrap();
    s.add_node(node("b", Tier::AgentRestricted, "b")).unwrap();
    s.link(edge("a", "uses", "b")).unwrap();
    let counts = schema::sealings(s.conn()).unwrap().unwrap();
    // Per node a data-key wrap and a summary; the edge is as secret as its
    // most secret end.
    assert_eq!(counts, [0, 2, 3, 0]);
    let patch = NodePatch {
        description: Some("a v2".into()),
        ..NodePatch::default()
    };
    s.update_node("a", &patch).unwrap();
    assert_eq!(schema::sealings(s.conn()).unwrap().unwrap(), [0, 4, 3, 0]);
}
