//! Write commands: `add`, `update`, `link`, `unlink`, `supersede`, `deprecate`,
//! `archive`, `restore`, `undo`.
//! Each needs the master level and commits one atomic change.

use anyhow::Result;
use graphex_engine::model::{Name, NewEdge, NewNode, NodePatch, NodeType, Relation, Status, Tier, parse_property};
use graphex_engine::proposal::Undone;
use graphex_engine::{Error, Store};

use super::args::{AddArgs, LifecycleArgs, LinkArgs, UpdateArgs};
use super::output::emit;
use super::read::{non_empty, not_found};
use super::session::{Context, Need};
use super::views::{EdgeView, NodeRow};

/// Turns a `NotFound` into one with "did you mean" candidates.
pub(super) fn with_hints<T>(store: &Store, r: Result<T, Error>) -> Result<T> {
    match r {
        Err(Error::NotFound(name)) => Err(not_found(store, &name)),
        other => Ok(other?),
    }
}

fn print_row(ctx: &Context, verb: &str, row: &NodeRow) -> Result<()> {
    emit(ctx.json, row, |r| {
        format!(
            "{verb} {} ({}, {}, {}, v{})\n",
            r.name, r.node_type, r.tier, r.status, r.version
        )
    })
}

pub fn add(ctx: &Context, a: &AddArgs) -> Result<()> {
    let name = Name::new(&a.name)?;
    let node_type = NodeType::new(&a.node_type)?;
    let tier: Tier = a.tier.parse()?;
    non_empty("the description", &a.description)?;
    let mut node = NewNode::new(name, node_type, a.description.clone(), tier);
    node.confidence = a.confidence;
    node.body = a.body.clone().filter(|b| !b.is_empty());
    for p in &a.props {
        let (k, v) = parse_property(p)?;
        node.properties.insert(k, v);
    }
    node.properties.extend(
        weighting(a.importance, a.tags.as_deref())?
            .into_iter()
            .filter(|(_, v)| !v.is_empty()),
    );
    let mut store = ctx.open(Need::Write)?;
    let summary = store.retrying(|s| s.add_node(node.clone()))?;
    print_row(ctx, "added", &NodeRow::from(&summary))
}

/// `--importance` and `--tags` as the properties they are kept in (an empty
/// `--tags` removes them).
fn weighting(importance: Option<f64>, tags: Option<&str>) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    if let Some(x) = importance {
        if !(0.0..=1.0).contains(&x) {
            anyhow::bail!("--importance must be from 0 to 1 (it is {x})");
        }
        out.push(("importance".to_owned(), x.to_string()));
    }
    if let Some(t) = tags {
        let words: Vec<&str> = t.split(',').map(str::trim).filter(|w| !w.is_empty()).collect();
        if let Some(bad) = words.iter().find(|w| {
            !w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        }) {
            anyhow::bail!("--tags: {bad:?} is not a lowercase word (a-z, 0-9, '-')");
        }
        out.push(("tags".to_owned(), words.join(",")));
    }
    Ok(out)
}

pub fn update(ctx: &Context, a: &UpdateArgs) -> Result<()> {
    let mut patch = NodePatch {
        description: a.description.clone(),
        body: a.body.clone().map(|b| Some(b).filter(|b| !b.is_empty())),
        node_type: a.node_type.as_deref().map(NodeType::new).transpose()?,
        tier: a.tier.as_deref().map(str::parse::<Tier>).transpose()?,
        confidence: a.confidence,
        ..NodePatch::default()
    };
    if let Some(d) = &patch.description {
        non_empty("the description", d)?;
    }
    for p in &a.props {
        let (k, v) = parse_property(p)?;
        patch.properties.insert(k, v);
    }
    patch.properties.extend(weighting(a.importance, a.tags.as_deref())?);
    let mut store = ctx.open(Need::Write)?;
    let r = store.retrying(|s| s.update_node(&a.name, &patch));
    let summary = with_hints(&store, r)?;
    print_row(ctx, "updated", &NodeRow::from(&summary))
}

pub fn link(ctx: &Context, a: &LinkArgs) -> Result<()> {
    let (Some(relation), Some(to)) = (
        a.relation.as_ref().or(a.relation_flag.as_ref()),
        a.to.as_ref().or(a.to_flag.as_ref()),
    ) else {
        anyhow::bail!("give the relation and the target: `link FROM RELATION TO` or `link FROM --relation R --to TO`");
    };
    let mut e = NewEdge::new(Name::new(&a.from)?, Relation::new(relation)?, Name::new(to)?);
    e.tier = a.tier.parse()?;
    e.confidence = a.confidence;
    e.weight = a.weight;
    e.bidirectional = a.bidirectional;
    let mut store = ctx.open(Need::Write)?;
    let r = store.retrying(|s| s.link(e.clone()));
    let edge = with_hints(&store, r)?;
    let view = EdgeView::new(&edge, store.catalog());
    emit(ctx.json, &view, |v| {
        let arrow = if v.bidirectional { "<->" } else { "->" };
        format!(
            "linked {} {arrow} {} {arrow} {} [{}]\n",
            v.from, v.relation, v.to, v.tier
        )
    })
}

pub fn lifecycle(ctx: &Context, a: &LifecycleArgs, to: Status) -> Result<()> {
    let mut store = ctx.open(Need::Write)?;
    let r = store.retrying(|s| s.set_status(&a.name, to, a.reason.as_deref()));
    let summary = with_hints(&store, r)?;
    let verb = match to {
        Status::Deprecated => "deprecated",
        Status::Archived => "archived",
        _ => "restored",
    };
    print_row(ctx, verb, &NodeRow::from(&summary))
}

pub fn confirm(ctx: &Context, name: &str) -> Result<()> {
    let mut store = ctx.open(Need::Write)?;
    let r = store.retrying(|s| s.confirm(name));
    let summary = with_hints(&store, r)?;
    print_row(ctx, "confirmed", &NodeRow::from(&summary))
}

pub fn unlink(ctx: &Context, from: &str, relation: &str, to: &str) -> Result<()> {
    let mut store = ctx.open(Need::Write)?;
    let r = store.retrying(|s| s.unlink(from, relation, to));
    let edge = with_hints(&store, r)?;
    let view = EdgeView::new(&edge, store.catalog());
    emit(ctx.json, &view, |v| {
        format!("unlinked {} -> {} -> {} [{}]\n", v.from, v.relation, v.to, v.tier)
    })
}

pub fn supersede(ctx: &Context, old: &str, new: &str, reason: Option<&str>, force: bool) -> Result<()> {
    let mut store = ctx.open(Need::Write)?;
    let r = store.retrying(|s| s.supersede_with(old, new, reason, force));
    let edge = with_hints(&store, r)?;
    let row = NodeRow::from(store.summary(old)?);
    #[derive(serde::Serialize)]
    struct Superseded {
        edge: EdgeView,
        old: NodeRow,
    }
    let out = Superseded {
        edge: EdgeView::new(&edge, store.catalog()),
        old: row,
    };
    emit(ctx.json, &out, |o| {
        format!(
            "{} supersedes {}; {} is {} (v{})\n",
            o.edge.from, o.edge.to, o.old.name, o.old.status, o.old.version
        )
    })
}

pub fn undo(ctx: &Context) -> Result<()> {
    let mut store = ctx.open(Need::Write)?;
    // Not retried: undo takes the newest change, which after another
    // process's commit would be that process's, not the one meant.
    let u = store.undo()?;
    emit(ctx.json, &u, |u| match u {
        Undone::Decision { .. } => format!("undid {u}; it is pending again\n"),
        Undone::Change { .. } => format!("undid {u}\n"),
    })
}
