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
    /// The moment the document's dates were written for: when it is loaded,
    /// every `created` moves by the time since, so each keeps its age (the
    /// demo's decisions stay as recent as its tour says).
    #[serde(default)]
    as_of: Option<String>,
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
    let shift = match doc.as_of.as_deref().map(Timestamp::parse).transpose() {
        Ok(at) => at.map_or(0, |at| Timestamp::now().0 - at.0),
        Err(e) => return Err(at("as_of".into(), e)),
    };
    let created = |raw: &str| Timestamp::parse(raw).map(|t| Timestamp(t.0 + shift));
    let mut batch = Batch::default();
    for (i, n) in doc.nodes.into_iter().enumerate() {
        let ctx = || format!("nodes[{i}] ({})", n.name);
        let node = (|| {
            Ok(NewNode {
                name: Name::new(&n.name)?,
                node_type: NodeType::new(&n.node_type)?,
                description: n.description.clone(),
                body: n.body.clone(),
                properties: n.properties.clone().into(),
                tier: n.tier.parse::<Tier>()?,
                status: n.status.parse::<Status>()?,
                confidence: n.confidence,
                provenance: n.provenance.clone(),
                created: n.created.as_deref().map(created).transpose()?,
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

    /// `as_of`: every date moves by the time since, so each keeps its age;
    /// without it, dates are taken as written.
    #[test]
    fn dates_written_as_of_a_moment_keep_their_age() {
        let doc = |as_of: &str| {
            format!(
                r#"{{"format":"graphex-seed/1","project":"p",{as_of}"nodes":[{{"name":"a","type":"decision","description":"d","created":"2026-03-01T00:00:00Z"}}]}}"#
            )
        };
        let created = |text: &str| parse("t.json", text).unwrap().batch.nodes()[0].created.unwrap();
        assert_eq!(created(&doc("")), Timestamp::parse("2026-03-01").unwrap());
        let before = Timestamp::now();
        let moved = created(&doc(r#""as_of":"2026-03-11T00:00:00Z","#));
        let age = Timestamp::now().0 - moved.0;
        assert!(age >= 10 * 86_400_000, "{age}");
        assert!(age <= 10 * 86_400_000 + (Timestamp::now().0 - before.0), "{age}");
        let e = parse("t.json", &doc(r#""as_of":"last tuesday","#))
            .unwrap_err()
            .to_string();
        assert!(e.contains("as_of"), "{e}");
    }
}
