//! Names mentioned in free text: every name in one Aho-Corasick automaton,
//! so a text is scanned once however many names there are (linear in the
//! text's length plus the matches). Shared by the proposal lint (names above a text's tier) and
//! the curator lists (glossary terms mentioned without a link).

use aho_corasick::AhoCorasick;

/// Names to look for, in the order given.
pub struct NameScan {
    automaton: Option<AhoCorasick>,
}

/// Whether the byte next to a match ends a word (or there is none).
fn boundary(b: Option<&u8>) -> bool {
    b.is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
}

impl NameScan {
    /// An automaton over `names` (CPU: linear in their total length).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        Self {
            automaton: AhoCorasick::new(names).ok(),
        }
    }

    /// The places (in [`NameScan::new`]'s order) of the names found in
    /// `text` at word boundaries (`-`, a space or punctuation on each side,
    /// or the text's end), overlapping matches included, possibly repeated.
    /// `text` is matched as given: the caller lowercases or normalizes it.
    pub fn find<'t>(&'t self, text: &'t str) -> impl Iterator<Item = usize> + 't {
        let bytes = text.as_bytes();
        self.automaton
            .iter()
            .flat_map(move |a| a.find_overlapping_iter(text))
            .filter(move |m| {
                boundary(m.start().checked_sub(1).and_then(|i| bytes.get(i))) && boundary(bytes.get(m.end()))
            })
            .map(|m| m.pattern().as_usize())
    }
}

#[cfg(test)]
mod tests {
    use super::NameScan;

    #[test]
    fn whole_words_only_overlaps_included() {
        let scan = NameScan::new(["order-batch", "batch", "cycle"]);
        let found = |t: &str| scan.find(t).collect::<Vec<_>>();
        assert_eq!(found("closes an order-batch."), [0, 1]);
        assert_eq!(found("batches and recycled"), Vec::<usize>::new(), "inside a word");
        assert_eq!(found("cycle"), [2]);
        assert!(NameScan::new([]).find("anything").next().is_none());
    }
}
