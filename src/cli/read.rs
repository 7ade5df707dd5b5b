//! Read commands: `show`, `list`, `status`.

use anyhow::{Result, bail};
use graphex_engine::model::{NodeType, Status, Tier};
use graphex_engine::store::StatusReport;
use graphex_engine::{Error, Level, Store};

use super::args::ListArgs;
use super::output::{clip, emit, note, table};
use super::session::{Context, Need};
use super::views::{NodeRow, NodeView};
use graphex_engine::query::similar;

pub fn locked_note(ctx: &Context, store: &Store) {
    if !ctx.json && store.level() == Level::Locked {
        note("note: locked, showing public content only (set GRAPHEX_PASSPHRASE or pass --unlock master)");
    }
}

/// A `NotFound` error with "did you mean" candidates from what is readable.
pub fn not_found(store: &Store, name: &str) -> anyhow::Error {
    let mut msg = format!("no node named {name:?}");
    let near = similar(name, store.catalog().nodes().map(|n| n.name.as_str()));
    if !near.is_empty() {
        msg.push_str(&format!("; did you mean {}?", near.join(", ")));
    }
    if store.level() < Level::Human {
        msg.push_str(&format!(
            " (this session is {}: nodes above its tiers are not visible)",
            store.level()
        ));
    }
    anyhow::anyhow!(msg)
}

pub fn show(ctx: &Context, name: &str) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    locked_note(ctx, &store);
    let node = match store.node(name) {
        Err(Error::NotFound(_)) => return Err(not_found(&store, name)),
        other => other?,
    };
    show_node(ctx, &store, node)
}

/// Prints `node` (the current version, or an earlier one) as `show` does.
pub fn show_node(ctx: &Context, store: &graphex_engine::Store, node: graphex_engine::Node) -> Result<()> {
    let view = NodeView::new(node, store.catalog());
    emit(ctx.json, &view, show_text)
}

fn show_text(v: &NodeView) -> String {
    let mut s = format!(
        "{}  [{} · {} · {} · v{}]\n",
        v.name, v.node_type, v.tier, v.status, v.version
    );
    if let Some(origin) = &v.federated_from {
        s.push_str(&format!(
            "  [federated: {origin}] read-only here: change it in {origin}, publish, pull again\n"
        ));
    }
    s.push_str(&format!("  {}\n", v.description));
    if let Some(reason) = &v.status_reason {
        s.push_str(&format!("  status reason: {reason}\n"));
    }
    s.push_str(&format!(
        "  confidence {:.2} · {} · created {} · updated {}\n  id {}\n",
        v.confidence,
        v.provenance_text(),
        v.created,
        v.updated,
        v.id
    ));
    if !v.properties.is_empty() {
        s.push_str("properties:\n");
        for (k, val) in &v.properties {
            s.push_str(&format!("  {k} = {val}\n"));
        }
    }
    if let Some(body) = &v.body {
        s.push_str("body:\n");
        for line in body.lines() {
            s.push_str(&format!("  {line}\n"));
        }
    }
    if !v.outgoing.is_empty() || !v.incoming.is_empty() {
        s.push_str("edges:\n");
        for e in &v.outgoing {
            let arrow = if e.bidirectional { "<->" } else { "->" };
            s.push_str(&format!("  {arrow} {} {arrow} {}  [{}]\n", e.relation, e.to, e.tier));
        }
        for e in &v.incoming {
            // A bidirectional edge reads both ways from either end.
            let arrow = if e.bidirectional { "<->" } else { "<-" };
            s.push_str(&format!("  {arrow} {} {arrow} {}  [{}]\n", e.relation, e.from, e.tier));
        }
    }
    s
}

impl NodeView {
    fn provenance_text(&self) -> String {
        format!("provenance {}", self.provenance)
    }
}

pub fn list(ctx: &Context, args: &ListArgs) -> Result<()> {
    let node_type = args.node_type.as_deref().map(NodeType::new).transpose()?;
    let tier = args.tier.as_deref().map(str::parse::<Tier>).transpose()?;
    let status = args.status.as_deref().map(str::parse::<Status>).transpose()?;
    let store = ctx.open(Need::Read)?;
    locked_note(ctx, &store);
    let mut rows: Vec<NodeRow> = store
        .catalog()
        .nodes()
        .filter(|n| node_type.as_ref().is_none_or(|t| &n.node_type == t))
        .filter(|n| tier.is_none_or(|t| n.tier == t))
        .filter(|n| match status {
            Some(s) => n.status == s,
            None => args.all || n.status != Status::Archived,
        })
        .map(NodeRow::from)
        .collect();
    // Proposed: the nodes pending proposals would add (sealed to the master).
    if status == Some(Status::Proposed) {
        match store.pending() {
            Ok(scan) => {
                let at: std::collections::HashMap<_, _> = scan
                    .pending
                    .iter()
                    .map(|p| (p.id.as_str().to_owned(), p.proposal.created.to_rfc3339()))
                    .collect();
                rows.extend(
                    graphex_engine::proposal::proposed_nodes(&scan)
                        .iter()
                        .filter(|p| node_type.as_ref().is_none_or(|t| &p.node_type == t))
                        .filter(|p| tier.is_none_or(|t| p.tier == t))
                        .map(|p| NodeRow::proposed(p, at.get(&p.proposal).cloned().unwrap_or_default())),
                );
            }
            Err(_) => super::output::note(
                "note: nodes in pending proposals are shown at the master level (proposals are sealed to it)",
            ),
        }
    }
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    emit(ctx.json, &rows, |rows| {
        if rows.is_empty() {
            return "no nodes match\n".to_owned();
        }
        let cells: Vec<Vec<String>> = rows
            .iter()
            .map(|r| {
                vec![
                    r.name.clone(),
                    r.node_type.clone(),
                    r.tier.clone(),
                    r.status.clone(),
                    match (&r.federated_from, &r.proposal) {
                        (Some(origin), _) => clip(&format!("[federated: {origin}] {}", r.description), 70),
                        (None, Some(id)) => {
                            clip(&format!("[proposal {}] {}", &id[..12.min(id.len())], r.description), 70)
                        }
                        (None, None) => clip(&r.description, 70),
                    },
                ]
            })
            .collect();
        let mut s = table(&["NAME", "TYPE", "TIER", "STATUS", "DESCRIPTION"], &cells);
        s.push_str(&format!("{} node(s)\n", rows.len()));
        s
    })
}

pub fn status(ctx: &Context) -> Result<()> {
    let store = ctx.open(Need::NodeNames)?;
    let report = store.status()?;
    emit(ctx.json, &report, status_text)
}

fn status_text(r: &StatusReport) -> String {
    let mut s = format!(
        "store   {}\nunlock  {}\nschema  v{}\n",
        r.store, r.level, r.schema_version
    );
    s.push_str(&format!(
        "last update  {}\npending      {} proposal(s){}\n\n",
        r.last_update.as_deref().unwrap_or("never"),
        r.pending_proposals,
        if r.pending_proposals > 0 {
            " (graphex pending)"
        } else {
            ""
        }
    ));
    let rows: Vec<Vec<String>> = r
        .tiers
        .iter()
        .map(|t| {
            vec![
                t.tier.to_string(),
                t.nodes.to_string(),
                t.edges.to_string(),
                if t.readable { "yes".into() } else { "locked".into() },
            ]
        })
        .collect();
    s.push_str(&table(&["TIER", "NODES", "EDGES", "READABLE"], &rows));
    s.push_str(&format!(
        "total        {} nodes, {} edges\n",
        r.total_nodes, r.total_edges
    ));
    let join = |m: &std::collections::BTreeMap<String, u64>| {
        m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
    };
    s.push_str(&format!("\nreadable by status: {}\n", join(&r.by_status)));
    s.push_str(&format!("readable by type:   {}\n", join(&r.by_type)));
    if r.tiers.iter().any(|t| !t.readable && t.nodes > 0) {
        s.push_str("(status and type of locked tiers are not shown)\n");
    }
    s
}

/// Fails with a usage-style message for an empty string.
pub fn non_empty(what: &str, v: &str) -> Result<()> {
    if v.trim().is_empty() {
        bail!("{what} cannot be empty");
    }
    Ok(())
}
