//! Graph exploration commands: `query`, `path`, `neighbors`.

use anyhow::{Result, anyhow};
use graphex_engine::model::{Edge, NodeType, Relation, Status, Tier};
use graphex_engine::query::{self, StatusFilter};
use graphex_engine::traverse::{self, Direction, Filter, PathStep};
use graphex_engine::{Error, Store};
use serde::Serialize;

use super::args::{NeighborsArgs, PathArgs, QueryArgs, QueryFormat, SubgraphArgs, WalkArgs};
use super::output::emit;
use super::read::{locked_note, not_found};
use super::session::{Context, Need};
use super::views::EdgeView;

pub fn query(ctx: &Context, a: &QueryArgs) -> Result<()> {
    let format = if ctx.json { QueryFormat::Json } else { a.format };
    // Text names nodes and their types; JSON and diagrams also describe them.
    let need = match (&a.saved, format) {
        (Some(_), _) => Need::Write,
        (None, QueryFormat::Text) => Need::Names,
        (None, _) => Need::Read,
    };
    let store = ctx.open(need)?;
    locked_note(ctx, &store);
    let text = match (&a.saved, &a.query) {
        (Some(name), _) => super::queries::saved_text(&store, name)?,
        (None, Some(q)) => q.clone(),
        (None, None) => return Err(anyhow!("give a query, or --saved NAME")),
    } + &a.flags.text();
    if let Ok(q) = query::parse(&text)
        && q.flags.status == StatusFilter::Only(Status::Proposed)
    {
        // Proposals are read whole (a names-only open holds no proposal key);
        // an unlock session lends one store at a time.
        drop(store);
        let store = ctx.open(Need::Read)?;
        return super::proposed_query::run(&store, &text, &q, ctx.json);
    }
    let out = query::run(store.catalog(), &text).map_err(|e| anyhow!("{}", e.render(&text)))?;
    match format {
        QueryFormat::Json => emit(true, &out.to_json(), |_| String::new()),
        QueryFormat::Text => emit(false, &(), |_| out.to_text()),
        QueryFormat::Mermaid => emit(false, &(), |_| out.to_mermaid()),
        QueryFormat::Dot => emit(false, &(), |_| out.to_dot()),
    }
}

fn filter(w: &WalkArgs, types: &[String]) -> Result<Filter> {
    let status = match w.status.as_deref() {
        // Deprecated is "still visible but flagged": shown, marked.
        None | Some("visible") => StatusFilter::Visible,
        Some("any") => StatusFilter::Any,
        Some(s) => StatusFilter::Only(s.parse::<Status>()?),
    };
    Ok(Filter {
        relations: w.relations.iter().map(|r| Relation::new(r)).collect::<Result<_, _>>()?,
        excluded: w.excluded.iter().map(|r| Relation::new(r)).collect::<Result<_, _>>()?,
        types: types.iter().map(|t| NodeType::new(t)).collect::<Result<_, _>>()?,
        max_tier: w.tier.as_deref().map(str::parse::<Tier>).transpose()?,
        status,
    })
}

/// `NotFound` becomes "did you mean".
fn hinted<T>(store: &Store, r: Result<T, Error>) -> Result<T> {
    match r {
        Err(Error::NotFound(name)) => Err(not_found(store, &name)),
        other => Ok(other?),
    }
}

/// One step of a path or walk, as printed.
#[derive(Serialize)]
struct StepView {
    name: String,
    #[serde(rename = "type")]
    node_type: String,
    tier: String,
    status: String,
    /// The relation that led here, with its direction along the path.
    via: Option<ViaView>,
}

#[derive(Serialize)]
struct ViaView {
    relation: String,
    /// The edge reads both ways.
    bidirectional: bool,
    /// `forward` when the edge points along the path, `backward` otherwise.
    direction: &'static str,
    tier: String,
    /// The edge's weight (0 to 1) and confidence.
    weight: f64,
    confidence: f64,
}

fn via(e: &Edge, arrived_at: &graphex_engine::NodeSummary) -> ViaView {
    ViaView {
        relation: e.relation.to_string(),
        bidirectional: e.bidirectional,
        direction: if e.to == arrived_at.id || e.bidirectional {
            "forward"
        } else {
            "backward"
        },
        tier: e.tier.to_string(),
        weight: e.weight,
        confidence: e.confidence,
    }
}

#[derive(Serialize)]
struct PathView {
    from: String,
    to: String,
    found: bool,
    hops: usize,
    /// With --weighted: the path's total cost (each hop 2 - weight).
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<f64>,
    steps: Vec<StepView>,
}

pub fn path(ctx: &Context, a: &PathArgs) -> Result<()> {
    let f = filter(&a.walk, &[])?;
    let store = ctx.open(Need::Names)?;
    locked_note(ctx, &store);
    let (found, cost) = if a.weighted {
        let r = traverse::strongest_path(store.catalog(), &a.from, &a.to, a.undirected, &f);
        match hinted(&store, r)? {
            Some((steps, cost)) => (Some(steps), Some(cost)),
            None => (None, None),
        }
    } else {
        let r = traverse::shortest_path(store.catalog(), &a.from, &a.to, a.undirected, &f);
        (hinted(&store, r)?, None)
    };
    let steps: Vec<StepView> = found
        .unwrap_or_default()
        .iter()
        .map(|PathStep { node, via: v }| StepView {
            name: node.name.to_string(),
            node_type: node.node_type.to_string(),
            tier: node.tier.to_string(),
            status: node.status.to_string(),
            via: v.as_ref().map(|e| via(e, node)),
        })
        .collect();
    let view = PathView {
        from: a.from.clone(),
        to: a.to.clone(),
        found: !steps.is_empty(),
        hops: steps.len().saturating_sub(1),
        cost,
        steps,
    };
    let undirected = a.undirected;
    emit(ctx.json, &view, |v| {
        if !v.found {
            let hint = if undirected {
                ""
            } else {
                " (try --undirected to ignore edge direction)"
            };
            return format!("no path from {} to {}{hint}\n", v.from, v.to);
        }
        let mut s = String::new();
        for step in &v.steps {
            let name = flagged(&step.name, &step.status);
            match &step.via {
                None => s.push_str(&name),
                Some(x) if x.bidirectional => s.push_str(&format!(" <-[{}]-> {name}", x.relation)),
                Some(x) if x.direction == "forward" => s.push_str(&format!(" -[{}]-> {name}", x.relation)),
                Some(x) => s.push_str(&format!(" <-[{}]- {name}", x.relation)),
            }
        }
        match v.cost {
            Some(cost) => format!("{s}\n{} hop(s), cost {cost:.2} (each hop 2 - weight)\n", v.hops),
            None => format!("{s}\n{} hop(s)\n", v.hops),
        }
    })
}

#[derive(Serialize)]
struct RingView {
    distance: u32,
    nodes: Vec<ReachedView>,
}

#[derive(Serialize)]
struct ReachedView {
    name: String,
    #[serde(rename = "type")]
    node_type: String,
    tier: String,
    status: String,
    from: String,
    via: ViaView,
}

pub fn neighbors(ctx: &Context, a: &NeighborsArgs) -> Result<()> {
    let f = filter(&a.walk, &a.types)?;
    let dir: Direction = a.direction.parse()?;
    check_depth(a.depth)?;
    let store = ctx.open(Need::Names)?;
    locked_note(ctx, &store);
    let rings = hinted(&store, traverse::neighbors(store.catalog(), &a.name, a.depth, dir, &f))?;
    let view: Vec<RingView> = rings
        .into_iter()
        .map(|r| RingView {
            distance: r.distance,
            nodes: r
                .nodes
                .iter()
                .map(|x| ReachedView {
                    name: x.node.name.to_string(),
                    node_type: x.node.node_type.to_string(),
                    tier: x.node.tier.to_string(),
                    status: x.node.status.to_string(),
                    from: x.from.to_string(),
                    via: via(&x.via, &x.node),
                })
                .collect(),
        })
        .collect();
    let centre = a.name.clone();
    emit(ctx.json, &view, |rings| {
        let mut s = format!("{centre}\n");
        let mut total = 0;
        for r in rings {
            for n in &r.nodes {
                total += 1;
                let edge = if n.via.bidirectional {
                    format!("{} <-[{}]-> {}", n.from, n.via.relation, n.name)
                } else if n.via.direction == "forward" {
                    format!("{} -[{}]-> {}", n.from, n.via.relation, n.name)
                } else {
                    format!("{} -[{}]-> {}", n.name, n.via.relation, n.from)
                };
                let status = if n.status == "active" {
                    String::new()
                } else {
                    format!(", {}", n.status)
                };
                s.push_str(&format!(
                    "  {}  {} ({}, {}{status})   via {edge}\n",
                    r.distance, n.name, n.node_type, n.tier
                ));
            }
        }
        s.push_str(&format!("{total} neighbour(s)\n"));
        s
    })
}

/// A name, with `[deprecated]` after it when the node is not active.
fn flagged(name: &str, status: &str) -> String {
    if status == "active" {
        name.to_owned()
    } else {
        format!("{name} [{status}]")
    }
}

#[derive(Serialize)]
struct SubgraphView {
    center: String,
    depth: u32,
    nodes: Vec<SubNode>,
    edges: Vec<EdgeView>,
}

#[derive(Serialize)]
struct SubNode {
    name: String,
    #[serde(rename = "type")]
    node_type: String,
    tier: String,
    status: String,
    distance: u32,
    description: String,
}

fn check_depth(depth: u32) -> Result<()> {
    if !(1..=query::MAX_DEPTH).contains(&depth) {
        anyhow::bail!("--depth must be from 1 to {}", query::MAX_DEPTH);
    }
    Ok(())
}

pub fn subgraph(ctx: &Context, a: &SubgraphArgs) -> Result<()> {
    let f = filter(&a.walk, &[])?;
    check_depth(a.depth)?;
    let store = ctx.open(Need::Read)?;
    locked_note(ctx, &store);
    let g = hinted(&store, traverse::subgraph(store.catalog(), &a.center, a.depth, &f))?;
    let format = if ctx.json { QueryFormat::Json } else { a.format };
    let nodes: Vec<&graphex_engine::NodeSummary> = g.nodes.iter().map(|(n, _)| n).collect();
    let edges: Vec<&Edge> = g.edges.iter().collect();
    match format {
        QueryFormat::Mermaid => emit(false, &(), |_| query::mermaid(&nodes, &edges)),
        QueryFormat::Dot => emit(false, &(), |_| query::dot(&nodes, &edges)),
        QueryFormat::Json | QueryFormat::Text => {
            let view = SubgraphView {
                center: a.center.clone(),
                depth: a.depth,
                nodes: g
                    .nodes
                    .iter()
                    .map(|(n, d)| SubNode {
                        name: n.name.to_string(),
                        node_type: n.node_type.to_string(),
                        tier: n.tier.to_string(),
                        status: n.status.to_string(),
                        distance: *d,
                        description: n.description.clone(),
                    })
                    .collect(),
                edges: g.edges.iter().map(|e| EdgeView::new(e, store.catalog())).collect(),
            };
            emit(format == QueryFormat::Json, &view, |v| {
                let mut s = String::new();
                for n in &v.nodes {
                    let name = flagged(&n.name, &n.status);
                    s.push_str(&format!("  {}  {name} ({}, {})\n", n.distance, n.node_type, n.tier));
                }
                for e in &v.edges {
                    s.push_str(&format!("  {} -[{}]-> {}\n", e.from, e.relation, e.to));
                }
                s.push_str(&format!("{} node(s), {} edge(s)\n", v.nodes.len(), v.edges.len()));
                s
            })
        }
    }
}
