//! Redo after undo, for decisions: the worker remembers how this session
//! decided each proposal (accepted, forced or not, or rejected with which
//! reason), so a decision undone with `u` can be made again with `ctrl-y`,
//! exactly as it was (accepted, rejected with the same reason, or sent
//! back with the same comment). Redo is the exact reverse of the undos it
//! follows: the last one undone first, and an undo of something this
//! session cannot redo (an accepted edit, a curation, another session's
//! decision) ends what can be redone, as in any editor, so a redo never
//! skips over it. A redo is made only on the graph the undo left: if
//! any commit came since (another process), the proposal's flags may have
//! changed, and the reviewer decides it again with them on screen.

use super::Request;

/// How many of this session's decisions are remembered.
const REMEMBERED: usize = 200;

/// One decision as this session made it.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    Accept {
        force: bool,
    },
    Reject {
        reason: String,
    },
    /// Sent back to the agent with a comment, on the whole or one change.
    RequestChanges {
        comment: String,
        change: Option<usize>,
    },
}

/// A decision undone: the proposal, how it was decided, and the commit the
/// undo left.
#[derive(Clone, Debug, PartialEq)]
struct Undone {
    id: String,
    decision: Decision,
    left: u64,
}

#[derive(Debug, Default)]
pub struct Redo {
    /// The decisions made, oldest first: the id as asked, and how.
    made: Vec<(String, Decision)>,
    /// Decisions undone, the next to redo last.
    undone: Vec<Undone>,
    /// What is left to redo while a redo is being made (its decision ends
    /// redo as any decision does; [`Redo::redone`] gives it back).
    held: Vec<Undone>,
}

impl Redo {
    /// Notes the decisions `req` made (`decided`: it did not fail) and
    /// ends what could be redone. Any other write only ends the latter.
    pub fn after(&mut self, req: &Request, decided: bool) {
        self.undone.clear();
        if !decided {
            return;
        }
        let mut note = |id: &str, d: Decision| self.made.push((id.to_owned(), d));
        match req {
            Request::Accept { id, force } => note(id, Decision::Accept { force: *force }),
            Request::AcceptMany { ids } => ids.iter().for_each(|id| note(id, Decision::Accept { force: false })),
            Request::Reject { ids, reason } => ids.iter().for_each(|id| {
                note(id, Decision::Reject { reason: reason.clone() });
            }),
            Request::RequestChanges { id, comment, change } => note(
                id,
                Decision::RequestChanges {
                    comment: comment.clone(),
                    change: *change,
                },
            ),
            _ => {}
        }
        let over = self.made.len().saturating_sub(REMEMBERED);
        self.made.drain(..over);
    }

    /// Nothing can be redone any more (a curation, or its undo).
    pub fn clear(&mut self) {
        self.undone.clear();
    }

    /// The decision of `proposal` (its full id) was undone, leaving commit
    /// `left`: it can be redone if this session made it. True when it can;
    /// otherwise nothing undone before it can be redone either.
    pub fn undone(&mut self, proposal: &str, left: u64) -> bool {
        let Some(i) = self
            .made
            .iter()
            .rposition(|(id, _)| !id.is_empty() && proposal.starts_with(id.as_str()))
        else {
            self.undone.clear();
            return false;
        };
        let (_, decision) = self.made.remove(i);
        self.undone.push(Undone {
            id: proposal.to_owned(),
            decision,
            left,
        });
        true
    }

    /// The redo [`Redo::next`] gave was made, leaving commit `now` (the
    /// graph as it was before that decision's undo): what was undone
    /// before it can be redone next. Not called when it failed: then
    /// nothing more is redone.
    pub fn redone(&mut self, now: u64) {
        self.undone = std::mem::take(&mut self.held);
        if let Some(last) = self.undone.last_mut() {
            last.left = now;
        }
    }

    /// The request that makes the last undone decision again, on the graph
    /// at commit `now`; `Err` says why it is not made (nothing to redo, or
    /// the graph moved since the undo: decide it again).
    pub fn next(&mut self, now: u64) -> Result<Request, String> {
        let Some(u) = self.undone.pop() else {
            return Err("redo: nothing to redo (a decision undone in this session, before any other change)".into());
        };
        if u.left != now {
            self.undone.clear();
            return Err(format!(
                "redo: the graph changed since {} was undone (another process committed), so its flags may have \
                 too: it is in the queue, decide it again with them on screen",
                u.id.get(..12).unwrap_or(&u.id)
            ));
        }
        self.held = std::mem::take(&mut self.undone);
        Ok(match u.decision {
            Decision::Accept { force } => Request::Accept { id: u.id, force },
            Decision::Reject { reason } => Request::Reject {
                ids: vec![u.id],
                reason,
            },
            Decision::RequestChanges { comment, change } => Request::RequestChanges {
                id: u.id,
                comment,
                change,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undone_decision_is_redone_as_it_was_and_a_new_one_ends_redo() {
        let mut r = Redo::default();
        r.after(
            &Request::Reject {
                ids: vec!["abc".into(), "def".into()],
                reason: "not ours".into(),
            },
            true,
        );
        r.after(
            &Request::Accept {
                id: "123".into(),
                force: false,
            },
            true,
        );
        assert!(r.undone("123456", 7), "matched by the id it was asked with");
        assert!(r.undone("def999", 8));
        let Ok(Request::Reject { ids, reason }) = r.next(8) else {
            panic!("the rejection first (undone last)")
        };
        assert_eq!((ids, reason.as_str()), (vec!["def999".to_owned()], "not ours"));
        r.redone(8);
        assert!(matches!(r.next(8), Ok(Request::Accept { id, force: false }) if id == "123456"));
        assert!(r.next(8).is_err());
        assert!(r.undone("abc0", 9));
        r.after(&Request::LoadQueue, false);
        assert!(r.next(9).is_err(), "another write ended what could be redone");
    }

    #[test]
    fn redo_never_skips_an_undo_it_cannot_redo_nor_decides_on_a_graph_that_moved() {
        let mut r = Redo::default();
        let accept = |id: &str| Request::Accept {
            id: id.into(),
            force: false,
        };
        // A revision accepted, undone; then the request for changes before
        // it undone too (not this session's to redo): nothing is redone.
        r.after(&accept("rev1"), true);
        assert!(r.undone("rev1aaaa", 5));
        assert!(!r.undone("orig0000", 6), "a request for changes is not redone");
        let e = r.next(6).unwrap_err();
        assert!(e.contains("nothing to redo"), "{e}");
        // Accepted, undone, then another process commits: asked again.
        r.after(&accept("p2"), true);
        assert!(r.undone("p2bbbbbb", 10));
        let e = r.next(11).unwrap_err();
        assert!(e.contains("the graph changed since p2bbbbbb was undone"), "{e}");
        assert!(r.next(11).unwrap_err().contains("nothing to redo"));
        // Two undone, two redone in the reverse order, each on the graph
        // the previous redo left.
        r.after(&accept("a1"), true);
        r.after(&accept("b2"), true);
        assert!(r.undone("b2cccccc", 20));
        assert!(r.undone("a1dddddd", 21));
        assert!(matches!(r.next(21), Ok(Request::Accept { id, .. }) if id == "a1dddddd"));
        r.after(&accept("a1dddddd"), true);
        r.redone(22);
        assert!(matches!(r.next(22), Ok(Request::Accept { id, .. }) if id == "b2cccccc"));
    }
}
