//! Undo: reverts the newest change on the timeline that is not undone
//! already, as a new commit. A decision (accept, reject, edit) is reverted
//! and its proposal returns to the queue; a direct change (add, update,
//! deprecate, archive, restore, link, unlink, supersede, an import) is
//! reverted row by row: added nodes and edges are removed, removed edges
//! are put back, changed nodes get their earlier content as a new version.
//!
//! The undo commit's `undo` row names the commit it reverts, so repeated
//! undos walk back through the timeline; an undo itself is never undone.
//! A decision's undo deletes its decision row, which is what marks it (and
//! the undos written before undo rows named their commit). Commits that
//! change no node or edge (key rotations) are passed over.
//!
//! Refused: a change a later one would overwrite (the node's content is
//! no longer what the change left), rows this session cannot read, and
//! the undo of a tier *raise*: the raise re-sealed the node's every version
//! under the new tier (their old tier is not kept), and undoing it would
//! put content back under a lower key; lowering a tier stays an explicit
//! `update`. Undoing a tier *lowering* raises it again, re-sealing as any
//! raise does.

use std::collections::{HashMap, HashSet};

use rusqlite::{OptionalExtension, params};

use super::Outcome;
use crate::error::{Error, Result};
use crate::model::{Edge, EdgeId, NodeId, Tier, Timestamp, field_diff};
use crate::store::{
    Durability, Entry, NodeWrite, Plan, RAISE_TIER, Store, TimelineChange, TimelineRow, row_edge_id, row_node_id,
    row_version, sql_version,
};

/// What an undo reverted.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Undone {
    /// A decision: the proposal is back in the queue.
    Decision { proposal: String, outcome: Outcome },
    /// A direct change: the commit reverted, what it did (its first row's
    /// action: `add`, `update`, `deprecate`, `link`, `unlink`, `supersede`,
    /// ...) and its rows as the timeline showed them before the undo.
    Change {
        commit: u64,
        action: String,
        changes: Vec<TimelineChange>,
    },
}

impl std::fmt::Display for Undone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Undone::Decision { proposal, outcome } => {
                let what = match outcome {
                    Outcome::Rejected => "rejection",
                    Outcome::Edited => "edit",
                    Outcome::Accepted => "acceptance",
                    Outcome::ChangesRequested => "request for changes",
                };
                write!(f, "the {what} of {}", proposal.get(..12).unwrap_or(proposal))
            }
            Undone::Change { commit, changes, .. } => {
                let rows: Vec<String> = changes
                    .iter()
                    .map(|c| {
                        let what = c.node.as_deref().or(c.edge.as_deref()).unwrap_or_default();
                        format!("{} {what}", c.action)
                    })
                    .collect();
                write!(f, "commit #{commit}: {}", rows.join(", "))
            }
        }
    }
}

/// The change an undo reverts.
enum Target {
    Decision(u64),
    Change(u64, Vec<TimelineRow>),
}

impl Store {
    /// Reverts the newest change not undone yet, as a new commit (see the
    /// module's notes). Refuses when nothing is left to undo, or when a
    /// later change would be overwritten.
    pub fn undo(&mut self) -> Result<Undone> {
        self.require_writer("undoing a change")?;
        match self.last_change()? {
            Target::Decision(seq) => self.undo_decision(seq),
            Target::Change(seq, rows) => {
                let changes = rows
                    .iter()
                    .map(|r| self.describe_change(r.action.clone(), r.node.clone(), r.edge.clone(), r.before, r.after))
                    .collect::<Result<Vec<_>>>()?;
                let mut plan = Plan::default();
                self.plan_revert(&rows, &mut plan)?;
                plan.entries.push(Entry::undo(seq));
                self.commit(plan, Durability::Sync)?;
                Ok(Undone::Change {
                    commit: seq,
                    action: rows.first().map(|r| r.action.clone()).unwrap_or_default(),
                    changes,
                })
            }
        }
    }

    /// The newest commit not undone yet that changed the graph.
    fn last_change(&self) -> Result<Target> {
        let commits: Vec<i64> = self
            .conn()
            .prepare("SELECT DISTINCT commit_seq FROM timeline WHERE commit_seq IS NOT NULL ORDER BY commit_seq DESC")?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let mut undone: HashSet<i64> = HashSet::new();
        for commit in commits {
            // Checked against the master's MACs: undo follows only what the
            // master wrote.
            let rows = self.commit_rows(commit)?;
            if let Some(m) = rows.iter().find(|r| r.action == "merge") {
                return Err(Error::invalid(
                    "undo",
                    format!("commit {commit}"),
                    format!(
                        "the last change is the merge of branch {:?}: undo a merge with git (`git reset` or \
                         `git revert` of the merge commit), not here",
                        crate::hygiene::visible_line(m.proposal.as_deref().unwrap_or("?"))
                    ),
                ));
            }
            if let Some(u) = rows.iter().find(|r| r.action == "undo") {
                undone.extend(u.before);
                continue;
            }
            if undone.contains(&commit) {
                continue;
            }
            let decided = self
                .conn()
                .query_row("SELECT 1 FROM decisions WHERE seq = ?1 LIMIT 1", [commit], |_| Ok(()))
                .optional()?
                .is_some();
            if decided {
                return Ok(Target::Decision(row_version(commit)?));
            }
            // A decision whose row is gone was undone.
            if rows.iter().any(|r| r.proposal.is_some()) {
                continue;
            }
            if rows.iter().any(|r| r.node.is_some() || r.edge.is_some()) {
                return Ok(Target::Change(row_version(commit)?, rows));
            }
        }
        Err(Error::UndoBlocked(
            "nothing to undo: every change on the timeline is undone already".into(),
        ))
    }

    /// Reverts the decision(s) of commit `seq`: the proposal returns to the queue.
    /// Why undoing the newest change would be refused at this level, said
    /// before anyone asks (right after a decision): `None` when it would
    /// run. Nothing is written.
    pub fn undo_blocked(&self) -> Option<String> {
        let rows = match self.last_change().ok()? {
            Target::Decision(seq) => self.decision_rows(seq).ok()?.2,
            Target::Change(_, rows) => rows,
        };
        match self.plan_revert(&rows, &mut Plan::default()) {
            Err(Error::UndoBlocked(why)) => Some(why),
            _ => None,
        }
    }

    /// A decision's outcome, the proposal whose changes it applied, and
    /// the timeline rows of those changes.
    fn decision_rows(&self, seq: u64) -> Result<(Outcome, String, Vec<TimelineRow>)> {
        // The accept of an edit shares its commit with the original's
        // "edited"; the accept is the one reported and reverted.
        let (proposal, outcome): (String, String) = self.conn().query_row(
            "SELECT proposal, outcome FROM decisions WHERE seq = ?1 ORDER BY outcome ASC LIMIT 1",
            [sql_version(seq)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let outcome = Outcome::parse(&outcome)?;
        let applied: String = self.conn().query_row(
            "SELECT proposal FROM decisions WHERE seq = ?1 AND outcome = 'accepted'
             UNION ALL SELECT ?2 LIMIT 1",
            params![sql_version(seq), proposal],
            |r| r.get(0),
        )?;
        let rows: Vec<TimelineRow> = self
            .commit_rows(sql_version(seq))?
            .into_iter()
            .filter(|r| r.proposal.as_deref() == Some(applied.as_str()))
            .collect();
        Ok((outcome, applied, rows))
    }

    fn undo_decision(&mut self, seq: u64) -> Result<Undone> {
        let (outcome, applied, rows) = self.decision_rows(seq)?;
        let mut plan = Plan {
            proposal: Some(applied.clone()),
            undo_seq: Some(seq),
            ..Plan::default()
        };
        self.plan_revert(&rows, &mut plan)?;
        plan.entries.push(Entry::undo(seq));
        let undone_ids: Vec<String> = {
            let mut stmt = self.conn().prepare("SELECT proposal FROM decisions WHERE seq = ?1")?;
            stmt.query_map([sql_version(seq)], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?
        };
        self.commit(plan, Durability::Sync)?;
        for id in &undone_ids {
            self.forget_edit(id);
        }
        Ok(Undone::Decision {
            proposal: applied,
            outcome,
        })
    }

    /// Adds to `plan` what reverts the timeline rows `rows` of one commit.
    fn plan_revert(&self, rows: &[TimelineRow], plan: &mut Plan) -> Result<()> {
        let mut removed_edges = HashSet::new();
        let mut restored_edges = Vec::new();
        for r in rows {
            let Some(bytes) = &r.edge else { continue };
            let id = row_edge_id(bytes)?;
            if r.action == "unlink" {
                restored_edges.push(id);
                continue;
            }
            let e = self
                .catalog()
                .edge(&id)
                .ok_or_else(|| Error::UndoBlocked("an edge it added is not readable at this level".into()))?;
            removed_edges.insert(id);
            plan.removed_edges.push((id, e.tier));
            plan.entries.push(Entry::edge("unlink", id));
        }
        let now = Timestamp::now();
        let mut moved: HashMap<NodeId, Tier> = HashMap::new();
        for r in rows {
            let Some(bytes) = &r.node else { continue };
            let id = row_node_id(bytes)?;
            let after = r.after.map(row_version).transpose()?;
            let current = self
                .catalog()
                .node(&id)
                .ok_or_else(|| Error::UndoBlocked(format!("node {id} it changed is not readable at this level")))?;
            // Federated nodes are read-only here, for undo as for update:
            // they change at their source and come with the next pull.
            if let Some(origin) = crate::model::federated_origin(current) {
                return Err(Error::Federated {
                    name: current.name.to_string(),
                    origin: origin.to_owned(),
                });
            }
            let now_node = self.node_by_id(&id)?;
            let unchanged = Some(now_node.version) == after
                || after.is_some_and(|v| {
                    self.node_version(&id, v)
                        .is_ok_and(|left| field_diff(&left, &now_node).is_empty())
                });
            if !unchanged {
                return Err(Error::UndoBlocked(format!(
                    "{} changed after that change (now version {}); revert it by hand",
                    current.name, current.version
                )));
            }
            if r.action == RAISE_TIER {
                return Err(Error::UndoBlocked(format!(
                    "it raised the tier of {name}, and re-sealed its earlier versions under the new tier; \
                     undoing it would put them back under a lower key. Change {name} with `graphex update` \
                     instead (its `--tier` lowers it, if that is meant)",
                    name = current.name
                )));
            }
            if r.action == "add" {
                self.check_no_unreadable_edges(&current.name, r.commit)?;
                let later = self
                    .catalog()
                    .outgoing(&id)
                    .chain(self.catalog().incoming(&id))
                    .any(|e| !removed_edges.contains(&e.id));
                if later {
                    return Err(Error::UndoBlocked(format!(
                        "{} has edges added after it; remove them first",
                        current.name
                    )));
                }
                plan.removed_nodes.push((id, current.tier));
                plan.entries.push(Entry::node("remove", id, after, None));
            } else if let Some(before) = r.before.map(row_version).transpose()? {
                let mut restored = self.node_version(&id, before)?;
                if restored.tier < now_node.tier {
                    return Err(Error::UndoBlocked(format!(
                        "it would lower {} from {} back to {} and put content the raise re-sealed back \
                         under the lower key; lower it explicitly with `graphex update {} --tier {}` if \
                         that is meant",
                        current.name, now_node.tier, restored.tier, current.name, restored.tier
                    )));
                }
                restored.version = now_node.version + 1;
                restored.updated = now;
                if restored.tier != now_node.tier {
                    moved.insert(id, restored.tier);
                }
                plan.entries.push(Entry::node(
                    "revert",
                    id,
                    Some(now_node.version),
                    Some(restored.version),
                ));
                plan.nodes.push(NodeWrite {
                    previous: Some((now_node.version, now_node.tier)),
                    node: restored,
                });
            }
        }
        plan.edges.extend(self.retier(&moved, &removed_edges));
        for id in restored_edges {
            let edge = self.kept_edge(&id, &moved)?;
            plan.entries.push(Entry::edge("link", id));
            plan.edges.push(edge);
            plan.restored_edges.push(id);
        }
        Ok(())
    }

    /// The removed edge `id` as an undo puts it back: its kept record, at
    /// the tier its ends have once `moved` apply.
    fn kept_edge(&self, id: &EdgeId, moved: &HashMap<NodeId, Tier>) -> Result<Edge> {
        let edge = self.unlinked_edge(id)?;
        if self.catalog().edge(id).is_some() {
            return Err(Error::UndoBlocked(format!("the edge {id} is in the graph already")));
        }
        let tier_of = |n: &NodeId| moved.get(n).copied().or_else(|| self.catalog().tier_of(n));
        let (Some(from), Some(to)) = (tier_of(&edge.from), tier_of(&edge.to)) else {
            return Err(Error::UndoBlocked(
                "an end of the removed edge is gone or not readable at this level".into(),
            ));
        };
        let again = self
            .catalog()
            .outgoing(&edge.from)
            .any(|e| e.relation == edge.relation && e.to == edge.to);
        if again {
            return Err(Error::UndoBlocked(format!(
                "{} was linked again since; remove that edge first",
                self.describe_edge(&edge)
            )));
        }
        let tier = edge.declared_tier.max(from).max(to);
        self.keys().tier(tier)?;
        Ok(Edge { tier, ..edge })
    }

    /// Removing a node must not strand edges this session cannot see (they
    /// could touch it). An edge is sealed whole, but its row says which
    /// commit last wrote it: one last written before the node was added
    /// (commit `added`) was made while the node did not exist, and cannot
    /// touch it. So only unreadable edges written since count; a master
    /// undoes its own accept unless a human-level change came after it.
    fn check_no_unreadable_edges(&self, name: &crate::model::Name, added: Option<i64>) -> Result<()> {
        let readable = self.level().max_tier();
        let count = crate::store::edge_groups::count_sql(self.conn())?;
        let hidden: i64 = self.conn().query_row(
            &format!("SELECT {count} FROM edges WHERE tier > ?1 AND seq >= ?2"),
            params![readable.code(), added.unwrap_or(0)],
            |r| r.get(0),
        )?;
        if hidden > 0 {
            return Err(Error::UndoBlocked(format!(
                "removing {name} needs the human level: {hidden} edge(s) you cannot read were written since it was \
                 added (a human-level link, or a key rotation that re-sealed them), and some could touch it"
            )));
        }
        Ok(())
    }
}
