//! Writing a pull: the import of a bundle's nodes and edges, the
//! archivals and unlinks of what the source withdrew, in one commit naming
//! the pull; and what the timeline says was pulled before.

use crate::error::{Error, Result};
use crate::interchange::{ImportPlan, ImportReport};
use crate::model::{Edge, Status, Timestamp};
use crate::store::{Durability, Entry, NodeWrite, Plan, Store};

/// What one pull writes besides its import.
#[derive(Clone, Debug, Default)]
pub struct PullWrites {
    /// Federated nodes to archive, with the reason recorded on them.
    pub archive: Vec<(String, String)>,
    /// Federated edges the source no longer publishes.
    pub unlink: Vec<Edge>,
}

impl Store {
    /// The highest bundle sequence of `label` that a pull committed, as
    /// the timeline records it (`federation pull LABEL #N`). Timeline rows
    /// carry the master's MAC, checked here: an agent can neither forge a
    /// pull nor, by putting back an older federation state, make an older
    /// bundle than one already applied look new. Master level.
    pub(crate) fn pulled_on_timeline(&self, label: &str) -> Result<Option<u64>> {
        let prefix = format!("federation pull {label} #");
        let rows: Vec<(String, Option<i64>)> = self
            .conn()
            .prepare_cached("SELECT actor, commit_seq FROM timeline WHERE substr(actor, 1, ?1) = ?2 ORDER BY seq")?
            .query_map(
                rusqlite::params![i64::try_from(prefix.len()).unwrap_or(i64::MAX), prefix],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?
            .collect::<rusqlite::Result<_>>()?;
        let mut best = None;
        let mut checked = std::collections::HashSet::new();
        for (actor, commit) in rows {
            let Some(commit) = commit else { continue };
            if checked.insert(commit) {
                self.commit_rows(commit)?;
            }
            if let Some(Ok(n)) = actor.strip_prefix(&prefix).map(str::parse::<u64>) {
                best = best.max(Some(n));
            }
        }
        Ok(best)
    }

    /// Writes a pull: the import, the archivals and the unlinks, in one
    /// commit naming `actor`. Refuses an import plan with refusals.
    pub fn apply_pull(&mut self, p: ImportPlan, writes: &PullWrites, actor: &str) -> Result<ImportReport> {
        self.require_writer("pulling a federated subgraph")?;
        if p.refused() {
            let first = p.report.refused.first().map(ToString::to_string).unwrap_or_default();
            return Err(Error::Document {
                path: actor.to_owned(),
                reason: format!(
                    "{} item(s) refused, nothing written; first: {first}",
                    p.report.refused_count
                ),
            });
        }
        if p.is_empty() && writes.archive.is_empty() && writes.unlink.is_empty() {
            return Ok(p.report);
        }
        let mut plan = Plan {
            actor: Some(actor.to_owned()),
            ..Plan::default()
        };
        let report = self.import_into(p, &mut plan)?;
        let now = Timestamp::now();
        for (name, reason) in &writes.archive {
            let current = self.node(name)?;
            let mut next = current.clone();
            // Withdrawn at the source: through deprecated to archived, as the lifecycle goes.
            if next.status == Status::Active {
                crate::model::set_status(&mut next, Status::Deprecated, Some(reason.clone()), now)?;
            }
            crate::model::set_status(&mut next, Status::Archived, Some(reason.clone()), now)?;
            next.version = current.version + 1;
            plan.entries.push(Entry::written("archive", &current, &next));
            plan.nodes.push(NodeWrite {
                previous: Some((current.version, current.tier)),
                node: next,
            });
        }
        for e in &writes.unlink {
            plan.entries.push(Entry::edge("unlink", e.id));
            plan.removed_edges.push((e.id, e.tier));
            plan.kept_edges.push(e.clone());
        }
        let durability = Durability::for_nodes(plan.nodes.len());
        self.commit(plan, durability)?;
        Ok(report)
    }
}
