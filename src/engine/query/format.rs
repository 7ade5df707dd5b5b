//! Query results as owned data, and their four renderings: the spec's JSON
//! shape, a text table, Mermaid and DOT. Plain strings: the CLI prints them,
//! the console and the MCP server reuse them.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::diagram::{DiagramEdge, DiagramNode};
use super::eval::Matches;
use crate::model::{Edge, NodeSummary, Status};
use crate::store::Catalog;

/// One result path with its nodes and edges.
#[derive(Clone, Debug)]
pub struct ResultPath {
    pub nodes: Vec<NodeSummary>,
    pub edges: Vec<Edge>,
}

/// The answer to a query.
#[derive(Clone, Debug)]
pub struct QueryOutput {
    pub query: String,
    pub paths: Vec<ResultPath>,
    pub total_results: usize,
    pub truncated: bool,
    /// When nothing matches: why (see [`super::nothing_matches`]).
    pub empty_because: Option<String>,
}

impl QueryOutput {
    /// With the reason nothing matches, when nothing does, at `tier`.
    pub fn explained(mut self, c: &Catalog, tier: Option<crate::model::Tier>) -> Self {
        if self.total_results == 0 {
            self.empty_because = Some(super::nothing_matches(c, &self.query, tier));
        }
        self
    }

    /// Copies the matched nodes and edges out of the catalog.
    pub fn new(query: &str, m: Matches, c: &Catalog) -> Self {
        let paths = m
            .matches
            .iter()
            .map(|p| ResultPath {
                nodes: p.nodes.iter().filter_map(|&s| c.node_at(s).cloned()).collect(),
                edges: p.edges.iter().filter_map(|&e| c.edge_at(e).cloned()).collect(),
            })
            .collect();
        Self {
            query: query.to_owned(),
            paths,
            total_results: m.total,
            truncated: m.truncated,
            empty_because: None,
        }
    }

    /// The spec's response shape.
    pub fn to_json(&self) -> SpecResponse {
        SpecResponse {
            query: self.query.clone(),
            results: self.paths.iter().map(spec_result).collect(),
            total_results: self.total_results,
            truncated: self.truncated,
            empty_because: self.empty_because.clone(),
        }
    }

    /// One line per path, then a count.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for p in &self.paths {
            s.push_str(&path_text(p));
            s.push('\n');
        }
        let shown = self.paths.len();
        if self.total_results == 0 {
            match &self.empty_because {
                Some(why) => {
                    let _ = writeln!(s, "no results: {why}");
                }
                None => s.push_str("no results\n"),
            }
        } else if self.truncated {
            let _ = writeln!(s, "{shown} of {} results (raise --limit for more)", self.total_results);
        } else {
            let _ = writeln!(s, "{shown} result(s)");
        }
        s
    }

    /// A Mermaid flowchart of every node and edge in the results.
    pub fn to_mermaid(&self) -> String {
        let (nodes, edges) = self.distinct();
        mermaid(&nodes, &edges)
    }

    /// A Graphviz digraph of every node and edge in the results.
    pub fn to_dot(&self) -> String {
        let (nodes, edges) = self.distinct();
        dot(&nodes, &edges)
    }

    /// Each node and edge once, in first-seen order.
    fn distinct(&self) -> (Vec<&NodeSummary>, Vec<&Edge>) {
        let mut nodes: Vec<&NodeSummary> = Vec::new();
        let mut edges: Vec<&Edge> = Vec::new();
        for p in &self.paths {
            for n in &p.nodes {
                if !nodes.iter().any(|x| x.id == n.id) {
                    nodes.push(n);
                }
            }
            for e in &p.edges {
                if !edges.iter().any(|x| x.id == e.id) {
                    edges.push(e);
                }
            }
        }
        (nodes, edges)
    }
}

/// The name of each end of `e`, from `nodes` (the id when the node is absent).
fn end_names(nodes: &[&NodeSummary], e: &Edge) -> (String, String) {
    let name = |id| {
        nodes
            .iter()
            .find(|n| n.id == id)
            .map_or_else(|| id.to_string(), |n| n.name.to_string())
    };
    (name(e.from), name(e.to))
}

/// The diagram views of `nodes` and `edges` (names and types only).
fn diagram<R>(nodes: &[&NodeSummary], edges: &[&Edge], f: impl Fn(&[DiagramNode<'_>], &[DiagramEdge<'_>]) -> R) -> R {
    let ends: Vec<(String, String)> = edges.iter().map(|e| end_names(nodes, e)).collect();
    let dn: Vec<DiagramNode<'_>> = nodes
        .iter()
        .map(|n| DiagramNode {
            name: n.name.as_str(),
            node_type: n.node_type.as_str(),
            description: None,
        })
        .collect();
    let de: Vec<DiagramEdge<'_>> = edges
        .iter()
        .zip(&ends)
        .map(|(e, (from, to))| DiagramEdge {
            from,
            relation: e.relation.as_str(),
            to,
            bidirectional: e.bidirectional,
        })
        .collect();
    f(&dn, &de)
}

/// A Mermaid flowchart of `nodes` and `edges`.
pub fn mermaid(nodes: &[&NodeSummary], edges: &[&Edge]) -> String {
    diagram(nodes, edges, super::diagram::mermaid)
}

/// A Graphviz digraph of `nodes` and `edges`.
pub fn dot(nodes: &[&NodeSummary], edges: &[&Edge]) -> String {
    diagram(nodes, edges, super::diagram::dot)
}

/// `name (type)`, flagged `(type, deprecated)` when not active.
fn node_text(n: &NodeSummary) -> String {
    if n.status == Status::Active {
        format!("{} ({})", n.name, n.node_type)
    } else {
        format!("{} ({}, {})", n.name, n.node_type, n.status)
    }
}

fn path_text(p: &ResultPath) -> String {
    let mut s = p.nodes.first().map_or_else(String::new, node_text);
    for (e, n) in p.edges.iter().zip(p.nodes.iter().skip(1)) {
        let forward = e.to == n.id;
        let arrow = match (e.bidirectional, forward) {
            (true, _) => format!(" <-[{}]-> ", e.relation),
            (false, true) => format!(" -[{}]-> ", e.relation),
            (false, false) => format!(" <-[{}]- ", e.relation),
        };
        let _ = write!(s, "{arrow}{}", node_text(n));
    }
    s
}

/// The spec's JSON response.
#[derive(Debug, Serialize)]
pub struct SpecResponse {
    pub query: String,
    pub results: Vec<SpecResult>,
    pub total_results: usize,
    pub truncated: bool,
    /// When nothing matches: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty_because: Option<String>,
}

/// One result in the spec's shape: the path as names and relations, the
/// nodes on it, and its edge (the last one for multi-hop paths, all of them
/// in `edges`).
#[derive(Debug, Serialize)]
pub struct SpecResult {
    pub path: Vec<String>,
    pub nodes: BTreeMap<String, SpecNode>,
    pub edge: Option<SpecEdge>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edges: Option<Vec<SpecEdge>>,
}

#[derive(Debug, Serialize)]
pub struct SpecNode {
    #[serde(rename = "type")]
    pub node_type: String,
    pub description: String,
    pub confidence: f64,
    /// Set for a node that is not active (a deprecated one is shown, flagged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct SpecEdge {
    pub relation: String,
    pub confidence: f64,
    pub created_at: String,
}

fn spec_result(p: &ResultPath) -> SpecResult {
    let mut path = Vec::with_capacity(p.nodes.len() * 2);
    for (i, n) in p.nodes.iter().enumerate() {
        if i > 0 {
            path.push(p.edges[i - 1].relation.to_string());
        }
        path.push(n.name.to_string());
    }
    let nodes = p
        .nodes
        .iter()
        .map(|n| {
            let node = SpecNode {
                node_type: n.node_type.to_string(),
                description: n.description.clone(),
                confidence: n.confidence,
                status: (n.status != Status::Active).then(|| n.status.to_string()),
            };
            (n.name.to_string(), node)
        })
        .collect();
    let spec_edge = |e: &Edge| SpecEdge {
        relation: e.relation.to_string(),
        confidence: e.confidence,
        created_at: e.created.to_rfc3339(),
    };
    SpecResult {
        path,
        nodes,
        edge: p.edges.last().map(spec_edge),
        edges: (p.edges.len() > 1).then(|| p.edges.iter().map(spec_edge).collect()),
    }
}
