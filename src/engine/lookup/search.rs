//! Search over readable nodes, ranked: names match fuzzily (`ordr srv` finds
//! `orders-service`), descriptions match by words (every word of the query
//! appears, in any case). A name match weighs more. CPU-bound: one pass over
//! the catalog.

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use crate::model::{NodeSummary, Status};
use crate::store::Catalog;

/// A ranked search result.
#[derive(Clone, Debug)]
pub struct SearchHit {
    pub node: NodeSummary,
    pub score: i64,
    /// Whether the name (not only the description) matched.
    pub in_name: bool,
}

/// Whether every character of `needle` occurs in `hay` in order (ASCII case-insensitive):
/// a cheap test that rules out most candidates before scoring.
fn subsequence(needle: &[u8], hay: &[u8]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h.eq_ignore_ascii_case(n)))
}

/// The score of each query word found in a description.
const DESCRIPTION_HIT: i64 = 40;

/// ASCII case-insensitive substring test (names and queries are ASCII; other
/// characters must match exactly).
fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle))
}

/// The best `limit` matches of `text`; archived nodes are left out.
pub fn search(c: &Catalog, text: &str, limit: usize) -> Vec<SearchHit> {
    let needle: String = text.trim().to_lowercase();
    if needle.is_empty() {
        return Vec::new();
    }
    // Spaces separate words for people; the matcher wants one run of characters.
    let compact: String = needle.chars().filter(|c| !c.is_whitespace()).collect();
    let words: Vec<&str> = needle.split_whitespace().collect();
    let matcher = SkimMatcherV2::default().ignore_case();
    let mut hits: Vec<SearchHit> = Vec::new();
    for n in c.nodes().filter(|n| n.status != Status::Archived) {
        let name_score = subsequence(compact.as_bytes(), n.name.as_str().as_bytes())
            .then(|| matcher.fuzzy_match(n.name.as_str(), &compact))
            .flatten();
        let desc_score = words
            .iter()
            .all(|w| contains_ignore_case(n.description.as_bytes(), w.as_bytes()))
            .then_some(DESCRIPTION_HIT * words.len() as i64);
        let score = match (name_score, desc_score) {
            (None, None) => continue,
            (Some(a), b) => 2 * a + b.unwrap_or(0) / 2,
            (None, Some(b)) => b,
        };
        hits.push(SearchHit {
            node: n.clone(),
            score,
            in_name: name_score.is_some(),
        });
    }
    let by_rank = |a: &SearchHit, b: &SearchHit| b.score.cmp(&a.score).then_with(|| a.node.name.cmp(&b.node.name));
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit, by_rank);
        hits.truncate(limit);
    }
    hits.sort_by(by_rank);
    hits
}
