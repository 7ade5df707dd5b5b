//! Removing one edge, and superseding a node: each one commit through
//! `Store::commit`, with its timeline rows (`unlink`; `supersede` and the
//! new edge's `link`), so the seal, the manifest and undo stay in step.

use super::Store;
use super::objects::Durability;
use super::plan::{Entry, NodeWrite, Plan};
use crate::error::{Error, Result};
use crate::model::{Edge, NewEdge, NewNode, NodeSummary, Status, Timestamp};

impl Store {
    /// Removes the edge `from -> relation -> to` (names). The edge is kept
    /// sealed so that `undo` can put it back.
    pub fn unlink(&mut self, from: &str, relation: &str, to: &str) -> Result<Edge> {
        self.require_writer("removing an edge")?;
        self.refuse_federated(from)?;
        let described = format!("{from} -> {relation} -> {to}");
        let end = |name: &str| {
            self.catalog.by_name(name).map(|s| s.id).ok_or_else(|| {
                if self.name_is_hidden(name) {
                    Error::EdgeNotFound {
                        edge: described.clone(),
                        reason: format!("{name} is a node you cannot read at this unlock level"),
                    }
                } else {
                    Error::NotFound(name.to_owned())
                }
            })
        };
        let (from_id, to_id) = (end(from)?, end(to)?);
        let edge = self
            .catalog
            .outgoing(&from_id)
            .find(|e| e.to == to_id && e.relation.as_str() == relation)
            .cloned()
            .ok_or_else(|| Error::EdgeNotFound {
                edge: described.clone(),
                reason: self.why_no_edge(from, &from_id, to, &to_id),
            })?;
        let mut plan = Plan::default();
        plan.entries.push(Entry::edge("unlink", edge.id));
        plan.removed_edges.push((edge.id, edge.tier));
        plan.kept_edges.push(edge.clone());
        self.commit(plan, Durability::Sync)?;
        Ok(edge)
    }

    /// What there is between two readable nodes, when not the edge asked for.
    fn why_no_edge(
        &self,
        from: &str,
        from_id: &crate::model::NodeId,
        to: &str,
        to_id: &crate::model::NodeId,
    ) -> String {
        let relations: Vec<&str> = self
            .catalog
            .outgoing(from_id)
            .filter(|e| e.to == *to_id)
            .map(|e| e.relation.as_str())
            .collect();
        let hidden = super::edge_groups::count_sql(&self.conn)
            .and_then(|count| {
                Ok(self.conn.query_row(
                    &format!("SELECT {count} FROM edges WHERE tier > ?1"),
                    [self.level().max_tier().code()],
                    |r| r.get::<_, i64>(0),
                )?)
            })
            .unwrap_or(0);
        let mut reason = if relations.is_empty() {
            format!("{from} has no edge to {to}")
        } else {
            format!("{from}'s edges to {to} are: {}", relations.join(", "))
        };
        if hidden > 0 {
            reason.push_str(&format!(
                " (the store also holds {hidden} edge(s) you cannot read at this unlock level)"
            ));
        }
        reason
    }

    /// In one commit: links `new -> supersedes -> old` and deprecates `old`
    /// with `reason` (default "superseded by NEW"). Returns the new edge.
    pub fn supersede(&mut self, old: &str, new: &str, reason: Option<&str>) -> Result<Edge> {
        self.supersede_with(old, new, reason, false)
    }

    /// [`Store::supersede`]; with `force`, an `old` already deprecated (or
    /// archived) is linked to its successor and keeps its status.
    pub fn supersede_with(&mut self, old: &str, new: &str, reason: Option<&str>, force: bool) -> Result<Edge> {
        self.require_writer("superseding a node")?;
        self.refuse_federated(old)?;
        self.refuse_federated(new)?;
        let edge = NewEdge::new(
            crate::model::Name::new(new)?,
            crate::model::Relation::supersedes(),
            crate::model::Name::new(old)?,
        );
        self.plan_supersede(&edge, reason, !force)
    }

    /// In one commit: adds `new` and makes it supersede `old` (deprecated
    /// with `reason`, default "superseded by NEW"), so a successor made for
    /// a supersede never stands alone when the supersede is not made.
    /// Returns the new node.
    pub fn supersede_by_new(&mut self, old: &str, new: NewNode, reason: Option<&str>) -> Result<NodeSummary> {
        self.require_writer("superseding a node")?;
        self.refuse_federated(old)?;
        Self::refuse_reserved(new.properties.keys())?;
        self.check_name_free(new.name.as_str())?;
        self.keys.tier(new.tier)?;
        let node = Self::plan_node(new, Timestamp::now())?;
        let (id, tier, name) = (node.id, node.tier, node.name.clone());
        let link = NewEdge::new(
            name.clone(),
            crate::model::Relation::supersedes(),
            crate::model::Name::new(old)?,
        );
        let resolve = |n: &str| {
            if n == name.as_str() {
                Some((id, tier))
            } else {
                self.catalog.by_name(n).map(|s| (s.id, s.tier))
            }
        };
        let edge = self.plan_edge(&link, &resolve)?;
        let current = self.node_by_id(&edge.to)?;
        let mut next = current.clone();
        let reason = reason.map_or_else(|| format!("superseded by {name}"), str::to_owned);
        crate::model::set_status(&mut next, Status::Deprecated, Some(reason), Timestamp::now())?;
        next.version = current.version + 1;
        let mut plan = Plan::default();
        plan.entries.push(Entry::node("add", id, None, Some(1)));
        plan.nodes.push(NodeWrite { node, previous: None });
        plan.entries.push(Entry::written("supersede", &current, &next));
        plan.nodes.push(NodeWrite {
            node: next,
            previous: Some((current.version, current.tier)),
        });
        plan.entries.push(Entry::edge("link", edge.id));
        plan.edges.push(edge);
        self.commit(plan, Durability::Sync)?;
        self.summary(name.as_str()).cloned()
    }

    /// `link` for a `supersedes` edge: the target is deprecated in the same
    /// commit when it can be (an Active node); otherwise a plain link.
    pub(super) fn link_supersedes(&mut self, new: &NewEdge) -> Result<Edge> {
        self.plan_supersede(new, None, false)
    }

    /// One commit: the edge `new` (a `supersedes` one) and, when `strict` or
    /// possible, its target deprecated.
    fn plan_supersede(&mut self, new: &NewEdge, reason: Option<&str>, strict: bool) -> Result<Edge> {
        let resolve = |n: &str| self.catalog.by_name(n).map(|s| (s.id, s.tier));
        let edge = self.plan_edge(new, &resolve)?;
        if edge.from == edge.to {
            return Err(Error::invalid(
                "supersede",
                new.to.to_string(),
                "a node cannot supersede itself",
            ));
        }
        if self
            .catalog
            .outgoing(&edge.from)
            .any(|e| e.relation == edge.relation && e.to == edge.to)
        {
            return Err(Error::EdgeExists(format!(
                "{} -> {} -> {}",
                new.from, new.relation, new.to
            )));
        }
        let current = self.node_by_id(&edge.to)?;
        let mut plan = Plan::default();
        if strict || current.status.can_become(Status::Deprecated) {
            let mut next = current.clone();
            let reason = reason.map_or_else(|| format!("superseded by {}", new.from), str::to_owned);
            crate::model::set_status(&mut next, Status::Deprecated, Some(reason), Timestamp::now())?;
            next.version = current.version + 1;
            plan.entries.push(Entry::written("supersede", &current, &next));
            plan.nodes.push(NodeWrite {
                node: next,
                previous: Some((current.version, current.tier)),
            });
        }
        plan.entries.push(Entry::edge("link", edge.id));
        plan.edges.push(edge.clone());
        self.commit(plan, Durability::Sync)?;
        Ok(self.catalog.edge(&edge.id).cloned().unwrap_or(edge))
    }
}
