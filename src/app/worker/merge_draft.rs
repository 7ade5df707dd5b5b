//! `m` on a near-duplicate: the worker rewrites the proposal's `add_node`
//! as an update of the node it duplicates (the engine's `merged_into`) and
//! answers with what the reviewer checks before accepting: the rewritten
//! changes, diffed against the existing node, and their lints. Nothing is
//! written until the reviewer accepts it as an edit.

use graphex_engine::proposal::{self, Lint, StoredProposal};
use graphex_engine::{Error, Store};

use super::{Reply, Worker};
use crate::app::panes::queue::data::{self, MergeView};

impl Worker {
    pub(super) fn merge_draft(&mut self, id: &str) -> Reply {
        match self.with_store(|s| merge_view(s, id)) {
            Ok(v) => Reply::MergeDraft(Box::new(v)),
            Err(e) => Reply::Failed(format!("merge: {e}")),
        }
    }
}

/// The merge of proposal `id`'s near-duplicate into the node it duplicates,
/// as the console shows it for review.
pub(crate) fn merge_view(s: &Store, id: &str) -> graphex_engine::Result<MergeView> {
    let (pid, p) = s.proposal(id)?;
    let found = proposal::lint(s, &p).into_iter().find_map(|l| match l {
        Lint::NearDuplicate { change, name, existing } => Some((change, name, existing)),
        _ => None,
    });
    let Some((change, added, existing)) = found else {
        return Err(Error::Invalid {
            what: "merge",
            value: pid.short().to_owned(),
            reason: "this proposal adds no node close to an existing one".into(),
        });
    };
    let merged = StoredProposal {
        submission: proposal::merged_into(s, &p.submission, change, &existing)?,
        ..p.clone()
    };
    Ok(MergeView {
        id: id.to_owned(),
        short: pid.short().to_owned(),
        change,
        added: graphex_engine::hygiene::visible_line(&added).into_owned(),
        existing: existing.clone(),
        changes: merged.submission.changes.iter().map(|c| data::change(s, c)).collect(),
        lints: data::lints_shown(s, &proposal::lint(s, &merged)),
        text: proposal::edit_text(&merged),
    })
}
