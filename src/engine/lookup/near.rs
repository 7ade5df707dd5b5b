//! Near-duplicate names: two names that differ only by separators, or by a
//! small edit. Shared by the proposal lint (a new name against the graph)
//! and the curator lists (listed entries against each other).

use std::collections::HashMap;

use crate::query::{EditPattern, edit_distance};

/// Names indexed once so that each checked name is compared only with names
/// of about its length, and found at once when it differs by separators
/// alone. A check costs O(w) distance computations, w being the number of
/// indexed names within the length window (bit-parallel, no allocation
/// per compared name); checking every name of an index of n costs O(n·w).
pub struct NearNames {
    /// Names by byte length, each with its place (order of indexing).
    by_len: HashMap<usize, Vec<(usize, String)>>,
    /// Names by their letters and digits alone: place, name.
    by_squashed: HashMap<String, Vec<(usize, String)>>,
}

fn squashed(s: &str) -> String {
    s.chars().filter(char::is_ascii_alphanumeric).collect()
}

impl NearNames {
    /// Indexes `names`; each one's place is its position in the iteration.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut by_len: HashMap<usize, Vec<(usize, String)>> = HashMap::new();
        let mut by_squashed: HashMap<String, Vec<(usize, String)>> = HashMap::new();
        for (i, name) in names.into_iter().enumerate() {
            by_len.entry(name.len()).or_default().push((i, name.to_owned()));
            by_squashed
                .entry(squashed(name))
                .or_default()
                .push((i, name.to_owned()));
        }
        Self { by_len, by_squashed }
    }

    /// An indexed name that differs from `name` only by separators or by a
    /// small edit (the first such name in indexing order).
    pub fn duplicate_of(&self, name: &str) -> Option<&str> {
        self.find(name, None).map(|(_, o)| o)
    }

    /// [`NearNames::duplicate_of`] for the indexed name at `place`: the
    /// first other indexed name close to it, with its place.
    pub fn duplicate_besides(&self, name: &str, place: usize) -> Option<(usize, &str)> {
        self.find(name, Some(place))
    }

    fn find(&self, name: &str, skip: Option<usize>) -> Option<(usize, &str)> {
        let budget = (name.len() / 6).clamp(1, 3);
        let near_len = |other: &str| other.len().abs_diff(name.len()) <= budget;
        let other = |i: &usize| Some(*i) != skip;
        let mut best: Option<(usize, &str)> = self
            .by_squashed
            .get(&squashed(name))
            .and_then(|v| v.iter().find(|(i, o)| other(i) && near_len(o)))
            .map(|(i, o)| (*i, o.as_str()));
        if name.len() >= 5 {
            let pattern = EditPattern::new(name);
            let close = |other: &str| match &pattern {
                Some(p) => p.distance(other) <= budget,
                None => edit_distance(other, name) <= budget,
            };
            for len in name.len().saturating_sub(budget)..=name.len() + budget {
                let found = self.by_len.get(&len).and_then(|v| {
                    v.iter()
                        .take_while(|(i, _)| best.is_none_or(|(b, _)| *i < b))
                        .find(|(i, o)| other(i) && close(o))
                });
                if let Some((i, o)) = found {
                    best = Some((*i, o.as_str()));
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::NearNames;

    #[test]
    fn separators_and_small_edits_are_near_and_a_name_is_not_its_own_duplicate() {
        let idx = NearNames::new(["orders-service", "billing", "order_service", "ledger-core"]);
        assert_eq!(idx.duplicate_of("orders-servce"), Some("orders-service"));
        assert_eq!(
            idx.duplicate_of("ordersservice"),
            Some("orders-service"),
            "separators only"
        );
        assert_eq!(idx.duplicate_of("payments-gateway"), None);
        assert_eq!(idx.duplicate_besides("orders-service", 0), Some((2, "order_service")));
        assert_eq!(idx.duplicate_besides("order_service", 2), Some((0, "orders-service")));
        assert_eq!(idx.duplicate_besides("billing", 1), None, "only itself is that close");
    }
}
