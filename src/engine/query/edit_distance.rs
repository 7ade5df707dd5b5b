//! Levenshtein distance: the plain dynamic programme for any text, and a
//! bit-parallel one (Myers, in Hyyrö's form for whole strings) for a
//! pattern of up to 64 bytes compared with many candidates, as the
//! near-duplicate lint does against every name in a store.

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// An ASCII pattern of 1 to 64 bytes, ready to be compared with many texts
/// in time linear in each text's length.
pub struct EditPattern {
    /// For each byte value, the positions of the pattern that hold it.
    peq: [u64; 256],
    len: usize,
}

impl EditPattern {
    /// `None` when `pattern` is empty, longer than 64 bytes, or not ASCII
    /// (use [`edit_distance`] then).
    pub fn new(pattern: &str) -> Option<Self> {
        let bytes = pattern.as_bytes();
        if bytes.is_empty() || bytes.len() > 64 || !pattern.is_ascii() {
            return None;
        }
        let mut peq = [0u64; 256];
        for (i, b) in bytes.iter().enumerate() {
            peq[usize::from(*b)] |= 1 << i;
        }
        Some(Self { peq, len: bytes.len() })
    }

    /// The Levenshtein distance from the pattern to `text` (bytes; for
    /// ASCII text the same as characters).
    pub fn distance(&self, text: &str) -> usize {
        let top = 1u64 << (self.len - 1);
        let (mut pv, mut mv) = (u64::MAX, 0u64);
        let mut score = self.len;
        for &c in text.as_bytes() {
            let eq = self.peq[usize::from(c)];
            let xv = eq | mv;
            let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
            let mut ph = mv | !(xh | pv);
            let mut mh = pv & xh;
            if ph & top != 0 {
                score += 1;
            } else if mh & top != 0 {
                score -= 1;
            }
            // Row 0 of the whole-string table grows by one per text byte.
            ph = (ph << 1) | 1;
            mh <<= 1;
            pv = mh | !(xv | ph);
            mv = ph & xv;
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn known_distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        let p = EditPattern::new("kitten").unwrap();
        assert_eq!(p.distance("sitting"), 3);
        assert_eq!(p.distance(""), 6);
        assert_eq!(p.distance("kitten"), 0);
        assert!(EditPattern::new("").is_none());
        assert!(EditPattern::new(&"a".repeat(65)).is_none());
        assert!(EditPattern::new("café").is_none());
    }

    proptest! {
        #[test]
        fn bit_parallel_agrees_with_the_table(a in "[a-d-]{1,64}", b in "[a-d-]{0,70}") {
            let p = EditPattern::new(&a).unwrap();
            prop_assert_eq!(p.distance(&b), edit_distance(&a, &b));
        }
    }
}
