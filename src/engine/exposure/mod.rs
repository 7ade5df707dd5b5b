//! Exposure analysis for security reviewers: what each tier holds and adds
//! over the one below, and lints for leaks between tiers. It covers the tiers
//! this session reads (a master session cannot judge human-only content).

use std::collections::{BTreeMap, HashSet};

use aho_corasick::AhoCorasick;

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

/// The kinds of finding, most severe first: a lowered tier hands a node's
/// whole text (once more secret) to a lower tier; a mention puts a secret
/// name in lower-tier text; an edge from a public node shows only that a
/// higher node exists and how it relates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    LoweredTier,
    MentionsHigher,
    PublicEdgeToHigher,
}

impl FindingKind {
    /// Every kind, most severe first (the order reports list them in).
    pub const BY_SEVERITY: [FindingKind; 3] = [
        FindingKind::LoweredTier,
        FindingKind::MentionsHigher,
        FindingKind::PublicEdgeToHigher,
    ];

    /// The lint's name, as a finding's JSON and its line start with it.
    pub fn lint(self) -> &'static str {
        match self {
            FindingKind::LoweredTier => "lowered-tier",
            FindingKind::MentionsHigher => "mentions-higher",
            FindingKind::PublicEdgeToHigher => "public-edge-to-higher",
        }
    }

    /// The kind in words, for a group's heading.
    pub fn title(self) -> &'static str {
        match self {
            FindingKind::LoweredTier => "tier lowered since an earlier version",
            FindingKind::MentionsHigher => "text naming a higher-tier node",
            FindingKind::PublicEdgeToHigher => "public node linked to a higher tier",
        }
    }
}

impl Finding {
    pub fn kind(&self) -> FindingKind {
        match self {
            Finding::LoweredTier { .. } => FindingKind::LoweredTier,
            Finding::MentionsHigher { .. } => FindingKind::MentionsHigher,
            Finding::PublicEdgeToHigher { .. } => FindingKind::PublicEdgeToHigher,
        }
    }

    /// The node the finding is about (the one to open and fix).
    pub fn node(&self) -> &str {
        match self {
            Finding::MentionsHigher { node, .. } | Finding::LoweredTier { node, .. } => node,
            Finding::PublicEdgeToHigher { from, .. } => from,
        }
    }
}

/// The finding in one line, its lint first.
impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Finding::MentionsHigher {
                node,
                tier,
                mentions,
                mentioned_tier,
                field,
            } => write!(
                f,
                "mentions-higher: {node} ({tier}) names {mentions} ({mentioned_tier}) in its {field}"
            ),
            Finding::PublicEdgeToHigher {
                from,
                relation,
                to,
                to_tier,
            } => write!(f, "public-edge-to-higher: {from} -[{relation}]-> {to} ({to_tier})"),
            Finding::LoweredTier {
                node,
                tier,
                highest_before,
            } => write!(f, "lowered-tier: {node} is {tier} now, was {highest_before} before"),
        }
    }
}

/// The exposure report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The most secret tier this report covers.
    pub covers_up_to: Tier,
    pub tiers: Vec<TierView>,
    pub findings: Vec<Finding>,
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
        // Every non-public name, searched for in every field of every node of a
        // lower tier (names, descriptions, property keys and values) at name
        // boundaries, so `pricing-engine-v2` is caught mentioning `pricing-engine`.
        let secret: Vec<(&str, Tier)> = c
            .nodes()
            .filter(|n| n.tier > Tier::Public)
            .map(|n| (n.name.as_str(), n.tier))
            .collect();
        if let Ok(automaton) = AhoCorasick::new(secret.iter().map(|(name, _)| *name)) {
            for n in c.nodes() {
                let fields = std::iter::once(("name".to_owned(), n.name.to_string()))
                    .chain(std::iter::once((
                        "description".to_owned(),
                        n.description.to_lowercase(),
                    )))
                    .chain(n.properties.iter().flat_map(|(k, v)| {
                        [
                            (format!("property key {k}"), k.to_lowercase()),
                            (format!("property {k}"), v.to_lowercase()),
                        ]
                    }));
                let mut seen: HashSet<(String, &str)> = HashSet::new();
                for (field, text) in fields {
                    for m in automaton.find_overlapping_iter(&text) {
                        let (name, tier) = secret[m.pattern().as_usize()];
                        let bounded = |i: Option<&u8>| i.is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'));
                        let at_boundary = bounded(m.start().checked_sub(1).and_then(|i| text.as_bytes().get(i)))
                            && bounded(text.as_bytes().get(m.end()));
                        if tier > n.tier && name != n.name.as_str() && at_boundary && seen.insert((field.clone(), name))
                        {
                            findings.push(Finding::MentionsHigher {
                                node: n.name.to_string(),
                                tier: n.tier,
                                mentions: name.to_owned(),
                                mentioned_tier: tier,
                                field: field.clone(),
                            });
                        }
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
        // The most severe kind first, then by node, so a reviewer meets
        // what leaks most first and one node's findings stand together.
        findings.sort_by(|a, b| (a.kind(), a.node()).cmp(&(b.kind(), b.node())));
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
