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
    let changes = changes(&ours, &theirs);
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

/// What turns ours into theirs, as proposal changes.
fn changes(ours: &Node, theirs: &Node) -> Vec<Change> {
    let mut set = FieldSet::default();
    if ours.description != theirs.description {
        set.description = Some(theirs.description.clone());
    }
    if ours.body != theirs.body {
        set.body = Some(theirs.body.clone().unwrap_or_default());
    }
    if ours.node_type != theirs.node_type {
        set.node_type = Some(theirs.node_type.clone());
    }
    if ours.tier != theirs.tier {
        set.tier = Some(theirs.tier);
    }
    for (k, v) in &theirs.properties {
        if ours.properties.get(k) != Some(v) {
            set.properties.insert(k.clone(), v.clone());
        }
    }
    for k in ours.properties.keys().filter(|k| !theirs.properties.contains_key(*k)) {
        set.properties.insert(k.clone(), String::new());
    }
    if (ours.confidence - theirs.confidence).abs() > f64::EPSILON {
        set.confidence = Some(theirs.confidence);
    }
    let mut out = Vec::new();
    if set != FieldSet::default() {
        out.push(Change::UpdateNode {
            name: ours.name.clone(),
            set,
        });
    }
    if theirs.status != ours.status {
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
            _ => {}
        }
    }
    out
}

impl Store {
    /// The merge proposals not in `decided`, oldest first (master level).
    pub(crate) fn merge_pending(&self, decided: &HashSet<String>) -> Result<Vec<Pending>> {
        Ok(self
            .merge_conflicts()?
            .iter()
            .filter_map(|c| build(self, c))
            .filter(|(id, _, _)| !decided.contains(id.as_str()))
            .map(|(id, proposal, _)| Pending { id, proposal })
            .collect())
    }

    /// The merge proposal `id` and its three versions, if it is one.
    pub fn merge_proposal(&self, id: &ProposalId) -> Result<Option<(StoredProposal, MergeSides)>> {
        if self.level() < crate::keys::Level::Master {
            return Ok(None);
        }
        Ok(self
            .merge_conflicts()?
            .iter()
            .filter(|c| ProposalId::of(&c.key) == *id)
            .find_map(|c| build(self, c))
            .map(|(_, p, sides)| (p, sides)))
    }

    /// The ids of every merge proposal this session can read.
    pub(crate) fn merge_ids(&self) -> Vec<ProposalId> {
        if self.level() < crate::keys::Level::Master {
            return Vec::new();
        }
        self.merge_conflicts()
            .map(|cs| cs.iter().map(|c| ProposalId::of(&c.key)).collect())
            .unwrap_or_default()
    }
}
