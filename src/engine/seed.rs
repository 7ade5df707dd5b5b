//! Seed documents (`graphex-seed/1`): a whole graph as JSON, used for the demo
//! data and for loading hand-written graphs. Unknown fields are rejected so a
//! typo never silently drops data.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::model::{Name, NewEdge, NewNode, NodeType, Provenance, Relation, Status, Tier, Timestamp};
use crate::store::Batch;

/// The format tag a seed document must carry.
pub const SEED_FORMAT: &str = "graphex-seed/1";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    format: String,
    project: String,
    nodes: Vec<SeedNode>,
    #[serde(default)]
    edges: Vec<SeedEdge>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeedNode {
    name: String,
    #[serde(rename = "type")]
    node_type: String,
    #[serde(default = "public")]
    tier: String,
    #[serde(default = "active")]
    status: String,
    description: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    properties: BTreeMap<String, String>,
    #[serde(default = "one")]
    confidence: f64,
    #[serde(default)]
    created: Option<String>,
    #[serde(default)]
    provenance: Provenance,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeedEdge {
    from: String,
    relation: String,
    to: String,
    #[serde(default = "public")]
    tier: String,
    #[serde(default = "one")]
    confidence: f64,
    #[serde(default = "one")]
    weight: f64,
    #[serde(default)]
    bidirectional: bool,
}

fn public() -> String {
    "public".into()
}
fn active() -> String {
    "active".into()
}
fn one() -> f64 {
    1.0
}

/// A parsed seed: the project name and a batch ready to apply.
#[derive(Debug)]
pub struct Seed {
    pub project: String,
    pub batch: Batch,
}

/// Parses a seed document; `origin` names it in errors.
pub fn parse(origin: &str, json: &str) -> Result<Seed> {
    let doc: Document = serde_json::from_str(json).map_err(|e| Error::Document {
        path: origin.to_owned(),
        reason: e.to_string(),
    })?;
    if doc.format != SEED_FORMAT {
        return Err(Error::Document {
            path: origin.to_owned(),
            reason: format!("format is {:?}, expected {SEED_FORMAT:?}", doc.format),
        });
    }
    let at = |what: String, e: Error| Error::Document {
        path: origin.to_owned(),
        reason: format!("{what}: {e}"),
    };
    let mut batch = Batch::default();
    for (i, n) in doc.nodes.into_iter().enumerate() {
        let ctx = || format!("nodes[{i}] ({})", n.name);
        let node = (|| {
            Ok(NewNode {
                name: Name::new(&n.name)?,
                node_type: NodeType::new(&n.node_type)?,
                description: n.description.clone(),
                body: n.body.clone(),
                properties: n.properties.clone(),
                tier: n.tier.parse::<Tier>()?,
                status: n.status.parse::<Status>()?,
                confidence: n.confidence,
                provenance: n.provenance.clone(),
                created: n.created.as_deref().map(Timestamp::parse).transpose()?,
            })
        })()
        .map_err(|e| at(ctx(), e))?;
        batch.add_node(node);
    }
    for (i, e) in doc.edges.into_iter().enumerate() {
        let ctx = || format!("edges[{i}] ({} -> {} -> {})", e.from, e.relation, e.to);
        let edge = (|| {
            Ok(NewEdge {
                from: Name::new(&e.from)?,
                relation: Relation::new(&e.relation)?,
                to: Name::new(&e.to)?,
                tier: e.tier.parse::<Tier>()?,
                confidence: e.confidence,
                weight: e.weight,
                bidirectional: e.bidirectional,
                provenance: Provenance::Human,
                created: None,
            })
        })()
        .map_err(|err| at(ctx(), err))?;
        batch.link(edge);
    }
    Ok(Seed {
        project: doc.project,
        batch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_minimal_and_rejects_unknown_fields() {
        let ok =
            r#"{"format":"graphex-seed/1","project":"p","nodes":[{"name":"a","type":"service","description":"d"}]}"#;
        let seed = parse("t.json", ok).unwrap();
        assert_eq!((seed.project.as_str(), seed.batch.node_count()), ("p", 1));
        let typo = ok.replace("\"description\"", "\"descripton\"");
        assert!(
            parse("t.json", &typo)
                .unwrap_err()
                .to_string()
                .contains("unknown field")
        );
        let bad_tier = ok.replace("\"type\":\"service\"", "\"type\":\"service\",\"tier\":\"secret\"");
        let msg = parse("t.json", &bad_tier).unwrap_err().to_string();
        assert!(msg.contains("nodes[0] (a)") && msg.contains("tier"), "{msg}");
    }

    #[test]
    fn the_demo_document_parses() {
        let json = include_str!("../../assets/demo/graph.json");
        let seed = parse("graph.json", json).unwrap();
        assert!(seed.batch.node_count() >= 50, "demo has about 60 nodes");
        assert!(seed.batch.edge_count() >= 100);
    }
}
