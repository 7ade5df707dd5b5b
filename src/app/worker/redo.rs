//! Redo after undo, for decisions: the worker remembers how this session
//! decided each proposal (accepted, or rejected with which reason), so a
//! decision undone with `u` can be made again with `ctrl-y`, exactly as it
//! was. A new decision or curation ends what can be redone, as in any
//! editor. An accepted edit is made again from the editor, and a curation
//! undone is redone by hand (neither is kept here).

use super::Request;

/// How many of this session's decisions are remembered.
const REMEMBERED: usize = 200;

/// One decision as this session made it.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    Accept,
    Reject { reason: String },
}

#[derive(Debug, Default)]
pub struct Redo {
    /// The decisions made, oldest first: the id as asked, and how.
    made: Vec<(String, Decision)>,
    /// Decisions undone, the next to redo last.
    undone: Vec<(String, Decision)>,
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
            Request::Accept { id, .. } => note(id, Decision::Accept),
            Request::AcceptMany { ids } => ids.iter().for_each(|id| note(id, Decision::Accept)),
            Request::Reject { ids, reason } => ids.iter().for_each(|id| {
                note(id, Decision::Reject { reason: reason.clone() });
            }),
            _ => {}
        }
        let over = self.made.len().saturating_sub(REMEMBERED);
        self.made.drain(..over);
    }

    /// Nothing can be redone any more (a curation, or its undo).
    pub fn clear(&mut self) {
        self.undone.clear();
    }

    /// The decision of `proposal` (its full id) was undone: it can be redone
    /// if this session made it. True when it can.
    pub fn undone(&mut self, proposal: &str) -> bool {
        let Some(i) = self
            .made
            .iter()
            .rposition(|(id, _)| !id.is_empty() && proposal.starts_with(id.as_str()))
        else {
            return false;
        };
        let (_, d) = self.made.remove(i);
        self.undone.push((proposal.to_owned(), d));
        true
    }

    /// The request that makes the last undone decision again.
    pub fn next(&mut self) -> Option<Request> {
        let (id, d) = self.undone.pop()?;
        Some(match d {
            Decision::Accept => Request::Accept { id, force: true },
            Decision::Reject { reason } => Request::Reject { ids: vec![id], reason },
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
        assert!(r.undone("123456"), "matched by the id it was asked with");
        assert!(r.undone("def999"));
        assert!(!r.undone("zzz"), "not decided here: nothing to redo");
        let Some(Request::Reject { ids, reason }) = r.next() else {
            panic!("the rejection first (undone last)")
        };
        assert_eq!((ids, reason.as_str()), (vec!["def999".to_owned()], "not ours"));
        assert!(matches!(r.next(), Some(Request::Accept { id, force: true }) if id == "123456"));
        assert!(r.next().is_none());
        assert!(r.undone("abc0"));
        r.after(&Request::LoadQueue, false);
        assert!(r.next().is_none(), "another write ended what could be redone");
    }
}
