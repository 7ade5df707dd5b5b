//! Search over readable nodes, ranked: names by the one matcher
//! ([`super::matcher`]: `ordr srv` finds `orders-service`, exact and prefix
//! matches first), descriptions by words (every word of the query appears,
//! in any case). A name match ranks above a description-only one; a
//! description that also holds the words adds a little to a name's score,
//! and a body that holds them (searched through a [`Bodies`] index) ranks
//! below a description.
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

/// What a description holding the words adds to a name's score.
pub(super) fn half_description(words: usize) -> i64 {
    DESCRIPTION_HIT * words as i64 / 2
}

/// The hit `node` makes for a query of `words` words, from what matched:
/// its name (the matcher's score), its description, its body; none when
/// nothing did.
pub(super) fn scored(
    node: &NodeSummary,
    name_score: Option<i64>,
    in_desc: bool,
    in_body: bool,
    words: usize,
) -> Option<SearchHit> {
    let score = match (name_score, in_desc, in_body) {
        (None, false, false) => return None,
        (Some(a), d, _) => a + if d { half_description(words) } else { 0 },
        (None, true, _) => DESCRIPTION_HIT * words as i64,
        (None, false, true) => BODY_HIT * words as i64,
    };
    Some(SearchHit {
        node: node.clone(),
        score,
        in_name: name_score.is_some(),
        in_body,
    })
}

/// The best `limit` of `hits`, best first: picked in linear time, then
/// only those sorted.
pub(super) fn ranked(mut hits: Vec<SearchHit>, limit: usize) -> Vec<SearchHit> {
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit, by_hit);
        hits.truncate(limit);
    }
    hits.sort_by(by_hit);
    hits
}

/// The best `limit` matches of `text` over names and descriptions;
/// archived nodes are left out.
pub fn search(c: &Catalog, text: &str, limit: usize) -> Vec<SearchHit> {
    search_within(c, text, limit, Tier::HumanOnly)
}

/// [`search`] over the nodes at or below `cap`. Bodies are searched
/// through an index the caller keeps ([`Bodies::search`]).
pub fn search_within(c: &Catalog, text: &str, limit: usize, cap: Tier) -> Vec<SearchHit> {
    let matcher = Matcher::new(text);
    if matcher.is_empty() {
        return Vec::new();
    }
    let words = lower_words(text);
    let mut lower = String::new();
    let hits = c
        .nodes()
        .filter(|n| n.status != Status::Archived && n.tier <= cap)
        .filter_map(|n| {
            let in_desc = holds_words(&n.description, &words, &mut lower);
            scored(n, matcher.score(n.name.as_str()), in_desc, false, words.len())
        })
        .collect();
    ranked(hits, limit)
}

/// [`search`] over names, descriptions and bodies, for a reader of every
/// tier this session opens. Bodies are kept in the encrypted blobs, not the
/// catalog: CPU- and I/O-heavy, it decrypts each readable node once (a
/// long-lived caller keeps a [`Bodies`] index and searches it).
pub fn search_with_bodies(
    store: &crate::store::Store,
    text: &str,
    limit: usize,
) -> crate::error::Result<Vec<SearchHit>> {
    let mut bodies = Bodies::new();
    bodies.refresh(store, Tier::HumanOnly);
    Ok(bodies.search(text, limit))
}
