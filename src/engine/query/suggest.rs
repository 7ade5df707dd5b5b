//! "Did you mean" candidates for names, relations, types and flags the user
//! mistyped: fuzzy matches and small edit distances.

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::edit_distance::edit_distance;

/// Up to three known names closest to `wanted`, best first.
pub fn similar<'a>(wanted: &str, known: impl Iterator<Item = &'a str>) -> Vec<String> {
    let matcher = SkimMatcherV2::default();
    let mut scored: Vec<(i64, &str)> = known
        .filter_map(|k| {
            let fuzzy = matcher
                .fuzzy_match(k, wanted)
                .or_else(|| matcher.fuzzy_match(wanted, k));
            // Two edits, or up to half the word for longer words.
            let close = edit_distance(k, wanted) <= (wanted.chars().count() / 2).max(2);
            match (fuzzy, close) {
                (Some(s), _) => Some((s + if close { 100 } else { 0 }, k)),
                (None, true) => Some((50, k)),
                (None, false) => None,
            }
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    // The same word can come from several pools (used and known relations).
    let mut seen = std::collections::HashSet::new();
    scored.retain(|(_, k)| seen.insert(*k));
    scored.into_iter().take(3).map(|(_, k)| k.to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_typos_and_fragments() {
        let known = ["orders-service", "currency-utils", "api-gateway"];
        assert_eq!(similar("ordres-service", known.iter().copied())[0], "orders-service");
        assert_eq!(similar("gateway", known.iter().copied())[0], "api-gateway");
        assert!(similar("zzzz", known.iter().copied()).is_empty());
        assert_eq!(
            similar("api-gatewy", ["api-gateway", "api-gateway"].into_iter()),
            ["api-gateway"],
            "no repeats"
        );
    }
}
