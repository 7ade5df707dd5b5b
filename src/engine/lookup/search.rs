//! Search over readable nodes, ranked: names by the one matcher
//! ([`super::matcher`]: `ordr srv` finds `orders-service`, exact and prefix
//! matches first), descriptions by words (every word of the query appears,
//! in any case). A name match ranks above a description-only one; a
//! description that also holds the words adds a little to a name's score.
//! CPU-bound: one pass over the catalog, names prefiltered without a copy.

use std::cmp::Ordering;

use super::bodies::Bodies;
use super::matcher::{Matcher, by_rank, holds_words, lower_words};
use crate::model::{NodeSummary, Status, Tier};
use crate::store::Catalog;

/// A ranked search result.
#[derive(Clone, Debug)]
pub struct SearchHit {
    pub node: NodeSummary,
    pub score: i64,
    /// Whether the name (not only the description) matched.
    pub in_name: bool,
    /// Whether the body holds every word (only when bodies were searched).
    pub in_body: bool,
}

/// The score of each query word found in a description.
const DESCRIPTION_HIT: i64 = 40;
/// The score of each query word found in a body (below a description's).
const BODY_HIT: i64 = 20;

/// Names first, then the score, then the shorter and the alphabetical name.
fn by_hit(a: &SearchHit, b: &SearchHit) -> Ordering {
    b.in_name
        .cmp(&a.in_name)
        .then_with(|| by_rank((a.score, a.node.name.as_str()), (b.score, b.node.name.as_str())))
}

/// The best `limit` matches of `text`; archived nodes are left out.
pub fn search(c: &Catalog, text: &str, limit: usize) -> Vec<SearchHit> {
    search_within(c, text, limit, Tier::HumanOnly, None)
}

/// [`search`] over the nodes at or below `cap`, and over their bodies too
/// when `bodies` is given (an index kept by the caller, see [`Bodies`]).
pub fn search_within(c: &Catalog, text: &str, limit: usize, cap: Tier, bodies: Option<&Bodies>) -> Vec<SearchHit> {
    let matcher = Matcher::new(text);
    if matcher.is_empty() {
        return Vec::new();
    }
    let words = lower_words(text);
    let desc_score = DESCRIPTION_HIT * words.len() as i64;
    let mut lower = String::new();
    let mut hits: Vec<SearchHit> = Vec::new();
    let body_score = BODY_HIT * words.len() as i64;
    for n in c.nodes().filter(|n| n.status != Status::Archived && n.tier <= cap) {
        let name_score = matcher.score(n.name.as_str());
        let in_desc = holds_words(&n.description, &words, &mut lower);
        let in_body = bodies.is_some_and(|b| b.holds(&n.id, &words));
        let score = match (name_score, in_desc, in_body) {
            (None, false, false) => continue,
            (Some(a), d, _) => a + if d { desc_score / 2 } else { 0 },
            (None, true, _) => desc_score,
            (None, false, true) => body_score,
        };
        hits.push(SearchHit {
            node: n.clone(),
            score,
            in_name: name_score.is_some(),
            in_body,
        });
    }
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit, by_hit);
        hits.truncate(limit);
    }
    hits.sort_by(by_hit);
    hits
}

/// [`search`] over names, descriptions and bodies, for a reader of every
/// tier this session opens. Bodies are kept in the encrypted blobs, not the
/// catalog: CPU- and I/O-heavy, it decrypts each readable node once (a
/// long-lived caller keeps a [`Bodies`] and uses [`search_within`]).
pub fn search_with_bodies(
    store: &crate::store::Store,
    text: &str,
    limit: usize,
) -> crate::error::Result<Vec<SearchHit>> {
    let mut bodies = Bodies::new();
    bodies.refresh(store, Tier::HumanOnly);
    Ok(search_within(
        store.catalog(),
        text,
        limit,
        Tier::HumanOnly,
        Some(&bodies),
    ))
}
