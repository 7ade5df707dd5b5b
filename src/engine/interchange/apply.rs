//! Importing a mapped graph (see `interchange`): which nodes are new,
//! changed or unchanged against the store, and the one commit that writes
//! them. Rules: a node is matched by name; unchanged ones are skipped,
//! changed ones get a new version, new ones are added; an existing node's
//! tier is never lowered; an edge is matched by (from, relation, to) and
//! only added, never changed. Anything refused means nothing is written.
//! Only a federation pull (`plan_pull_import`) may set the property
//! `federated-from` or touch a pulled node; an import file that does is
//! refused, item by item. Provenance is the import's own
//! ([`ImportOptions::provenance`]), never the file's.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use super::{ImportNode, MAX_REFUSALS_NAMED, Mapped, Refusal};
use crate::error::{Error, Result};
use crate::keys::Level;
use crate::model::FEDERATED_FROM;
use crate::model::{Edge, NewEdge, Node, NodeId, Provenance, Status, Tier, Timestamp};
use crate::proposal::{Change, FieldSet};
use crate::store::{Durability, Entry, NodeWrite, Plan, Store};

/// The tier foreign nodes get without `--tier`: readable at the master
/// level, never projected to an agent unless it runs locally and trusted.
pub const DEFAULT_IMPORT_TIER: Tier = Tier::AgentRestricted;

/// How to import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Foreign formats: the tier of every imported node (default
    /// [`DEFAULT_IMPORT_TIER`]). Our own export: the least tier a node gets
    /// (a node below it is raised to it; none is lowered).
    pub tier: Option<Tier>,
    /// The file, as messages name it.
    pub file: String,
    /// Who the timeline names (`import kgraph graph.json`).
    pub actor: String,
    /// The provenance of every node and edge written, whatever the file
    /// says: a file is not a witness, so a node it calls federated from
    /// another project or proposed by a trusted agent is written as what it
    /// is, a local one this import wrote.
    pub provenance: Provenance,
}

/// What an import adds, changes, leaves and refuses.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ImportReport {
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub unchanged: Vec<String>,
    /// Existing nodes kept at their tier, above the one the import gives.
    pub tier_kept: Vec<String>,
    pub edges_added: Vec<String>,
    pub edges_unchanged: usize,
    /// At most [`MAX_REFUSALS_NAMED`]; `refused_count` counts them all.
    pub refused: Vec<Refusal>,
    pub refused_count: usize,
}

/// An import planned against this session's graph.
pub struct ImportPlan {
    pub report: ImportReport,
    new_nodes: Vec<Node>,
    changed: Vec<(Node, Node)>,
    edges: Vec<NewEdge>,
}

fn edge_text(e: &NewEdge) -> String {
    format!("{} -> {} -> {}", e.from, e.relation, e.to)
}

impl ImportPlan {
    /// True when something is refused (nothing may be written).
    pub fn refused(&self) -> bool {
        self.report.refused_count > 0
    }

    /// True when the import would write nothing.
    pub fn is_empty(&self) -> bool {
        self.new_nodes.is_empty() && self.changed.is_empty() && self.edges.is_empty()
    }

    /// The import as proposal changes: `add_node`, `update_node` with the
    /// fields that differ, `add_edge` (an edge's tier, weight and direction
    /// are not part of a proposal: it takes its ends' tier).
    pub fn changes(&self) -> Vec<Change> {
        let mut out = Vec::new();
        for n in &self.new_nodes {
            out.push(Change::AddNode {
                name: n.name.clone(),
                node_type: n.node_type.clone(),
                description: n.description.clone(),
                body: n.body.clone(),
                tier: n.tier,
                properties: n.properties.to_map(),
                confidence: Some(n.confidence),
                suggested_edges: Vec::new(),
            });
        }
        for (cur, next) in &self.changed {
            let mut set = FieldSet::default();
            if next.description != cur.description {
                set.description = Some(next.description.clone());
            }
            if next.body != cur.body {
                set.body = Some(next.body.clone().unwrap_or_default());
            }
            if next.node_type != cur.node_type {
                set.node_type = Some(next.node_type.clone());
            }
            if next.tier != cur.tier {
                set.tier = Some(next.tier);
            }
            if next.confidence != cur.confidence {
                set.confidence = Some(next.confidence);
            }
            for (k, v) in &next.properties {
                if cur.properties.get(k) != Some(v) {
                    set.properties.insert(k.clone(), v.clone());
                }
            }
            for k in cur.properties.keys() {
                if !next.properties.contains_key(k) {
                    set.properties.insert(k.clone(), String::new());
                }
            }
            if set != FieldSet::default() {
                out.push(Change::UpdateNode {
                    name: cur.name.clone(),
                    set,
                });
            }
        }
        for e in &self.edges {
            out.push(Change::AddEdge {
                from: e.from.clone(),
                relation: e.relation.clone(),
                to: e.to.clone(),
                confidence: Some(e.confidence),
            });
        }
        out
    }
}

impl Store {
    /// Compares `m` with the graph and plans the import. Refusals (from
    /// parsing, and here: hidden names, tiers this session cannot write,
    /// invalid fields, edges to unknown nodes) are in the report.
    /// An item that sets the reserved property `federated-from`, updates a
    /// pulled node or links from one is refused (only a pull does that).
    pub fn plan_import(&self, m: &Mapped, opts: &ImportOptions) -> Result<ImportPlan> {
        self.plan_import_as(m.clone(), opts, Marker::Refused, Purpose::Commit)
    }

    /// [`Store::plan_import`] taking the mapped input, whose items are
    /// dropped as they are planned: a large import is held once, not twice.
    pub fn plan_import_owned(&self, m: Mapped, opts: &ImportOptions) -> Result<ImportPlan> {
        self.plan_import_as(m, opts, Marker::Refused, Purpose::Commit)
    }

    /// [`Store::plan_import`] for a proposal (`import --as-proposal`), at
    /// any level: this session writes nothing, so it needs no tier key (the
    /// proposal asks for tiers; submitting checks the most it may ask, and
    /// the reviewer's session seals). Below the master level a name taken
    /// by a node this session cannot read cannot be told from a free one:
    /// it is planned as new, and accepting the proposal refuses it.
    pub fn plan_import_proposal(&self, m: Mapped, opts: &ImportOptions) -> Result<ImportPlan> {
        self.plan_import_as(m, opts, Marker::Refused, Purpose::Proposal)
    }

    /// [`Store::plan_import`] for a federation pull: its nodes carry the
    /// `federated-from` marker it sets, and may be pulled nodes.
    pub(crate) fn plan_pull_import(&self, m: &Mapped, opts: &ImportOptions) -> Result<ImportPlan> {
        self.plan_import_as(m.clone(), opts, Marker::Pull, Purpose::Commit)
    }

    fn plan_import_as(&self, m: Mapped, opts: &ImportOptions, marker: Marker, purpose: Purpose) -> Result<ImportPlan> {
        let proposal = purpose == Purpose::Proposal;
        // The blind index of names is the master's.
        let names_checked = !proposal || self.level() >= Level::Master;
        // An index without node rows has no name taken.
        let names_checked = names_checked && self.holds_nodes()?;
        let now = Timestamp::now();
        let mut report = ImportReport::default();
        let Mapped {
            nodes: import_nodes,
            edges: import_edges,
            mut refused,
            lossless,
        } = m;
        let mut refuse = |item: &str, problem: String| {
            refused.push(Refusal {
                file: opts.file.clone(),
                item: item.to_owned(),
                problem,
            });
        };
        let mut new_nodes = Vec::new();
        let mut changed = Vec::new();
        // Each imported name's node id and final tier, for its edges.
        let mut names: rustc_hash::FxHashMap<String, (NodeId, Tier)> = rustc_hash::FxHashMap::default();
        // Each item is dropped once planned (the plan holds its own copy).
        for n in import_nodes {
            let n = &n;
            if marker == Marker::Refused {
                if n.properties.contains_key(FEDERATED_FROM) {
                    refuse(
                        &n.item,
                        format!(
                            "it sets the property {FEDERATED_FROM}, reserved: only `graphex federation pull` marks a \
                             node as federated (remove the property, or pull the node from its source)"
                        ),
                    );
                    continue;
                }
                if let Err(e) = self.refuse_federated(n.name.as_str()) {
                    refuse(&n.item, e.to_string());
                    continue;
                }
            }
            let asked = if lossless {
                n.tier.unwrap_or(Tier::Public).max(opts.tier.unwrap_or(Tier::Public))
            } else {
                // A foreign format may ask for more (Ash's sensitivity), never less.
                opts.tier
                    .unwrap_or(DEFAULT_IMPORT_TIER)
                    .max(n.tier.unwrap_or(Tier::Public))
            };
            let current = match self.catalog().by_name(n.name.as_str()) {
                Some(s) => Some(self.node_by_id(&s.id)?),
                None if !names_checked => None,
                None => match self.check_name_free(n.name.as_str()) {
                    Ok(()) => None,
                    Err(e) => {
                        refuse(&n.item, e.to_string());
                        continue;
                    }
                },
            };
            let tier = current.as_ref().map_or(asked, |c| c.tier.max(asked));
            if !proposal && let Err(e) = self.keys().tier(tier) {
                refuse(&n.item, format!("tier {tier}: {e}"));
                continue;
            }
            let next = match &current {
                None => new_node(n, lossless, tier, now, &opts.provenance),
                Some(cur) => {
                    if cur.tier > asked {
                        report.tier_kept.push(n.name.to_string());
                    }
                    updated_node(cur, n, lossless, tier, now, &opts.provenance)
                }
            };
            if let Err(e) = next.validate() {
                refuse(&n.item, e.to_string());
                continue;
            }
            names.insert(n.name.to_string(), (next.id, tier));
            match current {
                None => {
                    report.added.push(n.name.to_string());
                    new_nodes.push(next);
                }
                Some(cur) if same_content(&cur, &next) => report.unchanged.push(n.name.to_string()),
                Some(cur) => {
                    report.changed.push(n.name.to_string());
                    changed.push((cur, next));
                }
            }
        }
        let resolve = |name: &str| {
            names
                .get(name)
                .copied()
                .or_else(|| self.catalog().by_name(name).map(|s| (s.id, s.tier)))
        };
        let mut edges = Vec::new();
        let mut seen: rustc_hash::FxHashMap<(NodeId, crate::model::Relation, NodeId), String> =
            rustc_hash::FxHashMap::default();
        for e in import_edges {
            let e = &e;
            if marker == Marker::Refused
                && let Err(err) = self.refuse_federated(e.from.as_str())
            {
                refuse(&e.item, err.to_string());
                continue;
            }
            let mut new = NewEdge::new(e.from.clone(), e.relation.clone(), e.to.clone());
            new.tier = if lossless {
                e.tier.unwrap_or(Tier::Public)
            } else {
                Tier::Public
            };
            new.confidence = e.confidence.unwrap_or(1.0);
            new.weight = e.weight.unwrap_or(1.0);
            new.bidirectional = e.bidirectional;
            new.provenance = opts.provenance.clone();
            new.created = e.created;
            let planned = if proposal {
                Self::edge_of(&new, &resolve)
            } else {
                self.plan_edge(&new, &resolve)
            };
            let planned = match planned {
                Ok(p) => p,
                Err(Error::NotFound(name)) if self.name_is_hidden(&name) => {
                    refuse(&e.item, format!("{name} is taken by a node you cannot read"));
                    continue;
                }
                Err(Error::NotFound(name)) => {
                    refuse(&e.item, format!("{name} is neither in the import nor in the store"));
                    continue;
                }
                Err(err) => {
                    refuse(&e.item, err.to_string());
                    continue;
                }
            };
            let key = (planned.from, planned.relation.clone(), planned.to);
            if let Some(first) = seen.get(&key) {
                refuse(&e.item, format!("the same edge as {first}"));
                continue;
            }
            seen.insert(key, e.item.clone());
            let exists = self
                .catalog()
                .outgoing(&planned.from)
                .any(|x| x.relation == planned.relation && x.to == planned.to);
            if exists {
                report.edges_unchanged += 1;
            } else {
                report.edges_added.push(edge_text(&new));
                edges.push(new);
            }
        }
        report.refused_count = refused.len();
        refused.truncate(MAX_REFUSALS_NAMED);
        report.refused = refused;
        Ok(ImportPlan {
            report,
            new_nodes,
            changed,
            edges,
        })
    }

    /// Writes a planned import in one commit (one timeline entry naming
    /// `actor`). Refuses a plan with refusals.
    pub fn apply_import(&mut self, p: ImportPlan, actor: &str) -> Result<ImportReport> {
        self.require_writer("importing")?;
        if p.refused() {
            let first = p.report.refused.first().map(ToString::to_string).unwrap_or_default();
            return Err(Error::Document {
                path: "import".into(),
                reason: format!(
                    "{} item(s) refused, nothing written; first: {first}",
                    p.report.refused_count
                ),
            });
        }
        if p.is_empty() {
            return Ok(p.report);
        }
        let mut plan = Plan {
            actor: Some(actor.to_owned()),
            ..Plan::default()
        };
        let report = self.import_into(p, &mut plan)?;
        let durability = Durability::for_nodes(plan.nodes.len());
        self.commit(plan, durability)?;
        Ok(report)
    }

    /// Adds a planned import's writes to `plan` (the caller commits).
    pub(crate) fn import_into(&self, p: ImportPlan, plan: &mut Plan) -> Result<ImportReport> {
        let mut tiers: HashMap<String, (NodeId, Tier)> = HashMap::new();
        let mut raised: HashMap<NodeId, Tier> = HashMap::new();
        for node in p.new_nodes {
            tiers.insert(node.name.to_string(), (node.id, node.tier));
            plan.entries.push(Entry::node("add", node.id, None, Some(1)));
            plan.nodes.push(NodeWrite { node, previous: None });
        }
        for (cur, next) in p.changed {
            tiers.insert(next.name.to_string(), (next.id, next.tier));
            if next.tier != cur.tier {
                raised.insert(next.id, next.tier);
            }
            plan.entries.push(Entry::written("update", &cur, &next));
            plan.nodes.push(NodeWrite {
                node: next,
                previous: Some((cur.version, cur.tier)),
            });
        }
        plan.edges.extend(self.retier(&raised, &HashSet::new()));
        let resolve = |n: &str| {
            tiers
                .get(n)
                .copied()
                .or_else(|| self.catalog().by_name(n).map(|s| (s.id, s.tier)))
        };
        let mut new_edges: Vec<Edge> = Vec::with_capacity(p.edges.len());
        for e in p.edges {
            new_edges.push(self.plan_edge(&e, &resolve)?);
        }
        for e in new_edges {
            plan.entries.push(Entry::edge("link", e.id));
            plan.edges.push(e);
        }
        Ok(p.report)
    }
}

/// What a plan is for: this session's commit, or a proposal (which this
/// session only seals to the master).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Commit,
    Proposal,
}

/// Whether an import may carry the federation marker: only a pull's may.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Marker {
    Refused,
    Pull,
}

/// The first version of an imported node.
fn new_node(n: &ImportNode, lossless: bool, tier: Tier, now: Timestamp, provenance: &Provenance) -> Node {
    let created = n.created.unwrap_or(now);
    Node {
        id: NodeId::generate(),
        name: n.name.clone(),
        node_type: n.node_type.clone(),
        description: n.description.clone(),
        body: n.body.clone(),
        properties: (&n.properties).into(),
        tier,
        status: n.status.unwrap_or(Status::Active),
        confidence: n.confidence.unwrap_or(1.0),
        provenance: provenance.clone(),
        status_reason: if lossless { n.status_reason.clone() } else { None },
        created,
        updated: n.updated.unwrap_or(created),
        version: 1,
    }
}

/// `cur` with the import's fields: our own export replaces every field; a
/// foreign one sets type, description and confidence, the body when it has
/// one, and its properties over the node's (others stay), and leaves the
/// status alone.
fn updated_node(
    cur: &Node,
    n: &ImportNode,
    lossless: bool,
    tier: Tier,
    now: Timestamp,
    provenance: &Provenance,
) -> Node {
    let mut next = cur.clone();
    next.node_type = n.node_type.clone();
    next.description = n.description.clone();
    next.tier = tier;
    if lossless {
        next.body = n.body.clone();
        next.properties = (&n.properties).into();
        next.status = n.status.unwrap_or(cur.status);
        next.status_reason = n.status_reason.clone();
    } else {
        if n.body.is_some() {
            next.body = n.body.clone();
        }
        let mut props: BTreeMap<String, String> = cur.properties.to_map();
        props.extend(n.properties.clone());
        next.properties = props.into();
    }
    if let Some(c) = n.confidence {
        next.confidence = c;
    }
    next.provenance = provenance.clone();
    next.version = cur.version + 1;
    next.updated = now;
    next
}

/// Equal in everything an import can change.
fn same_content(a: &Node, b: &Node) -> bool {
    a.node_type == b.node_type
        && a.description == b.description
        && a.body == b.body
        && a.properties == b.properties
        && a.tier == b.tier
        && a.status == b.status
        && a.status_reason == b.status_reason
        && a.confidence == b.confidence
}
