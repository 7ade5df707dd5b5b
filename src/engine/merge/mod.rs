//! Merging two branches' indexes three-way: the work of `graphex
//! merge-driver`, which git runs on `graph.db` when both branches changed
//! it.
//!
//! Git hands over three files: the base both branches started from, ours
//! and theirs. Each is checked first against the master's seal with the
//! master's key alone (so a branch an agent wrote to outside Graphex is
//! refused, whichever tier keys it was sealed under). Then, on a copy of
//! ours:
//!
//! - a node or edge the other branch added, changed or removed since the
//!   base lands when ours left it as the base had it (a node's whole
//!   history comes with it);
//! - a node both changed, or a name both gave to different nodes, stays as
//!   ours and becomes a conflict row: the other branch's version, by its
//!   blob (blobs are content-addressed, so both branches' files coexist),
//!   reviewed as a merge proposal in the queue;
//! - decisions, timeline rows, audit records, saved queries and removed
//!   edges kept for undo come over from the other branch; its commits are
//!   numbered after ours;
//! - the snapshots (a cache) are dropped, and rebuilt by the next
//!   master-level session;
//! - the merge is one commit: the manifest, the row MACs and the master's
//!   seal are computed again over the result.
//!
//! A key rotation of one tier on one branch since the base is merged too
//! (see `rekey`): the stale branch's records of that tier are sealed again
//! under the new key, which needs the other branch's key files and blobs
//! ([`OtherBranch`]); rewrapped blobs are new files, listed in the report
//! for git to commit. Rotations on both branches, or of several tiers, are
//! refused.

#[cfg(test)]
mod batch_tests;
mod groups;
#[cfg(test)]
mod groups_tests;
mod lineage;
mod rekey;
#[cfg(test)]
mod rotation_tests;
mod rows;
#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

pub use crate::store::Conflict;
pub(crate) use crate::store::ConflictRow;
#[cfg(test)]
#[cfg(test)]
use crate::store::kit::conflicts::checked as checked_conflicts;
pub use rekey::OtherBranch;
use rekey::Rekey;

use crate::error::{Error, Result};
use crate::keys::{Credentials, Keyring};
use crate::model::{Tier, Timestamp};
use crate::store::Layout;
use crate::store::kit::{conflicts, manifest, rotate, rowmac, schema, seal};

/// The three indexes of a merge, as git hands them over.
#[derive(Clone, Debug)]
pub struct MergeInput {
    /// The common ancestor's `graph.db`.
    pub base: PathBuf,
    /// Ours: where the result is written.
    pub ours: PathBuf,
    /// The other branch's.
    pub theirs: PathBuf,
    /// What git calls the other branch (shown on its merge proposals).
    pub branch: String,
}

/// What a merge did.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct MergeReport {
    /// The merge commit (0 when nothing had to be merged).
    pub commit: u64,
    pub nodes_added: u64,
    pub nodes_changed: u64,
    pub nodes_removed: u64,
    pub edges_added: u64,
    pub edges_changed: u64,
    pub edges_removed: u64,
    /// Decisions added or undone.
    pub decisions: u64,
    pub timeline: u64,
    pub audit_records: u64,
    /// Nodes changed on both branches: merge proposals in the queue.
    pub conflicts: u64,
    /// What was left as ours, and why.
    pub notes: Vec<String>,
    /// Blob files the merge wrote (a stale branch's blobs rewrapped under
    /// a rotated key): new files git must commit with the merge.
    pub new_files: Vec<String>,
}

/// How the other branch's commits are numbered after ours: its commit
/// `c` (after the base's last, `base`) becomes `c - base + ours`.
pub(crate) struct Renumber {
    base: i64,
    ours: i64,
}

impl Renumber {
    fn commit(&self, c: i64) -> i64 {
        if c > self.base { c - self.base + self.ours } else { c }
    }
}

/// Merges `input.theirs` into `input.ours` (rewritten in place, whole, or
/// left untouched on any error) with the keys of the repository at `root`,
/// unlocked by `creds` at the master level.
pub fn merge_indexes(
    root: &Path,
    creds: &Credentials,
    input: &MergeInput,
    other: &dyn OtherBranch,
) -> Result<MergeReport> {
    let layout = Layout::new(root);
    let ours_keys = Keyring::unlock(&layout.keys(), creds)?;
    if ours_keys.seal().is_none() {
        return Err(ours_keys.needs(crate::keys::Level::Master, "merging the graph of two branches"));
    }
    // Git gives an empty ancestor when both branches added the file: two
    // stores made apart, with keys of their own.
    if std::fs::metadata(&input.base).map(|m| m.len()).unwrap_or(0) == 0 {
        return Err(Error::invalid(
            "merge",
            "no common ancestor",
            "the two branches' stores were created separately, each with its own keys, and cannot be merged: \
             keep one, and bring the other's nodes over with `graphex export --format json` and `graphex import`",
        ));
    }
    let work = WorkDir::new(&layout)?;
    let [base, ours, theirs] = [(&input.base, "base"), (&input.ours, "ours"), (&input.theirs, "theirs")]
        .map(|(path, name)| work.copy(path, name));
    let (base, ours, theirs) = (base?, ours?, theirs?);
    // The three checks are independent: one thread each (each reads its
    // whole index, the merge's largest cost on a large store).
    let sides = [
        (&base, "the common ancestor"),
        (&ours, "this branch"),
        (&theirs, "the other branch"),
    ];
    std::thread::scope(|scope| {
        let checks: Vec<_> = sides
            .iter()
            .map(|(path, side)| scope.spawn(|| check_side(path, &ours_keys, side)))
            .collect();
        checks
            .into_iter()
            .map(|c| {
                c.join()
                    .unwrap_or_else(|_| Err(Error::integrity("merge", "a check thread failed")))
            })
            .collect::<Result<Vec<()>>>()
    })?;
    // The ancestor's timeline rows, told by what they say: what the other
    // branch must hold, and what tells a rotation since.
    let base_rows = {
        let c = Connection::open(&base)?;
        schema::forbid_code(&c)?;
        lineage::keys(&c, "main")?
    };
    lineage::check(&base, &base_rows, &theirs)?;
    // Rows the other branch's seal does not cover yet are vouched for by
    // nothing: its every timeline row must be under it.
    let covered = Connection::open(&theirs)
        .map_err(Error::from)
        .and_then(|c| schema::forbid_code(&c).and_then(|()| seal::covers_timeline(&c, &ours_keys)))?;
    if !covered {
        return Err(Error::integrity(
            "the graph of the other branch",
            "its timeline holds rows its seal does not cover (written outside Graphex, or by an earlier version: \
             any master command on that branch, such as `graphex status --unlock master`, seals them); nothing \
             was merged",
        ));
    }
    let rotation = rotation(&base_rows, &ours, &theirs)?;
    // With a rotation, the other branch's keys: the rotated tier's new key
    // when it rotated, its old one when ours did.
    let theirs_keys = match rotation {
        None => None,
        Some(_) => {
            let dir = other.keys()?.ok_or_else(|| {
                Error::invalid(
                    "merge",
                    "a key rotation",
                    "one branch rotated a key since the branches parted, and the other branch's key files \
                     cannot be read (merge with `git merge`, which names the other commit)",
                )
            })?;
            Some(Keyring::unlock(&crate::keys::KeyPaths::new(dir), creds)?)
        }
    };
    // Only the rotated tier's key may differ between the branches: older
    // key files of another tier put back on a branch are refused.
    if let (Some((rotated, _)), Some(theirs_keys)) = (rotation, &theirs_keys) {
        for tier in Tier::ALL.into_iter().filter(|t| *t != rotated) {
            let (a, b) = (ours_keys.commitment(tier), theirs_keys.commitment(tier));
            if a.is_some() && b.is_some() && a != b {
                return Err(Error::integrity(
                    format!("the other branch's {tier} key"),
                    "its key file differs from this checkout's though neither branch rotated that tier since \
                     they parted (older key files put back?); nothing was merged",
                ));
            }
        }
    }
    let objects = crate::store::Objects::new(layout.objects());
    let rekey = match (rotation, &theirs_keys) {
        (Some((tier, stale_is_ours)), Some(theirs_keys)) => {
            let (old, new) = if stale_is_ours {
                (&ours_keys, theirs_keys)
            } else {
                (theirs_keys, &ours_keys)
            };
            Some(Rekey {
                tier,
                stale_is_ours,
                old: old.tier(tier)?,
                new: new.tier(tier)?,
                objects: &objects,
                theirs: other,
                written: Default::default(),
            })
        }
        _ => None,
    };
    // The result is sealed under the rotating branch's keys.
    let keys = match (&rekey, &theirs_keys) {
        (Some(rk), Some(theirs_keys)) if rk.stale_is_ours => theirs_keys,
        _ => &ours_keys,
    };
    let opener = theirs_keys.as_ref().unwrap_or(&ours_keys);
    let mut conn = Connection::open(&ours)?;
    schema::forbid_code(&conn)?;
    conn.execute("ATTACH DATABASE ?1 AS o", [base.to_string_lossy()])?;
    conn.execute("ATTACH DATABASE ?1 AS b", [theirs.to_string_lossy()])?;
    // Git's name for the branch, as one visible line (it is shown on cards).
    let branch: String = crate::hygiene::visible_line(&input.branch).chars().take(200).collect();
    if let (Some(rk), Some(theirs_keys)) = (&rekey, &theirs_keys)
        && rk.stale_is_ours
    {
        rekey::vouch_rotation(&conn, rk.tier, theirs_keys.commitment(rk.tier))?;
    }
    let merged = merge_into(&mut conn, keys, opener, rekey.as_ref(), &branch);
    let mut report = match merged {
        Ok(r) => r,
        Err(e) => {
            // Files written for a merge that did not happen are removed.
            for name in rekey.iter().flat_map(|rk| rk.written.borrow().clone()) {
                let _ = objects.remove(&name);
            }
            return Err(e);
        }
    };
    report.new_files = rekey.map(|rk| rk.written.into_inner()).unwrap_or_default();
    conn.execute_batch("DETACH DATABASE o; DETACH DATABASE b;")?;
    drop(conn);
    // The result is checked as the next open will check it, then moved
    // over ours in one rename.
    if let Err(e) = check_side(&ours, keys, "the merge's result") {
        for name in &report.new_files {
            let _ = objects.remove(name);
        }
        return Err(e);
    }
    if std::fs::rename(&ours, &input.ours).is_err() {
        // Another filesystem: copied beside ours first, then renamed.
        let staged = input.ours.with_extension("graphex-merge");
        std::fs::copy(&ours, &staged).map_err(|e| Error::io(&staged, e))?;
        std::fs::rename(&staged, &input.ours).map_err(|e| Error::io(&input.ours, e))?;
    }
    Ok(report)
}

/// Opens a side's copy, brings its schema up to date, and checks it
/// against the master's seal and row MACs.
fn check_side(path: &Path, keys: &Keyring, side: &str) -> Result<()> {
    let refused = |e: Error| Error::integrity(format!("the graph of {side}"), format!("{e}; nothing was merged"));
    let mut conn = Connection::open(path)?;
    schema::forbid_code(&conn)?;
    schema::refuse_code(&conn).map_err(refused)?;
    if schema::foreign(&conn).unwrap_or(true) {
        return Err(refused(Error::integrity("graph.db", "not a Graphex store")));
    }
    schema::migrate(&mut conn)?;
    if rotate::marker(&conn)?.is_some() {
        return Err(refused(Error::integrity(
            "graph.db",
            "a key rotation is half done on it",
        )));
    }
    seal::verify_whole(&conn, keys).map_err(refused)?;
    rowmac::check_all(&conn, keys).map_err(refused)?;
    conflicts::checked(&conn, keys).map_err(refused)?;
    Ok(())
}

/// The tier one branch rotated since the base, and whether ours is the
/// stale branch (theirs rotated); `None` without a rotation. Told by each
/// branch's `rotate-key` timeline rows after the ancestor's last (rows
/// under the master's MAC, checked), not by values an agent could edit.
fn rotation(known: &HashSet<[u8; 32]>, ours: &Path, theirs: &Path) -> Result<Option<(Tier, bool)>> {
    let open = |p: &Path| -> Result<Connection> {
        let c = Connection::open(p)?;
        schema::forbid_code(&c)?;
        Ok(c)
    };
    // The tiers a branch rotated since the ancestor: its rotate rows the
    // ancestor does not hold.
    let rotated = |path: &Path| -> Result<Vec<Tier>> {
        let conn = open(path)?;
        let filter = format!("WHERE action LIKE 'rotate-key %' AND {}", schema::RARE_ACTION);
        let mut actions: Vec<String> = Vec::new();
        lineage::each_row(&conn, "main", &filter, |r| {
            if !known.contains(&lineage::key(&r)) {
                actions.push(r.action);
            }
            Ok(())
        })?;
        Ok(Tier::ALL
            .into_iter()
            .filter(|t| actions.iter().any(|a| a.starts_with(&format!("rotate-key {t} v"))))
            .collect())
    };
    let (a, b) = (rotated(ours)?, rotated(theirs)?);
    if let Some(t) = a.iter().find(|t| b.contains(t)) {
        return Err(rekey::both_rotated(*t));
    }
    match (a.as_slice(), b.as_slice()) {
        ([], []) => Ok(None),
        ([t], []) => Ok(Some((*t, false))),
        ([], [t]) => Ok(Some((*t, true))),
        _ => Err(Error::invalid(
            "merge",
            "several rotations",
            "keys were rotated since the branches parted on both branches, or more than one tier's: merge before \
             rotating several",
        )),
    }
}

/// Refuses branches whose stores hold their edges differently (one a row,
/// or in groups: schema v11), which cannot be compared row by row.
fn same_edge_layout(tx: &Connection) -> Result<()> {
    let grouped = |schema: &str| -> Result<bool> {
        let v: u32 = tx.query_row(&format!("PRAGMA {schema}.user_version"), [], |r| r.get(0))?;
        Ok(v >= schema::SCHEMA_VERSION)
    };
    let (o, a, b) = (grouped("o")?, grouped("main")?, grouped("b")?);
    if o == a && a == b {
        return Ok(());
    }
    let name = |g: bool| if g { "in groups (schema v11)" } else { "one a row" };
    Err(Error::integrity(
        "the branches' graphs",
        format!(
            "this branch holds its edges {}, the other {}, and where they parted {}: {}; nothing was merged",
            name(a),
            name(b),
            name(o),
            if o {
                "run `graphex migrate` at the human level on the branch not grouped yet, commit it, and merge again"
            } else {
                "the edges were grouped after the branches parted, so their changes cannot be compared edge by \
                 edge: carry the other branch's changes over with `graphex export` there and `graphex import` \
                 here (merge branches that change the graph before grouping it)"
            }
        ),
    ))
}

fn merge_into(
    conn: &mut Connection,
    keys: &Keyring,
    opener: &Keyring,
    rekey: Option<&Rekey<'_>>,
    branch: &str,
) -> Result<MergeReport> {
    let tx = conn.transaction()?;
    let seq_of = |schema: &str| -> Result<i64> {
        let v: String = tx.query_row(
            &format!("SELECT value FROM {schema}.meta WHERE key = 'commit_seq'"),
            [],
            |r| r.get(0),
        )?;
        v.parse()
            .map_err(|_| Error::integrity("index", format!("commit counter {v:?} is not a number")))
    };
    let (o_seq, a_seq, b_seq) = (seq_of("o")?, seq_of("main")?, seq_of("b")?);
    same_edge_layout(&tx)?;
    let mut report = MergeReport::default();
    if b_seq == o_seq {
        // Nothing happened on the other branch: ours is the result.
        return Ok(report);
    }
    let renumber = Renumber {
        base: o_seq,
        ours: a_seq,
    };
    let commit = a_seq + (b_seq - o_seq) + 1;
    let now = Timestamp::now().0;
    let mut found = rows::nodes(&tx, commit, rekey, &mut report)?;
    // Nodes of theirs that did not land (a name both branches took).
    let unlanded: std::collections::HashSet<Vec<u8>> = found
        .iter()
        .filter(|c| c.theirs_id != c.node)
        .map(|c| c.theirs_id.clone())
        .collect();
    if schema::grouped(&tx)? {
        groups::edges(&tx, commit, rekey, (keys, opener), &unlanded, &mut report)?;
    } else {
        rows::edges(&tx, commit, rekey, opener, &unlanded, &mut report)?;
    }
    rows::decisions(&tx, keys, &renumber, rekey, &mut report)?;
    rows::timeline(&tx, &renumber, &mut report)?;
    rows::saved_queries(&tx)?;
    let audit_after: i64 = tx.query_row("SELECT COALESCE(MAX(seq), 0) FROM o.audit", [], |r| r.get(0))?;
    if let Some(rk) = rekey.filter(|rk| rk.stale_is_ours) {
        crate::store::kit::audit_chain::rekey(&tx, rk.old, rk.new, rk.tier)?;
    }
    if let Some(rk) = rekey {
        rk.key_meta(&tx)?;
    }
    let (appended, skipped) =
        crate::store::kit::audit_merge::append_from(&tx, opener, keys, "b", u64::try_from(audit_after).unwrap_or(0))?;
    report.audit_records = appended;
    if skipped > 0 {
        report.notes.push(format!(
            "{skipped} audit records of the other branch were left out: sealed under a tier this session cannot read"
        ));
    }
    merge_policy(&tx, &mut report)?;
    merge_sealings(&tx)?;
    // The other branch's own earlier conflicts still wait for review.
    for (row, _) in conflicts::rows_in(&tx, "b")? {
        let known: Option<i64> = tx
            .query_row(
                "SELECT 1 FROM main.merge_conflicts WHERE node_id = ?1",
                [&row.node],
                |r| r.get(0),
            )
            .optional()?;
        if known.is_none() {
            conflicts::insert(
                &tx,
                keys,
                &ConflictRow {
                    commit: renumber.commit(row.commit),
                    ..row
                },
            )?;
        }
    }
    let mut entries = vec![rowmac::TimelineRow {
        at: now,
        actor: "human".into(),
        action: "merge".into(),
        commit: Some(commit),
        proposal: Some(branch.to_owned()),
        ..Default::default()
    }];
    for c in &mut found {
        c.branch = branch.to_owned();
        c.at = now;
        conflicts::insert(&tx, keys, c)?;
        entries.push(rowmac::TimelineRow {
            at: now,
            actor: "human".into(),
            action: "merge-conflict".into(),
            node: Some(c.node.clone()),
            before: c.base_version,
            after: Some(c.theirs_version),
            commit: Some(commit),
            ..Default::default()
        });
    }
    report.conflicts = found.len() as u64;
    rowmac::insert_timeline(&tx, keys, &entries)?;
    retire_snapshots(&tx, keys)?;
    tx.execute(
        "UPDATE main.meta SET value = ?1 WHERE key = 'commit_seq'",
        [commit.to_string()],
    )?;
    for tier in [Tier::AgentReadable, Tier::AgentRestricted, Tier::HumanOnly] {
        if keys.reads(tier) {
            manifest::rebuild(&tx, keys, tier)?;
        } else if changed_in(&tx, tier)? {
            return Err(keys.needs(
                crate::keys::Level::Human,
                "merging branches that changed human-only nodes (set GRAPHEX_HUMAN_PASSPHRASE)",
            ));
        }
    }
    rowmac::mac_missing(&tx, keys)?;
    let commit = u64::try_from(commit).unwrap_or(0);
    // The result follows both branches' statements.
    let theirs = crate::store::kit::seal_log::adopt(&tx, "b")?;
    seal::rebuild(&tx, keys, commit, theirs.as_slice())?;
    tx.commit()?;
    report.commit = commit;
    Ok(report)
}

/// The most snapshot file names kept as retired by merges.
const RETIRED_KEPT: usize = 64;

/// Drops the snapshots (a cache, rebuilt by the next master session) and
/// notes the files of both branches' snapshots as retired: once git has
/// brought them, no row names them, and `doctor` tells them from leftovers
/// of an interrupted commit.
fn retire_snapshots(tx: &Connection, keys: &Keyring) -> Result<()> {
    let mut names: Vec<String> = tx
        .prepare(
            "SELECT blob FROM main.snapshots UNION SELECT blob FROM b.snapshots UNION SELECT blob FROM o.snapshots",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let earlier = retired_snapshots(tx, "main", keys)?;
    for name in earlier.iter().flat_map(|e| e.split(' ')).filter(|n| !n.is_empty()) {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names.truncate(RETIRED_KEPT);
    let list = names.join(" ");
    tx.execute(
        "INSERT OR REPLACE INTO main.meta (key, value) VALUES ('retired_snapshots', ?1), \
         ('retired_snapshots_mac', ?2)",
        [list.clone(), rowmac::retired_mac(keys, &list).unwrap_or_default()],
    )?;
    tx.execute("DELETE FROM main.snapshots", [])?;
    Ok(())
}

/// The snapshot files earlier merges retired, as `schema` records them,
/// when the master's MAC on the list holds (otherwise none).
pub(crate) fn retired_snapshots(conn: &Connection, schema: &str, keys: &Keyring) -> Result<Option<String>> {
    let get = |key: &str| -> Result<Option<String>> {
        Ok(conn
            .query_row(&format!("SELECT value FROM {schema}.meta WHERE key = ?1"), [key], |r| {
                r.get(0)
            })
            .optional()?)
    };
    let (list, mac) = (get("retired_snapshots")?, get("retired_snapshots_mac")?);
    Ok(list.filter(|l| mac.is_some() && rowmac::retired_mac(keys, l) == mac))
}

/// Whether the other branch changed any row of `tier`'s manifest group.
fn changed_in(tx: &Connection, tier: Tier) -> Result<bool> {
    let n: i64 = tx.query_row(
        "SELECT (SELECT COUNT(*) FROM (SELECT id, tier, version, blob, digest FROM b.nodes WHERE tier = ?1 \
         EXCEPT SELECT id, tier, version, blob, digest FROM o.nodes WHERE tier = ?1)) \
         + (SELECT COUNT(*) FROM (SELECT id, tier, digest FROM b.edges WHERE tier = ?1 \
         EXCEPT SELECT id, tier, digest FROM o.edges WHERE tier = ?1))",
        [tier.code()],
        |r| r.get(0),
    )?;
    Ok(n > 0)
}

/// The approved settings: the other branch's when only it approved new ones.
fn merge_policy(tx: &Connection, report: &mut MergeReport) -> Result<()> {
    let get = |schema: &str| -> Result<Option<String>> {
        Ok(tx
            .query_row(
                &format!("SELECT value FROM {schema}.meta WHERE key = 'policy'"),
                [],
                |r| r.get(0),
            )
            .optional()?)
    };
    let (o, a, b) = (get("o")?, get("main")?, get("b")?);
    if b != o && a == o {
        if let Some(b) = b {
            tx.execute(
                "INSERT OR REPLACE INTO main.meta (key, value) VALUES ('policy', ?1)",
                [b],
            )?;
        }
    } else if b != o && a != b {
        report.notes.push(
            "settings were approved anew on both branches: this branch's are kept (approve again with `graphex config approve`)"
                .into(),
        );
    }
    Ok(())
}

/// Each tier key's count of sealings: ours plus what the other branch
/// added since the base (AES-GCM's bound is per key, across branches).
fn merge_sealings(tx: &Connection) -> Result<()> {
    for code in 0..4u8 {
        let key = format!("sealings:{code}");
        let get = |schema: &str| -> Result<i64> {
            let v: Option<String> = tx
                .query_row(
                    &format!("SELECT value FROM {schema}.meta WHERE key = ?1"),
                    [&key],
                    |r| r.get(0),
                )
                .optional()?;
            Ok(v.and_then(|v| v.parse().ok()).unwrap_or(0))
        };
        let added = get("b")? - get("o")?;
        if added > 0 {
            let mut counts = [0u64; 4];
            counts[usize::from(code)] = u64::try_from(added).unwrap_or(0);
            schema::count_sealings(tx, counts)?;
        }
    }
    Ok(())
}

/// A private directory beside the index for the merge's copies, removed
/// when dropped.
struct WorkDir(PathBuf);

impl WorkDir {
    fn new(layout: &Layout) -> Result<Self> {
        let dir = layout.graphex().join(format!(".merge-{}", uuid::Uuid::now_v7()));
        std::fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(Self(dir))
    }

    fn copy(&self, from: &Path, name: &str) -> Result<PathBuf> {
        let to = self.0.join(format!("{name}.db"));
        std::fs::copy(from, &to).map_err(|e| Error::io(from, e))?;
        Ok(to)
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
