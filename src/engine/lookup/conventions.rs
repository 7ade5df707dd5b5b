//! Conventions that apply to a file path or a module: find the nodes the path
//! belongs to (by name, or by a `path`, `repo` or `dir` property that is a
//! prefix of it), climb `contains` edges to what holds them, then collect the
//! conventions linked to any of those nodes, plus conventions whose `scope`
//! property is `global`.

use rustc_hash::FxHashSet;

use crate::model::{NodeSummary, Status, Tier};
use crate::store::Catalog;

/// Properties that name where a node lives in the repository.
const PATH_KEYS: &[&str] = &["path", "repo", "dir"];

/// A convention and why it applies.
#[derive(Clone, Debug)]
pub struct Applicable {
    pub convention: NodeSummary,
    /// The node it is linked to (`None` for global conventions).
    pub through: Option<String>,
}

fn trim_path(p: &str) -> &str {
    p.trim_start_matches("./").trim_end_matches('/')
}

/// Whether `value` (a repository path property) covers `target`.
fn covers(value: &str, target: &str) -> bool {
    let (v, t) = (trim_path(value), trim_path(target));
    !v.is_empty() && (t == v || t.strip_prefix(v).is_some_and(|rest| rest.starts_with('/')))
}

/// The conventions for `target` (a file path, a directory, or a node name).
pub fn conventions_for(c: &Catalog, target: &str) -> Vec<Applicable> {
    conventions_within(c, target, Tier::HumanOnly)
}

/// [`conventions_for`] seeing only nodes and edges up to tier `max`: what an
/// agent of that tier may learn, paths included.
pub fn conventions_within(c: &Catalog, target: &str, max: Tier) -> Vec<Applicable> {
    let node_ok = |s: u32| c.node_at(s).is_some_and(|n| n.tier <= max);
    let edge_ok = |e: u32| c.edge_at(e).is_some_and(|x| x.tier <= max);
    let mut anchors: Vec<u32> = c
        .node_slots()
        .filter(|&s| {
            c.node_at(s).is_some_and(|n| {
                n.tier <= max
                    && (n.name.as_str() == target
                        || PATH_KEYS
                            .iter()
                            .any(|k| n.properties.get(k).is_some_and(|v| covers(v, target))))
            })
        })
        .collect();
    // Climb `contains` edges: a module's service's conventions apply too.
    let mut seen: FxHashSet<u32> = anchors.iter().copied().collect();
    let mut i = 0;
    while i < anchors.len() {
        for &e in c.in_slots(anchors[i]) {
            let holder = c.ends_at(e).0;
            if c.edge_at(e)
                .is_some_and(|x| x.relation.as_str() == "contains" && x.tier <= max)
                && node_ok(holder)
                && seen.insert(holder)
            {
                anchors.push(holder);
            }
        }
        i += 1;
    }
    let is_convention = |n: &NodeSummary| n.node_type.as_str() == "convention" && n.status == Status::Active;
    let mut found: Vec<Applicable> = Vec::new();
    let mut taken: FxHashSet<u32> = FxHashSet::default();
    for &a in &anchors {
        let through = c.node_at(a).map(|n| n.name.to_string());
        let linked = c
            .out_slots(a)
            .iter()
            .filter(|&&e| edge_ok(e))
            .map(|&e| c.ends_at(e).1)
            .chain(c.in_slots(a).iter().filter(|&&e| edge_ok(e)).map(|&e| c.ends_at(e).0));
        for other in linked.collect::<Vec<_>>() {
            if let Some(n) = c.node_at(other).filter(|n| is_convention(n) && n.tier <= max)
                && taken.insert(other)
            {
                found.push(Applicable {
                    convention: n.clone(),
                    through: through.clone(),
                });
            }
        }
    }
    for s in c.node_slots() {
        if let Some(n) = c
            .node_at(s)
            .filter(|n| is_convention(n) && n.tier <= max && n.properties.get("scope").is_some_and(|v| v == "global"))
            && taken.insert(s)
        {
            found.push(Applicable {
                convention: n.clone(),
                through: None,
            });
        }
    }
    found.sort_by(|a, b| a.convention.name.cmp(&b.convention.name));
    found
}
