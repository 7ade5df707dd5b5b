//! The readable graph as it was at a point of the timeline (a commit, or a
//! date), for the console to draw a neighbourhood as it was.
//!
//! # What the store keeps, and so what can be shown
//! - **Nodes**: every version is kept (`node_versions`), and every commit's
//!   timeline rows name each node it wrote with its version after the
//!   commit (`None` when the commit removed the node). The version of a
//!   node at a point is the one its last row up to the point names: exact.
//! - **Edges**: an edge's row holds only its current state, and is deleted
//!   when the edge is removed (undoing the decision that linked it). The
//!   timeline names each edge linked (`link`) and removed (`unlink`). So
//!   the edges shown are the edges readable now whose last row up to the
//!   point is a `link`: exactly the edges that existed then **and still
//!   exist**. An edge removed since cannot be shown (its sealed content is
//!   gone), and an edge shows with its current tier, confidence and weight
//!   (an edge's tier follows its ends', and is not versioned).
//! - **Removed nodes** (undone additions) are left out: their versions are
//!   kept, but their edges are not, and this view starts from what the
//!   session reads now.
//!
//! # Tiers
//! A node is shown at a point only when (1) it is readable **now** (in the
//! session's catalog) and (2) its version of that time is readable at the
//! session's level. (1) keeps a node whose tier was raised above the level
//! since out, even if its version of that time was readable then: the
//! raise re-sealed every version at the new tier anyway, so (2) refuses it
//! too, but the view does not rest on that alone. (2) keeps out a version
//! sealed above the level: a node whose tier was lowered since shows only
//! from its first readable version on. An edge is shown only when it is
//! readable now and both its ends are shown. Nothing about what is left out
//! (no count, no id) is returned.
//!
//! # Cost
//! One pass over the timeline rows up to the point (checked against the
//! master's MACs at the master level), then one blob read per readable node
//! whose version then differs from its current one: nodes unchanged since
//! reuse their current summary.

use rusqlite::OptionalExtension;
use rustc_hash::FxHashMap;

use crate::codec::Snapshot;
use crate::error::{Error, Result};
use crate::model::{EdgeId, NodeId, NodeSummary, Timestamp};
use crate::store::{Catalog, Store, row_edge_id, row_node_id, row_version};

/// A point of the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AsOf {
    /// Just after commit `n` (the timeline's commit numbers).
    Commit(u64),
    /// Just after the last timeline row stamped at or before this instant,
    /// with everything written before that row.
    Date(Timestamp),
}

impl AsOf {
    /// A point in time as typed: `#42` or `42` (a timeline entry), a date
    /// (`2026-11-01`: as it was at the end of that day, UTC) or an RFC 3339
    /// instant; empty for now. The error says what was expected.
    pub fn parse(text: &str) -> std::result::Result<Option<AsOf>, String> {
        let t = text.trim();
        if t.is_empty() {
            return Ok(None);
        }
        let digits = t.strip_prefix('#').unwrap_or(t);
        if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
            return digits
                .parse()
                .map(|n| Some(AsOf::Commit(n)))
                .map_err(|_| format!("{t}: not a timeline entry number"));
        }
        let at = Timestamp::parse(t).map_err(|_| {
            format!("{t}: give a date (2026-11-01), an instant (2026-11-01T12:00:00Z) or a timeline entry (#42)")
        })?;
        let end_of_day = if t.len() == 10 { 86_400_000 - 1 } else { 0 };
        Ok(Some(AsOf::Date(Timestamp(at.0 + end_of_day))))
    }
}

/// The readable graph at a point: a catalog that traversals (e.g.
/// [`crate::traverse::neighbors`]) walk like the current one.
#[derive(Clone, Debug)]
pub struct PastCatalog {
    pub catalog: Catalog,
    /// The last commit at or before the point (0: none, an empty graph).
    pub commit: u64,
    /// When the point's last row was written (`None`: an empty graph).
    pub at: Option<Timestamp>,
}

impl Store {
    /// The graph as this session may read it at `when` (see the module's
    /// rules: exact for nodes, edges that still exist only).
    pub fn catalog_as_of(&self, when: AsOf) -> Result<PastCatalog> {
        let Some(last) = self.last_row_at(when)? else {
            return Ok(PastCatalog {
                catalog: Catalog::default(),
                commit: 0,
                at: None,
            });
        };
        let mut versions: FxHashMap<NodeId, Option<u64>> = FxHashMap::default();
        let mut linked: FxHashMap<EdgeId, bool> = FxHashMap::default();
        let (mut commit, mut at) = (0u64, Timestamp(0));
        for row in self.timeline_rows_through(last)? {
            commit = row.commit.and_then(|c| u64::try_from(c).ok()).unwrap_or(commit);
            at = Timestamp(row.at);
            if let Some(bytes) = &row.node {
                versions.insert(row_node_id(bytes)?, row.after.map(row_version).transpose()?);
            }
            if let Some(bytes) = &row.edge {
                linked.insert(row_edge_id(bytes)?, row.action == "link");
            }
        }
        let max = self.level().max_tier();
        let mut nodes: Vec<NodeSummary> = Vec::new();
        for now in self.catalog().nodes() {
            let Some(&Some(version)) = versions.get(&now.id) else {
                continue;
            };
            if version == now.version {
                nodes.push(now.clone());
                continue;
            }
            match self.node_version(&now.id, version) {
                Ok(then) if then.tier <= max => nodes.push((&then).into()),
                Ok(_) | Err(Error::TierLocked(..)) => {}
                Err(e) => return Err(e),
            }
        }
        let edges = self
            .catalog()
            .edges()
            .filter(|e| linked.get(&e.id).copied().unwrap_or(false))
            .cloned()
            .collect();
        Ok(PastCatalog {
            catalog: Catalog::build(Vec::new(), Snapshot::new(nodes, edges)),
            commit,
            at: Some(at),
        })
    }

    /// The `seq` of the last timeline row at `when`, if any.
    fn last_row_at(&self, when: AsOf) -> Result<Option<i64>> {
        let (sql, bound) = match when {
            AsOf::Commit(n) => (
                "SELECT MAX(seq) FROM timeline WHERE commit_seq <= ?1",
                i64::try_from(n).unwrap_or(i64::MAX),
            ),
            AsOf::Date(t) => ("SELECT MAX(seq) FROM timeline WHERE at <= ?1", t.0),
        };
        Ok(self
            .conn()
            .query_row(sql, [bound], |r| r.get::<_, Option<i64>>(0))
            .optional()?
            .flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::AsOf;
    use crate::Level;
    use crate::model::{Name, NewEdge, NewNode, NodePatch, NodeType, Relation, Tier, Timestamp};
    use crate::store::tests::{new_store, open_at};
    use crate::traverse::{Direction, Filter, neighbors};

    fn add(s: &mut crate::Store, name: &str, tier: Tier) {
        let n = NewNode::new(
            Name::new(name).unwrap(),
            NodeType::new("module").unwrap(),
            "first",
            tier,
        );
        s.add_node(n).unwrap();
    }

    fn link(s: &mut crate::Store, from: &str, to: &str) {
        let rel = Relation::new("uses").unwrap();
        s.link(NewEdge::new(Name::new(from).unwrap(), rel, Name::new(to).unwrap()))
            .unwrap();
    }

    fn patch(s: &mut crate::Store, name: &str, f: impl FnOnce(&mut NodePatch)) {
        let mut p = NodePatch::default();
        f(&mut p);
        s.update_node(name, &p).unwrap();
    }

    /// Commits, in order: 1 add a, 2 add b, 3 link a->b, 4 edit a, 5 add h
    /// (human-only), 6 link h->a, 7 add s (agent-restricted), 8 raise s to
    /// human-only, 9 add l (human-only), 10 lower l to public, 11 link l->a.
    fn history() -> (tempfile::TempDir, std::path::PathBuf) {
        let (dir, root) = new_store();
        let mut s = open_at(&root, Level::Human);
        add(&mut s, "a", Tier::Public);
        add(&mut s, "b", Tier::Public);
        link(&mut s, "a", "b");
        patch(&mut s, "a", |p| p.description = Some("second".into()));
        add(&mut s, "h", Tier::HumanOnly);
        link(&mut s, "h", "a");
        add(&mut s, "s", Tier::AgentRestricted);
        patch(&mut s, "s", |p| p.tier = Some(Tier::HumanOnly));
        add(&mut s, "l", Tier::HumanOnly);
        patch(&mut s, "l", |p| p.tier = Some(Tier::Public));
        link(&mut s, "l", "a");
        assert_eq!(s.seen_seq(), 11);
        (dir, root)
    }

    fn names(c: &crate::store::Catalog) -> Vec<String> {
        let mut v: Vec<String> = c.nodes().map(|n| n.name.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn nodes_at_their_versions_of_the_time_and_the_edges_that_existed() {
        let (_dir, root) = history();
        let s = open_at(&root, Level::Master);
        let at = |n| s.catalog_as_of(AsOf::Commit(n)).unwrap();
        let two = at(2);
        assert_eq!(
            (names(&two.catalog), two.catalog.edge_count(), two.commit),
            (vec!["a".into(), "b".into()], 0, 2)
        );
        let three = at(3);
        let rings = neighbors(&three.catalog, "a", 1, Direction::Out, &Filter::default()).unwrap();
        assert_eq!(rings[0].nodes[0].node.name.as_str(), "b", "the neighbourhood as it was");
        assert_eq!(three.catalog.by_name("a").unwrap().description, "first");
        assert_eq!(three.catalog.by_name("a").unwrap().version, 1);
        assert_eq!(at(4).catalog.by_name("a").unwrap().description, "second");
        let empty = at(0);
        assert_eq!((empty.catalog.node_count(), empty.commit, empty.at), (0, 0, None));
        let now = at(u64::MAX);
        assert_eq!(names(&now.catalog), names(s.catalog()));
        assert_eq!(now.catalog.edge_count(), s.catalog().edge_count());
    }

    #[test]
    fn dates_pick_the_last_commit_stamped_before_them() {
        let (_dir, root) = history();
        let s = open_at(&root, Level::Master);
        let before = s.catalog_as_of(AsOf::Date(Timestamp(0))).unwrap();
        assert_eq!((before.catalog.node_count(), before.commit), (0, 0));
        let third = s.timeline(100).unwrap().into_iter().find(|e| e.commit == 3).unwrap();
        let then = s.catalog_as_of(AsOf::Date(third.at)).unwrap();
        // Commits may share a millisecond: the point is the last one stamped then.
        assert!(
            then.commit >= 3 && then.at == Some(third.at),
            "{:?}",
            (then.commit, then.at)
        );
        assert!(then.catalog.by_name("a").is_some() && then.catalog.edge_count() >= 1);
        let later = s.catalog_as_of(AsOf::Date(Timestamp::now())).unwrap();
        assert_eq!(later.commit, 11);
    }

    #[test]
    fn nothing_above_the_level_then_or_now_is_shown() {
        let (_dir, root) = history();
        let (master, human) = (open_at(&root, Level::Master), open_at(&root, Level::Human));
        let m = |n| master.catalog_as_of(AsOf::Commit(n)).unwrap().catalog;
        let h = |n| human.catalog_as_of(AsOf::Commit(n)).unwrap().catalog;
        // h is human-only throughout; so is its edge.
        assert!(m(6).by_name("h").is_none() && h(6).by_name("h").is_some());
        assert_eq!((m(6).edge_count(), h(6).edge_count()), (1, 2));
        // s was agent-restricted at commit 7, readable by the master then;
        // it is human-only now, so the master never sees it.
        assert!(m(7).by_name("s").is_none(), "raised since: must not leak");
        assert_eq!(
            h(7).by_name("s").unwrap().tier,
            Tier::HumanOnly,
            "re-sealed by the raise"
        );
        // l was human-only at commit 9 and is public now: the master sees it
        // from its first public version on, with its edge from then.
        assert!(m(9).by_name("l").is_none(), "its version then is sealed human-only");
        assert_eq!(h(9).by_name("l").unwrap().tier, Tier::HumanOnly);
        assert_eq!(m(10).by_name("l").unwrap().tier, Tier::Public);
        assert_eq!(m(10).edge_count(), 1, "l -> a is not linked yet");
        assert_eq!(m(11).edge_count(), 2);
        assert!(names(&m(11)).iter().all(|n| n != "h" && n != "s"));
    }
}
