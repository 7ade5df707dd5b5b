//! Token counting with an embedded BPE vocabulary (o200k, from the
//! tiktoken-rs crate: nothing is downloaded). The vocabulary loads once per
//! process on first use (tens of milliseconds). A chars/4 estimate exists for
//! configurations that ask for it.

pub use crate::config::Counter;

impl Counter {
    /// The number of tokens in `text`.
    pub fn count(self, text: &str) -> usize {
        match self {
            Counter::Bpe => tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len(),
            Counter::Estimate => text.chars().count().div_ceil(4),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_exact_and_additive_enough() {
        assert_eq!(Counter::Bpe.count(""), 0);
        assert_eq!(Counter::Bpe.count("hello world"), 2);
        let long = "All monetary values stored as integers in cents (1 USD = 100 cents)";
        let n = Counter::Bpe.count(long);
        assert!((10..30).contains(&n), "{n}");
        assert_eq!(Counter::Estimate.count("abcdefgh"), 2);
    }
}
