//! Merge proposals: each node a git merge found changed on both branches
//! (see `store::merge`), in the queue as a proposal to apply the other
//! branch's version on top of ours. They are built from the index's
//! conflict rows, which the master's MAC covers, never read from a file;
//! accepting, rejecting and undoing them is the same as for any proposal.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use super::change::{Change, FieldSet};
use super::pending::Pending;
use super::stored::{FORMAT, ProposalId, Source, StoredProposal};
use super::submission::Submission;
use crate::error::Result;
use crate::model::{Node, Status};
use crate::store::{Conflict, Store};

/// The agent name merge proposals carry.
pub const MERGE_AGENT: &str = "merge";

/// The three versions of a merge proposal's node.
#[derive(Clone, Debug, Serialize)]
pub struct MergeSides {
    /// What git called the other branch.
    pub branch: String,
    /// The version both branches started from (`None`: both added a node
    /// under this name).
    pub base: Option<Node>,
    /// Ours, kept by the merge (as it is now).
    pub ours: Node,
    pub theirs: Node,
}

/// One conflict as a proposal, with its three versions; `None` when this
/// session cannot read it yet.
fn build(store: &Store, c: &Conflict) -> Option<(ProposalId, StoredProposal, MergeSides)> {
    let theirs = c.theirs.clone()?;
    let ours = store.node_by_id(&c.ours).ok()?;
    let base = c
        .base_version
        .filter(|_| theirs.id == ours.id)
        .and_then(|v| store.node_version(&ours.id, v).ok());
    let changes = changes(base.as_ref(), &ours, &theirs);
    if changes.is_empty() {
        return None;
    }
    let rationale = match &base {
        Some(b) => format!(
            "Branch {} changed this node too: both started from version {}; ours is version {}, theirs is the other \
             branch's version {}. Accepting applies theirs on top of ours.",
            c.branch, b.version, ours.version, theirs.version
        ),
        None => format!(
            "Branch {} added a node under the same name. Accepting gives ours the other branch's content.",
            c.branch
        ),
    };
    let proposal = StoredProposal {
        format: FORMAT,
        created: c.at,
        source: Source::Merge,
        edited_from: None,
        bases: BTreeMap::from([(ours.name.clone(), Some(ours.version))]),
        submission: Submission {
            revises: None,
            agent: MERGE_AGENT.into(),
            trust: 100.0,
            session: format!("merge of {}", c.branch),
            rationale,
            changes,
        },
    };
    let sides = MergeSides {
        branch: c.branch.clone(),
        base,
        ours,
        theirs,
    };
    Some((ProposalId::of(&c.key), proposal, sides))
}

/// What the other branch changed since `base` that ours does not have
/// yet, as proposal changes: a field only ours changed stays as ours has
/// it. Without a base (both branches added the name), whatever differs.
fn changes(base: Option<&Node>, ours: &Node, theirs: &Node) -> Vec<Change> {
    // Theirs' value of a field, when theirs changed it and ours differs.
    fn take<T: PartialEq + Clone>(base: Option<&T>, ours: &T, theirs: &T) -> Option<T> {
        (base != Some(theirs) && ours != theirs).then(|| theirs.clone())
    }
    let b = |f: fn(&Node) -> &String| base.map(f);
    let mut set = FieldSet {
        description: take(b(|n| &n.description), &ours.description, &theirs.description),
        body: take(base.map(|n| &n.body), &ours.body, &theirs.body).map(Option::unwrap_or_default),
        node_type: take(base.map(|n| &n.node_type), &ours.node_type, &theirs.node_type),
        tier: take(base.map(|n| &n.tier), &ours.tier, &theirs.tier),
        ..FieldSet::default()
    };
    let base_props = base.map(|n| &n.properties);
    let keys: std::collections::BTreeSet<&String> = theirs
        .properties
        .keys()
        .chain(ours.properties.keys())
        .chain(base_props.into_iter().flat_map(|p| p.keys()))
        .collect();
    for k in keys {
        let value = |p: &crate::model::Properties| p.get(k).cloned();
        if let Some(v) = take(
            base_props.map(&value).as_ref(),
            &value(&ours.properties),
            &value(&theirs.properties),
        ) {
            set.properties.insert(k.clone(), v.unwrap_or_default());
        }
    }
    let conf = |n: &Node| (n.confidence * 1e6).round() as i64;
    if take(base.map(conf).as_ref(), &conf(ours), &conf(theirs)).is_some() {
        set.confidence = Some(theirs.confidence);
    }
    let mut out = Vec::new();
    if set != FieldSet::default() {
        out.push(Change::UpdateNode {
            name: ours.name.clone(),
            set,
        });
    }
    if take(base.map(|n| &n.status), &ours.status, &theirs.status).is_some() {
        let reason = theirs.status_reason.clone();
        match theirs.status {
            Status::Deprecated => out.push(Change::Deprecate {
                name: ours.name.clone(),
                reason,
            }),
            Status::Archived => out.push(Change::Archive {
                name: ours.name.clone(),
                reason,
            }),
            Status::Active => out.push(Change::Restore {
                name: ours.name.clone(),
                reason,
            }),
            _ => {}
        }
    }
    out
}

impl Store {
    /// Every merge proposal this session can read, with its three
    /// versions, built in one pass over the conflict rows (none below the
    /// master level).
    pub(crate) fn merge_proposals(&self) -> Result<Vec<(ProposalId, StoredProposal, MergeSides)>> {
        if self.level() < crate::keys::Level::Master {
            return Ok(Vec::new());
        }
        Ok(self.merge_conflicts()?.iter().filter_map(|c| build(self, c)).collect())
    }

    /// The merge proposals not in `decided`, oldest first (master level).
    pub(crate) fn merge_pending(&self, decided: &HashSet<String>) -> Result<Vec<Pending>> {
        Ok(self
            .merge_proposals()?
            .into_iter()
            .filter(|(id, _, _)| !decided.contains(id.as_str()))
            .map(|(id, proposal, _)| Pending { id, proposal })
            .collect())
    }

    /// The merge proposal `id` and its three versions, if it is one.
    pub fn merge_proposal(&self, id: &ProposalId) -> Result<Option<(StoredProposal, MergeSides)>> {
        Ok(self
            .merge_proposals()?
            .into_iter()
            .find(|(found, _, _)| found == id)
            .map(|(_, p, sides)| (p, sides)))
    }

    /// The ids of every merge proposal this session can read (as the
    /// queue lists them: a conflict with nothing left to apply is none).
    pub(crate) fn merge_ids(&self) -> Vec<ProposalId> {
        self.merge_proposals()
            .map(|all| all.into_iter().map(|(id, _, _)| id).collect())
            .unwrap_or_default()
    }
}
