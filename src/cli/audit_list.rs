//! `audit list` as text: one line per record, what an agent received or
//! did (a proposal, a comment, a failed read) and the decisions on its
//! proposals. Agent-written text (a reason, a comment's target) is quoted,
//! so it never reads as a column.

use graphex_engine::audit::{AuditRecord, Entry};
use graphex_engine::hygiene::visible_text;

use crate::shared::audit_text;

/// The lines of `entries`, or a line saying there are none.
pub fn text(entries: &[Entry]) -> String {
    let mut s = String::new();
    for e in entries {
        let head = format!("{:>5}  {}  {:<11}", e.seq, e.at, e.kind);
        match &e.record {
            Some(r) => {
                s.push_str(&format!(
                    "{head}  {:<16}  {:<16}  {}\n",
                    r.agent,
                    r.tier.to_string(),
                    what(r)
                ));
                if let Some(cause) = &e.cause {
                    s.push_str(&format!("{:>7}{}\n", "", visible_text(cause)));
                }
            }
            None => s.push_str(&format!("{head}  (sealed at {})\n", e.sealed_at)),
        }
    }
    if s.is_empty() {
        s.push_str("no audit records\n");
    }
    s
}

/// What one readable record says after its agent and tier.
fn what(r: &AuditRecord) -> String {
    if let Some(a) = &r.activity {
        return audit_text::activity(a);
    }
    let hash = &r.projection_hash[..r.projection_hash.len().min(12)];
    let centre = visible_text(&r.center);
    match &r.cost {
        Some(c) => audit_text::cost(c, &format!("{hash}  {centre}")),
        None => format!(
            "{} node(s), {}/{} tokens  {hash}  {centre}",
            r.emitted.len(),
            r.tokens,
            r.budget
        ),
    }
}
