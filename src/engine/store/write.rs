//! Mutations. Every change becomes a `Plan` (see `plan`) and goes through one commit:
//! blobs are written (and synced) first, then the index changes in a single
//! transaction. A failure between the two leaves the old state and some orphan
//! blobs, which are harmless.

use std::collections::HashSet;

use rusqlite::{OptionalExtension, params};

use super::manifest::{self, RowKey};
use super::objects::Durability;
use super::plan::{Entry, NodeWrite, Plan};
use super::seal;
use super::{Store, sql_version};
use crate::codec;
use crate::error::{Error, Result};
use crate::model::{
    Edge, EdgeId, Name, NewEdge, NewNode, Node, NodeId, NodePatch, NodeSummary, Provenance, Relation, Status, Tier,
    Timestamp,
};

impl Store {
    /// Adds a node. Humans add Active nodes directly (the spec's human path).
    pub fn add_node(&mut self, new: NewNode) -> Result<NodeSummary> {
        self.require_writer("adding a node")?;
        Self::refuse_reserved(new.properties.keys())?;
        let name = new.name.clone();
        let mut batch = super::Batch::default();
        batch.add_node(new);
        self.apply_batch(batch, Durability::Sync)?;
        self.summary(name.as_str()).cloned()
    }

    /// Links two nodes by name. A `supersedes` edge also deprecates its
    /// target, in the same commit, when the target is Active.
    pub fn link(&mut self, new: NewEdge) -> Result<Edge> {
        self.require_writer("linking nodes")?;
        self.refuse_federated(new.from.as_str())?;
        if new.relation == crate::model::Relation::supersedes() {
            return self.link_supersedes(&new);
        }
        let mut batch = super::Batch::default();
        batch.link(new);
        let ids = self.apply_batch(batch, Durability::Sync)?.edges;
        ids.first()
            .and_then(|id| self.catalog.edge(id))
            .cloned()
            .ok_or_else(|| Error::integrity("link", "the new edge is not readable after commit"))
    }

    /// Changes fields of a node; a new version is written.
    pub fn update_node(&mut self, name: &str, patch: &NodePatch) -> Result<NodeSummary> {
        self.require_writer("updating a node")?;
        if patch.is_empty() {
            return Err(Error::invalid(
                "update",
                name,
                "nothing to change: give at least one field",
            ));
        }
        self.refuse_federated(name)?;
        Self::refuse_reserved(patch.properties.keys())?;
        let current = self.node(name)?;
        let mut next = patch.apply(&current);
        next.validate()?;
        next.version = current.version + 1;
        next.updated = Timestamp::now();
        self.write_version(current, next, "update")
    }

    /// Moves a node through its lifecycle (deprecate, archive, restore).
    pub fn set_status(&mut self, name: &str, to: Status, reason: Option<&str>) -> Result<NodeSummary> {
        self.require_writer("changing a node's status")?;
        self.refuse_federated(name)?;
        let current = self.node(name)?;
        let mut next = current.clone();
        crate::model::set_status(&mut next, to, reason.map(str::to_owned), Timestamp::now())?;
        next.version = current.version + 1;
        let action = match to {
            Status::Deprecated => "deprecate",
            Status::Archived => "archive",
            Status::Active => "restore",
            Status::Proposed => "propose",
        };
        self.write_version(current, next, action)
    }

    fn write_version(&mut self, current: Node, next: Node, action: &'static str) -> Result<NodeSummary> {
        let id = current.id;
        let mut plan = Plan::default();
        plan.entries.push(Entry::written(action, &current, &next));
        if next.tier != current.tier {
            plan.edges = self.retiered_edges(&id, next.tier);
        }
        plan.nodes.push(NodeWrite {
            node: next,
            previous: Some((current.version, current.tier)),
        });
        self.commit(plan, Durability::Sync)?;
        self.catalog
            .node(&id)
            .cloned()
            .ok_or_else(|| Error::TierLocked("the updated node".into(), current.tier))
    }

    /// Readable edges touching `id` whose tier changes when `id` moves to `tier`.
    pub(super) fn retiered_edges(&self, id: &NodeId, tier: Tier) -> Vec<Edge> {
        self.retier(&std::iter::once((*id, tier)).collect(), &HashSet::new())
    }

    /// Readable edges whose tier changes once the nodes in `tiers` have
    /// their new tiers (all at once, so an edge between two moved nodes
    /// gets the tier of both final ends), except those in `removed`.
    pub(crate) fn retier(
        &self,
        tiers: &std::collections::HashMap<NodeId, Tier>,
        removed: &HashSet<EdgeId>,
    ) -> Vec<Edge> {
        let tier_of = |n: &NodeId| tiers.get(n).copied().or_else(|| self.catalog.tier_of(n));
        let mut seen = HashSet::new();
        tiers
            .keys()
            .flat_map(|id| self.catalog.outgoing(id).chain(self.catalog.incoming(id)))
            .filter(|e| !removed.contains(&e.id) && seen.insert(e.id))
            .filter_map(|e| {
                let t = e.declared_tier.max(tier_of(&e.from)?).max(tier_of(&e.to)?);
                (t != e.tier).then(|| Edge { tier: t, ..e.clone() })
            })
            .collect()
    }

    /// The blind-index token of a node name.
    pub(super) fn name_token(&self, name: &str) -> Result<Vec<u8>> {
        super::tokens::name_token(&self.keys, name)
    }

    /// True when a node named `name` exists but this session cannot read it.
    pub fn name_is_hidden(&self, name: &str) -> bool {
        self.catalog.by_name(name).is_none() && matches!(self.check_name_free(name), Err(Error::NameTakenHidden(_)))
    }

    /// Whether the index holds any node row, readable or not: when it holds
    /// none, no name is taken, and a batch's names need no look-up each
    /// (the unique index on name tokens still refuses a name taken since).
    pub(crate) fn holds_nodes(&self) -> Result<bool> {
        Ok(self
            .conn
            .query_row("SELECT EXISTS (SELECT 1 FROM nodes)", [], |r| r.get(0))?)
    }

    /// Fails when `name` is taken, saying whether by a readable node.
    pub(crate) fn check_name_free(&self, name: &str) -> Result<()> {
        let token = self.name_token(name)?;
        // Cached: a batch checks every one of its names.
        let taken: Option<Vec<u8>> = self
            .conn
            .prepare_cached(super::schema_v10::NAME_LOOKUP)?
            .query_row([&token], |r| r.get(0))
            .optional()?;
        match taken {
            None => Ok(()),
            Some(_) if self.catalog.by_name(name).is_some() => Err(Error::NameTaken(name.to_owned())),
            Some(_) => Err(Error::NameTakenHidden(name.to_owned())),
        }
    }

    /// Builds the edge for `new`, resolving names through `resolve`; this
    /// session must hold its tier's key.
    pub(crate) fn plan_edge(&self, new: &NewEdge, resolve: &dyn Fn(&str) -> Option<(NodeId, Tier)>) -> Result<Edge> {
        self.plan_edge_of(EdgeFields::of(new), resolve)
    }

    /// [`Store::plan_edge`] of an edge's fields.
    pub(crate) fn plan_edge_of(
        &self,
        new: EdgeFields<'_>,
        resolve: &dyn Fn(&str) -> Option<(NodeId, Tier)>,
    ) -> Result<Edge> {
        let edge = Self::edge_from(new, resolve)?;
        self.keys.tier(edge.tier)?;
        Ok(edge)
    }

    /// The edge `new` describes, its ends resolved through `resolve` and its
    /// tier that of its more secret end (or the one declared above it); no
    /// key needed (a proposal's edge is sealed by whoever accepts it).
    pub(crate) fn edge_of(new: &NewEdge, resolve: &dyn Fn(&str) -> Option<(NodeId, Tier)>) -> Result<Edge> {
        Self::edge_from(EdgeFields::of(new), resolve)
    }

    fn edge_from(new: EdgeFields<'_>, resolve: &dyn Fn(&str) -> Option<(NodeId, Tier)>) -> Result<Edge> {
        crate::model::validate_confidence(new.confidence)?;
        crate::model::validate_weight(new.weight)?;
        let (from, from_tier) = resolve(new.from.as_str()).ok_or_else(|| Error::NotFound(new.from.to_string()))?;
        let (to, to_tier) = resolve(new.to.as_str()).ok_or_else(|| Error::NotFound(new.to.to_string()))?;
        if from == to {
            return Err(Error::invalid(
                "edge",
                format!("{} {} {}", new.from, new.relation, new.to),
                "a node cannot be linked to itself",
            ));
        }
        let tier = new.tier.max(from_tier).max(to_tier);
        Ok(Edge {
            id: EdgeId::generate(),
            from,
            relation: new.relation.clone(),
            to,
            confidence: new.confidence,
            weight: new.weight,
            bidirectional: new.bidirectional,
            declared_tier: new.tier,
            tier,
            provenance: new.provenance,
            created: new.created.unwrap_or_else(Timestamp::now),
        })
    }

    /// Builds the first version of a node.
    pub(crate) fn plan_node(new: NewNode, now: Timestamp) -> Result<Node> {
        let node = Node {
            id: NodeId::generate(),
            name: new.name,
            node_type: new.node_type,
            description: new.description,
            body: new.body,
            properties: new.properties,
            tier: new.tier,
            status: new.status,
            confidence: new.confidence,
            provenance: new.provenance,
            status_reason: None,
            created: new.created.unwrap_or(now),
            updated: new.created.unwrap_or(now),
            version: 1,
        };
        node.validate()?;
        Ok(node)
    }

    /// Applies a plan: blobs first, then one index transaction, then the
    /// catalog; then the clean-up (old copies, snapshots), once everything
    /// the commit held is freed (a large import's rows are not held twice).
    pub(crate) fn commit(&mut self, plan: Plan, durability: Durability) -> Result<()> {
        self.commit_listing(plan, durability, None)
    }

    /// [`commit`](Self::commit), noting in `ids` the ids of the nodes and
    /// edges written, in the plan's order, as the catalog takes them (a
    /// large batch's ids are not held through its commit).
    pub(crate) fn commit_listing(
        &mut self,
        plan: Plan,
        durability: Durability,
        ids: Option<&mut super::BatchResult>,
    ) -> Result<()> {
        self.refuse_if_names_only("a commit")?;
        let bulk = super::commit_rows::widen_cache(&self.conn, plan.nodes.len() + plan.edges.len())?;
        let raised = self.commit_plan(plan, durability, bulk, ids);
        // A commit that failed before its transaction did left it wide.
        if bulk && raised.is_err() {
            super::commit_rows::restore_cache(&self.conn);
        }
        let raised = raised?;
        // The change is committed: what follows is clean-up and must not turn
        // it into an error. Old copies go first; a file that cannot be removed
        // now stays an orphan for `graphex doctor` to collect.
        if self.fault_point("after-commit").is_err() {
            // A crash right here, in tests: the clean-up is the next open's.
            return Ok(());
        }
        let _ = self.finish_wipe(false);
        if raised {
            self.purge_wal();
        }
        // A failed refresh leaves the previous snapshot, still correct with
        // the rows written since; the next writer tries again.
        let _ = self.refresh_snapshots(false);
        Ok(())
    }

    /// The commit itself, up to the catalog; true when a node's tier rose.
    fn commit_plan(
        &mut self,
        mut plan: Plan,
        durability: Durability,
        bulk: bool,
        ids: Option<&mut super::BatchResult>,
    ) -> Result<bool> {
        // The plan was made from this session's catalog: if another process
        // wrote since, tiers and edges may have moved and the plan could seal
        // something under too low a key. Refuse rather than guess.
        if super::schema::commit_seq(&self.conn)? != self.seen_seq {
            return Err(Error::Stale);
        }
        // Flat blobs (a store made before the fan-out, or a merge of an
        // older branch) move now (see `Objects::fan_out`).
        self.objects.fan_out()?;
        // Each edge row is written, and counted, once (see `edge_fold`);
        // an edge the plan both writes (a tier raise moving it) and
        // removes (a pull withdrawing it) is removed.
        super::edge_fold::distinct_last(&mut plan.edges);
        if !plan.removed_edges.is_empty() {
            let removed: HashSet<EdgeId> = plan.removed_edges.iter().map(|(id, _)| *id).collect();
            plan.edges.retain(|e| !removed.contains(&e.id));
        }
        // Re-sealed old versions first: they are read through the index.
        let reseals = self.reseals(&plan)?;

        // Snapshots of tiers that a node or edge enters or leaves are dropped.
        let mut stale_tiers: Vec<Tier> = Vec::new();
        for w in &plan.nodes {
            if let Some((_, old)) = w.previous
                && old != w.node.tier
            {
                stale_tiers.extend([old, w.node.tier]);
            }
        }
        for e in &plan.edges {
            if let Some(old) = self.catalog.edge(&e.id).map(|o| o.tier)
                && old != e.tier
            {
                stale_tiers.extend([old, e.tier]);
            }
        }
        // A removed row is absent from later deltas: its tier's image must go.
        stale_tiers.extend(plan.removed_nodes.iter().map(|(_, t)| *t));
        stale_tiers.extend(plan.removed_edges.iter().map(|(_, t)| *t));
        let mut dropped_snapshots: Vec<String> = Vec::new();
        // Under the tier key: a data-key wrap and a summary per node version
        // (re-sealed ones too), one record per edge (kept ones too) and per decision.
        let mut sealings = [0u64; 4];
        let now = Timestamp::now().0;
        let faults = self.faults();
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        if super::schema::commit_seq(&tx)? != self.seen_seq {
            // Another process committed since the plan was made: it will
            // not land (the caller may plan again), so the re-sealed blobs,
            // named by nothing, go now rather than wait for `doctor`.
            drop(tx);
            for r in &reseals {
                let _ = self.objects.remove(&r.new_hash);
            }
            return Err(Error::Stale);
        }
        let seq = super::schema::next_commit_seq(&tx)?;
        let row_seq = sql_version(seq);
        // The rows this commit replaces or removes, as they are before it;
        // in a store of edge groups, the groups it rewrites (see `edge_groups`).
        let regroup = if super::schema::grouped(&tx)? {
            Some(super::edge_groups::prepare(
                &tx,
                &self.keys,
                &self.catalog,
                &plan.edges,
                &plan.removed_edges,
            )?)
        } else {
            None
        };
        let mut before = rows_before(&tx, &self.catalog, &plan, regroup.is_none())?;
        if let Some(r) = &regroup {
            before.extend_from_slice(&r.before);
        }
        self.verified.check_before(&self.keys, &before)?;
        let mut decisions_before = Vec::new();
        let mut after: Vec<RowKey> = Vec::with_capacity(plan.nodes.len());
        // The edge rows are counted as they are sealed, not kept (see
        // `edge_fold`); with the session's maps' tags when it keeps them.
        let fold = {
            let tracked = self.verified.tracked.as_deref();
            std::sync::Mutex::new(super::edge_fold::EdgeFold::new(
                tracked.is_some(),
                tracked.is_some_and(super::tracked::Tracked::keeps_elements),
            ))
        };
        // The node blobs are sealed, written and made durable (see
        // `make_durable`) beside the rows that name no blob: the timeline
        // (first, so its entries are freed before the edges' row keys
        // grow) and the edges. The rows that name blobs go in only after,
        // and the transaction commits later still, so no index ever names
        // a blob that is not on disk.
        let (keys, objects, nodes) = (&self.keys, &self.objects, &plan.nodes);
        let actor = plan.actor.as_deref().unwrap_or("human");
        // Whether the commit wrote timeline rows (stamped `now`).
        let stamped = !plan.entries.is_empty() || (plan.batch_entries && !(nodes.is_empty() && plan.edges.is_empty()));
        let entries = if plan.batch_entries {
            super::plan::Entries::Batch {
                nodes,
                edges: &plan.edges,
            }
        } else {
            super::plan::Entries::Listed(std::mem::take(&mut plan.entries))
        };
        let spread = durability == Durability::Deferred;
        let catalog = &self.catalog;
        let (proposal, edges) = (plan.proposal.as_deref(), &plan.edges);
        let (written, timeline) = crate::parallel::beside(
            spread,
            |workers| {
                let written = super::commit_rows::write_node_blobs(keys, objects, nodes, workers)?;
                faults.at("blob-sync")?;
                let new_hashes = written
                    .iter()
                    .map(String::as_str)
                    .chain(reseals.iter().map(|r| r.new_hash.as_str()));
                super::commit_rows::make_durable(objects, new_hashes, durability)?;
                faults.at("after-blobs")?;
                Ok(written)
            },
            || {
                let mut drop_snapshot = tx.prepare_cached("DELETE FROM snapshots WHERE tier = ?1 RETURNING blob")?;
                for t in &stale_tiers {
                    let gone: Option<String> = drop_snapshot.query_row([t.code()], |r| r.get(0)).optional()?;
                    dropped_snapshots.extend(gone);
                }
                let timeline = super::commit_rows::insert_timeline(&tx, keys, &entries, actor, proposal, now, row_seq)?;
                drop(entries);
                let describe = |e: &Edge| describe_edge(catalog, e);
                match &regroup {
                    Some(r) => super::edge_groups::write(&tx, keys, r, edges, seq, &fold, &describe)?,
                    None => super::commit_rows::insert_edges(&tx, keys, edges, seq, &fold, &describe)?,
                }
                Ok(timeline)
            },
        )?;
        {
            super::commit_rows::insert_nodes(&tx, &self.keys, &plan.nodes, written, row_seq, &mut after)?;
            super::reseal::update_rows(&tx, &self.keys, &reseals)?;
            if regroup.is_none() {
                let mut remove_edge = tx.prepare_cached("DELETE FROM edges WHERE id = ?1")?;
                for (id, _) in &plan.removed_edges {
                    remove_edge.execute([id.as_bytes().as_slice()])?;
                }
            }
            for e in &plan.kept_edges {
                super::unlinked::keep(&tx, &self.keys, e)?;
                sealings[e.tier.code() as usize] += 1;
            }
            for id in &plan.restored_edges {
                super::unlinked::forget(&tx, id)?;
            }
            for w in &plan.nodes {
                if let Some((_, old)) = w.previous
                    && w.node.tier > old
                {
                    sealings[w.node.tier.code() as usize] +=
                        super::unlinked::raise(&tx, &self.keys, &w.node.id, w.node.tier)?;
                }
            }
            let mut remove_node = tx.prepare_cached("DELETE FROM nodes WHERE id = ?1")?;
            for (id, _) in &plan.removed_nodes {
                remove_node.execute([id.as_bytes().as_slice()])?;
            }
            for d in &plan.decisions {
                let sig = seal::sign_decision(
                    &self.keys,
                    &seal::DecisionKey {
                        proposal: d.proposal.clone(),
                        seq: row_seq,
                        at: now,
                        outcome: d.outcome.to_string(),
                        digest: manifest::digest(&d.sealed),
                    },
                )?;
                tx.execute(
                    "INSERT INTO decisions (proposal, seq, at, outcome, sealed, sig) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![d.proposal, row_seq, now, d.outcome, d.sealed, sig],
                )
                .map_err(|e| match e {
                    rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::ConstraintViolation => {
                        Error::AlreadyDecided(d.proposal.clone())
                    }
                    other => Error::Db(other),
                })?;
            }
            if let Some(undone) = plan.undo_seq {
                decisions_before = seal::decision_rows(&tx, Some(sql_version(undone)))?;
            }
            if let Some(undone) = plan.undo_seq
                && tx.execute("DELETE FROM decisions WHERE seq = ?1", [sql_version(undone)])? == 0
            {
                return Err(Error::UndoBlocked(
                    "another session undid that decision meanwhile".into(),
                ));
            }
        }

        let after = manifest::last_per_row(after);
        let fold = fold.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        manifest::apply(&tx, &self.keys, &before, &after, Some(&fold))?;
        let decisions_after: Vec<seal::DecisionKey> = plan
            .decisions
            .iter()
            .map(|d| seal::DecisionKey {
                proposal: d.proposal.clone(),
                seq: row_seq,
                at: now,
                outcome: d.outcome.to_string(),
                digest: manifest::digest(&d.sealed),
            })
            .collect();
        seal::apply(
            &tx,
            &self.keys,
            &seal::Change {
                seq,
                rows_before: &before,
                rows_after: &after,
                edges_after: Some(&fold),
                decisions_before: &decisions_before,
                decisions_after: &decisions_after,
                timeline: timeline.as_ref(),
            },
        )?;
        for t in plan
            .nodes
            .iter()
            .map(|w| w.node.tier)
            .chain(reseals.iter().map(|r| r.tier))
        {
            sealings[t.code() as usize] += 2;
        }
        for e in &plan.edges {
            sealings[e.tier.code() as usize] += 1;
        }
        sealings[codec::DECISION_TIER.code() as usize] += plan.decisions.len() as u64;
        super::schema::count_sealings(&tx, sealings)?;
        // Old copies (under a lower key, or a dropped snapshot) are deleted
        // after the commit; recorded in it, so a crash cannot leave them.
        super::wipe::owe(&tx, dropped_snapshots.iter().chain(reseals.iter().map(|r| &r.old_hash)))?;
        tx.commit()?;
        // The wide page cache is freed before the session's maps and the
        // catalog take the commit's rows (nothing below can fail).
        if bulk {
            super::commit_rows::restore_cache(&self.conn);
        }
        self.move_counts(
            self.seen_seq,
            seq,
            &before,
            &after,
            fold.per_tier,
            stamped.then_some(now),
        );
        self.seen_seq = seq;
        self.note_fresh();
        self.verified.forget(&before);
        let tags = super::verified::Tags::new(&self.keys, self.verified.tracked.as_deref());
        self.verified.record(&tags, &after);
        self.verified.record_edges(fold);
        drop(after);

        let raised = plan
            .nodes
            .iter()
            .any(|w| w.previous.is_some_and(|(_, t)| w.node.tier > t));
        if let Some(ids) = ids {
            ids.nodes = plan.nodes.iter().map(|w| w.node.id).collect();
            ids.edges = plan.edges.iter().map(|e| e.id).collect();
        }
        for w in plan.nodes {
            if self.keys.reads(w.node.tier) {
                self.catalog.put_node(NodeSummary::from(&w.node));
            } else {
                self.catalog.drop_node(&w.node.id);
            }
        }
        let keys = &self.keys;
        self.catalog.put_edges(plan.edges, |e| keys.reads(e.tier));
        // Removals last, so nothing above can bring a removed row back.
        for (id, _) in &plan.removed_edges {
            self.catalog.drop_edge(id);
        }
        for (id, _) in &plan.removed_nodes {
            self.catalog.drop_node(id);
        }
        Ok(raised)
    }

    pub(crate) fn describe_edge(&self, e: &Edge) -> String {
        describe_edge(&self.catalog, e)
    }

    pub(crate) fn fault_point(&self, at: &'static str) -> Result<()> {
        self.faults().at(at)
    }

    /// Where the next commit fails, in tests (a copy a helper thread checks).
    fn faults(&self) -> Faults {
        Faults(
            #[cfg(test)]
            self.fault,
        )
    }

    /// Makes the next commit fail at `at` (crash-safety tests).
    #[cfg(test)]
    pub(crate) fn inject_fault(&mut self, at: &'static str) {
        self.fault = Some(at);
    }
}

/// Where a test makes a commit fail (crash-safety tests); nothing
/// outside tests.
#[derive(Clone, Copy)]
struct Faults(#[cfg(test)] Option<&'static str>);

impl Faults {
    fn at(self, point: &'static str) -> Result<()> {
        #[cfg(test)]
        if self.0 == Some(point) {
            return Err(Error::InjectedFault(point));
        }
        let _ = point;
        Ok(())
    }
}

/// `from -> relation -> to`, by name where `catalog` can read the ends.
fn describe_edge(catalog: &super::Catalog, e: &Edge) -> String {
    let name = |id: &NodeId| catalog.node(id).map_or_else(|| id.to_string(), |n| n.name.to_string());
    format!("{} -> {} -> {}", name(&e.from), e.relation, name(&e.to))
}

pub(super) fn unique_violation(e: rusqlite::Error, name: &str) -> Error {
    match e {
        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::ConstraintViolation => {
            Error::NameTaken(name.to_owned())
        }
        other => Error::Db(other),
    }
}

/// The fields an edge is made from: a [`NewEdge`]'s, its provenance
/// shared (a batch queues its edges so, at 88 bytes each, not 136).
pub(crate) struct EdgeFields<'a> {
    pub(crate) from: &'a Name,
    pub(crate) relation: &'a Relation,
    pub(crate) to: &'a Name,
    pub(crate) tier: Tier,
    pub(crate) confidence: f64,
    pub(crate) weight: f64,
    pub(crate) bidirectional: bool,
    pub(crate) provenance: std::sync::Arc<Provenance>,
    pub(crate) created: Option<Timestamp>,
}

impl<'a> EdgeFields<'a> {
    pub(crate) fn of(new: &'a NewEdge) -> Self {
        Self {
            from: &new.from,
            relation: &new.relation,
            to: &new.to,
            tier: new.tier,
            confidence: new.confidence,
            weight: new.weight,
            bidirectional: new.bidirectional,
            provenance: new.provenance.shared(),
            created: new.created,
        }
    }
}

/// The index rows `plan` replaces or removes, read inside its
/// transaction (the edge rows only with `edges`: one a row). Rows this
/// session knows to be new are not looked up.
fn rows_before(tx: &rusqlite::Connection, catalog: &super::Catalog, plan: &Plan, edges: bool) -> Result<Vec<RowKey>> {
    let mut out = Vec::new();
    let mut nodes: HashSet<NodeId> = HashSet::new();
    let existing_nodes = plan.nodes.iter().filter(|w| w.previous.is_some()).map(|w| w.node.id);
    for id in existing_nodes.chain(plan.removed_nodes.iter().map(|(id, _)| *id)) {
        if nodes.insert(id) {
            out.extend(manifest::node_row(tx, &id)?);
        }
    }
    if !edges {
        return Ok(out);
    }
    let mut edges: HashSet<EdgeId> = HashSet::new();
    let existing_edges = plan
        .edges
        .iter()
        .filter(|e| catalog.edge(&e.id).is_some())
        .map(|e| e.id);
    for id in existing_edges.chain(plan.removed_edges.iter().map(|(id, _)| *id)) {
        if edges.insert(id) {
            out.extend(manifest::edge_row(tx, &id)?);
        }
    }
    Ok(out)
}
