//! The `pending/` directory: writing proposals atomically, and reading them
//! back defensively. Anything that is not a well-formed proposal of this
//! store is moved to `pending/quarantine/` with a reason.

use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use age::x25519;

use super::MAX_FILE_BYTES;
use super::stored::{FORMAT, ProposalId, Source, StoredProposal};
use super::submission::Submission;
use crate::error::{Error, Result};
use crate::hygiene::visible_line;
use crate::model::Timestamp;
use crate::project::Access;
use crate::project::TrustPolicy;
use crate::store::Store;

/// The sub-directory for rejected files.
pub const QUARANTINE: &str = "quarantine";
/// The sub-directory where proposals are written before they are renamed in.
const INCOMING: &str = ".incoming";

/// A proposal waiting for review.
#[derive(Clone, Debug)]
pub struct Pending {
    pub id: ProposalId,
    pub proposal: StoredProposal,
}

/// A file moved out of the queue, and why.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Quarantined {
    /// The file's name as found (escaped when it was not printable UTF-8).
    pub file: String,
    pub reason: String,
}

/// What a scan of `pending/` found.
#[derive(Debug, Default)]
pub struct ScanResult {
    /// Undecided proposals, oldest first.
    pub pending: Vec<Pending>,
    /// Files quarantined by this scan.
    pub quarantined: Vec<Quarantined>,
    /// Files left in place this time (unreadable now, or not movable).
    pub unreadable: Vec<Quarantined>,
}

/// Checks, seals and stores `sub`; returns its id. `bases` records the
/// version of every mentioned node readable by `store`'s session; nothing
/// about nodes it cannot read is revealed (a hidden name is simply `null`).
/// The submission is recorded in the audit log when the session holds a key.
pub fn submit(store: &mut Store, policy: &TrustPolicy, sub: Submission, source: Source) -> Result<ProposalId> {
    let stored = prepare(store, policy, sub, source)?;
    let id = write(
        store.layout().pending().as_path(),
        &stored.seal(&store.keys().proposal_recipient(&store.layout().keys())?)?,
    )?;
    store.record_submitted(&id, &stored.submission)?;
    Ok(id)
}

/// The checks [`submit`] makes, and the proposal it would store (nothing
/// is written): a policy check runs the lints on it.
pub(crate) fn prepare(store: &Store, policy: &TrustPolicy, sub: Submission, source: Source) -> Result<StoredProposal> {
    sub.validate()?;
    if let Some(revises) = &sub.revises {
        store.check_revises(revises)?;
    }
    let ceiling = policy.max_tier(Access::Trust {
        score: sub.trust,
        local: false,
    });
    for c in &sub.changes {
        if let Some(t) = c.requested_tier()
            && t > ceiling
        {
            return Err(Error::invalid(
                "tier",
                t.to_string(),
                format!(
                    "agent {} with trust {} may propose content up to the {ceiling} tier",
                    sub.agent, sub.trust
                ),
            ));
        }
    }
    for c in &sub.changes {
        if let Some(edge) = c.removed_edge() {
            check_removable(store, &sub, &edge, ceiling)?;
        }
    }
    let mut bases = BTreeMap::new();
    record_bases(store, &sub, &mut bases);
    Ok(StoredProposal {
        format: FORMAT,
        created: Timestamp::now(),
        source,
        edited_from: None,
        bases,
        submission: sub,
    })
}

/// The edge a `remove_edge` names must be one the proposer reads. The
/// error is the same whether the edge is absent or above `ceiling`, so a
/// proposal cannot probe for edges it may not see.
fn check_removable(store: &Store, sub: &Submission, edge: &super::Triple, ceiling: crate::model::Tier) -> Result<()> {
    let (from, relation, to) = edge;
    let catalog = store.catalog();
    let readable = |name: &crate::model::Name| catalog.by_name(name.as_str()).filter(|s| s.tier <= ceiling);
    let found = match (readable(from), readable(to)) {
        (Some(f), Some(t)) => catalog
            .outgoing(&f.id)
            .any(|e| e.relation == *relation && e.to == t.id && e.tier <= ceiling),
        _ => false,
    };
    if found {
        return Ok(());
    }
    Err(Error::EdgeNotFound {
        edge: format!("{from} -> {relation} -> {to}"),
        reason: format!(
            "agent {} (trust {}) reads no such edge; only an edge it can read can be proposed for removal",
            sub.agent, sub.trust
        ),
    })
}

/// Adds to `bases` the version `store` sees of each node `sub` mentions
/// (names already present keep their recorded version).
pub(crate) fn record_bases(store: &Store, sub: &Submission, bases: &mut BTreeMap<crate::model::Name, Option<u64>>) {
    for c in &sub.changes {
        for name in c.names() {
            bases
                .entry(name.clone())
                .or_insert_with(|| store.catalog().by_name(name.as_str()).map(|s| s.version));
        }
    }
}

/// Writes sealed proposal bytes into `pending/` (temporary file, sync, rename).
pub(crate) fn write(pending: &Path, sealed: &[u8]) -> Result<ProposalId> {
    write_as(pending, sealed, "proposal")
}

/// Writes sealed bytes into `pending/<sha256>.<extension>` atomically.
pub(crate) fn write_as(pending: &Path, sealed: &[u8], extension: &str) -> Result<ProposalId> {
    let id = ProposalId::of(sealed);
    let incoming = pending.join(INCOMING);
    std::fs::create_dir_all(&incoming).map_err(|e| Error::io(&incoming, e))?;
    let tmp = incoming.join(format!("{}.{}", id.as_str(), std::process::id()));
    let target = pending.join(format!("{}.{extension}", id.as_str()));
    let result = (|| {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(sealed)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &target)?;
        std::fs::File::open(pending)?.sync_all()
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(&target, e)
    })?;
    Ok(id)
}

/// Reads every proposal in `pending/` not in `decided`, quarantining what is
/// not a valid proposal sealed to `master`.
pub(crate) fn scan(pending: &Path, master: &x25519::Identity, decided: &HashSet<String>) -> Result<ScanResult> {
    let mut out = ScanResult::default();
    let entries = match std::fs::read_dir(pending) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(Error::io(pending, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(pending, e))?;
        let os_name = entry.file_name();
        let name = os_name.to_str();
        if matches!(name, Some(QUARANTINE | INCOMING)) && entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        // An agent's comment on a proposal: read with its conversation.
        if name.is_some_and(super::comment::is_comment_file) {
            continue;
        }
        let id = name.and_then(ProposalId::from_file_name);
        if let Some(id) = &id
            && decided.contains(id.as_str())
        {
            continue;
        }
        let path = entry.path();
        match read_one(&path, id.as_ref(), master) {
            // A reviewer's edit is written just before its accept commits;
            // left behind by a crash, it must not enter the queue.
            Ok(proposal) if proposal.source == Source::Edit => {}
            Ok(proposal) => out.pending.push(Pending {
                id: id.unwrap_or_else(|| unreachable!("read_one checks the name")),
                proposal,
            }),
            Err(fail) => {
                let shown = name.map_or_else(|| format!("{os_name:?}"), |n| n.escape_debug().to_string());
                // A reason may quote the hostile file (a key the parser
                // refused): shown, never obeyed, and one line in `.reason`.
                let fail = match fail {
                    Fail::Transient(r) => Fail::Transient(visible_line(&r).into_owned()),
                    Fail::Bad(r) => Fail::Bad(visible_line(&r).into_owned()),
                };
                match fail {
                    Fail::Transient(reason) => out.unreadable.push(Quarantined { file: shown, reason }),
                    Fail::Bad(reason) => match quarantine(pending, &path, &shown, &reason) {
                        Ok(true) => out.quarantined.push(Quarantined { file: shown, reason }),
                        Ok(false) => {}
                        Err(e) => out.unreadable.push(Quarantined {
                            file: shown,
                            reason: format!("{reason}; it could not be quarantined: {e}"),
                        }),
                    },
                }
            }
        }
    }
    // A revision takes the place of the proposal its conversation began
    // with (opened for that alone, a few hops at most), not the end of the
    // queue after other agents' sessions.
    let began = |p: &StoredProposal| {
        let mut at = p.created;
        let mut revises = p.submission.revises.clone();
        for _ in 0..MAX_ROUNDS_FOLLOWED {
            let Some(id) = revises else { break };
            match read_one(&pending.join(id.file_name()), Some(&id), master) {
                Ok(earlier) => {
                    at = earlier.created.min(at);
                    revises = earlier.submission.revises;
                }
                Err(_) => break,
            }
        }
        at
    };
    let mut keyed: Vec<_> = std::mem::take(&mut out.pending)
        .into_iter()
        .map(|p| (began(&p.proposal), p))
        .collect();
    keyed.sort_by(|(a_began, a), (b_began, b)| {
        a_began
            .cmp(b_began)
            .then_with(|| a.proposal.created.cmp(&b.proposal.created))
            .then_with(|| a.id.cmp(&b.id))
    });
    out.pending = keyed.into_iter().map(|(_, p)| p).collect();
    Ok(out)
}

/// How many earlier rounds the queue's order follows back for a revision.
const MAX_ROUNDS_FOLLOWED: usize = 16;

/// Reads and opens one file, or says why it is not a proposal.
fn read_one(
    path: &Path,
    id: Option<&ProposalId>,
    master: &x25519::Identity,
) -> std::result::Result<StoredProposal, Fail> {
    let bytes = read_capped(path, MAX_FILE_BYTES)?;
    let Some(id) = id else {
        return Err(Fail::Bad("its name is not <sha256>.proposal".into()));
    };
    if ProposalId::of(&bytes) != *id {
        return Err(Fail::Bad("its content does not match the hash in its name".into()));
    }
    // Opening checks the age header before any key is tried (decoy
    // recipients would cost a key operation each): its reason is the file's.
    let p = StoredProposal::open(path, &bytes, master).map_err(|e| {
        Fail::Bad(match e {
            Error::WrongSecret(..) => "it is not sealed to this store's master key".to_owned(),
            Error::KeyFile { reason, .. } => reason,
            Error::Document { reason, .. } => format!("not a valid proposal: {reason}"),
            other => other.to_string(),
        })
    })?;
    // Merge proposals come from the index's conflict rows, never from a
    // file: anyone can seal a file to the master recipient.
    if p.source == Source::Merge {
        return Err(Fail::Bad(
            "it claims to come from a branch merge, which never writes a file".into(),
        ));
    }
    Ok(p)
}

/// Reads a regular file of at most [`MAX_FILE_BYTES`], refusing links,
/// FIFOs, devices and directories without blocking on them.
/// Why a file could not be read: a problem with the file itself, or one of
/// the moment (permissions, too many open files) that a later scan may not
/// meet.
pub(crate) enum Fail {
    Bad(String),
    Transient(String),
}

pub(crate) fn read_capped(path: &Path, cap: u64) -> std::result::Result<Vec<u8>, Fail> {
    use std::os::unix::fs::OpenOptionsExt;
    let meta = std::fs::symlink_metadata(path).map_err(|e| Fail::Transient(format!("cannot be inspected ({e})")))?;
    if meta.file_type().is_symlink() {
        return Err(Fail::Bad("it is a symbolic link".into()));
    }
    if !meta.is_file() {
        return Err(Fail::Bad("it is not a regular file".into()));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32 | rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            // Swapped for a link or a special file since the check above.
            Some(code) if code == rustix::io::Errno::LOOP.raw_os_error() => Fail::Bad("it is a symbolic link".into()),
            _ => Fail::Transient(format!("cannot be opened ({e})")),
        })?;
    let meta = file
        .metadata()
        .map_err(|e| Fail::Transient(format!("cannot be inspected ({e})")))?;
    if !meta.is_file() {
        return Err(Fail::Bad("it is not a regular file".into()));
    }
    if meta.len() == 0 {
        return Err(Fail::Bad("it is empty".into()));
    }
    if meta.len() > cap {
        return Err(Fail::Bad(format!(
            "it is {} bytes, above the {cap}-byte limit",
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Fail::Transient(format!("cannot be read ({e})")))?;
    if bytes.len() as u64 > cap {
        return Err(Fail::Bad(format!(
            "it grew above the {cap}-byte limit while being read"
        )));
    }
    Ok(bytes)
}

/// Moves `path` into the quarantine with a `.reason` file beside it. Returns
/// false when another process moved it first.
pub(crate) fn quarantine(pending: &Path, path: &Path, shown: &str, reason: &str) -> Result<bool> {
    let dir = pending.join(QUARANTINE);
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(Error::integrity(
                "pending/quarantine",
                "is not a directory (a link or a file was put there); move it away",
            ));
        }
        Err(_) => std::fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?,
    }
    let safe: String = shown
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    let stem = format!("{}-{}", Timestamp::now().0, safe.trim_start_matches('.'));
    let target = unique(&dir, &stem);
    let reason_path = target.with_extension("reason");
    let target = target.with_extension("held");
    match std::fs::rename(path, &target) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(Error::io(path, e)),
    }
    let note = format!("file: {shown}\nreason: {reason}\n");
    std::fs::write(&reason_path, note).map_err(|e| Error::io(&reason_path, e))?;
    Ok(true)
}

/// A path `dir/stem[-n]` whose `.held` and `.reason` files are both free.
fn unique(dir: &Path, stem: &str) -> PathBuf {
    let taken = |p: &PathBuf| {
        std::fs::symlink_metadata(p.with_extension("held")).is_ok()
            || std::fs::symlink_metadata(p.with_extension("reason")).is_ok()
    };
    let mut candidate = dir.join(format!("{stem}.x"));
    let mut n = 1;
    while taken(&candidate) {
        n += 1;
        candidate = dir.join(format!("{stem}-{n}.x"));
    }
    candidate
}

/// The files in quarantine and their reasons, as recorded.
pub fn quarantined(pending: &Path) -> Result<Vec<Quarantined>> {
    let dir = pending.join(QUARANTINE);
    if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return Ok(Vec::new());
    }
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "reason") {
            let text = read_capped(&path, 16 * 1024)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            let field = |k: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(k))
                    .unwrap_or_default()
                    .to_owned()
            };
            // Anyone with write access may have written this file.
            out.push(Quarantined {
                file: visible_line(&field("file: ")).into_owned(),
                reason: visible_line(&field("reason: ")).into_owned(),
            });
        }
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(out)
}
