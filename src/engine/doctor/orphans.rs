//! Orphan blobs: files in `.gpp/objects/` that no index row names.
//!
//! Most are harmless leftovers: a commit that never landed (its blobs are
//! written before the index changes), a snapshot replaced, a copy left by
//! a tier raise or a key rotation that re-sealed a version. But an attacker
//! who deletes history rows (`node_versions`) also makes orphans, and
//! collecting them would destroy the evidence. So each orphan that is a
//! node blob is authenticated against the nodes the store knows (the
//! `nodes` rows, which the manifest covers, the history rows, and the
//! timeline, which records every version a commit wrote):
//!
//! - it authenticates as version `v` of node `X`, `v` is a version the store
//!   has recorded for `X` (at most its highest), and no history row holds
//!   `(X, v)`: the row was deleted outside Graphex. Reported, never collected;
//! - a history row holds `(X, v)` with another blob: a superseded copy;
//! - it names a version above any recorded, or a node the store never knew:
//!   a commit that never landed;
//! - it does not authenticate under the current key (a key rotated since):
//!   nothing it could be evidence of.
//!
//! A node blob in a tier this session cannot read cannot be decided: it is
//! kept and said so.

use std::collections::{HashMap, HashSet};
use std::io::Read as _;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use rusqlite::Connection;

use super::{Check, ORPHAN_GRACE, Outcome, check, referenced_blobs};
use crate::codec::{AUTH_PREFIX, authenticates_as, claimed};
use crate::error::{Error, Result};
use crate::model::{NodeId, Tier};
use crate::store::objects::Listed;
use crate::store::{Layout, Store};

/// What an orphan is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// Safe to collect once past the grace period.
    Leftover,
    /// A recorded version whose history row is gone: `node X version v`.
    Deleted(String),
    /// In a tier this session does not read.
    Unchecked(Tier),
}

/// Per node the store knows: the highest version it recorded, and which
/// versions have a history row.
#[derive(Default)]
struct Known {
    highest: HashMap<NodeId, u64>,
    rows: HashSet<(NodeId, u64)>,
}

fn node_id(bytes: &[u8]) -> Option<NodeId> {
    uuid::Uuid::from_slice(bytes).ok().map(NodeId)
}

fn known(conn: &Connection) -> Result<Known> {
    let mut k = Known::default();
    // (the query, whether it reads history rows, whether its rows may pack
    // several ids: the timeline's, see `timeline_pack`)
    for (sql, is_row, packs) in [
        ("SELECT id, version FROM nodes", false, false),
        ("SELECT node_id, version FROM node_versions", true, false),
        (
            "SELECT node_id, after_version FROM timeline WHERE node_id IS NOT NULL AND after_version IS NOT NULL",
            false,
            true,
        ),
    ] {
        let mut stmt = conn.prepare(sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (bytes, version): (Vec<u8>, i64) = (r.get(0)?, r.get(1)?);
            // A malformed packed row is the history check's to name.
            let each: Vec<&[u8]> = match crate::store::timeline_pack::ids(&bytes) {
                Ok(ids) if packs => ids.collect(),
                _ => vec![&bytes],
            };
            for one in each {
                let (Some(id), Ok(version)) = (node_id(one), u64::try_from(version)) else {
                    continue;
                };
                let top = k.highest.entry(id).or_insert(version);
                *top = (*top).max(version);
                if is_row {
                    k.rows.insert((id, version));
                }
            }
        }
    }
    Ok(k)
}

fn classify(store: Option<&Store>, known: &Known, head: &[u8]) -> Kind {
    // Not a node blob: a snapshot, a partial write, or not ours to judge.
    let Some((tier, version)) = claimed(head) else {
        return Kind::Leftover;
    };
    let Some(store) = store.filter(|s| s.keys().reads(tier)) else {
        return Kind::Unchecked(tier);
    };
    // Only a node that recorded this version and lists no row for it can be
    // missing one: those are the only keys worth trying (a blob opens under
    // one node id at most), so a sound store costs no decryption here.
    for (id, highest) in &known.highest {
        if version > *highest || known.rows.contains(&(*id, version)) {
            continue;
        }
        if authenticates_as(store.keys(), id, version, tier, head) {
            return Kind::Deleted(format!("node {id} version {version}"));
        }
    }
    Kind::Leftover
}

/// The first bytes of a blob, as much as [`authenticates_as`] needs.
fn head(path: &std::path::Path) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(AUTH_PREFIX as u64).read_to_end(&mut out))
        .map_err(|e| Error::io(path, e))?;
    Ok(out)
}

/// Blob files no index row names, and the history rows they show were
/// deleted. With `collect`, leftovers older than its grace period are
/// removed under the index's write lock; evidence of deleted rows and
/// blobs that cannot be checked at this level never are.
pub(super) fn orphans(
    layout: &Layout,
    listed: &[Listed],
    conn: &Connection,
    referenced: &HashSet<String>,
    store: Option<&Store>,
    collect: Option<Duration>,
) -> Result<(Vec<Check>, usize)> {
    let grace = collect.unwrap_or(ORPHAN_GRACE);
    let dir = layout.objects();
    let now = SystemTime::now();
    let known = known(conn)?;
    // Snapshot files a git merge retired (see `store::merge`): a cache,
    // reported apart from what an interrupted commit left.
    // Honoured only when the master's MAC on the list holds (so a master
    // session): an agent cannot list a planted file there.
    let retired: HashSet<String> = match store.filter(|s| s.keys().seal().is_some()) {
        Some(s) => crate::merge::retired_snapshots(conn, "main", s.keys())?
            .map(|v| v.split(' ').map(str::to_owned).collect())
            .unwrap_or_default(),
        None => HashSet::new(),
    };
    let mut cache = 0usize;
    let mut found: Vec<(String, PathBuf, bool)> = Vec::new();
    let mut deleted: Vec<String> = Vec::new();
    let mut unchecked: Vec<Tier> = Vec::new();
    let mut bytes = 0u64;
    for item in listed.iter().cloned() {
        // Only what Graphex writes here: blobs named by their hash (fanned
        // out or flat), and the temporary files of writes in progress.
        // Anything else is not ours.
        let (name, path, is_blob) = match item {
            Ok((hash, path)) => (hash, path, true),
            Err(path) => {
                let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
                if !name.starts_with(".tmp-") || path.parent() != Some(dir.as_path()) {
                    continue;
                }
                (name, path, false)
            }
        };
        if is_blob && referenced.contains(&name) {
            continue;
        }
        if is_blob {
            match classify(store, &known, &head(&path)?) {
                Kind::Leftover => {}
                Kind::Deleted(what) => {
                    deleted.push(format!("{what} (blob {})", &name[..12]));
                    continue;
                }
                Kind::Unchecked(tier) => {
                    unchecked.push(tier);
                    continue;
                }
            }
        }
        let meta = std::fs::symlink_metadata(&path).map_err(|e| Error::io(&path, e))?;
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age >= grace);
        if retired.contains(&name) {
            cache += 1;
        } else {
            bytes += meta.len();
        }
        found.push((name, path, old));
    }
    let mut collected = 0;
    if collect.is_some() && found.iter().any(|(_, _, old)| *old) {
        // Under the write lock no commit is in flight; the grace covers
        // blobs written by a commit that has not taken the lock yet.
        let mut conn = Connection::open(layout.db())?;
        crate::store::forbid_code(&conn)?;
        conn.busy_timeout(Duration::from_secs(10))?;
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let now_referenced = referenced_blobs(&tx)?;
        for (name, path, old) in &found {
            if !*old || now_referenced.contains(name) {
                continue;
            }
            // The file classified and aged, and no other copy of its name.
            collected += usize::from(std::fs::remove_file(path).is_ok());
        }
        drop(tx);
    }
    let left = found.len() - collected;
    // Retired snapshots left are no finding; anything else left is.
    let other_left = found
        .iter()
        .filter(|(name, path, _)| !retired.contains(name) && path.exists())
        .count();
    let outcome = if other_left == 0 { Outcome::Ok } else { Outcome::Finding };
    let mut detail = match (found.len() - cache, collected) {
        (0, 0) if cache > 0 => format!(
            "none but {cache} snapshot file(s) a git merge retired (a cache; `graphex doctor --collect-orphans` \
             removes them after {} seconds)",
            grace.as_secs()
        ),
        (0, _) => "none".to_owned(),
        (n, 0) if collect.is_some() => {
            format!("{n} blob file(s), {bytes} bytes, named by no index row; none older than the grace period")
        }
        (n, 0) => format!(
            "{n} blob file(s), {bytes} bytes, named by no index row (left by an interrupted commit); \
             `graphex doctor --collect-orphans` removes those older than {} seconds",
            grace.as_secs()
        ),
        (n, c) => format!("{n} found, {c} removed, {left} left (younger than the grace period)"),
    };
    let mut outcome = outcome;
    if !unchecked.is_empty() {
        unchecked.sort();
        unchecked.dedup();
        let tiers: Vec<String> = unchecked.iter().map(ToString::to_string).collect();
        detail.push_str(&format!(
            "; besides, blob file(s) of the {} tier(s) could not be checked at this level and are kept \
             (run doctor with the key that reads them)",
            tiers.join(", ")
        ));
        outcome = Outcome::Finding;
    }
    let history = match (store, deleted.is_empty()) {
        (None, _) => check(
            "history rows",
            Outcome::Skipped,
            "the store did not open: orphan blobs cannot be checked against its nodes",
        ),
        (Some(_), true) => check(
            "history rows",
            Outcome::Ok,
            "no orphan blob holds a version the store recorded",
        ),
        (Some(_), false) => {
            let n = deleted.len();
            deleted.truncate(5);
            check(
                "history rows",
                Outcome::Finding,
                format!(
                    "history rows deleted outside Graphex: {n} blob file(s) hold versions the store recorded but \
                     no longer lists ({}{}); kept as evidence, never collected",
                    deleted.join(", "),
                    if n > 5 { ", ..." } else { "" }
                ),
            )
        }
    };
    Ok((vec![check("orphan blobs", outcome, detail), history], collected))
}
