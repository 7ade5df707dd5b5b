//! "Did you mean" candidates for names, relations, types and flags the user
//! mistyped: matches of the one matcher (either way round) and small edit
//! distances.

use super::edit_distance::{EditPattern, edit_distance};
use crate::lookup::matcher::{Matcher, in_order};

/// Up to three known names closest to `wanted`, best first. CPU: one pass
/// over `known`; a name is scored only when its characters and the wanted
/// word's can match in order (what the matcher requires) and its edit
/// distance is computed only when the lengths are close enough (bit-parallel
/// for ASCII), so 100k names cost a few milliseconds.
pub fn similar<'a>(wanted: &str, known: impl Iterator<Item = &'a str>) -> Vec<String> {
    let matcher = Matcher::new(wanted);
    let wanted_len = wanted.chars().count();
    // Two edits, or up to half the word for longer words.
    let limit = (wanted_len / 2).max(2);
    let pattern = EditPattern::new(wanted);
    let mut scored: Vec<(i64, &str)> = known
        .filter_map(|k| {
            let fuzzy = matcher
                .score(k)
                .or_else(|| in_order(wanted, k).then(|| Matcher::new(k).score(wanted)).flatten());
            let close = k.chars().count().abs_diff(wanted_len) <= limit
                && match &pattern {
                    Some(p) if k.is_ascii() => p.distance(k),
                    _ => edit_distance(k, wanted),
                } <= limit;
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

    /// The suggestions as first written: every name scored, every distance
    /// computed.
    fn similar_by_full_scan<'a>(wanted: &str, known: impl Iterator<Item = &'a str>) -> Vec<String> {
        let matcher = Matcher::new(wanted);
        let mut scored: Vec<(i64, &str)> = known
            .filter_map(|k| {
                let fuzzy = matcher.score(k).or_else(|| Matcher::new(k).score(wanted));
                let close = edit_distance(k, wanted) <= (wanted.chars().count() / 2).max(2);
                match (fuzzy, close) {
                    (Some(s), _) => Some((s + if close { 100 } else { 0 }, k)),
                    (None, true) => Some((50, k)),
                    (None, false) => None,
                }
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        let mut seen = std::collections::HashSet::new();
        scored.retain(|(_, k)| seen.insert(*k));
        scored.into_iter().take(3).map(|(_, k)| k.to_owned()).collect()
    }

    #[test]
    fn the_prefilters_change_no_suggestion() {
        let words = [
            "orders", "service", "api", "gateway", "billing", "café", "queue", "retry", "x",
        ];
        let mut names: Vec<String> = Vec::new();
        for (i, a) in words.iter().enumerate() {
            for (j, b) in words.iter().enumerate() {
                names.push(format!("{a}-{b}"));
                names.push(format!("{a}{}", i * 7 + j));
            }
        }
        names.push("ORDERS-Service".into());
        for wanted in [
            "ordres-service",
            "gatway",
            "api",
            "q",
            "qeueu-retry",
            "cafe-x",
            "billng12",
            "zzzz",
            "Orders",
            "service-api",
            "x-x",
            "retry-queue-gateway-service-billing-orders-api-cafe-x-long-name-over-sixty-four-bytes-of-text",
        ] {
            assert_eq!(
                similar(wanted, names.iter().map(String::as_str)),
                similar_by_full_scan(wanted, names.iter().map(String::as_str)),
                "{wanted:?}"
            );
        }
    }
}
