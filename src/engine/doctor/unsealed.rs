//! What `doctor` checks that the seal does not cover, or that it still
//! checks on a store whose seal is gone: the audit chain, the decisions'
//! signatures, and this machine's freshness record. "Did not open" is
//! never the whole answer.

use rusqlite::Connection;

use super::{Check, Outcome, check};
use crate::freshness::Verdict;
use crate::store::Store;

/// Whether the index has a seal row.
pub(super) fn has_seal(conn: &Connection) -> bool {
    conn.query_row("SELECT count(*) FROM seal", [], |r| r.get::<_, i64>(0))
        .is_ok_and(|n| n > 0)
}

/// The audit log's hash chain (no key needed).
pub(super) fn audit_chain(store: &Store) -> Check {
    match store.audit_verify() {
        Ok(v) if v.ok => check(
            "audit chain",
            Outcome::Ok,
            format!("{} records, each following the one before", v.records),
        ),
        Ok(v) => check("audit chain", Outcome::Finding, v.problems.join("; ")),
        Err(e) => check("audit chain", Outcome::Finding, e.to_string()),
    }
}

/// Every decision's signature by the master.
pub(super) fn decisions(store: &Store) -> Check {
    match store.check_decision_signatures() {
        Ok(0) => check("decisions", Outcome::Ok, "no proposal decided yet"),
        Ok(n) => check(
            "decisions",
            Outcome::Ok,
            format!("{n} decisions, each signed by the master"),
        ),
        Err(e) => check("decisions", Outcome::Finding, e.to_string()),
    }
}

/// This machine's freshness record of the store.
pub(super) fn freshness(store: &Store) -> Check {
    let Some(f) = store.freshness() else {
        return check(
            "freshness",
            Outcome::Skipped,
            "no key that authenticates the seal: no record is kept for this session",
        );
    };
    if let Some(p) = &f.problem {
        return check("freshness", Outcome::Finding, p.clone());
    }
    match &f.verdict {
        Verdict::RolledBack(rb) => check(
            "freshness",
            Outcome::Finding,
            crate::store::rollback_text(store.layout().root(), rb),
        ),
        Verdict::First => check(
            "freshness",
            Outcome::Skipped,
            "the freshness record is missing: this is the first open on this machine, or the record was deleted \
             (a rollback before now cannot be detected); it starts now",
        ),
        Verdict::Fresh { .. } | Verdict::Followed { .. } => check(
            "freshness",
            Outcome::Ok,
            "the store is the newest this machine saw, or descends from it",
        ),
    }
}
