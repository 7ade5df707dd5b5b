//! Test fixtures shared by the engine's unit tests: small hand-built
//! catalogs, no crypto.

use std::sync::Arc;

use crate::codec::Snapshot;
use crate::model::{Edge, EdgeId, Name, NodeId, NodeSummary, NodeType, Provenance, Relation, Status, Tier, Timestamp};
use crate::store::Catalog;

pub fn node(name: &str, ty: &str, tier: Tier, status: Status) -> NodeSummary {
    NodeSummary {
        id: NodeId::generate(),
        name: Name::new(name).unwrap(),
        node_type: NodeType::new(ty).unwrap(),
        description: format!("{name} description"),
        properties: Default::default(),
        tier,
        status,
        confidence: 1.0,
        created: Timestamp::parse("2026-01-01").unwrap(),
        updated: Timestamp::parse("2026-01-01").unwrap(),
        version: 1,
    }
}

pub fn edge(nodes: &[NodeSummary], from: &str, rel: &str, to: &str) -> Edge {
    let find = |n: &str| nodes.iter().find(|x| x.name.as_str() == n).unwrap();
    let (a, b) = (find(from), find(to));
    Edge {
        id: EdgeId::generate(),
        from: a.id,
        relation: Relation::new(rel).unwrap(),
        to: b.id,
        confidence: 1.0,
        weight: 1.0,
        bidirectional: false,
        declared_tier: Tier::Public,
        tier: a.tier.max(b.tier),
        provenance: Arc::new(Provenance::Human),
        created: Timestamp::parse("2026-01-01").unwrap(),
    }
}

/// orders-service -> depends-on -> currency-utils -> depends-on -> money-core
/// orders-service -> depends-on -> postgresql (agent-restricted)
/// orders-service -> owned-by -> orders-team; billing-service -> depends-on -> currency-utils
/// old-money (deprecated) <- supersedes <- currency-utils
pub fn sample() -> Catalog {
    let nodes = vec![
        node("orders-service", "service", Tier::Public, Status::Active),
        node("billing-service", "service", Tier::Public, Status::Active),
        node("currency-utils", "module", Tier::Public, Status::Active),
        node("money-core", "module", Tier::AgentReadable, Status::Active),
        node("postgresql", "database", Tier::AgentRestricted, Status::Active),
        node("orders-team", "team", Tier::Public, Status::Active),
        node("old-money", "module", Tier::Public, Status::Deprecated),
    ];
    let mut edges = vec![
        edge(&nodes, "orders-service", "depends-on", "currency-utils"),
        edge(&nodes, "currency-utils", "depends-on", "money-core"),
        edge(&nodes, "orders-service", "depends-on", "postgresql"),
        edge(&nodes, "orders-service", "owned-by", "orders-team"),
        edge(&nodes, "billing-service", "depends-on", "currency-utils"),
        edge(&nodes, "currency-utils", "supersedes", "old-money"),
    ];
    edges[3].confidence = 0.5;
    Catalog::build(Vec::new(), Snapshot::new(nodes, edges))
}

/// The catalog as a session that reads only up to `max` would hold it.
pub fn visible(max: Tier) -> Catalog {
    let full = sample();
    let nodes = full.nodes().filter(|n| n.tier <= max).cloned().collect();
    let edges = full.edges().filter(|e| e.tier <= max).cloned().collect();
    Catalog::build(Vec::new(), Snapshot::new(nodes, edges))
}
