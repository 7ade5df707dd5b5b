//! Sealing a store that has no seal, without blessing an attack. A seal
//! deleted outside Graphex cannot be told from a store made before seals
//! by the store alone, so `graphex seal` never trusts the state it repairs:
//! it finds the last seal it can verify (this machine's freshness record,
//! else the one in git's `HEAD`), lists every difference between that
//! state and the store as it is, and refuses while any is unexplained.
//! Each kind of difference needs its own explicit acceptance; restoring
//! the trusted copy is the other way out. A store whose schema says it
//! was made before seals existed is sealed as it is, in one command.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension};

use super::seal::{SealTagger, Statement, StatementId, verifies_mac};
use super::seal_accept::{self, Acceptance};
use super::seal_statement::statement_id;
use super::{Store, policy, saved, schema, seal_timeline, tally};
use crate::crypto::hex::{hex, unhex};
use crate::error::{Error, Result};
use crate::freshness::{Kind, Record, RecordFile};
use crate::keys::Keyring;

/// A kind of difference between the trusted seal and the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DiffKind {
    /// The commit counter.
    Commits,
    /// Node and edge rows (or their name tokens).
    Rows,
    /// Proposal decisions.
    Decisions,
    /// Audit records the trusted seal names.
    Audit,
    /// The approved settings.
    Settings,
    /// Saved queries.
    Queries,
    /// Timeline rows.
    Timeline,
    /// No trusted seal was found to compare with.
    NoReference,
}

impl DiffKind {
    pub const ALL: [DiffKind; 8] = [
        DiffKind::Commits,
        DiffKind::Rows,
        DiffKind::Decisions,
        DiffKind::Audit,
        DiffKind::Settings,
        DiffKind::Queries,
        DiffKind::Timeline,
        DiffKind::NoReference,
    ];

    /// The name `graphex seal --accept` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            DiffKind::Commits => "commits",
            DiffKind::Rows => "rows",
            DiffKind::Decisions => "decisions",
            DiffKind::Audit => "audit",
            DiffKind::Settings => "settings",
            DiffKind::Queries => "queries",
            DiffKind::Timeline => "timeline",
            DiffKind::NoReference => "no-reference",
        }
    }
}

/// One difference, in words, and the digest that accepts it as the store
/// holds it now (`seal --accept KIND=DIGEST`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub kind: DiffKind,
    pub detail: String,
    pub digest: String,
}

/// Where the trusted seal came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reference {
    /// This machine's freshness record (its path).
    Record(String),
    /// The index git holds at `HEAD` (the commit).
    GitHead(String),
}

impl std::fmt::Display for Reference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reference::Record(p) => write!(f, "this machine's freshness record ({p})"),
            Reference::GitHead(c) => write!(
                f,
                "the sealed graph.db in git's HEAD (commit {})",
                c.get(..12).unwrap_or(c)
            ),
        }
    }
}

/// What sealing would do.
#[derive(Clone, Debug)]
pub struct SealPlan {
    /// The trusted seal compared with, if one was found.
    pub reference: Option<Reference>,
    /// The store's schema says it was made before seals existed.
    pub migrated: bool,
    /// History or timeline rows with no MAC beside others that carry the
    /// master's: written outside Graphex, never accepted.
    pub mixed_macs: Option<String>,
    pub differences: Vec<Difference>,
    /// The settings in force once sealed with the settings accepted: the
    /// approved ones, or `.gpp/config.toml`'s when none were ever approved
    /// (what `seal` shows before anyone accepts them).
    pub settings: crate::config::Config,
    /// Sealing with the settings accepted approves `.gpp/config.toml`.
    pub settings_from_file: bool,
    /// The trusted statement's id, followed by the new seal.
    follows: Option<StatementId>,
    follows_bytes: Option<Vec<u8>>,
    /// The trusted state as a freshness record: what a restore looks for
    /// (`rollback::find`).
    pub trusted: Option<Record>,
}

impl SealPlan {
    /// The acceptances of `kinds` as this plan shows them (their digests):
    /// what a caller that showed the plan to a person passes to
    /// [`Store::seal`].
    pub fn accepting(&self, kinds: &[DiffKind]) -> Vec<Acceptance> {
        self.differences
            .iter()
            .filter(|d| kinds.contains(&d.kind))
            .map(|d| Acceptance {
                kind: d.kind,
                digest: d.digest.clone(),
            })
            .collect()
    }

    /// The differences not in `accepted`.
    pub fn unexplained(&self, accepted: &[DiffKind]) -> Vec<&Difference> {
        self.differences
            .iter()
            .filter(|d| !accepted.contains(&d.kind))
            .collect()
    }
}

/// A trusted statement: authenticated by its MAC under this session's key.
fn trusted(keys: &Keyring, bytes: &[u8], mac: &[u8]) -> Option<Statement> {
    (keys.seal().is_some() && verifies_mac(keys, bytes, mac))
        .then(|| Statement::decode(bytes))
        .flatten()
}

/// The last seal this machine can verify: its record, else git's `HEAD`.
fn reference(root: &Path, keys: &Keyring) -> Option<(Reference, Vec<u8>, Statement, Record)> {
    if let Some(file) = RecordFile::for_store(root, Kind::Master)
        && let Ok(Some(r)) = file.load()
        && let (Some(bytes), Some(mac)) = (unhex(&r.bytes), unhex(&r.mac))
        && let Some(st) = trusted(keys, &bytes, &mac)
    {
        return Some((Reference::Record(file.path().display().to_string()), bytes, st, r));
    }
    let commit = crate::freshness::git::head(root)?;
    let (bytes, _, st) = sealed_in_git(root, &commit, keys)?;
    let record = Record {
        statement: hex(&statement_id(&bytes)),
        seq: st.seq,
        commit: Some(commit.clone()),
        ..Record::default()
    };
    Some((Reference::GitHead(commit), bytes, st, record))
}

/// The master's seal on the graph.db git holds at `commit`, when this
/// session's key authenticates it: its bytes, MAC and statement.
pub(super) fn sealed_in_git(root: &Path, commit: &str, keys: &Keyring) -> Option<(Vec<u8>, Vec<u8>, Statement)> {
    let path = crate::freshness::git::index_path_in_repo(root)?;
    let copy = crate::freshness::git::show(root, commit, &path)?;
    let tmp = tempfile::NamedTempFile::new().ok()?;
    std::fs::write(tmp.path(), copy).ok()?;
    let conn = Connection::open(tmp.path()).ok()?;
    schema::forbid_code(&conn).ok()?;
    let (bytes, mac): (Vec<u8>, Vec<u8>) = conn
        .query_row("SELECT statement, mac FROM seal WHERE id = 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()
        .ok()??;
    let st = trusted(keys, &bytes, &mac)?;
    Some((bytes, mac, st))
}

fn counts(conn: &Connection, table: &str) -> Result<(i64, i64)> {
    Ok(conn.query_row(
        &format!("SELECT count(mac), count(*) - count(mac) FROM {table}"),
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// Rows with and without a MAC side by side.
fn mixed_macs(conn: &Connection) -> Result<Option<String>> {
    let mut with = 0;
    let mut without = 0;
    for table in ["node_versions", "timeline", "unlinked"] {
        let (w, wo) = counts(conn, table)?;
        with += w;
        without += wo;
    }
    Ok((with > 0 && without > 0).then(|| {
        format!(
            "{without} history or timeline rows have no MAC while {with} others carry the master's: rows were \
             written outside Graphex (a store from an earlier version has none at all); they are never sealed \
             as they are"
        )
    }))
}

/// The tally of every decision row.
pub(super) fn decisions_sum(conn: &Connection, tagger: &SealTagger) -> Result<super::manifest::Sum> {
    let mut decisions = super::manifest::Sum::default();
    for d in super::seal::decision_rows(conn, None)? {
        decisions.add(&tagger.decision(&d), 1);
    }
    Ok(decisions)
}

fn compare(conn: &Connection, keys: &Keyring, t: &Statement) -> Result<Vec<Difference>> {
    let seal = keys
        .seal()
        .ok_or_else(|| keys.needs(crate::keys::Level::Master, "sealing the store"))?;
    let tagger = SealTagger::new(seal.mac_key());
    let mut out = Vec::new();
    let mut diff = |kind, detail: String| {
        out.push(Difference {
            kind,
            detail,
            digest: String::new(),
        })
    };
    let seq = schema::commit_seq(conn)?;
    if seq != t.seq {
        diff(
            DiffKind::Commits,
            format!("the index is at commit {seq}; the trusted seal is at commit {}", t.seq),
        );
    }
    let (rows, _) = tally::seal_rows(conn, &tagger, &tally::never)?;
    if rows != t.rows {
        diff(
            DiffKind::Rows,
            format!(
                "node and edge rows differ: {} now, {} under the trusted seal (added, removed or altered)",
                rows.count, t.rows.count
            ),
        );
    }
    let decisions = decisions_sum(conn, &tagger)?;
    if decisions != t.decisions {
        diff(
            DiffKind::Decisions,
            format!(
                "proposal decisions differ: {} now, {} under the trusted seal (removed ones put proposals back in \
                 the queue)",
                decisions.count, t.decisions.count
            ),
        );
    }
    if t.audit_seq > 0 {
        let hash: Option<String> = conn
            .query_row(
                "SELECT hash FROM audit WHERE seq = ?1",
                [i64::try_from(t.audit_seq).unwrap_or(i64::MAX)],
                |r| r.get(0),
            )
            .optional()?;
        if hash.as_deref() != Some(t.audit_hash.as_str()) {
            let (last, _) = super::audit_head(conn)?;
            diff(
                DiffKind::Audit,
                format!(
                    "audit record {} that the trusted seal names is gone or altered; the log now ends at record \
                     {last}",
                    t.audit_seq
                ),
            );
        }
    }
    if policy::approved(conn)?.digest()? != t.policy {
        diff(
            DiffKind::Settings,
            "the approved settings (trust thresholds, scrub patterns, federation sources…) are not the ones the \
             trusted seal approved"
                .into(),
        );
    }
    if saved::tally(conn, &tagger)? != t.queries {
        diff(DiffKind::Queries, "saved queries differ".into());
    }
    let timeline = seal_timeline::tally(conn, &tagger, t.timeline_seq)?;
    if timeline != t.timeline {
        diff(
            DiffKind::Timeline,
            format!(
                "timeline rows up to row {} differ: {} now, {} under the trusted seal (deleted, altered or \
                 renumbered)",
                t.timeline_seq, timeline.count, t.timeline.count
            ),
        );
    }
    Ok(out)
}

impl Store {
    /// What `seal` would find: the trusted seal, and every difference
    /// from it (opened with [`Store::open_to_seal`]).
    pub fn seal_plan(&self) -> Result<SealPlan> {
        self.require_writer("sealing the store")?;
        let migrated = schema::meta(&self.conn, "migrated_from")?
            .and_then(|v| v.parse::<u32>().ok())
            .is_some_and(|v| v < schema::FIRST_SEALED_SCHEMA);
        let found = reference(self.layout.root(), &self.keys);
        let mut differences = match &found {
            Some((_, _, t, _)) => compare(&self.conn, &self.keys, t)?,
            None if migrated => Vec::new(),
            None => vec![Difference {
                kind: DiffKind::NoReference,
                detail: "no seal to compare with: this machine has no freshness record of the store, and git's HEAD \
                         holds no sealed copy of it; whatever the index holds now would be sealed unchecked"
                    .into(),
                digest: String::new(),
            }],
        };
        let file = crate::config::Config::load(&self.layout.gpp()).ok();
        let (settings, settings_from_file) = seal_accept::settings_after(&self.conn, file)?;
        // Settings never approved here would be taken from the file, which
        // anyone who writes to the repository can edit: shown and accepted
        // like any other difference, never approved in passing.
        if settings_from_file
            && settings != crate::config::Config::default()
            && !differences.iter().any(|d| d.kind == DiffKind::Settings)
        {
            differences.push(Difference {
                kind: DiffKind::Settings,
                detail: "no settings were ever approved in this store: sealing with the settings accepted puts \
                         .gpp/config.toml's in force"
                    .into(),
                digest: String::new(),
            });
        }
        differences.sort_by_key(|d| d.kind);
        let follows = found.as_ref().map(|(_, b, ..)| statement_id(b));
        let seal = self
            .keys
            .seal()
            .ok_or_else(|| self.keys.needs(crate::keys::Level::Master, "sealing the store"))?;
        let tagger = SealTagger::new(seal.mac_key());
        for d in &mut differences {
            let fingerprint = seal_accept::fingerprint(&self.conn, &tagger, d.kind, &settings)?;
            d.digest = seal_accept::digest(seal.mac_key(), d.kind, follows.as_ref(), &fingerprint);
        }
        Ok(SealPlan {
            settings,
            settings_from_file,
            migrated,
            mixed_macs: mixed_macs(&self.conn)?,
            differences,
            follows,
            follows_bytes: found.as_ref().map(|(_, b, ..)| b.clone()),
            trusted: found.as_ref().map(|(.., r)| r.clone()),
            reference: found.map(|(r, ..)| r),
        })
    }

    /// Seals the store as it is now, when it has no seal, once every
    /// difference from the last trusted seal is in `accepted` (refused
    /// otherwise, naming each). Opened with [`Store::open_to_seal`], so its
    /// rows were checked against the manifest. The new seal follows the
    /// trusted one. Approves `.gpp/config.toml` when nothing was approved
    /// and the settings are accepted (or the store predates seals).
    /// Returns false when the store was sealed already.
    pub fn seal(&mut self, accepted: &[Acceptance]) -> Result<bool> {
        self.seal_restoring(accepted, None)
    }

    /// [`Store::seal`], restoring from the trusted copy at `copy` (an index
    /// whose seal is the trusted statement) every difference of a kind that
    /// can be restored alone and is not in `accepted`. The store as it was
    /// should be kept aside by the caller first.
    pub fn seal_restoring(&mut self, accepted: &[Acceptance], copy: Option<&Path>) -> Result<bool> {
        self.require_writer("sealing the store")?;
        if super::seal::exists(&self.conn)? {
            return Ok(false);
        }
        let plan = self.seal_plan()?;
        let accepted = &seal_accept::checked(&plan.differences, accepted)?[..];
        if let Some(mixed) = &plan.mixed_macs {
            return Err(Error::Unexplained(format!(
                "not sealed: {mixed}. Restore the trusted copy (`graphex seal --restore-all`)"
            )));
        }
        let restoring: Vec<DiffKind> = match copy {
            Some(_) => plan
                .unexplained(accepted)
                .iter()
                .map(|d| d.kind)
                .filter(|k| k.restorable())
                .collect(),
            None => Vec::new(),
        };
        let mut explained = accepted.to_vec();
        explained.extend(&restoring);
        let left = plan.unexplained(&explained);
        if !left.is_empty() {
            let list: Vec<String> = left
                .iter()
                .map(|d| format!("{}: {}", d.kind.as_str(), d.detail))
                .collect();
            let flags: Vec<String> = left
                .iter()
                .map(|d| format!("--accept {}={}", d.kind.as_str(), d.digest))
                .collect();
            return Err(Error::Unexplained(format!(
                "not sealed: the store differs from {}: {}. Restore the trusted copy (`graphex seal`, which \
                 restores settings, decisions, the audit log and saved queries alone, or `graphex seal \
                 --restore-all` for the whole store), or accept each difference deliberately ({})",
                plan.reference
                    .as_ref()
                    .map_or_else(|| "any seal that can be verified".to_owned(), ToString::to_string),
                list.join("; "),
                flags.join(" ")
            )));
        }
        let approve_file = plan.settings_from_file && accepted.contains(&DiffKind::Settings);
        let attached = match (copy, &plan.follows) {
            (Some(copy), Some(want)) if !restoring.is_empty() => {
                super::seal_restore::attach(&self.conn, copy, want)?;
                true
            }
            _ => false,
        };
        let sealed = self.seal_in_tx(&plan, &restoring, approve_file);
        if attached {
            super::seal_restore::detach(&self.conn);
        }
        sealed
    }

    fn seal_in_tx(&mut self, plan: &SealPlan, restoring: &[DiffKind], approve_file: bool) -> Result<bool> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        if super::seal::exists(&tx)? {
            return Ok(false);
        }
        if schema::commit_seq(&tx)? != self.seen_seq {
            return Err(Error::Stale);
        }
        for kind in restoring {
            super::seal_restore::restore(&tx, *kind)?;
        }
        // What was restored must now be what the trusted seal says.
        if let Some(t) = plan.follows_bytes.as_deref().and_then(Statement::decode) {
            let still: Vec<Difference> = compare(&tx, &self.keys, &t)?
                .into_iter()
                .filter(|d| restoring.contains(&d.kind))
                .collect();
            if let Some(d) = still.first() {
                return Err(Error::integrity(
                    "the restored tables",
                    format!(
                        "{} still differ after the restore: {}; nothing written",
                        d.kind.as_str(),
                        d.detail
                    ),
                ));
            }
        }
        if approve_file && !policy::is_set(&tx)? {
            // Exactly the settings shown and accepted: a file edited since
            // is refused.
            match crate::config::Config::load(&self.layout.gpp()) {
                Ok(config) if config == plan.settings => policy::put(&tx, &config)?,
                _ => {
                    return Err(Error::integrity(
                        ".gpp/config.toml",
                        "it changed since the settings were shown: nothing sealed; run `graphex seal` again",
                    ));
                }
            }
        }
        super::rowmac::note_action(&tx, &self.keys, "seal".into(), None)?;
        super::rowmac::mac_all(&tx, &self.keys)?;
        let follows: Vec<StatementId> = match (&plan.follows, &plan.follows_bytes) {
            (Some(id), Some(bytes)) => {
                super::seal_log::keep(&tx, bytes)?;
                vec![*id]
            }
            _ => Vec::new(),
        };
        super::seal::rebuild(&tx, &self.keys, self.seen_seq, &follows)?;
        tx.commit()?;
        self.unsealed = false;
        // Verified again, as every later open will: by the seal's tags.
        self.load_verified()?;
        self.check_fresh();
        Ok(true)
    }
}

/// The ids of the accepted kinds, by name (`graphex seal --accept`).
pub fn diff_kind(name: &str) -> Option<DiffKind> {
    DiffKind::ALL.into_iter().find(|k| k.as_str() == name)
}
