//! Turns findings into a proposal: drops nodes already in the graph, keeps
//! the most important changes within the proposal limit, and orders them so
//! every edge comes after the nodes it joins.

use std::collections::{BTreeMap, BTreeSet};

use super::{Draft, EdgeDraft, EdgeKey, EdgeKind, Findings, Inference, Rank};
use crate::model::{Name, NodeType, Relation, Tier};
use crate::proposal::{Change, MAX_CHANGES, MAX_EDGES_PER_NODE, Triple};

/// Builds the inference from everything found.
pub(super) fn assemble(found: Findings, exists: &dyn Fn(&str) -> bool) -> Inference {
    let Findings {
        nodes,
        edges,
        sources,
        notes,
        notes_dropped,
    } = found;
    let mut owned: BTreeMap<&Name, Vec<&EdgeKey>> = BTreeMap::new();
    for (key, e) in &edges {
        if let Some(owner) = &e.owner {
            owned.entry(owner).or_default().push(key);
        }
    }
    let mut plan = Plan {
        exists,
        taken: BTreeSet::new(),
        attached: BTreeSet::new(),
        nodes: Vec::new(),
        edges: Vec::new(),
        present: Vec::new(),
        over: Vec::new(),
    };
    plan.take_nodes(&nodes, Rank::Crate, &owned);
    plan.take_nodes(&nodes, Rank::Module, &owned);
    plan.take_edges(&edges, EdgeKind::Code);
    plan.take_nodes(&nodes, Rank::Doc, &owned);
    plan.take_edges(&edges, EdgeKind::Doc);

    let mut skipped = notes;
    if notes_dropped > 0 {
        skipped.push(format!("{notes_dropped} more notes like the above"));
    }
    skipped.extend(plan.present);
    let total: usize = plan.over.iter().map(|(_, n)| n).sum();
    if total > 0 {
        let detail: Vec<String> = plan.over.iter().map(|(what, n)| format!("{what}: {n}")).collect();
        skipped.push(format!(
            "{total} more changes not proposed: a proposal holds at most {MAX_CHANGES} ({}); \
             accept this one and infer again for the rest",
            detail.join(", ")
        ));
    }
    let mut changes = plan.nodes;
    changes.extend(plan.edges);
    Inference {
        changes,
        sources: sources.into_iter().collect(),
        skipped,
    }
}

/// The proposal being filled.
struct Plan<'a> {
    exists: &'a dyn Fn(&str) -> bool,
    /// New nodes proposed so far.
    taken: BTreeSet<Name>,
    /// Edges already proposed as suggested edges of a new node.
    attached: BTreeSet<EdgeKey>,
    nodes: Vec<Change>,
    edges: Vec<Change>,
    /// Nodes not proposed because they exist.
    present: Vec<String>,
    /// Changes left out by the limit, by kind, most important first.
    over: Vec<(&'static str, usize)>,
}

impl Plan<'_> {
    fn full(&self) -> bool {
        self.nodes.len() + self.edges.len() >= MAX_CHANGES
    }

    fn left_out(&mut self, what: &'static str) {
        match self.over.iter_mut().find(|(w, _)| *w == what) {
            Some((_, n)) => *n += 1,
            None => self.over.push((what, 1)),
        }
    }

    fn available(&self, name: &Name) -> bool {
        self.taken.contains(name) || (self.exists)(name.as_str())
    }

    fn take_nodes(&mut self, nodes: &BTreeMap<Name, Draft>, rank: Rank, owned: &BTreeMap<&Name, Vec<&EdgeKey>>) {
        for (name, d) in nodes.iter().filter(|(_, d)| d.rank == rank) {
            if (self.exists)(name.as_str()) {
                self.present
                    .push(format!("{name} ({}): already in the graph", d.node_type));
                continue;
            }
            if self.full() {
                self.left_out(rank_label(rank));
                continue;
            }
            let Ok(node_type) = NodeType::new(d.node_type) else {
                continue;
            };
            let mut suggested: Vec<Triple> = Vec::new();
            for key in owned.get(name).into_iter().flatten() {
                let other = if key.0 == *name { &key.2 } else { &key.0 };
                if suggested.len() == MAX_EDGES_PER_NODE || !self.available(other) {
                    continue;
                }
                if let Ok(relation) = Relation::new(key.1) {
                    suggested.push((key.0.clone(), relation, key.2.clone()));
                    self.attached.insert((*key).clone());
                }
            }
            self.taken.insert(name.clone());
            self.nodes.push(Change::AddNode {
                name: name.clone(),
                node_type,
                description: d.description.clone(),
                body: None,
                tier: Tier::AgentReadable,
                properties: d.properties.clone(),
                confidence: Some(d.confidence),
                suggested_edges: suggested,
            });
        }
    }

    fn take_edges(&mut self, edges: &BTreeMap<EdgeKey, EdgeDraft>, kind: EdgeKind) {
        let label = match kind {
            EdgeKind::Code => "code edges",
            EdgeKind::Doc => "doc edges",
        };
        for (key, e) in edges.iter().filter(|(_, e)| e.kind == kind) {
            if self.attached.contains(key) {
                continue;
            }
            // An endpoint not proposed was left out by the limit.
            if self.full() || !self.available(&key.0) || !self.available(&key.2) {
                self.left_out(label);
                continue;
            }
            let Ok(relation) = Relation::new(key.1) else {
                continue;
            };
            self.edges.push(Change::AddEdge {
                from: key.0.clone(),
                relation,
                to: key.2.clone(),
                confidence: Some(e.confidence),
            });
        }
    }
}

fn rank_label(rank: Rank) -> &'static str {
    match rank {
        Rank::Crate => "crates",
        Rank::Module => "modules",
        Rank::Doc => "doc nodes",
    }
}
