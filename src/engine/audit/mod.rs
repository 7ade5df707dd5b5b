//! The audit log: one record per projection (agents) or preview (people),
//! and per cost an agent reports for one of its projections; appended,
//! never changed.
//!
//! Each projection record is sealed under the index key of the most secret
//! tier the writing session holds (its query text may name any node that
//! session can see, whatever tier it projects for); a step of an agent's
//! work under agent-readable, so the agent reads its whole record (see
//! [`AuditRecord::sealing_tier`]). Records are chained: `hash = SHA-256(prev | seq | at | kind |
//! tier | sealed)`. `verify` needs no keys and finds an edited, deleted or
//! reordered record; the log's head is also kept in `meta`, so losing the
//! newest records shows too (an attacker who rewrites both is issue-7
//! territory: a keyed manifest). A preview identical to the previous record is
//! not written again, so a console previewing constantly does not flood it.

mod activity;
mod cost;
mod record;
mod replay;

pub use activity::{Action, Activity, Step, failed_read_cause};
pub use cost::CostReport;
pub use record::{AuditRecord, Kind, NodeRef, TokenCost};
pub use replay::{Replay, TOOL_READ};

use rusqlite::params;
use serde::Serialize;

use crate::codec::{associated_data, from_msgpack, to_msgpack};
use crate::error::{Error, Result};
use crate::model::{Tier, Timestamp};
use crate::store::Store;

use crate::store::AUDIT_ZERO as ZERO;

/// One row of the log as `list` shows it.
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    pub seq: u64,
    pub at: String,
    pub kind: String,
    /// The tier the record is sealed under (the writer's most secret).
    pub sealed_at: Tier,
    pub hash: String,
    /// The record, when this session reads its tier (its time in RFC 3339).
    #[serde(serialize_with = "crate::model::times_rfc3339")]
    pub record: Option<AuditRecord>,
    /// For a failed read, why nothing was found, when this session reads
    /// more tiers than the agent did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// The record should be readable but fails authentication (run `audit verify`).
    pub corrupt: bool,
}

/// What `verify` found.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Verification {
    pub records: u64,
    pub ok: bool,
    pub problems: Vec<String>,
}

pub(crate) use crate::store::{AUDIT_DOMAIN as DOMAIN, audit_chain_hash as chain_hash, audit_head as head};

/// How many recent previews a new one is compared with: a console showing
/// several tiers side by side repeats each within this window.
const PREVIEW_WINDOW: i64 = 32;

/// Whether the newest preview with the same agent, tier and centre among the
/// last [`PREVIEW_WINDOW`] previews has the same text.
fn recent_same_preview(
    tx: &rusqlite::Transaction<'_>,
    ciphers: &crate::keys::TierCiphers,
    tier: Tier,
    record: &AuditRecord,
) -> Result<bool> {
    let mut stmt =
        tx.prepare("SELECT seq, sealed FROM audit WHERE kind = 'preview' AND tier = ?1 ORDER BY seq DESC LIMIT ?2")?;
    let mut rows = stmt.query(params![tier.code(), PREVIEW_WINDOW])?;
    while let Some(r) = rows.next()? {
        let seq = u64::try_from(r.get::<_, i64>(0)?).unwrap_or(0);
        let sealed: Vec<u8> = r.get(1)?;
        let Some(prev) = ciphers
            .index
            .open(&associated_data(DOMAIN, &[0; 16], seq, tier), &sealed)
            .ok()
            .and_then(|p| from_msgpack::<AuditRecord>("audit record", &p).ok())
        else {
            continue;
        };
        if prev.agent == record.agent && prev.tier == record.tier && prev.center == record.center {
            return Ok(prev.projection_hash == record.projection_hash);
        }
    }
    Ok(false)
}

impl Store {
    /// Appends `record` (sealed under its tier). Returns its sequence number,
    /// or `None` for a preview identical to the newest record.
    pub fn audit_append(&mut self, record: &AuditRecord) -> Result<Option<u64>> {
        self.refuse_if_rolled_back("recording a projection in the audit log")?;
        self.refuse_if_names_only("recording a projection in the audit log")?;
        let tier = record.sealing_tier(self.level().max_tier());
        let (keys, conn) = self.keys_and_conn();
        let ciphers = keys.tier(tier)?;
        // Immediate: two appenders never read the same last record.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // Never under a key another process has rotated away since.
        if let Some(rotated) = crate::store::retired_key(&tx, keys)? {
            return Err(Error::KeyRotated(rotated));
        }
        let (last_seq, prev) = head(&tx)?;
        let seq = last_seq + 1;
        if record.kind == Kind::Preview && recent_same_preview(&tx, ciphers, tier, record)? {
            return Ok(None);
        }
        let sealed = ciphers
            .index
            .seal(&associated_data(DOMAIN, &[0; 16], seq, tier), &to_msgpack(record)?)?;
        let at = record.at.0;
        let kind = record.kind.as_str();
        let hash = chain_hash(&prev, seq, at, kind, tier, &sealed);
        tx.execute(
            "INSERT INTO audit (seq, at, kind, tier, sealed, prev, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![seq as i64, at, kind, tier.code(), sealed, prev, hash],
        )?;
        tx.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('audit_head', ?1)",
            [format!("{seq}:{hash}")],
        )?;
        let mut one = [0u64; 4];
        one[tier.code() as usize] = 1;
        crate::store::count_sealings(&tx, one)?;
        Store::seal_audit_head(&tx, keys)?;
        tx.commit()?;
        self.note_fresh();
        Ok(Some(seq))
    }

    /// Checks the whole chain (no keys needed).
    pub fn audit_verify(&self) -> Result<Verification> {
        let mut stmt = self
            .conn()
            .prepare("SELECT seq, at, kind, tier, sealed, prev, hash FROM audit ORDER BY seq")?;
        let mut rows = stmt.query([])?;
        let mut problems = Vec::new();
        let (mut expected_prev, mut expected_seq, mut count) = (ZERO.to_owned(), 1u64, 0u64);
        let mut last = None;
        while let Some(r) = rows.next()? {
            count += 1;
            let seq = u64::try_from(r.get::<_, i64>(0)?).unwrap_or(0);
            let (at, kind, tier_code): (i64, String, i64) = (r.get(1)?, r.get(2)?, r.get(3)?);
            let (sealed, prev, hash): (Vec<u8>, String, String) = (r.get(4)?, r.get(5)?, r.get(6)?);
            if seq != expected_seq {
                problems.push(format!("record {expected_seq} is missing (found {seq} next)"));
            }
            if prev != expected_prev {
                problems.push(format!(
                    "record {seq} does not follow the record before it (deleted, reordered or replaced)"
                ));
            }
            let known_kind = Kind::is_known(&kind);
            match Tier::from_code(tier_code) {
                Some(tier) if known_kind && chain_hash(&prev, seq, at, &kind, tier, &sealed) == hash => {}
                _ => problems.push(format!(
                    "record {seq} was altered (its hash does not match its content)"
                )),
            }
            expected_prev = hash.clone();
            expected_seq = seq + 1;
            last = Some(format!("{seq}:{hash}"));
        }
        if let Err(e) = self.check_sealed_audit() {
            problems.push(e.to_string());
        }
        let head = crate::store::meta(self.conn(), "audit_head")?;
        if head != last {
            problems.push(format!(
                "the log ends at {} but its head says {} (newest records removed?)",
                last.as_deref().unwrap_or("nothing"),
                head.as_deref().unwrap_or("nothing")
            ));
        }
        Ok(Verification {
            records: count,
            ok: problems.is_empty(),
            problems,
        })
    }

    /// Records, newest first, filtered by agent and time; sealed records this
    /// session cannot read are listed without their content (and never match
    /// an agent filter).
    pub fn audit_list(&self, agent: Option<&str>, since: Option<Timestamp>, limit: usize) -> Result<Vec<Entry>> {
        let mut stmt = self
            .conn()
            .prepare("SELECT seq, at, kind, tier, sealed, hash FROM audit WHERE at >= ?1 ORDER BY seq DESC")?;
        let mut rows = stmt.query([since.map_or(i64::MIN, |t| t.0)])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let seq = u64::try_from(r.get::<_, i64>(0)?).unwrap_or(0);
            let tier = Tier::from_code(r.get(3)?)
                .ok_or_else(|| Error::integrity("audit", format!("record {seq}: bad tier")))?;
            let sealed: Vec<u8> = r.get(4)?;
            let (record, corrupt) = match self.keys().tier(tier) {
                Ok(c) => c
                    .index
                    .open(&associated_data(DOMAIN, &[0; 16], seq, tier), &sealed)
                    .ok()
                    .and_then(|p| from_msgpack::<AuditRecord>("audit record", &p).ok())
                    .map_or((None, true), |r| (Some(r), false)),
                Err(_) => (None, false),
            };
            if agent.is_some_and(|a| record.as_ref().is_none_or(|rec| rec.agent != a)) {
                continue;
            }
            let cause = record
                .as_ref()
                .and_then(|rec| failed_read_cause(self.catalog(), rec, self.level().max_tier()));
            out.push(Entry {
                seq,
                at: Timestamp(r.get(1)?).to_rfc3339(),
                kind: r.get(2)?,
                sealed_at: tier,
                hash: r.get(5)?,
                record,
                cause,
                corrupt,
            });
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
pub(crate) mod tests;
