//! Search over readable nodes, ranked: names by the one matcher
//! ([`super::matcher`]: `ordr srv` finds `orders-service`, exact and prefix
//! matches first), descriptions by words (every word of the query appears,
//! in any case). A name match ranks above a description-only one; a
//! description that also holds the words adds a little to a name's score.
//! CPU-bound: one pass over the catalog, names prefiltered without a copy.
//! [`search_with_bodies`] adds the nodes whose body holds the words, last.

use std::cmp::Ordering;

use super::matcher::{Matcher, by_rank, holds_words, lower_words};
use crate::error::Result;
use crate::model::{NodeSummary, Status};
use crate::store::{Catalog, Store};

/// A ranked search result.
#[derive(Clone, Debug)]
pub struct SearchHit {
    pub node: NodeSummary,
    pub score: i64,
    /// Whether the name (not only the description) matched.
    pub in_name: bool,
}

/// The score of each query word found in a description.
const DESCRIPTION_HIT: i64 = 40;
/// The score of each query word found only in a body (below a description).
const BODY_HIT: i64 = 20;

/// Names first, then the score, then the shorter and the alphabetical name.
fn by_hit(a: &SearchHit, b: &SearchHit) -> Ordering {
    b.in_name
        .cmp(&a.in_name)
        .then_with(|| by_rank((a.score, a.node.name.as_str()), (b.score, b.node.name.as_str())))
}

/// The best `limit` matches of `text`; archived nodes are left out.
pub fn search(c: &Catalog, text: &str, limit: usize) -> Vec<SearchHit> {
    let matcher = Matcher::new(text);
    if matcher.is_empty() {
        return Vec::new();
    }
    let words = lower_words(text);
    let desc_score = DESCRIPTION_HIT * words.len() as i64;
    let mut lower = String::new();
    let mut hits: Vec<SearchHit> = Vec::new();
    for n in c.nodes().filter(|n| n.status != Status::Archived) {
        let name_score = matcher.score(n.name.as_str());
        let in_desc = holds_words(&n.description, &words, &mut lower);
        let score = match (name_score, in_desc) {
            (None, false) => continue,
            (Some(a), d) => a + if d { desc_score / 2 } else { 0 },
            (None, true) => desc_score,
        };
        hits.push(SearchHit {
            node: n.clone(),
            score,
            in_name: name_score.is_some(),
        });
    }
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit, by_hit);
        hits.truncate(limit);
    }
    hits.sort_by(by_hit);
    hits
}

/// [`search`], then the nodes whose body holds every word. Bodies are kept
/// in the encrypted blobs, not the catalog: CPU- and I/O-heavy, it decrypts
/// each readable node that neither its name nor its description matched.
pub fn search_with_bodies(store: &Store, text: &str, limit: usize) -> Result<Vec<SearchHit>> {
    let words = lower_words(text);
    let mut hits = search(store.catalog(), text, usize::MAX);
    if !words.is_empty() {
        let found: rustc_hash::FxHashSet<_> = hits.iter().map(|h| h.node.id).collect();
        let mut lower = String::new();
        for n in store.catalog().nodes() {
            if n.status == Status::Archived || found.contains(&n.id) {
                continue;
            }
            let full = store.node(n.name.as_str())?;
            if full.body.as_deref().is_some_and(|b| holds_words(b, &words, &mut lower)) {
                hits.push(SearchHit {
                    node: n.clone(),
                    score: BODY_HIT * words.len() as i64,
                    in_name: false,
                });
            }
        }
    }
    hits.sort_by(by_hit);
    hits.truncate(limit);
    Ok(hits)
}
