//! Synthetic graphs for benchmarks and scale tests (`graphex gen`): realistic
//! names and types, every tier, a skewed degree distribution. Deterministic
//! for a given seed, so benchmark runs compare like with like.

use std::collections::HashSet;

use crate::model::{Name, NewEdge, NewNode, NodeType, Relation, Tier, Timestamp};
use crate::store::Batch;

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct SynthSpec {
    pub nodes: usize,
    pub edges: usize,
    pub seed: u64,
}

/// A small, fast, deterministic PRNG (SplitMix64): benchmarks need
/// repeatability, not cryptographic quality.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// Skewed towards low indices: a few hubs, a long tail.
    fn skewed(&mut self, n: usize) -> usize {
        let a = self.below(n);
        let b = self.below(n);
        a.min(b)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const WORDS: &[&str] = &[
    "orders",
    "billing",
    "auth",
    "ledger",
    "payments",
    "catalog",
    "search",
    "gateway",
    "inventory",
    "shipping",
    "fraud",
    "refunds",
    "currency",
    "invoices",
    "accounts",
    "reports",
    "audit",
    "profiles",
    "pricing",
    "notify",
    "session",
    "tax",
    "quota",
    "export",
];
const KINDS: &[(&str, &str)] = &[
    ("service", "service"),
    ("module", "utils"),
    ("module", "core"),
    ("convention", "rule"),
    ("glossary", "term"),
    ("decision", "adr"),
    ("database", "db"),
    ("team", "team"),
    ("policy", "policy"),
    ("concept", "model"),
    ("schema", "schema"),
    ("external-system", "api"),
];

/// The tier for node `i`: about 50% public, 25% agent-readable, 15%
/// agent-restricted, 10% human-only.
fn tier_for(r: u64) -> Tier {
    match r % 20 {
        0..=9 => Tier::Public,
        10..=14 => Tier::AgentReadable,
        15..=17 => Tier::AgentRestricted,
        _ => Tier::HumanOnly,
    }
}

/// Builds a batch of `spec.nodes` nodes and `spec.edges` distinct edges.
pub fn generate(spec: SynthSpec) -> Batch {
    let mut rng = SplitMix(spec.seed);
    let mut batch = Batch::default();
    let mut names = Vec::with_capacity(spec.nodes);
    let base = Timestamp::parse("2025-01-01").map(|t| t.0).unwrap_or(0);
    for i in 0..spec.nodes {
        let (ty, suffix) = KINDS[rng.below(KINDS.len())];
        let word = WORDS[rng.below(WORDS.len())];
        let raw = format!("{word}-{suffix}-{i}");
        let name = Name::new(&raw).unwrap_or_else(|_| unreachable!("generated names are valid"));
        let node_type = NodeType::new(ty).unwrap_or_else(|_| unreachable!("known type"));
        let mut node = NewNode::new(
            name.clone(),
            node_type,
            format!("The {word} {suffix} number {i}: synthetic node for scale tests"),
            tier_for(rng.next()),
        );
        node.confidence = 0.5 + rng.unit() / 2.0;
        node.created = Some(Timestamp(base + (rng.below(600 * 86_400) as i64) * 1000));
        node.properties
            .insert("owner".into(), format!("{}-team", WORDS[rng.below(WORDS.len())]));
        batch.add_node(node);
        names.push(name);
    }
    if names.len() < 2 {
        return batch;
    }
    let max_edges = spec.edges.min(names.len() * (names.len() - 1));
    let mut seen = HashSet::with_capacity(max_edges);
    // Made once and shared: a relation is an `Arc<str>`.
    let relations: Vec<Relation> = Relation::KNOWN
        .iter()
        .map(|r| Relation::new(r).unwrap_or_else(|_| unreachable!("known relation")))
        .collect();
    while seen.len() < max_edges {
        let from = rng.below(names.len());
        let to = rng.skewed(names.len());
        let rel = rng.below(Relation::KNOWN.len() - 1);
        if from == to || !seen.insert((from, to, rel)) {
            continue;
        }
        let mut edge = NewEdge::new(names[from].clone(), relations[rel].clone(), names[to].clone());
        edge.confidence = 0.5 + rng.unit() / 2.0;
        edge.created = Some(Timestamp(base));
        batch.link(edge);
    }
    batch
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_sized() {
        let a = generate(SynthSpec {
            nodes: 50,
            edges: 120,
            seed: 7,
        });
        let b = generate(SynthSpec {
            nodes: 50,
            edges: 120,
            seed: 7,
        });
        assert_eq!((a.node_count(), a.edge_count()), (50, 120));
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        let tiny = generate(SynthSpec {
            nodes: 2,
            edges: 100,
            seed: 1,
        });
        assert!(tiny.edge_count() <= 2 * 9, "capped by distinct triples");
    }
}
