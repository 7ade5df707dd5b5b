//! The freshness rule: which way git moved, and which way the store did.

use super::record::Record;
use crate::error::Result;

/// The store as it is now.
#[derive(Clone, Debug)]
pub struct Current {
    pub store_id: String,
    /// The master's public signing key (hex) the seal was authenticated
    /// with; `None` when it was not (a hook, without keys).
    pub signer: Option<String>,
    /// The statement's id, hex.
    pub statement: String,
    pub seq: u64,
    /// When its last commit was made (milliseconds; 0 when unknown).
    pub at: i64,
}

/// A store that went back (or onto another history) while git went
/// forward or stayed: it opens read-only until a person decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rollback {
    /// What this machine last saw.
    pub recorded: Record,
    /// The store's statement now (hex) and its commit number.
    pub statement: String,
    pub seq: u64,
    /// When the store's last commit was made (milliseconds; 0: unknown).
    pub at: i64,
    /// The git commit checked out now.
    pub head: Option<String>,
    /// Git moved forward from the recorded commit (a merge, pull,
    /// fast-forward or rebase onto it) while the store did not.
    pub git_forward: bool,
}

/// What an open found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No record yet: this open makes the first one.
    First,
    /// The store is the recorded one or descends from it (`moved`: the
    /// record changes, to the new statement or the new commit).
    Fresh { moved: bool },
    /// Git moved elsewhere (another branch, an older commit, a reset):
    /// another store is expected and the record follows it. `was` is what
    /// it said before.
    Followed { was: Record },
    /// The store went back: read-only.
    RolledBack(Rollback),
}

/// Applies the rule. `descends(statement, seq)` tells whether the store's
/// statement descends from the one named; `is_ancestor(older, newer)`
/// whether one git commit descends from another (`None`: git cannot tell).
pub fn decide(
    record: Option<&Record>,
    current: &Current,
    head: Option<&str>,
    descends: impl FnOnce(&str, u64) -> Result<bool>,
    is_ancestor: impl FnOnce(&str, &str) -> Option<bool>,
) -> Result<Verdict> {
    let Some(r) = record else {
        return Ok(Verdict::First);
    };
    // Another master key: a store made anew here (`init` after removing
    // the old one), which no one without the passphrase can make.
    if let Some(signer) = &current.signer
        && !r.signer.is_empty()
        && r.signer != *signer
    {
        return Ok(Verdict::First);
    }
    if r.statement == current.statement {
        return Ok(Verdict::Fresh {
            moved: r.commit.as_deref() != head,
        });
    }
    if descends(&r.statement, r.seq)? {
        return Ok(Verdict::Fresh { moved: true });
    }
    let rolled_back = |git_forward| {
        Verdict::RolledBack(Rollback {
            recorded: r.clone(),
            statement: current.statement.clone(),
            seq: current.seq,
            at: current.at,
            head: head.map(str::to_owned),
            git_forward,
        })
    };
    Ok(match (r.commit.as_deref(), head) {
        (Some(c), Some(h)) if c != h => match is_ancestor(c, h) {
            Some(true) => rolled_back(true),
            // A record of this branch: whatever moved it (a rebase, a reset,
            // a force push), its graph must only move forward.
            _ if r.scope.is_some() => rolled_back(false),
            // A record from before records were kept per branch: another
            // branch, an older commit, or a commit git no longer has
            // (rewritten): the store of what is checked out now.
            Some(false) | None => Verdict::Followed { was: r.clone() },
        },
        // The file changed while git did not move, or there is no git.
        _ => rolled_back(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(statement: &str, commit: Option<&str>) -> Record {
        Record {
            store_id: "store".into(),
            signer: "master".into(),
            statement: statement.into(),
            seq: 5,
            commit: commit.map(str::to_owned),
            ..Record::default()
        }
    }

    fn current(statement: &str) -> Current {
        Current {
            store_id: "store".into(),
            signer: Some("master".into()),
            statement: statement.into(),
            seq: 3,
            at: 0,
        }
    }

    fn run(r: Option<&Record>, cur: &Current, head: Option<&str>, descends: bool, ancestor: Option<bool>) -> Verdict {
        decide(r, cur, head, |_, _| Ok(descends), |_, _| ancestor).unwrap()
    }

    #[test]
    fn forward_or_same_is_fresh_and_no_record_is_the_first() {
        let r = record("s1", Some("c1"));
        assert_eq!(run(None, &current("s1"), None, false, None), Verdict::First);
        assert_eq!(
            run(Some(&r), &current("s1"), Some("c1"), false, None),
            Verdict::Fresh { moved: false }
        );
        assert_eq!(
            run(Some(&r), &current("s1"), Some("c2"), false, None),
            Verdict::Fresh { moved: true }
        );
        assert_eq!(
            run(Some(&r), &current("s2"), Some("c2"), true, Some(true)),
            Verdict::Fresh { moved: true }
        );
    }

    #[test]
    fn git_forward_and_store_backward_is_a_rollback() {
        let r = record("s1", Some("c1"));
        let Verdict::RolledBack(rb) = run(Some(&r), &current("s0"), Some("c2"), false, Some(true)) else {
            panic!("a merge that brought an older store must be caught");
        };
        assert!(rb.git_forward);
        assert_eq!(
            (rb.statement.as_str(), rb.seq, rb.head.as_deref()),
            ("s0", 3, Some("c2"))
        );
        assert_eq!(rb.recorded, r);
    }

    #[test]
    fn git_elsewhere_follows_and_git_still_or_absent_is_a_rollback() {
        let r = record("s1", Some("c1"));
        assert_eq!(
            run(Some(&r), &current("s0"), Some("c0"), false, Some(false)),
            Verdict::Followed { was: r.clone() }
        );
        assert_eq!(
            run(Some(&r), &current("s0"), Some("c0"), false, None),
            Verdict::Followed { was: r.clone() }
        );
        for head in [Some("c1"), None] {
            let v = run(Some(&r), &current("s0"), head, false, Some(true));
            assert!(
                matches!(v, Verdict::RolledBack(Rollback { git_forward: false, .. })),
                "{v:?}"
            );
        }
        let outside = record("s1", None);
        assert!(matches!(
            run(Some(&outside), &current("s0"), None, false, None),
            Verdict::RolledBack(_)
        ));
    }

    #[test]
    fn on_a_branchs_own_record_a_rewritten_or_reset_branch_never_follows() {
        let r = Record {
            scope: Some("refs/heads/main".into()),
            ..record("s1", Some("c1"))
        };
        // A rebase, a reset to an older commit, a force push: git did not
        // move forward, and the graph does not descend.
        for ancestor in [Some(false), None] {
            let v = run(Some(&r), &current("s0"), Some("c0"), false, ancestor);
            assert!(
                matches!(v, Verdict::RolledBack(Rollback { git_forward: false, .. })),
                "{v:?}"
            );
        }
        // A graph that descends is fresh whatever git did.
        assert_eq!(
            run(Some(&r), &current("s2"), Some("c0"), true, Some(false)),
            Verdict::Fresh { moved: true }
        );
    }

    #[test]
    fn a_store_under_another_master_key_starts_a_new_record_and_a_new_store_id_alone_does_not() {
        let r = record("s1", None);
        let made_anew = Current {
            signer: Some("another master".into()),
            ..current("s0")
        };
        assert_eq!(run(Some(&r), &made_anew, None, false, None), Verdict::First);
        // The store id is the index's to say (anyone can write it): an old
        // store with a new id is still a rollback.
        let relabelled = Current {
            store_id: "forged".into(),
            ..current("s0")
        };
        assert!(matches!(
            run(Some(&r), &relabelled, None, false, None),
            Verdict::RolledBack(_)
        ));
        // Without keys (a hook) the signer is unknown: the rule applies.
        let keyless = Current {
            signer: None,
            ..made_anew
        };
        assert!(matches!(
            run(Some(&r), &keyless, None, false, None),
            Verdict::RolledBack(_)
        ));
    }
}
