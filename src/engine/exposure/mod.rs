//! Exposure analysis for security reviewers: what each tier holds and adds
//! over the one below, and lints for leaks between tiers. It covers the tiers
//! this session reads (a master session cannot judge human-only content).

use std::collections::{BTreeMap, HashMap};

use rusqlite::params;
use serde::Serialize;

use crate::error::Result;
use crate::model::{NodeId, Tier};
use crate::store::Store;

/// One tier's content.
#[derive(Clone, Debug, Serialize)]
pub struct TierView {
    pub tier: Tier,
    pub nodes: u64,
    pub edges: u64,
    pub by_type: BTreeMap<String, u64>,
    pub by_status: BTreeMap<String, u64>,
    /// Names of the nodes at exactly this tier: what it sees that the one below does not.
    pub adds: Vec<String>,
}

/// A finding.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "lint", rename_all = "kebab-case")]
pub enum Finding {
    /// A node's text names a node of a higher tier.
    MentionsHigher {
        node: String,
        tier: Tier,
        mentions: String,
        mentioned_tier: Tier,
        field: String,
    },
    /// A public node is linked to a node of a higher tier.
    PublicEdgeToHigher {
        from: String,
        relation: String,
        to: String,
        to_tier: Tier,
    },
    /// A node's tier was lowered at some point: older versions were more secret.
    LoweredTier {
        node: String,
        tier: Tier,
        highest_before: Tier,
    },
}

/// The exposure report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The most secret tier this report covers.
    pub covers_up_to: Tier,
    pub tiers: Vec<TierView>,
    pub findings: Vec<Finding>,
}

/// Lower-case words that may be node names, in `text`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.')))
        .map(|w| w.trim_matches('.'))
        .filter(|w| w.len() >= 3)
}

impl Store {
    /// Builds the exposure report for the tiers this session reads.
    pub fn exposure(&self) -> Result<Report> {
        let c = self.catalog();
        let top = self.level().max_tier();
        let mut tiers: Vec<TierView> = Tier::ALL
            .iter()
            .filter(|t| **t <= top)
            .map(|&tier| TierView {
                tier,
                nodes: 0,
                edges: 0,
                by_type: BTreeMap::new(),
                by_status: BTreeMap::new(),
                adds: Vec::new(),
            })
            .collect();
        for n in c.nodes() {
            let v = &mut tiers[n.tier.code() as usize];
            v.nodes += 1;
            *v.by_type.entry(n.node_type.to_string()).or_default() += 1;
            *v.by_status.entry(n.status.to_string()).or_default() += 1;
            if n.status == crate::model::Status::Active {
                v.adds.push(n.name.to_string());
            }
        }
        for e in c.edges() {
            tiers[e.tier.code() as usize].edges += 1;
        }
        for v in &mut tiers {
            v.adds.sort();
        }

        let mut findings = Vec::new();
        // Names of non-public nodes, for the mention lint.
        let secret: HashMap<&str, Tier> = c
            .nodes()
            .filter(|n| n.tier > Tier::Public)
            .map(|n| (n.name.as_str(), n.tier))
            .collect();
        for n in c.nodes() {
            let fields = std::iter::once(("description".to_owned(), n.description.as_str()))
                .chain(n.properties.iter().map(|(k, v)| (format!("property {k}"), v.as_str())));
            for (field, text) in fields {
                for w in words(&text.to_lowercase()) {
                    if let Some(&t) = secret.get(w)
                        && t > n.tier
                        && w != n.name.as_str()
                    {
                        findings.push(Finding::MentionsHigher {
                            node: n.name.to_string(),
                            tier: n.tier,
                            mentions: w.to_owned(),
                            mentioned_tier: t,
                            field: field.clone(),
                        });
                    }
                }
            }
        }
        for e in c.edges() {
            let (Some(a), Some(b)) = (c.node(&e.from), c.node(&e.to)) else {
                continue;
            };
            if a.tier == Tier::Public && b.tier > Tier::Public {
                findings.push(Finding::PublicEdgeToHigher {
                    from: a.name.to_string(),
                    relation: e.relation.to_string(),
                    to: b.name.to_string(),
                    to_tier: b.tier,
                });
            }
        }
        let mut stmt = self.conn().prepare(
            "SELECT v.node_id, MAX(v.tier) FROM node_versions v JOIN nodes n ON n.id = v.node_id
             WHERE v.tier > n.tier GROUP BY v.node_id",
        )?;
        let mut rows = stmt.query(params![])?;
        while let Some(r) = rows.next()? {
            let id = uuid::Uuid::from_slice(&r.get::<_, Vec<u8>>(0)?).ok().map(NodeId);
            let before = Tier::from_code(r.get(1)?);
            if let (Some(n), Some(before)) = (id.and_then(|id| c.node(&id)), before) {
                findings.push(Finding::LoweredTier {
                    node: n.name.to_string(),
                    tier: n.tier,
                    highest_before: before,
                });
            }
        }
        Ok(Report {
            covers_up_to: top,
            tiers,
            findings,
        })
    }
}

mod what_if;

pub use what_if::{Change, what_if};

#[cfg(test)]
mod tests;
