//! One projected item per node, in the spec's sections. Architecture items
//! group a node's outgoing relations by kind, as in the spec's example
//! ("Depends on: currency-utils (module), api-gateway (service)").

use std::collections::BTreeMap;

use crate::model::{NodeSummary, Status, Tier, Timestamp};
use crate::store::Catalog;

/// The spec's projection sections, in output order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Section {
    Architecture,
    Conventions,
    Glossary,
    RecentDecisions,
}

impl Section {
    pub fn title(self) -> &'static str {
        match self {
            Section::Architecture => "Architecture",
            Section::Conventions => "Conventions",
            Section::Glossary => "Glossary",
            Section::RecentDecisions => "Recent Decisions",
        }
    }

    fn of(node_type: &str) -> Section {
        match node_type {
            "convention" => Section::Conventions,
            "glossary" => Section::Glossary,
            "decision" => Section::RecentDecisions,
            _ => Section::Architecture,
        }
    }
}

/// A candidate for the projection.
#[derive(Clone, Debug)]
pub struct Item {
    pub slot: u32,
    pub name: String,
    pub section: Section,
    /// Markdown lines, already one-line-safe.
    pub text: String,
    pub relevance: f64,
    /// For ordering decisions newest first.
    pub date: Timestamp,
    /// Scrub-pattern matches replaced in `text`.
    pub scrubbed: usize,
}

/// Text from the graph made safe to place in a markdown list: one line, and
/// no line that could pass for a heading, a list item or a tier marker.
pub fn one_line(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // Backticks could open a code block; `<` an HTML block.
    let flat = flat.replace('`', "\\`").replace('<', "&lt;");
    let numbered = flat
        .find(['.', ')'])
        .is_some_and(|dot| dot > 0 && flat[..dot].bytes().all(|b| b.is_ascii_digit()));
    if flat.starts_with(['#', '-', '*', '>', '[', '+', '|', '=', '~']) || numbered {
        format!("\\{flat}")
    } else {
        flat
    }
}

/// Relations in the order the spec's example lists them.
const RELATION_ORDER: &[&str] = &[
    "depends-on",
    "owned-by",
    "implements-policy",
    "contains",
    "communicates-with",
    "uses",
    "supersedes",
];

fn relation_label(rel: &str) -> String {
    match rel {
        "depends-on" => "Depends on".into(),
        "owned-by" => "Owned by".into(),
        "implements-policy" => "Implements policies".into(),
        "communicates-with" => "Communicates with".into(),
        other => {
            let words = other.replace('-', " ");
            let mut c = words.chars();
            c.next()
                .map_or_else(String::new, |f| f.to_uppercase().collect::<String>() + c.as_str())
        }
    }
}

fn title_case(word: &str) -> String {
    word.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map_or_else(String::new, |f| f.to_uppercase().collect::<String>() + c.as_str())
        })
        .collect::<Vec<_>>()
        .join("-")
}

fn term(name: &str) -> String {
    let words = name.replace('-', " ");
    let mut c = words.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().collect::<String>() + c.as_str())
}

/// What may appear: Active, at or below `max`.
pub fn visible(n: &NodeSummary, max: Tier) -> bool {
    n.status == Status::Active && n.tier <= max
}

/// The item for node `slot` at `distance` from the centre. Relations to
/// nodes or over edges above `max` are left out; their number is stated
/// (never their names) when `settings` ask (`count_hidden_relations`).
/// Relations are listed only to nodes in `scope` (the projected
/// neighbourhood), so a projection depends on its candidates alone and can be
/// rebuilt from them.
#[allow(clippy::too_many_arguments)]
pub fn item(
    c: &Catalog,
    slot: u32,
    distance: u32,
    reach: Reach,
    max: Tier,
    settings: &super::Settings,
    now: Timestamp,
    scope: &rustc_hash::FxHashSet<u32>,
) -> Option<Item> {
    let n = c.node_at(slot)?;
    let section = Section::of(n.node_type.as_str());
    let date = n
        .properties
        .get("date")
        .and_then(|d| Timestamp::parse(d).ok())
        .unwrap_or(n.created);
    let text = match section {
        Section::Architecture => {
            let mut s = format!("- {} is a {}", n.name, title_case(n.node_type.as_str()));
            // Grouped by relation, in the spec's order first, then by name.
            let mut groups: BTreeMap<(usize, String), Vec<String>> = BTreeMap::new();
            let mut hidden = 0;
            for &e in c.out_slots(slot) {
                let (Some(edge), Some(to)) = (c.edge_at(e), c.node_at(c.ends_at(e).1)) else {
                    continue;
                };
                if edge.tier > max || !visible(to, max) {
                    hidden += usize::from(edge.tier > max || to.tier > max);
                    continue;
                }
                if !scope.contains(&c.ends_at(e).1) {
                    continue;
                }
                let rank = RELATION_ORDER
                    .iter()
                    .position(|r| *r == edge.relation.as_str())
                    .unwrap_or(RELATION_ORDER.len());
                groups
                    .entry((rank, relation_label(edge.relation.as_str())))
                    .or_default()
                    .push(format!("{} ({})", to.name, to.node_type));
            }
            for ((_, label), targets) in groups {
                s.push_str(&format!("\n  - {label}: {}", targets.join(", ")));
            }
            if settings.count_hidden_relations && hidden > 0 {
                s.push_str(&format!("\n  - {hidden} more relation(s) to content above this tier"));
            }
            if !n.description.is_empty() {
                s.push_str(&format!("\n  - {}", one_line(&n.description)));
            }
            s
        }
        Section::Conventions => format!("- {}", one_line(&n.description)),
        Section::Glossary => format!("- {}: {}", term(n.name.as_str()), one_line(&n.description)),
        Section::RecentDecisions => format!("- {}: {}", date.date(), one_line(&n.description)),
    };
    // A contradiction not resolved by deprecating one side: both are disputed.
    // Named only within the projected neighbourhood, so a replay rebuilds it.
    let against: Vec<String> = crate::curate::disputed_with(c, slot, max)
        .into_iter()
        .filter(|(s, _)| scope.contains(s))
        .map(|(_, name)| name)
        .collect();
    let text = match (section, against.is_empty()) {
        (_, true) => text,
        (Section::Architecture, false) => format!("{text}\n  - disputed: contradicts {}", against.join(", ")),
        (_, false) => format!("{text} (disputed: contradicts {})", against.join(", ")),
    };
    // Agents see where a pulled node comes from, as data (one line, escaped).
    let text = match crate::federation::origin(n) {
        Some(origin) => format!("{text}\n  - federated from {} (read-only here)", one_line(origin)),
        None => text,
    };
    Some(Item {
        slot,
        name: n.name.to_string(),
        section,
        text,
        relevance: reach.carry * (relevance(n, distance, date, now, &settings.weights) + 10.0 * reach.strength),
        date,
        scrubbed: 0,
    })
}

/// The subject's shorter forms, longest first, for a budget too small for
/// its whole item: one line with its description, then its name and kind alone.
pub fn summaries(n: &NodeSummary) -> Vec<String> {
    let kind = title_case(n.node_type.as_str());
    let bare = format!("- {} is a {kind}", n.name);
    if n.description.is_empty() {
        vec![bare]
    } else {
        vec![format!("{bare}: {}", one_line(&n.description)), bare]
    }
}

/// How a candidate is held to the centre: the heaviest edge reaching it
/// (`strength`, adds `10 × weight`) and the share of relevance kept over
/// the relations on the way (`carry`, multiplies; see `weights`).
#[derive(Clone, Copy, Debug)]
pub struct Reach {
    pub strength: f64,
    pub carry: f64,
}

/// Nearer, surer, more important kinds, and fresher nodes rank higher (the
/// formula is in `weights`).
fn relevance(n: &NodeSummary, distance: u32, date: Timestamp, now: Timestamp, w: &super::Weights) -> f64 {
    let nearness = 100.0 / (1.0 + f64::from(distance));
    let kind = w.importance(n.node_type.as_str());
    nearness + 20.0 * n.confidence + kind + 20.0 * node_importance(n).unwrap_or(0.0) + freshness(n, date, now, w)
}

/// The recency term, 0 to 10: `10 × e^(-age / recency_days)`. A decision's
/// age runs from its date (its `date` property, else its creation), in
/// days; any other node's from its last reinforcement (its newest version:
/// an edit, an accepted proposal that changed it, `graphex confirm`), in
/// whole days, so nodes touched the same day rank as before.
pub fn freshness(n: &NodeSummary, date: Timestamp, now: Timestamp, w: &super::Weights) -> f64 {
    const DAY: f64 = 86_400_000.0;
    let age_days = if n.node_type.as_str() == "decision" {
        ((now.0 - date.0).max(0) as f64) / DAY
    } else {
        (((now.0 - n.updated.0).max(0) as f64) / DAY).floor()
    };
    10.0 * (-age_days / w.recency_days).exp()
}

/// A node's own importance (Cortex's per-memory weight): its `importance`
/// property, when it is a number from 0 to 1 (`graphex add --importance`).
pub fn node_importance(n: &NodeSummary) -> Option<f64> {
    n.properties
        .get("importance")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|x| (0.0..=1.0).contains(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_text_cannot_forge_structure() {
        assert_eq!(one_line("## Conventions\n- fake"), "\\## Conventions - fake");
        assert_eq!(one_line("  normal   text "), "normal text");
        assert_eq!(one_line("[public] marker"), "\\[public] marker");
        assert_eq!(one_line("+ ### Architecture"), "\\+ ### Architecture");
        assert_eq!(one_line("1. ### Glossary"), "\\1. ### Glossary");
        assert_eq!(one_line("use ```rust"), "use \\`\\`\\`rust");
        assert_eq!(one_line("<script>"), "&lt;script>");
        assert_eq!(one_line("2026 was a year. Fine"), "2026 was a year. Fine");
        assert_eq!(term("order-batch"), "Order batch");
        assert_eq!(title_case("external-system"), "External-System");
        assert_eq!(relation_label("implements-policy"), "Implements policies");
        assert_eq!(relation_label("runs-on"), "Runs on");
    }
}
