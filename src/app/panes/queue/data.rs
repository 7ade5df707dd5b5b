//! What the queue pane shows, built by the engine worker from the store:
//! plain owned data, so the UI thread never touches the engine.

use graphex_engine::Store;
use graphex_engine::model::FieldDiff;
use graphex_engine::proposal::{Card, Change, Group, Lint, Source, TierImpact};

/// A near-duplicate merged into the node it duplicates, for review: the
/// rewritten proposal's changes and lints, and the text accepted as the
/// reviewer's edit.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MergeView {
    pub id: String,
    pub short: String,
    /// The change merged (1-based), the new node's name and the existing one.
    pub change: usize,
    pub added: String,
    pub existing: String,
    pub changes: Vec<ChangeView>,
    pub lints: ItemLints,
    pub text: String,
}

/// One pending proposal, ready to draw.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QueueItem {
    pub id: String,
    pub short: String,
    pub agent: String,
    pub trust: f64,
    pub session: String,
    /// Milliseconds since the epoch.
    pub created_ms: i64,
    pub source: String,
    /// Position within its session, 1-based, and the session's size.
    pub position: (usize, usize),
    pub rationale: String,
    pub changes: Vec<ChangeView>,
    /// (code, explanation); `None` while the worker is still checking
    /// (lints cost the most on a large store, so they follow the queue).
    pub lints: Option<ItemLints>,
    /// One line per stale node.
    pub stale: Vec<String>,
    /// A merge proposal's three versions, as lines.
    pub merge: Vec<String>,
    /// Other proposals touching the same nodes.
    pub group: Option<String>,
    /// For a revision: its earlier rounds, as lines.
    pub conversation: Vec<(crate::shared::conversation::Kind, String)>,
    /// For a revision: the last round's text and this one's, which the card
    /// compares through the console's one diff.
    pub interdiff: Option<(String, String)>,
    /// A revision's round (2 and up), and whether its conversation has a
    /// problem (a revision of another agent's proposal, …).
    pub revision: Option<(usize, bool)>,
    /// The text form an edit starts from.
    pub edit_text: String,
}

/// One change of a proposal.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum ChangeView {
    AddNode {
        name: String,
        node_type: String,
        tier: String,
        description: String,
        properties: Vec<(String, String)>,
        body: Option<String>,
        edges: Vec<(String, String, String)>,
    },
    AddEdge {
        from: String,
        relation: String,
        to: String,
    },
    /// An edge the proposal removes, with the agent's reason.
    RemoveEdge {
        from: String,
        relation: String,
        to: String,
        reason: Option<String>,
    },
    Update {
        name: String,
        fields: Vec<FieldDiff>,
        /// Why no diff can be shown: the node is missing or above this level.
        unreadable: Option<String>,
    },
    Lifecycle {
        verb: String,
        name: String,
        reason: Option<String>,
        /// The node as it stands, in one line.
        affected: Option<String>,
        /// The nodes linked to it, which lose or keep a link to a
        /// deprecated node.
        linked: Vec<String>,
    },
    Supersede {
        old: String,
        new: String,
        /// What accepting does to `old`, and whether it fails.
        effect: (String, bool),
        old_now: Option<String>,
        new_now: Option<String>,
        /// The nodes linked to the old node.
        linked: Vec<String>,
    },
}

impl ChangeView {
    /// The node a projection of this change centres on (a new node itself).
    pub fn centre(&self) -> &str {
        match self {
            ChangeView::AddNode { name, .. } | ChangeView::Update { name, .. } | ChangeView::Lifecycle { name, .. } => {
                name
            }
            ChangeView::AddEdge { from, .. } | ChangeView::RemoveEdge { from, .. } => from,
            ChangeView::Supersede { new, .. } => new,
        }
    }

    /// The nodes already in the graph that this change touches, the most
    /// telling first (a new node's neighbours, not the node itself).
    pub fn touched(&self) -> Vec<&str> {
        match self {
            ChangeView::AddNode { name, edges, .. } => edges
                .iter()
                .flat_map(|(from, _, to)| [from.as_str(), to.as_str()])
                .filter(|n| *n != name)
                .collect(),
            ChangeView::AddEdge { from, to, .. } | ChangeView::RemoveEdge { from, to, .. } => vec![from, to],
            ChangeView::Update { name, .. } | ChangeView::Lifecycle { name, .. } => vec![name],
            ChangeView::Supersede { old, new, .. } => vec![old, new],
        }
    }
}

impl QueueItem {
    /// What the proposal does, in a few words for the list: the first
    /// change's sign and node, and how many more changes follow.
    pub fn summary(&self) -> String {
        let first = match self.changes.first() {
            None => return "(no changes)".to_owned(),
            Some(ChangeView::AddNode { name, .. }) => format!("+ {name}"),
            Some(ChangeView::AddEdge { from, to, .. }) => format!("+ {from} → {to}"),
            Some(ChangeView::RemoveEdge { from, to, .. }) => format!("− {from} → {to}"),
            Some(ChangeView::Update { name, .. }) => format!("~ {name}"),
            Some(ChangeView::Lifecycle { verb, name, .. }) => format!("{verb} {name}"),
            Some(ChangeView::Supersede { old, new, .. }) => format!("{old} ⇒ {new}"),
        };
        match self.changes.len() {
            1 => first,
            n => format!("{first} (+{})", n - 1),
        }
    }
}

/// The queue as the worker last read it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QueueSnapshot {
    pub items: Vec<QueueItem>,
    /// Files moved to quarantine by this read, with their reasons.
    pub quarantined: Vec<String>,
    /// The open contradictions, listed after the proposals (at most
    /// [`super::contradiction::LISTED`]).
    pub contradictions: Vec<super::contradiction::ContradictionItem>,
    /// How many are open in all.
    #[serde(default)]
    pub contradictions_total: usize,
}

/// How one agent tier's projections would change on accept.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ImpactView {
    pub tier: String,
    pub centres_changed: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
}

impl From<&TierImpact> for ImpactView {
    fn from(t: &TierImpact) -> Self {
        Self {
            tier: t.tier.to_string(),
            centres_changed: t.centres_changed,
            tokens_before: t.tokens_before,
            tokens_after: t.tokens_after,
        }
    }
}

fn source(s: Source) -> &'static str {
    match s {
        Source::Cli => "cli",
        Source::Mcp => "mcp",
        Source::Infer => "infer",
        Source::Edit => "edit",
        Source::Demo => "demo",
        Source::Merge => "git merge",
    }
}

/// A node in one line: `[type] name (tier, status): description · N edges`.
fn summary(store: &Store, name: &str) -> Option<String> {
    let n = store.catalog().by_name(name)?;
    let edges = store.catalog().outgoing(&n.id).count() + store.catalog().incoming(&n.id).count();
    Some(format!(
        "[{}] {} ({}, {}): {} · {edges} edge(s)",
        n.node_type, n.name, n.tier, n.status, n.description
    ))
}

/// How many linked nodes a card lists before "and N more".
const LINKED_SHOWN: usize = 8;

/// The nodes linked to `name`, one entry each: `← from (relation)` for
/// links into it, `→ to (relation)` for links out of it.
fn linked(store: &Store, name: &str) -> Vec<String> {
    let catalog = store.catalog();
    let Some(n) = catalog.by_name(name) else {
        return Vec::new();
    };
    let name_of = |id| {
        catalog
            .node(id)
            .map_or_else(|| "(hidden)".to_owned(), |n| n.name.to_string())
    };
    let into = catalog
        .incoming(&n.id)
        .map(|e| format!("← {} ({})", name_of(&e.from), e.relation));
    let out = catalog
        .outgoing(&n.id)
        .map(|e| format!("→ {} ({})", name_of(&e.to), e.relation));
    let all: Vec<String> = into.chain(out).collect();
    let more = all.len().saturating_sub(LINKED_SHOWN);
    let mut shown: Vec<String> = all.into_iter().take(LINKED_SHOWN).collect();
    if more > 0 {
        shown.push(format!("and {more} more"));
    }
    shown
}

/// A proposal's lints as the console shows them: (code, explanation).
pub type ItemLints = Vec<(String, String)>;

/// The lints of a linted card, (code, explanation); a near-duplicate's
/// with the existing node it is close to on a second line (`[type] name (tier, status): description · N
/// edges`), so the reviewer sees both side by side.
pub fn lints_shown(store: &Store, lints: &[Lint]) -> ItemLints {
    lints
        .iter()
        .map(|l| {
            let mut text = l.explain();
            if let Lint::NearDuplicate { existing, .. } = l
                && let Some(line) = summary(store, existing)
            {
                text.push('\n');
                text.push_str(&line.replace(['\n', '\r'], " "));
            }
            (l.code().to_owned(), text)
        })
        .collect()
}

/// The queue's items; `linted` says whether the cards carry their lints.
pub fn items(store: &Store, cards: &[Card], groups: &[Group], linted: bool) -> Vec<QueueItem> {
    cards.iter().map(|c| item(store, c, groups, linted)).collect()
}

fn item(store: &Store, c: &Card, groups: &[Group], linted: bool) -> QueueItem {
    let s = &c.proposal.submission;
    let changes = s.changes.iter().map(|ch| change(store, ch)).collect();
    let stale = c
        .stale
        .iter()
        .map(|name| crate::shared::cards::stale_note(store, c, name))
        .collect();
    let group = c.group.and_then(|g| groups.get(g)).map(|g| {
        let others: Vec<&str> = g.proposals.iter().filter(|p| **p != c.id).map(|p| p.short()).collect();
        format!("also touching {}: {}", g.names.join(", "), others.join(", "))
    });
    QueueItem {
        id: c.id.to_string(),
        short: c.id.short().to_owned(),
        agent: s.agent.clone(),
        trust: s.trust,
        session: s.session.clone(),
        created_ms: c.proposal.created.0,
        source: source(c.proposal.source).to_owned(),
        position: c.position,
        rationale: s.rationale.clone(),
        changes,
        lints: linted.then(|| lints_shown(store, &c.lints)),
        stale,
        merge: c.merge.iter().flat_map(crate::shared::cards::merge_sides).collect(),
        group,
        conversation: crate::shared::conversation::before_interdiff(&c.rounds, &c.revision_problems),
        interdiff: crate::shared::conversation::interdiff_texts(&c.rounds, &c.proposal),
        revision: (!c.rounds.is_empty() || !c.revision_problems.is_empty())
            .then(|| (c.rounds.len() + 1, !c.revision_problems.is_empty())),
        edit_text: graphex_engine::proposal::edit_text(&c.proposal),
    }
}

pub(crate) fn change(store: &Store, ch: &Change) -> ChangeView {
    match ch {
        Change::AddNode {
            name,
            node_type,
            description,
            tier,
            properties,
            suggested_edges,
            body,
            ..
        } => ChangeView::AddNode {
            name: name.to_string(),
            node_type: node_type.to_string(),
            tier: tier.to_string(),
            description: description.clone(),
            properties: properties.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            body: body.clone(),
            edges: suggested_edges
                .iter()
                .map(|(f, r, t)| (f.to_string(), r.to_string(), t.to_string()))
                .collect(),
        },
        Change::AddEdge { from, relation, to, .. } => ChangeView::AddEdge {
            from: from.to_string(),
            relation: relation.to_string(),
            to: to.to_string(),
        },
        Change::RemoveEdge {
            from,
            relation,
            to,
            reason,
        } => ChangeView::RemoveEdge {
            from: from.to_string(),
            relation: relation.to_string(),
            to: to.to_string(),
            reason: reason.clone(),
        },
        Change::UpdateNode { name, set } => match store.node(name.as_str()) {
            Ok(current) => ChangeView::Update {
                name: name.to_string(),
                fields: graphex_engine::model::field_diff(&current, &set.patch().apply(&current)),
                unreadable: None,
            },
            Err(e) => ChangeView::Update {
                name: name.to_string(),
                fields: Vec::new(),
                unreadable: Some(match e {
                    graphex_engine::Error::NotFound(..) => "not in the graph: accepting will fail".to_owned(),
                    graphex_engine::Error::TierLocked(..) => "cannot be read at this level".to_owned(),
                    other => format!("cannot be read: {other}"),
                }),
            },
        },
        Change::Deprecate { name, reason } | Change::Archive { name, reason } | Change::Restore { name, reason } => {
            ChangeView::Lifecycle {
                verb: match ch {
                    Change::Archive { .. } => "archive",
                    Change::Restore { .. } => "restore",
                    _ => "deprecate",
                }
                .to_owned(),
                name: name.to_string(),
                reason: reason.clone(),
                affected: summary(store, name.as_str()),
                linked: linked(store, name.as_str()),
            }
        }
        Change::Supersede { old, new } => ChangeView::Supersede {
            effect: crate::shared::cards::supersede_effect(store, old.as_str()),
            old: old.to_string(),
            new: new.to_string(),
            old_now: summary(store, old.as_str()),
            new_now: summary(store, new.as_str()),
            linked: linked(store, old.as_str()),
        },
    }
}
