//! Projection: what an agent receives. The subgraph around a query or a node,
//! filtered to Active content at or below the agent's tier (everything above
//! is invisible: no name, no ghost, no edge), flattened into the spec's
//! markdown sections, scrubbed, and cut to a token budget by relevance, whole
//! items at a time. The result says what was cut and why.

mod empty;
mod explain;
mod items;
mod policy;
mod scrub;
mod settings_of;
mod tokens;
mod weights;

use std::collections::BTreeMap;

use serde::Serialize;

pub use explain::{ItemWhy, Why, explain};
pub use items::{Section, one_line};
pub use policy::{Access, TrustPolicy};
pub use scrub::{CREDENTIALS, REDACTED, Scrubber, credential_in};
pub use tokens::Counter;
pub use weights::{OTHER_TYPES, Weights};

use crate::error::{Error, Result};
use crate::model::{Tier, Timestamp};
use crate::query;
use crate::store::Catalog;
use crate::traverse::{self, Filter};

/// What to project around.
#[derive(Clone, Debug)]
pub enum Center {
    /// Every node on the paths a query returns.
    Query(String),
    /// A node and everything within `depth` hops of it.
    Node { name: String, depth: u32 },
}

/// A projection request.
#[derive(Clone, Debug)]
pub struct Request {
    pub center: Center,
    pub agent: String,
    pub access: Access,
    pub budget: usize,
    /// The moment relevance is judged at (decisions age); `None` is now.
    pub at: Option<Timestamp>,
}

/// Projection settings (from configuration).
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub policy: TrustPolicy,
    pub counter: Counter,
    pub scrubber: Scrubber,
    /// State how many relations lead above the tier (a count, never names).
    pub count_hidden_relations: bool,
    /// Node importance, per-relation decay and decision recency.
    pub weights: Weights,
}

/// An item left out, and why.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Cut {
    pub name: String,
    pub reason: &'static str,
}

/// The projected context and its accounting.
#[derive(Clone, Debug, Serialize)]
pub struct Projection {
    pub center: String,
    pub agent: String,
    pub tier: Tier,
    pub budget: usize,
    pub tokens: usize,
    pub text: String,
    /// Names of the nodes whose items are in the text, in output order.
    pub included: Vec<String>,
    /// Their ids (for the audit log).
    pub included_ids: Vec<crate::model::NodeId>,
    /// Items that were candidates but did not fit.
    pub cut: Vec<Cut>,
    /// How many scrub-pattern matches were replaced.
    pub scrubbed: usize,
    /// SHA-256 (hex) of `text`, for the audit log.
    pub hash: String,
    /// The subject (the centre node, or the query's subject) did not fit
    /// whole and is given as its one-line summary. The subject is never cut.
    pub subject_summarised: bool,
    /// Every candidate, in then cut, with its scores (a context manifest),
    /// most relevant first.
    pub items: Vec<ItemScore>,
    /// When no item is in the text: why (the text says it too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty_because: Option<String>,
}

/// One candidate of a projection and why it is in or out.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ItemScore {
    pub name: String,
    pub included: bool,
    /// Hops from the centre (0 for the subject).
    pub distance: u32,
    /// The ranking score: nearness, confidence, kind, recency (see `items`).
    pub relevance: f64,
    /// What its lines cost, in tokens.
    pub tokens: usize,
    /// "subject", "subject (one-line summary)", "within the budget" or "over the token budget".
    pub reason: &'static str,
    pub confidence: f64,
    /// The node's own importance (0 to 1), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance: Option<f64>,
    /// Its last update (its last reinforcement), RFC 3339.
    pub updated: String,
    /// The recency term in its relevance (0 to 10; see `weights`).
    pub freshness: f64,
}

/// Builds the projection for `req` from what `catalog` holds.
pub fn project(c: &Catalog, req: &Request, s: &Settings) -> Result<Projection> {
    build(c, req, s).map(|(p, _)| p)
}

/// The projection and, for each candidate item, why it is in (its
/// distance and relevance) or out (the budget); see [`explain`] for the
/// nodes that were never candidates.
pub(crate) fn build(c: &Catalog, req: &Request, s: &Settings) -> Result<(Projection, Vec<ItemWhy>)> {
    let tier = s.policy.max_tier(req.access);
    let (center_label, subject_slot, candidates) = candidates(c, &req.center, tier)?;
    let candidate_count = candidates.len();
    let distance_of: rustc_hash::FxHashMap<u32, u32> = candidates.iter().copied().collect();
    let now = req.at.unwrap_or_else(Timestamp::now);
    let scope: rustc_hash::FxHashSet<u32> = candidates.iter().map(|(s, _)| *s).collect();
    let carries = s.weights.carries(c, &candidates, tier);
    let mut pool = Vec::new();
    for (slot, distance) in candidates {
        let Some(n) = c.node_at(slot) else { continue };
        if !items::visible(n, tier) {
            continue;
        }
        let reach = items::Reach {
            strength: strength(c, slot, distance, &distance_of, tier),
            carry: carries.get(&slot).copied().unwrap_or(1.0),
        };
        if let Some(mut it) = items::item(c, slot, distance, reach, tier, s, now, &scope) {
            (it.text, it.scrubbed) = s.scrubber.scrub(&it.text);
            pool.push(it);
        }
    }
    pool.sort_by(|a, b| b.relevance.total_cmp(&a.relevance).then_with(|| a.name.cmp(&b.name)));
    let header = format!("## Project Context: {}\n", s.scrubber.scrub(&one_line(&center_label)).0);
    let mut chosen = vec![false; pool.len()];
    let mut used = s.counter.count(&header);
    let mut sections_used: BTreeMap<Section, bool> = BTreeMap::new();
    let mut cut = Vec::new();
    let heading_cost = |sec: Section| s.counter.count(&format!("\n### {}\n", sec.title()));
    let item_cost = |it: &items::Item| s.counter.count(&format!("{}\n", it.text));
    // First, in each section, the most relevant item that fits, so a tight
    // budget thins every section rather than dropping one wholesale; then
    // everything else by relevance.
    // The subject first, whole if it fits, else as its one-line summary:
    // never a header over nothing.
    let subject = subject_slot.and_then(|slot| pool.iter().position(|it| it.slot == slot));
    let mut subject_summarised = false;
    if let Some(si) = subject {
        let sec = pool[si].section;
        let fits = |text: &str| used + heading_cost(sec) + s.counter.count(&format!("{text}\n")) <= req.budget;
        if !fits(&pool[si].text) {
            let n = c
                .node_at(pool[si].slot)
                .ok_or_else(|| Error::NotFound(pool[si].name.clone()))?;
            let shorter: Vec<(String, usize)> = items::summaries(n).iter().map(|t| s.scrubber.scrub(t)).collect();
            let Some((text, scrubbed)) = shorter.iter().find(|(t, _)| fits(t)).cloned() else {
                let least = shorter.last().map_or(0, |(t, _)| {
                    used + heading_cost(sec) + s.counter.count(&format!("{t}\n"))
                });
                return Err(Error::invalid(
                    "budget",
                    req.budget.to_string(),
                    format!(
                        "too small even for the subject's one-line summary (it needs {least} tokens with the header)"
                    ),
                ));
            };
            (pool[si].text, pool[si].scrubbed) = (text, scrubbed);
            subject_summarised = true;
        }
        used += heading_cost(sec) + item_cost(&pool[si]);
        chosen[si] = true;
        sections_used.insert(sec, true);
    }
    let mut sections: Vec<Section> = Vec::new();
    for it in &pool {
        if !sections.contains(&it.section) {
            sections.push(it.section);
        }
    }
    for sec in sections {
        if sections_used.contains_key(&sec) {
            continue;
        }
        for (i, it) in pool.iter().enumerate().filter(|(_, it)| it.section == sec) {
            let cost = heading_cost(sec) + item_cost(it);
            if used + cost <= req.budget {
                used += cost;
                chosen[i] = true;
                sections_used.insert(sec, true);
                break;
            }
        }
    }
    for (i, it) in pool.iter().enumerate() {
        if chosen[i] {
            continue;
        }
        let heading = if sections_used.contains_key(&it.section) {
            0
        } else {
            heading_cost(it.section)
        };
        let cost = heading + item_cost(it);
        if used + cost <= req.budget {
            used += cost;
            chosen[i] = true;
            sections_used.insert(it.section, true);
        }
    }
    // Counting pieces is close to, not exactly, counting the whole: trim until it fits.
    let (mut text, mut tokens) = render(&header, &pool, &chosen, subject, s.counter);
    while tokens > req.budget {
        let Some(last) = (0..pool.len()).rev().find(|&i| chosen[i] && Some(i) != subject) else {
            break;
        };
        chosen[last] = false;
        (text, tokens) = render(&header, &pool, &chosen, subject, s.counter);
    }
    if tokens > req.budget {
        return Err(Error::invalid(
            "budget",
            req.budget.to_string(),
            format!("too small even for the header ({tokens} tokens)"),
        ));
    }
    for (i, it) in pool.iter().enumerate() {
        if !chosen[i] {
            cut.push(Cut {
                name: s.scrubber.scrub(&it.name).0,
                reason: "over the token budget",
            });
        }
    }
    let order = ordered(&pool, &chosen, subject);
    // Never a header over nothing: say why, in the text and the JSON.
    let empty_because = order.is_empty().then(|| {
        let why = match &req.center {
            Center::Query(q) if candidate_count == 0 => query::nothing_matches(c, q, Some(tier)),
            _ => empty::nothing_projected(candidate_count, pool.len(), req.budget),
        };
        s.scrubber.scrub(&why).0
    });
    if let Some(why) = &empty_because {
        let said = format!("{header}\nNothing to project: {why}.\n");
        let said_tokens = s.counter.count(&said);
        if said_tokens <= req.budget {
            (text, tokens) = (said, said_tokens);
        }
    }
    let scrubbed = order.iter().map(|&i| pool[i].scrubbed).sum();
    // Names and the centre are scrubbed like the text: a pattern that hides a
    // codename hides it everywhere the projection reports.
    let included = order.iter().map(|&i| s.scrubber.scrub(&pool[i].name).0).collect();
    let included_ids = order
        .iter()
        .filter_map(|&i| c.node_at(pool[i].slot).map(|n| n.id))
        .collect();
    let hash = text_hash(&text);
    let items = pool
        .iter()
        .enumerate()
        .map(|(i, it)| {
            let n = c.node_at(it.slot);
            ItemScore {
                name: s.scrubber.scrub(&it.name).0,
                included: chosen[i],
                distance: distance_of.get(&it.slot).copied().unwrap_or(0),
                relevance: it.relevance,
                tokens: item_cost(it),
                reason: match (Some(i) == subject, subject_summarised, chosen[i]) {
                    (true, true, _) => "subject (one-line summary)",
                    (true, false, _) => "subject",
                    (false, _, true) => "within the budget",
                    (false, _, false) => "over the token budget",
                },
                confidence: n.map_or(0.0, |n| n.confidence),
                importance: n.and_then(items::node_importance),
                updated: n.map_or_else(String::new, |n| n.updated.to_rfc3339()),
                freshness: n.map_or(0.0, |n| items::freshness(n, it.date, now, &s.weights)),
            }
        })
        .collect();
    let whys = pool
        .iter()
        .enumerate()
        .map(|(i, it)| ItemWhy {
            name: s.scrubber.scrub(&it.name).0,
            why: if chosen[i] {
                Why::In {
                    distance: distance_of.get(&it.slot).copied().unwrap_or(0),
                    relevance: it.relevance,
                    scrubbed: it.scrubbed,
                }
            } else {
                Why::OverBudget {
                    distance: distance_of.get(&it.slot).copied().unwrap_or(0),
                    relevance: it.relevance,
                }
            },
        })
        .collect();
    let p = Projection {
        empty_because,
        center: s.scrubber.scrub(&center_label).0,
        agent: req.agent.clone(),
        tier,
        budget: req.budget,
        tokens,
        text,
        included,
        included_ids,
        cut,
        scrubbed,
        hash,
        subject_summarised,
        items,
    };
    Ok((p, whys))
}

/// The header's label, the subject's slot, and each candidate slot with its distance.
type Candidates = (String, Option<u32>, Vec<(u32, u32)>);

/// The nodes to consider, each with its distance from the centre.
/// Walks never pass through a node or edge the agent may not see, so nothing
/// reachable only through hidden content is projected either.
/// Also gives the subject's slot: the centre node, or the first node of the
/// query's first path (the one the header names).
fn candidates(c: &Catalog, center: &Center, tier: Tier) -> Result<Candidates> {
    match center {
        Center::Node { name, depth } => {
            match c.by_name(name) {
                Some(n) if items::visible(n, tier) => {}
                Some(n) if n.tier <= tier => return Err(not_projected(c, n, tier)),
                _ => return Err(Error::NotFound(name.clone())),
            }
            let filter = Filter {
                max_tier: Some(tier),
                ..Filter::default()
            };
            let g = traverse::subgraph(c, name, *depth, &filter)?;
            let slots = g
                .nodes
                .iter()
                .filter_map(|(n, d)| c.slot_of(&n.id).map(|s| (s, *d)))
                .collect();
            let subject = c.by_name(name).and_then(|n| c.slot_of(&n.id));
            Ok((name.clone(), subject, slots))
        }
        Center::Query(q) => {
            refuse_inactive_status(q)?;
            let out = query::run_capped(c, q, tier).map_err(|e| match query_error(q, &e) {
                // A name the agent reads but that is not active: flagged,
                // with its successors, as a node centre is.
                Error::QueryUnknownNode { name, .. }
                    if c.by_name(&name)
                        .is_some_and(|n| n.tier <= tier && !items::visible(n, tier)) =>
                {
                    c.by_name(&name)
                        .map_or(Error::NotFound(name.clone()), |n| not_projected(c, n, tier))
                }
                other => other,
            })?;
            let mut best: BTreeMap<u32, u32> = BTreeMap::new();
            for p in &out.paths {
                for (d, n) in p.nodes.iter().enumerate() {
                    if let Some(s) = c.slot_of(&n.id) {
                        let e = best.entry(s).or_insert(d as u32);
                        *e = (*e).min(d as u32);
                    }
                }
            }
            // A node the agent may see, never the query text (which may name anything).
            let first = out.paths.first().and_then(|p| p.nodes.first());
            let label = first.map_or_else(|| "query".to_owned(), |n| n.name.to_string());
            let subject = first.and_then(|n| c.slot_of(&n.id));
            Ok((label, subject, best.into_iter().collect()))
        }
    }
}

/// Projections hold active nodes only (the spec: deprecated is visible but
/// flagged, not projected): a `--status` asking for others is refused, named,
/// rather than ignored.
fn refuse_inactive_status(q: &str) -> Result<()> {
    let Ok(parsed) = query::parse(q) else {
        // run_capped reports the parse error with its place.
        return Ok(());
    };
    use crate::model::Status;
    let asked = match parsed.flags.status {
        query::StatusFilter::Visible | query::StatusFilter::Only(Status::Active) => return Ok(()),
        query::StatusFilter::Only(Status::Proposed) => {
            return Err(Error::invalid(
                "status",
                "proposed",
                "proposed nodes are in no graph yet and never projected; an agent's own pending proposals are in \
                 its review list, and a reviewer lists them with `graphex query --status proposed`",
            ));
        }
        query::StatusFilter::Only(other) => other.to_string(),
        query::StatusFilter::Any => "any".to_owned(),
    };
    Err(Error::invalid(
        "status",
        asked,
        "a projection holds active nodes only; ask for a deprecated or archived node by name to learn its \
         successors, or list them with `graphex query --status` (people)",
    ))
}

/// Why an inactive centre is not projected, naming its successors (the
/// nodes that supersede it and the agent may see), if any.
fn not_projected(c: &Catalog, n: &crate::model::NodeSummary, tier: Tier) -> Error {
    let successors: Vec<String> = c
        .slot_of(&n.id)
        .map(|slot| {
            c.in_slots(slot)
                .iter()
                .filter(|&&e| {
                    c.edge_at(e)
                        .is_some_and(|e| e.relation.as_str() == "supersedes" && e.tier <= tier)
                })
                .filter_map(|&e| c.node_at(c.ends_at(e).0))
                .filter(|s| items::visible(s, tier))
                .map(|s| s.name.to_string())
                .collect()
        })
        .unwrap_or_default();
    let successor = match successors.as_slice() {
        [] => "no successor is recorded".to_owned(),
        [one] => format!("its successor is {one}: project --node {one}"),
        many => format!("its successors are {}", many.join(", ")),
    };
    Error::NotProjected {
        name: n.name.to_string(),
        status: n.status,
        successor,
    }
}

/// How strongly a candidate at `distance` is held to the centre: the
/// heaviest edge (Cortex weight, 0 to 1) the agent may see between it and a
/// candidate one hop nearer; 1 for the subject.
fn strength(c: &Catalog, slot: u32, distance: u32, distance_of: &rustc_hash::FxHashMap<u32, u32>, tier: Tier) -> f64 {
    if distance == 0 {
        return 1.0;
    }
    let nearer = |other: u32| distance_of.get(&other) == Some(&(distance - 1));
    let out = c.out_slots(slot).iter().map(|&e| (e, c.ends_at(e).1));
    let inc = c.in_slots(slot).iter().map(|&e| (e, c.ends_at(e).0));
    out.chain(inc)
        .filter(|&(_, other)| nearer(other))
        .filter_map(|(e, _)| c.edge_at(e))
        .filter(|e| e.tier <= tier)
        .map(|e| e.weight)
        .fold(0.0, f64::max)
}

/// Chosen items in output order: by section, the subject first in its own,
/// decisions newest first, others by relevance.
fn ordered(pool: &[items::Item], chosen: &[bool], subject: Option<usize>) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..pool.len()).filter(|&i| chosen[i]).collect();
    idx.sort_by(|&a, &b| {
        let (x, y) = (&pool[a], &pool[b]);
        let first = (Some(b) == subject).cmp(&(Some(a) == subject));
        x.section.cmp(&y.section).then(first).then_with(|| match x.section {
            Section::RecentDecisions => y.date.cmp(&x.date),
            _ => y.relevance.total_cmp(&x.relevance).then_with(|| x.name.cmp(&y.name)),
        })
    });
    idx
}

/// A query's error as the engine's: a name it found no node under keeps
/// the name, for the audit log's record of failed reads.
fn query_error(q: &str, e: &crate::query::QueryError) -> Error {
    match &e.kind {
        crate::query::QueryErrorKind::UnknownNode(name) => Error::QueryUnknownNode {
            query: q.to_owned(),
            name: name.clone(),
            rendered: e.render(q),
        },
        _ => Error::invalid("query", q, e.render(q)),
    }
}

fn render(
    header: &str,
    pool: &[items::Item],
    chosen: &[bool],
    subject: Option<usize>,
    counter: Counter,
) -> (String, usize) {
    let mut text = header.to_owned();
    let mut current: Option<Section> = None;
    for i in ordered(pool, chosen, subject) {
        let it = &pool[i];
        if current != Some(it.section) {
            text.push_str(&format!("\n### {}\n", it.section.title()));
            current = Some(it.section);
        }
        text.push_str(&it.text);
        text.push('\n');
    }
    let tokens = counter.count(&text);
    (text, tokens)
}

/// SHA-256 (hex) of a projection's text, as recorded in the audit log.
pub fn text_hash(text: &str) -> String {
    crate::crypto::sha256_hex(text.as_bytes())
}

#[cfg(test)]
mod outcome_tests;
#[cfg(test)]
mod tests;
