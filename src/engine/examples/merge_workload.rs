//! Times the merge of two branches of a large store, 1,000 changes each,
//! as `graphex merge-driver` runs it: the figure in docs/performance.md.
//!
//! cargo run --release -p graphex-engine --example merge_workload -- ROOT IDENTITY WORK_DIR
//!
//! Copies the store at ROOT twice under WORK_DIR (blob files hard-linked),
//! keeps its `graph.db` as the base, then on each copy makes 1,000 changes:
//! 500 new nodes (in batches of 10, each linked to an existing node) and
//! 500 updates of existing nodes, 10 of them to the same nodes on both
//! branches (so 10 conflicts). Prints JSON: the seconds of the merge, of
//! the first open of the result, and the merge's report.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use graphex_engine::merge::{MergeInput, OtherBranch, merge_indexes};
use graphex_engine::model::{Name, NodeType, Relation};
use graphex_engine::store::{Batch, Durability, Objects};
use graphex_engine::{Credentials, NewEdge, NewNode, NodePatch, Store, Tier};

/// The other branch's files, from its copy (the driver reads them from git).
struct Checkout(PathBuf);

impl OtherBranch for Checkout {
    fn keys(&self) -> graphex_engine::Result<Option<PathBuf>> {
        Ok(Some(self.0.join(".gpp/graphex/keys")))
    }
    fn blob(&self, name: &str) -> graphex_engine::Result<Vec<u8>> {
        Objects::new(self.0.join(".gpp/objects")).read(name)
    }
}

fn copy_repo(from: &Path, to: &Path) -> Result<(), Box<dyn std::error::Error>> {
    // Hard links for the blobs (never rewritten in place), a copy of the rest.
    let ok = Command::new("cp").arg("-al").arg(from).arg(to).status()?.success();
    if !ok {
        return Err("cp -al failed".into());
    }
    let db = to.join(".gpp/graphex/graph.db");
    std::fs::remove_file(&db)?;
    // Another process's log beside the source must not be shared (hard
    // linked) with the copy: SQLite would apply it to the copy's index.
    for log in ["graph.db-wal", "graph.db-shm"] {
        let _ = std::fs::remove_file(to.join(".gpp/graphex").join(log));
    }
    std::fs::copy(from.join(".gpp/graphex/graph.db"), &db)?;
    Ok(())
}

fn changes(root: &Path, creds: &Credentials, tag: &str, names: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let mut s = Store::open(root, creds)?;
    for chunk in 0..50 {
        let mut batch = Batch::default();
        for i in 0..10 {
            let name = format!("{tag}-new-{chunk}-{i}");
            batch.add_node(NewNode::new(
                Name::new(&name)?,
                NodeType::new("module")?,
                format!("added on branch {tag}"),
                Tier::AgentReadable,
            ));
            batch.link(NewEdge::new(
                Name::new(&name)?,
                Relation::new("uses")?,
                Name::new(&names[chunk * 10 + i])?,
            ));
        }
        s.apply_batch(batch, Durability::Sync)?;
    }
    for name in names {
        let patch = NodePatch {
            description: Some(format!("changed on branch {tag}")),
            ..NodePatch::default()
        };
        s.update_node(name, &patch)?;
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, identity, work] = args.as_slice() else {
        return Err("usage: merge_workload ROOT IDENTITY WORK_DIR".into());
    };
    let creds = Credentials {
        identity_file: Some(PathBuf::from(identity)),
        ..Credentials::default()
    };
    let (root, work) = (PathBuf::from(root), PathBuf::from(work));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)?;
    let (ours, theirs) = (work.join("ours"), work.join("theirs"));
    copy_repo(&root, &ours)?;
    copy_repo(&root, &theirs)?;
    let base = work.join("base.db");
    std::fs::copy(root.join(".gpp/graphex/graph.db"), &base)?;
    let active: Vec<String> = {
        let s = Store::open(&root, &creds)?;
        s.catalog()
            .nodes()
            .filter(|n| n.tier <= Tier::AgentReadable && n.status == graphex_engine::Status::Active)
            .take(1000)
            .map(|n| n.name.to_string())
            .collect()
    };
    if active.len() < 1000 {
        return Err("the store needs 1,000 active readable nodes".into());
    }
    // 490 updates each of its own, 10 of the same nodes on both branches.
    let mut mine: Vec<String> = active[..490].to_vec();
    let mut other: Vec<String> = active[490..980].to_vec();
    mine.extend_from_slice(&active[980..990]);
    other.extend_from_slice(&active[980..990]);
    let t = Instant::now();
    changes(&ours, &creds, "ours", &mine)?;
    changes(&theirs, &creds, "theirs", &other)?;
    let setup = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let report = merge_indexes(
        &ours,
        &creds,
        &MergeInput {
            base,
            ours: ours.join(".gpp/graphex/graph.db"),
            theirs: theirs.join(".gpp/graphex/graph.db"),
            branch: "theirs".into(),
        },
        &Checkout(theirs.clone()),
    )?;
    let merge = t.elapsed().as_secs_f64();
    // What git then does: the other branch's new blob files come over.
    let ours_objects = Objects::new(ours.join(".gpp/objects"));
    for (hash, path) in Objects::new(theirs.join(".gpp/objects")).list()?.into_iter().flatten() {
        if !ours_objects.exists(&hash) {
            let to = graphex_engine::store::Layout::new(&ours).blob(&hash);
            std::fs::create_dir_all(to.parent().ok_or("no directory")?)?;
            std::fs::hard_link(&path, &to)?;
        }
    }
    let t = Instant::now();
    let s = Store::open(&ours, &creds)?;
    let open = t.elapsed().as_secs_f64();
    let pending = s
        .pending()?
        .pending
        .iter()
        .filter(|p| p.proposal.source == graphex_engine::proposal::Source::Merge)
        .count();
    println!(
        "{}",
        serde_json::json!({
            "changes_per_branch": 1000,
            "setup_seconds": setup,
            "merge_seconds": merge,
            "first_open_seconds": open,
            "merge_proposals": pending,
            "report": report,
        })
    );
    Ok(())
}
