//! What a traversal follows and reports.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use crate::model::{Edge, NodeSummary, NodeType, Relation, Status, Tier};
use crate::query::StatusFilter;
use crate::store::Catalog;

/// Which way edges are followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Direction {
    /// From source to target (bidirectional edges both ways).
    Out,
    /// From target to source.
    In,
    /// Either way.
    #[default]
    Both,
}

impl FromStr for Direction {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "out" => Ok(Direction::Out),
            "in" => Ok(Direction::In),
            "both" => Ok(Direction::Both),
            _ => Err(Error::invalid("direction", s, "expected in, out or both")),
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::Out => "out",
            Direction::In => "in",
            Direction::Both => "both",
        })
    }
}

/// Filters of a traversal. Relations, tier and status limit what is walked
/// through; types limit what is reported.
#[derive(Clone, Debug)]
pub struct Filter {
    pub relations: Vec<Relation>,
    /// Relations never followed (`--exclude-relation supersedes`: a walk
    /// that does not step from a memory to the ones it replaced).
    pub excluded: Vec<Relation>,
    pub types: Vec<NodeType>,
    pub max_tier: Option<Tier>,
    pub status: StatusFilter,
}

impl Default for Filter {
    fn default() -> Self {
        Self {
            relations: Vec::new(),
            excluded: Vec::new(),
            types: Vec::new(),
            max_tier: None,
            status: StatusFilter::Only(Status::Active),
        }
    }
}

impl Filter {
    pub(crate) fn walks_node(&self, n: &NodeSummary) -> bool {
        let status_ok = self.status.admits(n.status);
        status_ok && self.max_tier.is_none_or(|t| n.tier <= t)
    }

    pub(crate) fn walks_edge(&self, e: &Edge) -> bool {
        self.max_tier.is_none_or(|t| e.tier <= t)
            && (self.relations.is_empty() || self.relations.contains(&e.relation))
            && !self.excluded.contains(&e.relation)
    }

    pub(crate) fn reports(&self, n: &NodeSummary) -> bool {
        self.types.is_empty() || self.types.contains(&n.node_type)
    }
}

/// The edges a walk may take from node `slot`: (edge slot, next node slot).
pub(crate) fn steps(c: &Catalog, slot: u32, dir: Direction, f: &Filter, out: &mut Vec<(u32, u32)>) {
    out.clear();
    let mut take = |e: u32, next: u32, forward: bool| {
        let Some(edge) = c.edge_at(e) else { return };
        let allowed = match dir {
            Direction::Both => true,
            Direction::Out => forward || edge.bidirectional,
            Direction::In => !forward || edge.bidirectional,
        };
        if allowed && f.walks_edge(edge) && c.node_at(next).is_some_and(|n| f.walks_node(n)) {
            out.push((e, next));
        }
    };
    for &e in c.out_slots(slot) {
        take(e, c.ends_at(e).1, true);
    }
    for &e in c.in_slots(slot) {
        take(e, c.ends_at(e).0, false);
    }
}
