//! The Graph pane's view model: the centre node's inspector and its
//! neighbourhood as rings, built on the engine worker from what the
//! session can read (a node above the unlock level is not in the catalog,
//! so it is never a row, a group or a count here).

use std::collections::BTreeMap;

use graphex_engine::Result;
use graphex_engine::model::Node;
use graphex_engine::store::Store;
use graphex_engine::traverse::{Direction, Filter, Reached, neighbors};

/// A ring with more nodes than this is shown grouped by relation and
/// direction, with counts, not as a wall of rows.
pub const GROUP_OVER: usize = 24;

/// Which way an edge points, seen from the node that reached it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Arrow {
    /// `→`: from the inner node outwards.
    Out,
    /// `←`: towards the inner node.
    In,
    /// `↔`: a bidirectional edge.
    Both,
}

impl Arrow {
    pub fn glyph(self) -> &'static str {
        match self {
            Arrow::Out => "→",
            Arrow::In => "←",
            Arrow::Both => "↔",
        }
    }
}

/// The centre node as the inspector shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Inspector {
    pub name: String,
    pub node_type: String,
    pub tier: String,
    pub status: String,
    pub confidence: f64,
    pub description: String,
    pub properties: Vec<(String, String)>,
    pub body: Option<String>,
    /// Human, agent (with trust), inferred or federated, as words.
    pub provenance: String,
    pub versions: u64,
    /// Last change, in milliseconds since the epoch.
    pub updated_ms: i64,
}

impl From<&Node> for Inspector {
    fn from(n: &Node) -> Self {
        Self {
            name: n.name.to_string(),
            node_type: n.node_type.to_string(),
            tier: n.tier.to_string(),
            status: n.status.to_string(),
            confidence: n.confidence,
            description: n.description.clone(),
            properties: n.properties.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            body: n.body.clone(),
            provenance: n.provenance.to_string(),
            versions: n.version,
            updated_ms: n.updated.0,
        }
    }
}

/// One neighbour.
#[derive(Clone, Debug, PartialEq)]
pub struct RingRow {
    pub name: String,
    pub node_type: String,
    pub status: String,
    pub relation: String,
    pub arrow: Arrow,
    /// The node it was reached through (rings beyond the first).
    pub via: Option<String>,
}

/// A line of a ring: a neighbour, or a group of them.
#[derive(Clone, Debug, PartialEq)]
pub enum RingEntry {
    Node(RingRow),
    Group {
        relation: String,
        arrow: Arrow,
        count: usize,
    },
}

/// The neighbours at one distance.
#[derive(Clone, Debug, PartialEq)]
pub struct RingView {
    pub distance: u32,
    /// How many nodes the ring holds (grouped or not).
    pub total: usize,
    pub entries: Vec<RingEntry>,
}

/// What the pane draws for one centre.
#[derive(Clone, Debug, PartialEq)]
pub struct Neighbourhood {
    pub inspector: Inspector,
    pub rings: Vec<RingView>,
}

fn row(r: &Reached, distance: u32) -> RingRow {
    // Seen from the inner node: the edge points out when it ends here.
    let arrow = if r.via.bidirectional {
        Arrow::Both
    } else if r.via.to == r.node.id {
        Arrow::Out
    } else {
        Arrow::In
    };
    RingRow {
        name: r.node.name.to_string(),
        node_type: r.node.node_type.to_string(),
        status: r.node.status.to_string(),
        relation: r.via.relation.to_string(),
        arrow,
        via: (distance > 1).then(|| r.from.to_string()),
    }
}

/// The neighbourhood of `name` to `depth` rings, in `dir`, through
/// `filter`: each ring a row per node, or grouped by relation and
/// direction (largest group first) when it holds more than [`GROUP_OVER`].
/// CPU: one breadth-first walk of the in-memory catalog and one blob read
/// (the centre's full node).
pub fn neighbourhood(store: &Store, name: &str, depth: u32, dir: Direction, filter: &Filter) -> Result<Neighbourhood> {
    let centre = store.node(name)?;
    let rings = neighbors(store.catalog(), name, depth, dir, filter)?
        .into_iter()
        .filter(|r| !r.nodes.is_empty())
        .map(|ring| {
            let rows: Vec<RingRow> = ring.nodes.iter().map(|r| row(r, ring.distance)).collect();
            let total = rows.len();
            let entries = if total > GROUP_OVER {
                let mut groups: BTreeMap<(String, Arrow), usize> = BTreeMap::new();
                for r in &rows {
                    *groups.entry((r.relation.clone(), r.arrow)).or_default() += 1;
                }
                let mut groups: Vec<_> = groups.into_iter().collect();
                groups.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                groups
                    .into_iter()
                    .map(|((relation, arrow), count)| RingEntry::Group { relation, arrow, count })
                    .collect()
            } else {
                rows.into_iter().map(RingEntry::Node).collect()
            };
            RingView {
                distance: ring.distance,
                total,
                entries,
            }
        })
        .collect();
    Ok(Neighbourhood {
        inspector: Inspector::from(&centre),
        rings,
    })
}

#[cfg(test)]
mod tests {
    use graphex_engine::age_secret::SecretString;
    use graphex_engine::model::{Name, NewEdge, NewNode, NodeType, Relation, Tier};
    use graphex_engine::{Credentials, KdfCost, Level};

    use super::*;

    const PASS: &str = "graph pane";

    fn store(extra: usize) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        Store::init(
            &root,
            &SecretString::from(PASS),
            &SecretString::from("h"),
            KdfCost(Some(4)),
        )
        .unwrap();
        let human = Credentials {
            passphrase: Some(SecretString::from(PASS)),
            human_passphrase: Some(SecretString::from("h")),
            ..Credentials::default()
        };
        let mut s = Store::open(&root, &human).unwrap();
        let add = |s: &mut Store, name: &str, tier: Tier| {
            s.add_node(NewNode::new(
                Name::new(name).unwrap(),
                NodeType::new("service").unwrap(),
                format!("{name} words"),
                tier,
            ))
            .unwrap();
        };
        let link = |s: &mut Store, a: &str, rel: &str, b: &str| {
            s.link(NewEdge::new(
                Name::new(a).unwrap(),
                Relation::new(rel).unwrap(),
                Name::new(b).unwrap(),
            ))
            .unwrap();
        };
        add(&mut s, "orders", Tier::AgentReadable);
        add(&mut s, "payments", Tier::AgentReadable);
        add(&mut s, "ledger", Tier::AgentReadable);
        add(&mut s, "payroll", Tier::HumanOnly);
        link(&mut s, "orders", "depends-on", "payments");
        link(&mut s, "ledger", "uses", "payments");
        for i in 0..extra {
            add(&mut s, &format!("client-{i}"), Tier::Public);
            link(&mut s, &format!("client-{i}"), "calls", "orders");
        }
        // A human-only node linked to the centre: at the master level it is
        // not a row, not a group and not a count.
        link(&mut s, "payroll", "calls", "orders");
        drop(s);
        let master = Credentials {
            passphrase: Some(SecretString::from(PASS)),
            ..Credentials::default()
        };
        (dir, Store::open(&root, &master).unwrap())
    }

    #[test]
    fn rings_say_direction_relation_and_the_way_in() {
        let (_dir, s) = store(0);
        let n = neighbourhood(&s, "orders", 2, Direction::Both, &Filter::default()).unwrap();
        assert_eq!(n.inspector.name, "orders");
        assert_eq!(n.inspector.versions, 1);
        assert_eq!(n.rings.len(), 2);
        assert_eq!(
            n.rings[0].entries,
            vec![RingEntry::Node(RingRow {
                name: "payments".into(),
                node_type: "service".into(),
                status: "active".into(),
                relation: "depends-on".into(),
                arrow: Arrow::Out,
                via: None,
            })]
        );
        let RingEntry::Node(ledger) = &n.rings[1].entries[0] else {
            panic!("{:?}", n.rings[1])
        };
        assert_eq!(
            (ledger.name.as_str(), ledger.arrow, ledger.via.as_deref()),
            ("ledger", Arrow::In, Some("payments"))
        );
    }

    #[test]
    fn a_large_ring_is_grouped_with_counts_and_hidden_nodes_are_nowhere() {
        let (_dir, s) = store(GROUP_OVER + 6);
        assert_eq!(s.level(), Level::Master);
        let n = neighbourhood(&s, "orders", 1, Direction::Both, &Filter::default()).unwrap();
        assert_eq!(n.rings[0].total, GROUP_OVER + 7);
        assert_eq!(
            n.rings[0].entries,
            vec![
                RingEntry::Group {
                    relation: "calls".into(),
                    arrow: Arrow::In,
                    count: GROUP_OVER + 6
                },
                RingEntry::Group {
                    relation: "depends-on".into(),
                    arrow: Arrow::Out,
                    count: 1
                },
            ]
        );
        let shown = format!("{n:?}");
        assert!(!shown.contains("payroll"), "{shown}");
        assert!(neighbourhood(&s, "payroll", 1, Direction::Both, &Filter::default()).is_err());
    }
}
