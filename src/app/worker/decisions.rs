//! The decisions the worker makes on the queue: accept (one, many, an
//! edit), reject, the stale-base answer, and resolving a contradiction.

use graphex_engine::Error;
use graphex_engine::proposal;
use graphex_engine::proposal::AcceptOptions;

use super::{Reply, Worker};
use crate::app::panes::queue::contradiction::{Resolution, resolve};

impl Worker {
    pub(super) fn accept(&mut self, id: &str, force: bool) -> Reply {
        let r = self.with_store(|s| {
            let (pid, p) = s.proposal(id)?;
            s.accept(&pid, &p, &AcceptOptions { only: None, force })
                .map(|a| (pid, a))
        });
        match r {
            Ok((pid, a)) => Reply::Done(self.noting_undo(format!(
                "accepted {}: {} node(s) added, {} changed, {} edge(s) added{}",
                pid.short(),
                a.nodes_added,
                a.nodes_changed,
                a.edges_added,
                crate::shared::cards::removed_note(a.edges_removed)
            ))),
            Err(Error::StaleBase { .. }) => self.stale(id, false),
            Err(e) => Reply::Failed(format!("accept: {e}")),
        }
    }

    pub(super) fn stale(&mut self, id: &str, edit: bool) -> Reply {
        let nodes = self.with_store(|s| {
            let (_, p) = s.proposal(id)?;
            proposal::stale_versions(s, &p)
        });
        let (versions, three) = match nodes {
            Ok(nodes) => (
                crate::shared::cards::stale(&nodes),
                crate::shared::three_way::three_way(&nodes),
            ),
            Err(e) => (e.to_string(), Vec::new()),
        };
        Reply::Stale {
            id: id.to_owned(),
            versions,
            three,
            edit,
        }
    }

    pub(super) fn accept_many(&mut self, ids: &[String]) -> Reply {
        let (mut ok, mut failed) = (Vec::new(), Vec::new());
        for id in ids {
            let r = self.with_store(|s| {
                let (pid, p) = s.proposal(id)?;
                s.accept(&pid, &p, &AcceptOptions::default())
            });
            match r {
                Ok(_) => ok.push(short(id)),
                Err(e) => failed.push(format!("{}: {e}", short(id))),
            }
        }
        report("accepted", &ok, &failed)
    }

    pub(super) fn reject(&mut self, ids: &[String], reason: &str) -> Reply {
        let (mut ok, mut failed) = (Vec::new(), Vec::new());
        for id in ids {
            let r = self.with_store(|s| {
                let pid = s.resolve_proposal(id)?;
                s.reject(&pid, reason)
            });
            match r {
                Ok(()) => ok.push(short(id)),
                Err(e) => failed.push(format!("{}: {e}", short(id))),
            }
        }
        report("rejected", &ok, &failed)
    }

    pub(super) fn request_changes(&mut self, id: &str, comment: &str, change: Option<usize>) -> Reply {
        let r = self.with_store(|s| {
            let pid = s.resolve_proposal(id)?;
            s.request_changes(&pid, comment, change)
        });
        match r {
            Ok(()) => Reply::Done(format!(
                "asked for changes on {}: it waits for the agent's revision",
                &id[..id.len().min(12)]
            )),
            Err(e) => Reply::Failed(format!("asking for changes: {e}")),
        }
    }

    /// A contradiction resolved from the queue: curation writes, each its
    /// own commit (as `graphex deprecate` and `graphex update` make them).
    pub(super) fn resolve(&mut self, r: &Resolution) -> Reply {
        match self.current().map(|s| resolve(s, r)) {
            Ok(Ok(text)) => Reply::Done(text),
            Ok(Err(text)) => Reply::Failed(text),
            Err(e) => Reply::Failed(e.to_string()),
        }
    }

    pub(super) fn accept_edit(&mut self, id: &str, text: &str, force: bool) -> Reply {
        let r = self.with_store(|s| {
            let pid = s.resolve_proposal(id)?;
            s.accept_edit(&pid, text, force)
        });
        match r {
            Ok((new, a)) => Reply::EditSaved(self.noting_undo(format!(
                "accepted the edit of {} as {}: {} node(s) added, {} changed, {} edge(s) added{}",
                &id[..id.len().min(12)],
                new.short(),
                a.nodes_added,
                a.nodes_changed,
                a.edges_added,
                crate::shared::cards::removed_note(a.edges_removed)
            ))),
            Err(Error::StaleBase { .. }) => self.stale(id, true),
            Err(e) => Reply::EditFailed(e.to_string()),
        }
    }
}

impl Worker {
    /// `text`, and, when undoing what was just done needs a level this
    /// session lacks, that too: said now, not when `u` is pressed.
    fn noting_undo(&self, text: String) -> String {
        match self.store.as_ref().and_then(graphex_engine::Store::undo_blocked) {
            Some(why) => format!("{text}; u cannot undo it at this level: {why}"),
            None => text,
        }
    }
}

/// The first 12 characters of an id, as cards show it.
fn short(id: &str) -> String {
    id.chars().take(12).collect()
}

/// The outcome of deciding several proposals, each named (the first few,
/// then how many more).
fn report(verb: &str, ok: &[String], failed: &[String]) -> Reply {
    const NAMED: usize = 5;
    let mut named = ok.iter().take(NAMED).cloned().collect::<Vec<_>>().join(", ");
    if ok.len() > NAMED {
        named.push_str(&format!(" and {} more", ok.len() - NAMED));
    }
    match (ok.len(), failed.is_empty()) {
        (1, true) => Reply::Done(format!("{verb} {named}")),
        (_, true) => Reply::Done(format!("{verb} {} proposals: {named}", ok.len())),
        (0, false) => Reply::Failed(format!("none {verb}: {}", failed.join("; "))),
        (_, false) => Reply::Failed(format!(
            "{verb} {} ({named}), {} not: {}",
            ok.len(),
            failed.len(),
            failed.join("; ")
        )),
    }
}

/// What the log says of an undo that failed: the engine's reason, which
/// names the undo already ("cannot undo: …"), or the error after "undo: ".
pub fn undo_failure(e: &graphex_engine::Error) -> String {
    let text = e.to_string();
    if text.starts_with("cannot undo") || text.starts_with("nothing to undo") {
        text
    } else {
        format!("undo: {text}")
    }
}
