//! Token counting with an embedded BPE vocabulary (o200k, prepared at build
//! time by the bpe-openai crate: nothing is downloaded, and the counts are
//! tiktoken's exactly). The vocabulary loads once per process on first use
//! (about 40 ms; an unlock session loads it once for all its commands). A
//! chars/4 estimate exists for configurations that ask for it.

pub use crate::config::Counter;

impl Counter {
    /// The number of tokens in `text`.
    pub fn count(self, text: &str) -> usize {
        match self {
            Counter::Bpe => bpe_openai::o200k_base().count(text),
            Counter::Estimate => text.chars().count().div_ceil(4),
        }
    }

    /// Loads the vocabulary now rather than at the first count (a session
    /// that lives across commands, before it answers the first).
    pub fn warm(self) {
        let _ = self.count("warm");
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
