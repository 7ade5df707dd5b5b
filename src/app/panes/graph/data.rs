//! The Graph pane's view model: the centre node's inspector and its
//! neighbourhood as rings, built on the engine worker from what the
//! session can read (a node above the unlock level is not in the catalog,
//! so it is never a row, a group or a count here).

use std::collections::BTreeMap;

use graphex_engine::Result;
use graphex_engine::as_of::PastCatalog;
use graphex_engine::hygiene::{agent_lines, visible_line};
use graphex_engine::model::{Edge, Node, NodeId};
use graphex_engine::proposal::PendingScans;
use graphex_engine::store::{Catalog, Store};
use graphex_engine::traverse::{Direction, Filter, Reached, Ring, neighbors, shortest_path};

/// A ring with more nodes than this is shown grouped by relation and
/// direction, with counts, not as a wall of rows.
pub const GROUP_OVER: usize = 24;

/// Which way an edge points, seen from the node that reached it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
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

/// How many lines of a body the inspector keeps.
const BODY_LINES: usize = 400;

/// The centre node as the inspector shows it. Free text (description,
/// properties, body, an agent's id) is escaped on the worker by the
/// engine's hygiene, so it can never look like the pane's own structure.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Inspector {
    pub name: String,
    pub node_type: String,
    pub tier: String,
    pub status: String,
    pub status_reason: Option<String>,
    pub confidence: f64,
    pub description: Vec<String>,
    pub properties: Vec<(String, String)>,
    pub body: Vec<String>,
    /// Human, agent (with trust), inferred or federated, as words.
    pub provenance: String,
    /// `project/subgraph` of a node pulled from another project: read-only.
    pub federated_from: Option<String>,
    pub versions: u64,
    /// Last change, in milliseconds since the epoch.
    pub updated_ms: i64,
}

impl From<&Node> for Inspector {
    fn from(n: &Node) -> Self {
        let line = |s: &str| visible_line(s).into_owned();
        Self {
            name: n.name.to_string(),
            node_type: n.node_type.to_string(),
            tier: n.tier.to_string(),
            status: n.status.to_string(),
            status_reason: n.status_reason.as_deref().map(line),
            confidence: n.confidence,
            description: agent_lines(&n.description, BODY_LINES),
            properties: n.properties.iter().map(|(k, v)| (line(k), line(v))).collect(),
            body: n
                .body
                .as_deref()
                .map(|b| agent_lines(b, BODY_LINES))
                .unwrap_or_default(),
            provenance: line(&n.provenance.to_string()),
            federated_from: n
                .properties
                .get(graphex_engine::federation::FEDERATED_FROM)
                .map(|o| line(o)),
            versions: n.version,
            updated_ms: n.updated.0,
        }
    }
}

/// One neighbour.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RingRow {
    pub name: String,
    pub node_type: String,
    pub status: String,
    pub relation: String,
    pub arrow: Arrow,
    /// The node it was reached through (rings beyond the first).
    pub via: Option<String>,
    /// The edge that reached it, as stored: (from, to).
    pub edge: (String, String),
}

/// A line of a ring: a neighbour, or a group of them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum RingEntry {
    Node(RingRow),
    Group {
        relation: String,
        arrow: Arrow,
        /// Shown only when the group is opened.
        members: Vec<RingRow>,
    },
}

/// The neighbours at one distance.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RingView {
    pub distance: u32,
    /// How many nodes the ring holds (grouped or not).
    pub total: usize,
    pub entries: Vec<RingEntry>,
}

/// What the pickers offer: each type and relation met in the
/// neighbourhood (walked without the type and relation filters), with
/// how many nodes or edges have it, most first.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Facets {
    pub types: Vec<(String, usize)>,
    pub relations: Vec<(String, usize)>,
}

/// What the pane draws for one centre.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Neighbourhood {
    pub inspector: Inspector,
    pub rings: Vec<RingView>,
    pub facets: Facets,
    /// For a view of the past: the last commit at that point, and when it
    /// was written (milliseconds).
    pub as_of: Option<(u64, i64)>,
    /// Nodes pending proposals would add next to the centre (master level,
    /// now only): shown dimmed with their proposal, never walked.
    pub proposed: Vec<ProposedRow>,
}

/// A node a pending proposal would link to the centre.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ProposedRow {
    pub name: String,
    pub node_type: String,
    pub relation: String,
    pub arrow: Arrow,
    /// The proposal's first 12 hex digits.
    pub proposal: String,
    pub agent: String,
}

impl ProposedRow {
    pub fn from_link(l: &graphex_engine::proposal::ProposedLink) -> Self {
        ProposedRow {
            name: l.node.name.clone(),
            node_type: l.node.node_type.to_string(),
            relation: l.relation.clone(),
            arrow: if l.outgoing { Arrow::Out } else { Arrow::In },
            proposal: l.node.proposal.chars().take(12).collect(),
            agent: l.node.agent.clone(),
        }
    }
}

impl Neighbourhood {
    /// Every node and edge on screen (groups included), for an export.
    pub fn names(&self) -> Vec<&str> {
        let mut out = vec![self.inspector.name.as_str()];
        for ring in &self.rings {
            for e in &ring.entries {
                match e {
                    RingEntry::Node(r) => out.push(&r.name),
                    RingEntry::Group { members, .. } => out.extend(members.iter().map(|m| m.name.as_str())),
                }
            }
        }
        out
    }
}

/// A path from the mark to the centre: each node, and the edge that led to
/// it from the one before.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PathView {
    pub from: String,
    pub to: String,
    /// Empty when no path joins them.
    pub steps: Vec<(String, Option<(String, Arrow)>)>,
}

fn row(r: &Reached, distance: u32) -> RingRow {
    RingRow {
        name: r.node.name.to_string(),
        node_type: r.node.node_type.to_string(),
        status: r.node.status.to_string(),
        relation: r.via.relation.to_string(),
        arrow: arrow(&r.via, &r.node.id),
        via: (distance > 1).then(|| r.from.to_string()),
        edge: if r.via.from == r.node.id {
            (r.node.name.to_string(), r.from.to_string())
        } else {
            (r.from.to_string(), r.node.name.to_string())
        },
    }
}

/// The arrow of `e` seen from its other end: out when it ends at `here`.
pub fn arrow(e: &Edge, here: &NodeId) -> Arrow {
    if e.bidirectional {
        Arrow::Both
    } else if e.to == *here {
        Arrow::Out
    } else {
        Arrow::In
    }
}

/// Counts of each key, most first, then by name.
fn counted(keys: impl Iterator<Item = String>) -> Vec<(String, usize)> {
    let mut m: BTreeMap<String, usize> = BTreeMap::new();
    for k in keys {
        *m.entry(k).or_default() += 1;
    }
    let mut v: Vec<_> = m.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// The rings of `found` as the pane shows them: a row per node, or grouped
/// by relation and direction (largest group first) when a ring holds more
/// than [`GROUP_OVER`].
fn ring_views(found: &[Ring]) -> Vec<RingView> {
    found
        .iter()
        .filter(|r| !r.nodes.is_empty())
        .map(|ring| {
            let rows: Vec<RingRow> = ring.nodes.iter().map(|r| row(r, ring.distance)).collect();
            let total = rows.len();
            let entries = if total > GROUP_OVER {
                let mut groups: BTreeMap<(String, Arrow), Vec<RingRow>> = BTreeMap::new();
                for r in rows {
                    groups.entry((r.relation.clone(), r.arrow)).or_default().push(r);
                }
                let mut groups: Vec<_> = groups.into_iter().collect();
                groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
                groups
                    .into_iter()
                    .map(|((relation, arrow), members)| RingEntry::Group {
                        relation,
                        arrow,
                        members,
                    })
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
        .collect()
}

/// The neighbourhood of `name` to `depth` rings, in `dir`, through
/// `filter`, with the facets the pickers offer. CPU: two breadth-first
/// walks of the in-memory catalog (the second without the type and
/// relation filters, for the facets) and one blob read (the centre); the
/// queue's scan for the proposed nodes is `pending`'s, made again only
/// when the queue changed (no proposed nodes without it).
pub fn neighbourhood(
    store: &Store,
    name: &str,
    depth: u32,
    dir: Direction,
    filter: &Filter,
    pending: Option<&mut PendingScans>,
) -> Result<Neighbourhood> {
    let centre = store.node(name)?;
    let mut n = around(store.catalog(), &centre, depth, dir, filter)?;
    // Only a reviewer reads the queue; below the master level there is
    // nothing to show, and a queue that cannot be read shows nothing.
    if store.level() >= graphex_engine::Level::Master
        && let Some(pending) = pending
        && let Ok(scan) = pending.scan(store)
    {
        n.proposed = graphex_engine::proposal::proposed_around(&scan, name)
            .iter()
            .map(ProposedRow::from_link)
            .collect();
    }
    Ok(n)
}

/// The neighbourhood of `name` as it was at a point of the timeline: the
/// past catalog's nodes and edges, the centre at its version of then.
pub fn neighbourhood_then(
    store: &Store,
    past: &PastCatalog,
    name: &str,
    depth: u32,
    dir: Direction,
    filter: &Filter,
) -> Result<Neighbourhood> {
    let then = past
        .catalog
        .by_name(name)
        .ok_or_else(|| graphex_engine::Error::NotFound(name.to_owned()))?;
    let centre = store.node_version(&then.id, then.version)?;
    let mut n = around(&past.catalog, &centre, depth, dir, filter)?;
    n.as_of = Some((past.commit, past.at.map_or(0, |t| t.0)));
    Ok(n)
}

fn around(catalog: &Catalog, centre: &Node, depth: u32, dir: Direction, filter: &Filter) -> Result<Neighbourhood> {
    let name = centre.name.as_str();
    let found = neighbors(catalog, name, depth, dir, filter)?;
    let facets = if filter.types.is_empty() && filter.relations.is_empty() {
        facets_of(&found)
    } else {
        let open = Filter {
            types: Vec::new(),
            relations: Vec::new(),
            ..filter.clone()
        };
        facets_of(&neighbors(catalog, name, depth, dir, &open)?)
    };
    Ok(Neighbourhood {
        inspector: Inspector::from(centre),
        rings: ring_views(&found),
        facets,
        as_of: None,
        proposed: Vec::new(),
    })
}

fn facets_of(found: &[Ring]) -> Facets {
    let all = || found.iter().flat_map(|r| r.nodes.iter());
    Facets {
        types: counted(all().map(|r| r.node.node_type.to_string())),
        relations: counted(all().map(|r| r.via.relation.to_string())),
    }
}

/// The shortest path from `from` to `to`, either way along edges.
pub fn path(catalog: &Catalog, from: &str, to: &str, filter: &Filter) -> Result<PathView> {
    let steps = shortest_path(catalog, from, to, true, filter)?.unwrap_or_default();
    Ok(PathView {
        from: from.to_owned(),
        to: to.to_owned(),
        steps: steps
            .iter()
            .map(|s| {
                let via = s.via.as_ref().map(|e| (e.relation.to_string(), arrow(e, &s.node.id)));
                (s.node.name.to_string(), via)
            })
            .collect(),
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
        let n = neighbourhood(&s, "orders", 2, Direction::Both, &Filter::default(), None).unwrap();
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
                edge: ("orders".into(), "payments".into()),
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
        let n = neighbourhood(&s, "orders", 1, Direction::Both, &Filter::default(), None).unwrap();
        assert_eq!(n.rings[0].total, GROUP_OVER + 7);
        let groups: Vec<(String, Arrow, usize)> = n.rings[0]
            .entries
            .iter()
            .map(|e| match e {
                RingEntry::Group {
                    relation,
                    arrow,
                    members,
                } => (relation.clone(), *arrow, members.len()),
                RingEntry::Node(r) => panic!("ungrouped {r:?}"),
            })
            .collect();
        assert_eq!(
            groups,
            vec![
                ("calls".to_owned(), Arrow::In, GROUP_OVER + 6),
                ("depends-on".to_owned(), Arrow::Out, 1),
            ]
        );
        assert_eq!(n.facets.types, vec![("service".to_owned(), GROUP_OVER + 7)]);
        let shown = format!("{n:?}");
        assert!(!shown.contains("payroll"), "{shown}");
        assert!(neighbourhood(&s, "payroll", 1, Direction::Both, &Filter::default(), None).is_err());
    }
}
