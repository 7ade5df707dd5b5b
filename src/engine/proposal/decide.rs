//! Deciding proposals: accept (all or some changes, in one commit) and reject
//! with a reason (`undo` reverts either). Each is one commit carrying
//! its timeline rows and its decision row, so a crash leaves all or nothing
//! and two sessions deciding the same proposal apply it once.

use std::collections::hash_map::Entry as Slot;
use std::collections::{HashMap, HashSet};

use super::{Change, Decision, Outcome, ProposalId, StoredProposal};
use crate::audit::Action;
use crate::codec;
use crate::error::{Error, Result};
use crate::model::{Edge, NewEdge, NewNode, Node, NodeId, Provenance, Status, Timestamp};
use crate::store::{DecisionRow, Durability, Entry, NodeWrite, Plan, Store};

/// How to accept.
#[derive(Clone, Debug, Default)]
pub struct AcceptOptions {
    /// 1-based numbers of the changes to apply; `None` applies all.
    pub only: Option<Vec<usize>>,
    /// Apply even when a touched node changed since the proposal's base.
    pub force: bool,
}

/// What an accept wrote.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Accepted {
    pub applied: Vec<usize>,
    pub nodes_added: usize,
    pub nodes_changed: usize,
    pub edges_added: usize,
    /// Edges removed (kept sealed, so undo puts them back).
    pub edges_removed: usize,
    /// Suggested edges that already existed, left as they are.
    pub edges_existing: usize,
}

/// Default confidence of accepted agent content that gave none.
const AGENT_CONFIDENCE: f64 = 0.8;
/// Default confidence of accepted inferred content.
const INFERRED_CONFIDENCE: f64 = 0.6;

impl Store {
    /// Applies the selected changes of `p` in one commit and records the
    /// decision. Refuses a stale base unless forced.
    pub fn accept(&mut self, id: &ProposalId, p: &StoredProposal, opts: &AcceptOptions) -> Result<Accepted> {
        self.require_writer("accepting a proposal")?;
        let mut plan = Plan::default();
        let accepted = self.plan_accept(id, p, opts, &mut plan)?;
        plan.decisions.push(self.decision_row(
            id,
            &Decision {
                outcome: Outcome::Accepted,
                reason: None,
                applied: accepted.applied.clone(),
                edited_as: None,
                change: None,
                at: Timestamp::now(),
            },
        )?);
        self.commit(plan, Durability::Sync)?;
        let detail = format!("{} change(s) applied", accepted.applied.len());
        self.record_decision(id, Action::Accepted, detail)?;
        Ok(accepted)
    }

    /// Accepts `edited` (a reviewer's edit, already written to `pending/`)
    /// and marks `original` as edited, in one commit.
    pub fn accept_edited(
        &mut self,
        original: &ProposalId,
        edited_id: &ProposalId,
        edited: &StoredProposal,
        force: bool,
    ) -> Result<Accepted> {
        self.require_writer("accepting a proposal")?;
        let mut plan = Plan::default();
        let opts = AcceptOptions { only: None, force };
        let accepted = self.plan_accept(edited_id, edited, &opts, &mut plan)?;
        let now = Timestamp::now();
        plan.decisions.push(self.decision_row(
            original,
            &Decision {
                outcome: Outcome::Edited,
                reason: None,
                applied: Vec::new(),
                edited_as: Some(edited_id.clone()),
                change: None,
                at: now,
            },
        )?);
        plan.decisions.push(self.decision_row(
            edited_id,
            &Decision {
                outcome: Outcome::Accepted,
                reason: None,
                applied: accepted.applied.clone(),
                edited_as: None,
                change: None,
                at: now,
            },
        )?);
        self.commit(plan, Durability::Sync)?;
        let detail = format!("as edited by the reviewer ({})", edited_id.short());
        self.record_decision(original, Action::Accepted, detail)?;
        Ok(accepted)
    }

    /// Rejects a proposal with a reason the agent can read.
    pub fn reject(&mut self, id: &ProposalId, reason: &str) -> Result<()> {
        self.require_writer("rejecting a proposal")?;
        let reason = reason.trim();
        if reason.is_empty() {
            return Err(Error::invalid("reason", "", "say why, for the proposing agent"));
        }
        crate::proposal::check_reason(reason)?;
        // The agent reads the reason: it must not name what the agent cannot.
        let named = crate::proposal::Mentions::new(self).above(crate::model::Tier::AgentReadable, "", &[reason]);
        if let Some((name, tier)) = named.first() {
            return Err(Error::invalid(
                "reason",
                reason,
                format!("it names {name} ({tier}), which the proposing agent cannot read; rephrase it"),
            ));
        }
        let mut plan = Plan {
            proposal: Some(id.to_string()),
            ..Plan::default()
        };
        plan.entries.push(Entry::plain("reject"));
        plan.decisions.push(self.decision_row(
            id,
            &Decision {
                outcome: Outcome::Rejected,
                reason: Some(reason.to_owned()),
                applied: Vec::new(),
                edited_as: None,
                change: None,
                at: Timestamp::now(),
            },
        )?);
        self.commit(plan, Durability::Sync)?;
        self.record_decision(id, Action::Rejected, reason.to_owned())
    }

    /// The recorded decision on `id`, if any (readable at agent level):
    /// its row checked against the master's signature, then opened.
    pub fn decision(&self, id: &ProposalId) -> Result<Option<Decision>> {
        self.decision_plain(id.as_str())?
            .map(|plain| serde_json::from_slice(&plain).map_err(|e| Error::integrity("decision", e.to_string())))
            .transpose()
    }

    pub(super) fn decision_row(&self, id: &ProposalId, d: &Decision) -> Result<DecisionRow> {
        let plain = serde_json::to_vec(d).map_err(|e| Error::integrity("decision", e.to_string()))?;
        Ok(DecisionRow {
            proposal: id.to_string(),
            outcome: d.outcome.as_str(),
            sealed: codec::seal_decision(self.keys(), id.as_str(), &plain)?,
        })
    }

    /// Versions of the nodes `p` writes that moved since its base.
    pub fn stale_names(&self, p: &StoredProposal, selected: &[usize]) -> Vec<String> {
        let mut out = Vec::new();
        for i in selected {
            for name in p.submission.changes[*i].modifies() {
                let base = p.bases.get(name).copied().flatten();
                let current = self.catalog().by_name(name.as_str()).map(|s| s.version);
                if current.is_some() && base != current && !out.contains(&name.to_string()) {
                    out.push(name.to_string());
                }
            }
        }
        out
    }

    /// What accepting all of `p` would write, without writing it: the new
    /// and changed nodes, the new and re-tiered edges, and the removed
    /// edges. Stale bases are ignored (the preview shows what a forced
    /// accept would do).
    pub fn preview_accept(&self, id: &ProposalId, p: &StoredProposal) -> Result<(Vec<Node>, Vec<Edge>, Vec<Edge>)> {
        let mut plan = Plan::default();
        self.plan_accept(
            id,
            p,
            &AcceptOptions {
                only: None,
                force: true,
            },
            &mut plan,
        )?;
        Ok((
            plan.nodes.into_iter().map(|w| w.node).collect(),
            plan.edges,
            plan.kept_edges,
        ))
    }

    fn plan_accept(
        &self,
        id: &ProposalId,
        p: &StoredProposal,
        opts: &AcceptOptions,
        plan: &mut Plan,
    ) -> Result<Accepted> {
        if self.decision(id)?.is_some() {
            return Err(Error::AlreadyDecided(id.short().to_owned()));
        }
        let accepted = self.plan_changes(id.short(), p, opts, plan)?;
        plan.proposal = Some(id.to_string());
        Ok(accepted)
    }

    /// Whether accepting `p` whole would apply, as the graph stands (a stale
    /// base aside: that is the reviewer's call): every check accept makes,
    /// nothing written. The error says why not.
    pub fn check_applies(&self, p: &StoredProposal) -> Result<()> {
        let opts = AcceptOptions {
            only: None,
            force: true,
        };
        self.plan_changes("", p, &opts, &mut Plan::default()).map(|_| ())
    }

    /// The writes accepting the selected changes of `p` (proposal `short`) makes.
    fn plan_changes(&self, short: &str, p: &StoredProposal, opts: &AcceptOptions, plan: &mut Plan) -> Result<Accepted> {
        let changes = &p.submission.changes;
        let selected: Vec<usize> = match &opts.only {
            None => (0..changes.len()).collect(),
            Some(list) => {
                let mut out = Vec::new();
                for n in list {
                    if *n == 0 || *n > changes.len() {
                        return Err(Error::invalid(
                            "change number",
                            n.to_string(),
                            format!("1 to {} (this proposal's changes)", changes.len()),
                        ));
                    }
                    if !out.contains(&(n - 1)) {
                        out.push(n - 1);
                    }
                }
                out.sort_unstable();
                out
            }
        };
        if !opts.force {
            let stale = self.stale_names(p, &selected);
            if !stale.is_empty() {
                return Err(Error::StaleBase {
                    id: short.to_owned(),
                    names: stale.join(", "),
                });
            }
        }
        let provenance = p.submission.provenance();
        let default_confidence = match provenance {
            Provenance::Inferred { .. } => INFERRED_CONFIDENCE,
            _ => AGENT_CONFIDENCE,
        };
        let now = Timestamp::now();
        let mut added: HashMap<String, (NodeId, crate::model::Tier)> = HashMap::new();
        let mut working: HashMap<NodeId, (Node, Node, &'static str)> = HashMap::new();
        let mut order: Vec<NodeId> = Vec::new();
        let mut edges: Vec<(crate::proposal::Triple, Option<f64>)> = Vec::new();
        let mut removed: HashSet<crate::model::EdgeId> = HashSet::new();
        let mut result = Accepted {
            applied: selected.iter().map(|i| i + 1).collect(),
            ..Accepted::default()
        };
        for i in &selected {
            let change = &changes[*i];
            let context = |e: Error| Error::Document {
                path: format!("change {} ({})", i + 1, change.op()),
                reason: e.to_string(),
            };
            match change {
                Change::AddNode {
                    name,
                    node_type,
                    description,
                    body,
                    tier,
                    properties,
                    confidence,
                    ..
                } => {
                    if added.contains_key(name.as_str()) {
                        return Err(context(Error::NameTaken(name.to_string())));
                    }
                    self.check_name_free(name.as_str()).map_err(context)?;
                    Self::refuse_reserved(properties.keys()).map_err(context)?;
                    self.keys().tier(*tier).map_err(context)?;
                    let mut new = NewNode::new(name.clone(), node_type.clone(), description.clone(), *tier);
                    new.body.clone_from(body);
                    new.properties = properties.into();
                    new.status = Status::Active;
                    new.confidence = confidence.unwrap_or(default_confidence);
                    new.provenance = provenance.clone();
                    let node = Self::plan_node(new, now).map_err(context)?;
                    added.insert(name.to_string(), (node.id, node.tier));
                    plan.entries.push(Entry::node("add", node.id, None, Some(1)));
                    plan.nodes.push(NodeWrite { node, previous: None });
                    result.nodes_added += 1;
                }
                Change::UpdateNode { name, set } => {
                    Self::refuse_reserved(set.properties.keys()).map_err(context)?;
                    let next = match planned(plan, &added, name.as_str()) {
                        Some(n) => n,
                        None => self.working_node(name.as_str(), &mut working, &mut order, "update")?,
                    };
                    let mut patched = set.patch().apply(next);
                    patched.validate().map_err(context)?;
                    self.keys().tier(patched.tier).map_err(context)?;
                    patched.updated = now;
                    *next = patched;
                }
                Change::Deprecate { name, reason }
                | Change::Archive { name, reason }
                | Change::Restore { name, reason } => {
                    let (to, action) = match change {
                        Change::Archive { .. } => (Status::Archived, "archive"),
                        Change::Restore { .. } => (Status::Active, "restore"),
                        _ => (Status::Deprecated, "deprecate"),
                    };
                    // A node this proposal adds is written once, in its final state.
                    let next = match planned(plan, &added, name.as_str()) {
                        Some(n) => n,
                        None => self.working_node(name.as_str(), &mut working, &mut order, action)?,
                    };
                    crate::model::set_status(next, to, reason.clone(), now)?;
                }
                Change::Supersede { old, new } => {
                    let next = match planned(plan, &added, old.as_str()) {
                        Some(n) => n,
                        None => self.working_node(old.as_str(), &mut working, &mut order, "deprecate")?,
                    };
                    crate::model::set_status(next, Status::Deprecated, Some(format!("superseded by {new}")), now)?;
                }
                Change::AddEdge { .. } => {}
                Change::RemoveEdge { from, relation, to, .. } => {
                    let edge = self
                        .removable_edge(p, from.as_str(), relation.as_str(), to.as_str())
                        .map_err(context)?;
                    // A repeat (the lint flags it) removes nothing more.
                    if removed.insert(edge.id) {
                        plan.entries.push(Entry::edge("unlink", edge.id));
                        plan.removed_edges.push((edge.id, edge.tier));
                        plan.kept_edges.push(edge);
                        result.edges_removed += 1;
                    }
                }
            }
            let confidence = match change {
                Change::AddEdge { confidence, .. } => *confidence,
                _ => None,
            };
            edges.extend(change.edges().into_iter().map(|t| (t, confidence)));
        }
        let mut moved: HashMap<NodeId, crate::model::Tier> = HashMap::new();
        for id in order {
            let Some((current, mut next, action)) = working.remove(&id) else {
                continue;
            };
            next.version = current.version + 1;
            if next.tier != current.tier {
                moved.insert(id, next.tier);
            }
            plan.entries.push(Entry::written(action, &current, &next));
            if let Some(n) = added.get_mut(next.name.as_str()) {
                n.1 = next.tier;
            }
            plan.nodes.push(NodeWrite {
                previous: Some((current.version, current.tier)),
                node: next,
            });
            result.nodes_changed += 1;
        }
        plan.edges.extend(self.retier(&moved, &removed));
        let tiers: HashMap<NodeId, crate::model::Tier> = plan.nodes.iter().map(|w| (w.node.id, w.node.tier)).collect();
        let resolve = |n: &str| {
            added.get(n).copied().or_else(|| {
                self.catalog()
                    .by_name(n)
                    .map(|s| (s.id, tiers.get(&s.id).copied().unwrap_or(s.tier)))
            })
        };
        let mut seen = HashSet::new();
        for ((from, relation, to), confidence) in edges {
            self.refuse_federated(from.as_str())?;
            let mut new = NewEdge::new(from.clone(), relation.clone(), to.clone());
            new.confidence = confidence.unwrap_or(default_confidence);
            new.provenance = provenance.clone();
            let edge = self.plan_edge(&new, &resolve).map_err(|e| Error::Document {
                path: format!("edge {from} -> {relation} -> {to}"),
                reason: e.to_string(),
            })?;
            let exists = self
                .catalog()
                .outgoing(&edge.from)
                .any(|e| e.relation == edge.relation && e.to == edge.to);
            if exists || !seen.insert((edge.from, edge.relation.clone(), edge.to)) {
                result.edges_existing += 1;
                continue;
            }
            plan.entries.push(Entry::edge("link", edge.id));
            plan.edges.push(edge);
            result.edges_added += 1;
        }
        Ok(result)
    }

    /// The edge a `remove_edge` of `p` names, as this session reads it.
    /// Refused when it is gone (removed since the proposal: the same answer
    /// as for an edge this session cannot read) or sealed above what the
    /// proposer reads (accepting would tell the agent it exists).
    fn removable_edge(&self, p: &StoredProposal, from: &str, relation: &str, to: &str) -> Result<Edge> {
        let described = format!("{from} -> {relation} -> {to}");
        let gone = || Error::EdgeNotFound {
            edge: described.clone(),
            reason: "it is not in the graph as this session reads it (removed since it was proposed?); \
                     accept the other changes with --only, or reject the proposal"
                .into(),
        };
        let (Some(f), Some(t)) = (self.catalog().by_name(from), self.catalog().by_name(to)) else {
            return Err(gone());
        };
        let edge = self
            .catalog()
            .outgoing(&f.id)
            .find(|e| e.to == t.id && e.relation.as_str() == relation)
            .cloned()
            .ok_or_else(gone)?;
        let ceiling = crate::proposal::proposer_tier(self, &p.submission);
        if edge.tier > ceiling {
            return Err(Error::invalid(
                "remove_edge",
                described,
                format!(
                    "the edge is sealed at {}, above what the proposer reads ({ceiling}): accepting would tell \
                     it the edge exists; remove it with `graphex unlink` if it should go",
                    edge.tier
                ),
            ));
        }
        Ok(edge)
    }

    /// The node `name` as this commit will write it, read once.
    fn working_node<'w>(
        &self,
        name: &str,
        working: &'w mut HashMap<NodeId, (Node, Node, &'static str)>,
        order: &mut Vec<NodeId>,
        action: &'static str,
    ) -> Result<&'w mut Node> {
        let summary = self
            .catalog()
            .by_name(name)
            .ok_or_else(|| Error::NotFound(name.to_owned()))?;
        let id = summary.id;
        self.refuse_federated(name)?;
        let entry = match working.entry(id) {
            Slot::Occupied(o) => o.into_mut(),
            Slot::Vacant(v) => {
                let current = self.node_by_id(&id)?;
                order.push(id);
                v.insert((current.clone(), current, action))
            }
        };
        Ok(&mut entry.1)
    }
}

/// The first version of `name` when this proposal adds it (still in the
/// plan): later changes of the same proposal apply to it there.
fn planned<'p>(
    plan: &'p mut Plan,
    added: &HashMap<String, (NodeId, crate::model::Tier)>,
    name: &str,
) -> Option<&'p mut crate::model::Node> {
    let id = added.get(name)?.0;
    plan.nodes
        .iter_mut()
        .find(|w| w.node.id == id && w.previous.is_none())
        .map(|w| &mut w.node)
}
