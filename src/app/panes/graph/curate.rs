//! Curation on the engine worker: the writes the Graph pane asks for, each
//! one commit with its timeline entry through the same store calls as the
//! CLI, and the checks its forms make as you type (is a name free, which
//! types and relations are in use, what a lower tier would expose).

use std::collections::BTreeMap;

use graphex_engine::exposure::what_if;
use graphex_engine::model::{Name, NewEdge, NewNode, NodePatch, NodeType, Relation, Status, Tier};
use graphex_engine::project::Settings;
use graphex_engine::store::{Catalog, Store};

/// Names with how many nodes or edges have each, most first.
pub type Counts = Vec<(String, usize)>;

/// A change the Graph pane writes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Write {
    Add(Box<NewNode>),
    Update {
        name: String,
        patch: Box<NodePatch>,
    },
    Link(Box<NewEdge>),
    Unlink {
        from: String,
        relation: String,
        to: String,
    },
    Status {
        name: String,
        to: Status,
        reason: Option<String>,
    },
    Supersede {
        old: String,
        new: String,
        reason: Option<String>,
    },
    /// A new node that supersedes `old`, both in one commit (a successor
    /// made from the supersede picker).
    SupersedeNew {
        old: String,
        node: Box<NewNode>,
        reason: Option<String>,
    },
    /// A write whose text names a more secret node, saved once the person
    /// who was told so confirmed it.
    Confirmed(Box<Write>),
}

impl Write {
    /// What the busy line says while it runs.
    pub fn doing(&self) -> String {
        match self {
            Write::Add(n) => format!("adding {}", n.name),
            Write::Update { name, .. } => format!("saving {name}"),
            Write::Link(e) => format!("linking {} {} {}", e.from, e.relation, e.to),
            Write::Unlink { from, relation, to } => format!("unlinking {from} {relation} {to}"),
            Write::Status { name, to, .. } => format!("{} {name}", verb(*to)),
            Write::Supersede { old, new, .. } => format!("superseding {old} by {new}"),
            Write::SupersedeNew { old, node, .. } => format!("adding {} to supersede {old}", node.name),
            Write::Confirmed(w) => w.doing(),
        }
    }

    /// The node the pane shows once the write is done, if it moves.
    pub fn opens(&self) -> Option<String> {
        match self {
            Write::Add(n) => Some(n.name.to_string()),
            Write::SupersedeNew { node, .. } => Some(node.name.to_string()),
            Write::Confirmed(w) => w.opens(),
            _ => None,
        }
    }
}

fn verb(to: Status) -> &'static str {
    match to {
        Status::Deprecated => "deprecating",
        Status::Archived => "archiving",
        Status::Active => "restoring",
        Status::Proposed => "proposing",
    }
}

/// What a write came to.
#[derive(Debug, PartialEq)]
pub enum Applied {
    /// Written: what to tell the user.
    Done(String),
    /// Not written: its text names nodes above the tier it is written at
    /// (the proposals' `mentions-higher` lint); asked again once confirmed.
    Flagged(Vec<String>),
}

/// Runs `w` on the store: one commit, one timeline entry, unless its text
/// names a more secret node and was not confirmed.
pub fn run(store: &mut Store, w: &Write) -> graphex_engine::Result<Applied> {
    let flags = flags(store, w);
    if !flags.is_empty() {
        return Ok(Applied::Flagged(flags));
    }
    apply(store, w).map(Applied::Done)
}

/// The `mentions-higher` findings on the text `w` writes, at the tier it is
/// written at (a supersede's default reason names the successor).
pub fn flags(store: &Store, w: &Write) -> Vec<String> {
    let tier_of = |name: &str| store.catalog().by_name(name).map(|s| s.tier);
    let check = |name: &str, tier: Option<Tier>, texts: &[&str]| match tier {
        Some(tier) => graphex_engine::proposal::mentions_above(store, name, tier, texts),
        None => Vec::new(),
    };
    match w {
        Write::Add(n) => check(
            n.name.as_str(),
            Some(n.tier),
            &[n.description.as_str(), n.body.as_deref().unwrap_or("")],
        ),
        Write::Update { name, patch } => {
            // A lowered tier exposes the description kept as it is too.
            let kept = match (patch.tier, &patch.description) {
                (Some(_), None) => store.catalog().by_name(name).map(|s| s.description.clone()),
                _ => None,
            };
            check(
                name,
                patch.tier.or_else(|| tier_of(name)),
                &[
                    patch.description.as_deref().unwrap_or(""),
                    patch.body.as_ref().and_then(|b| b.as_deref()).unwrap_or(""),
                    kept.as_deref().unwrap_or(""),
                ],
            )
        }
        Write::Status {
            name,
            reason: Some(reason),
            ..
        } => check(name, tier_of(name), &[reason.as_str()]),
        Write::Supersede { old, new, reason } => {
            let default = format!("superseded by {new}");
            check(old, tier_of(old), &[reason.as_deref().unwrap_or(&default)])
        }
        Write::SupersedeNew { old, node, reason } => {
            let default = format!("superseded by {}", node.name);
            let mut found = check(
                node.name.as_str(),
                Some(node.tier),
                &[node.description.as_str(), node.body.as_deref().unwrap_or("")],
            );
            let text = reason.as_deref().unwrap_or(&default);
            found.extend(check(old, tier_of(old), &[text]));
            // The successor is not in the graph yet: its own name, above the
            // old node's tier, is looked for here.
            if let Some(tier) = tier_of(old)
                && node.tier > tier
                && names(text, node.name.as_str())
            {
                found.push(format!(
                    "the text of {old} ({tier}) names {} ({}), so {tier} readers would learn of it",
                    node.name, node.tier
                ));
            }
            found
        }
        Write::Status { reason: None, .. } | Write::Link(_) | Write::Unlink { .. } | Write::Confirmed(_) => Vec::new(),
    }
}

/// Whether `text` holds `name` as a word (not inside a longer name).
fn names(text: &str, name: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(part)
    })
}

/// Runs `w` on the store: one commit, one timeline entry. Returns what to
/// tell the user.
pub fn apply(store: &mut Store, w: &Write) -> graphex_engine::Result<String> {
    Ok(match w {
        Write::Confirmed(w) => return apply(store, w),
        Write::Add(n) => {
            let s = store.add_node((**n).clone())?;
            format!("added {} ({}, {})", s.name, s.node_type, s.tier)
        }
        Write::Update { name, patch } => {
            let s = store.update_node(name, patch)?;
            format!("saved {name}: version {}", s.version)
        }
        Write::Link(e) => {
            store.link((**e).clone())?;
            format!("linked {} {} {}", e.from, e.relation, e.to)
        }
        Write::Unlink { from, relation, to } => {
            store.unlink(from, relation, to)?;
            format!("unlinked {from} {relation} {to}")
        }
        Write::Status { name, to, reason } => {
            store.set_status(name, *to, reason.as_deref())?;
            format!("{name} is now {to}")
        }
        Write::Supersede { old, new, reason } => {
            store.supersede(old, new, reason.as_deref())?;
            format!("{new} supersedes {old}; {old} is deprecated")
        }
        Write::SupersedeNew { old, node, reason } => {
            let s = store.supersede_by_new(old, (**node).clone(), reason.as_deref())?;
            format!(
                "added {} ({}, {}), which supersedes {old}; {old} is deprecated",
                s.name, s.node_type, s.tier
            )
        }
    })
}

/// Whether `name` can name a new node: valid, and not taken by any node,
/// readable or not.
pub fn check_name(store: &Store, name: &str) -> Result<(), String> {
    let valid = Name::new(name).map_err(|e| e.to_string())?;
    if store.catalog().by_name(valid.as_str()).is_some() {
        return Err(format!("taken: {name} already exists"));
    }
    if store.name_is_hidden(valid.as_str()) {
        return Err(format!("taken: a node you cannot read at this level is named {name}"));
    }
    Ok(())
}

/// The types and relations a form offers: the spec's, then the custom ones
/// in use, each with how many nodes or edges use it (readable ones only).
pub fn vocabulary(c: &Catalog) -> (Counts, Counts) {
    let mut types: BTreeMap<String, usize> = NodeType::KNOWN.iter().map(|t| ((*t).to_owned(), 0)).collect();
    for n in c.nodes() {
        *types.entry(n.node_type.to_string()).or_default() += 1;
    }
    let mut relations: BTreeMap<String, usize> = Relation::KNOWN.iter().map(|r| ((*r).to_owned(), 0)).collect();
    for e in c.edges() {
        *relations.entry(e.relation.to_string()).or_default() += 1;
    }
    let ranked = |m: BTreeMap<String, usize>| {
        let mut v: Vec<_> = m.into_iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v
    };
    (ranked(types), ranked(relations))
}

/// What moving `name` to `tier` would change in agent projections around
/// it (two hops), as lines: which centre, which tier, tokens before and
/// after. Nothing is written.
pub fn exposure(store: &Store, settings: Option<&Settings>, name: &str, tier: Tier) -> Result<Vec<String>, String> {
    let settings = settings.ok_or_else(|| "no preview: the settings in force have an error".to_owned())?;
    let changes = what_if(store.catalog(), name, tier, None, 2, settings).map_err(|e| e.to_string())?;
    if changes.is_empty() {
        return Ok(vec!["no agent projection within two hops changes".to_owned()]);
    }
    let mut lines: Vec<String> = changes
        .iter()
        .take(EXPOSURE_LINES)
        .map(|c| {
            let delta = i64::try_from(c.tokens_after).unwrap_or(i64::MAX) - i64::try_from(c.tokens_before).unwrap_or(0);
            format!(
                "{} agents, around {}: {} → {} tokens ({delta:+})",
                c.tier, c.center, c.tokens_before, c.tokens_after
            )
        })
        .collect();
    if changes.len() > EXPOSURE_LINES {
        lines.push(format!(
            "… and {} more projection(s): the Projection pane's what-if (W, centred on this node) lists every one",
            changes.len() - EXPOSURE_LINES
        ));
    }
    Ok(lines)
}

/// How many changed projections a form's review lists; the what-if (`W`)
/// lists them all. The review must fit a small terminal whole.
const EXPOSURE_LINES: usize = 5;
