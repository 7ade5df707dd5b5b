//! The one fuzzy matcher: every place a person types part of a name (the
//! console's jump, pickers, palette, help and completion, `graphex search`)
//! ranks candidates with it, so a query finds the same things everywhere.
//!
//! A query is split on whitespace into words; a text matches when every
//! word does, in any order (`ordr srv` and `srv ordr` both find
//! `orders-service`). Matches rank by kind, then by how well the letters
//! fall (skim's scoring: runs and segment starts weigh more):
//! 1. exact: the text is the query, ignoring case;
//! 2. prefix: the text starts with the query;
//! 3. segment: every word starts a segment of the text (after a `-`, `_`,
//!    space or other separator, at a lowercase-to-uppercase step, or where
//!    letters and digits meet);
//! 4. fuzzy: every word's characters come in the text in order.
//!
//! Equal scores fall back to the shorter text, then the alphabetical one
//! ([`by_rank`]). Case is ignored for every script (a character is
//! compared by the first character of its lowercase form, so positions
//! stay those of the text).

use std::cmp::Ordering;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

/// The kinds of match, weakest first: a score's kind is `score / KIND_STEP`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Fuzzy = 0,
    Segment = 1,
    Prefix = 2,
    Exact = 3,
}

/// What one kind of match is worth above the one below it; the quality
/// within a kind stays under it.
pub const KIND_STEP: i64 = 10_000;

/// A match: its score and the character positions of the text that
/// matched (sorted, each once), for highlighting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub score: i64,
    pub indices: Vec<usize>,
}

impl Hit {
    pub fn kind(&self) -> Kind {
        kind_of(self.score)
    }
}

/// The kind of match a score stands for.
pub fn kind_of(score: i64) -> Kind {
    match score / KIND_STEP {
        i64::MIN..=0 => Kind::Fuzzy,
        1 => Kind::Segment,
        2 => Kind::Prefix,
        _ => Kind::Exact,
    }
}

/// One word of the query, folded to lowercase.
#[derive(Debug)]
struct Word {
    text: String,
    chars: Vec<char>,
}

/// A query, prepared once and matched against many texts.
pub struct Matcher {
    words: Vec<Word>,
    /// The words joined by one space: what an exact or prefix match is.
    whole: String,
    whole_chars: Vec<char>,
    skim: SkimMatcherV2,
}

impl std::fmt::Debug for Matcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Matcher").field("whole", &self.whole).finish()
    }
}

/// A character folded for comparison: its lowercase form's first character.
pub fn fold(c: char) -> char {
    if c.is_ascii() {
        c.to_ascii_lowercase()
    } else {
        c.to_lowercase().next().unwrap_or(c)
    }
}

fn fold_str(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.chars().map(fold).collect()
    }
}

/// Whether the characters of `word` (folded) come in `text` in order,
/// ignoring case: the cheap test that rules out most texts before any
/// scoring, without copying the text.
fn in_order_folded(text: &str, word: &[char]) -> bool {
    let mut want = word.iter().peekable();
    if text.is_ascii() && word.iter().all(char::is_ascii) {
        for b in text.bytes() {
            match want.peek() {
                Some(w) if b.to_ascii_lowercase() == **w as u8 => {
                    want.next();
                }
                Some(_) => {}
                None => break,
            }
        }
    } else {
        for c in text.chars() {
            match want.peek() {
                Some(w) if fold(c) == **w => {
                    want.next();
                }
                Some(_) => {}
                None => break,
            }
        }
    }
    want.peek().is_none()
}

/// Whether the characters of `typed` come in `text` in order, ignoring
/// case (the matcher's prefilter for a one-word query).
pub fn in_order(text: &str, typed: &str) -> bool {
    let word: Vec<char> = typed.chars().map(fold).collect();
    in_order_folded(text, &word)
}

/// Whether `text` holds each of `words` (lowercase) as a substring,
/// ignoring case: how descriptions are searched, beside names. `lower` is a
/// buffer kept from text to text: an ASCII text (the usual one) is
/// lowercased into it without an allocation.
pub fn holds_words(text: &str, words: &[String], lower: &mut String) -> bool {
    lower.clear();
    if text.is_ascii() {
        lower.push_str(text);
        lower.make_ascii_lowercase();
    } else {
        lower.push_str(&text.to_lowercase());
    }
    words.iter().all(|w| lower.contains(w.as_str()))
}

/// The words of `query`, lowercase, for [`holds_words`].
pub fn lower_words(query: &str) -> Vec<String> {
    query.split_whitespace().map(str::to_lowercase).collect()
}

/// Whether a segment of the text starts at `c`, given the character before.
fn starts_segment(prev: Option<char>, c: char) -> bool {
    match prev {
        None => true,
        Some(p) => {
            (!p.is_alphanumeric() && c.is_alphanumeric())
                || (p.is_lowercase() && c.is_uppercase())
                || (p.is_alphabetic() && c.is_numeric())
                || (p.is_numeric() && c.is_alphabetic())
        }
    }
}

/// The ranking order: higher score first, then the shorter text, then the
/// alphabetical one.
pub fn by_rank(a: (i64, &str), b: (i64, &str)) -> Ordering {
    b.0.cmp(&a.0)
        .then_with(|| a.1.chars().count().cmp(&b.1.chars().count()))
        .then_with(|| a.1.cmp(b.1))
}

impl Matcher {
    pub fn new(query: &str) -> Self {
        let words: Vec<Word> = query
            .split_whitespace()
            .map(|w| {
                let text = fold_str(w);
                let chars = text.chars().collect();
                Word { text, chars }
            })
            .collect();
        let whole = words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
        Matcher {
            words,
            whole_chars: whole.chars().collect(),
            whole,
            skim: SkimMatcherV2::default().ignore_case(),
        }
    }

    /// Whether nothing but whitespace was typed: every text matches, with
    /// score 0 and no positions.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether `text` may match: each word's characters in order. Cheap
    /// (no allocation for ASCII), and true of every text that matches.
    pub fn may_match(&self, text: &str) -> bool {
        self.words.iter().all(|w| in_order_folded(text, &w.chars))
    }

    /// The score of `text`, or none when it does not match.
    pub fn score(&self, text: &str) -> Option<i64> {
        self.eval(text, Kind::Fuzzy, false).map(|h| h.score)
    }

    /// The score of `text` when it matches at least as `floor` does, else
    /// none; a floor above [`Kind::Fuzzy`] skips the costly fuzzy scoring.
    pub fn score_from(&self, text: &str, floor: Kind) -> Option<i64> {
        self.eval(text, floor, false).map(|h| h.score)
    }

    /// The score of `text` and the positions that matched.
    pub fn hit(&self, text: &str) -> Option<Hit> {
        self.eval(text, Kind::Fuzzy, true)
    }

    /// The items that match, with their scores (unordered): only those
    /// matching better than fuzzily when there are at least `limit` of
    /// them (a fuzzy match could not rank among the first `limit` then),
    /// else every match. CPU: one pass over the items, an item without each
    /// word's characters in order passed over in place; the costly fuzzy
    /// scoring only for the rest, and only when the better matches leave
    /// room.
    pub fn matching<'t, T>(
        &self,
        items: impl IntoIterator<Item = T>,
        text: impl Fn(&T) -> &'t str,
        limit: usize,
    ) -> Vec<(i64, T)> {
        let mut strong: Vec<(i64, T)> = Vec::new();
        let mut weak: Vec<T> = Vec::new();
        for t in items {
            let s = text(&t);
            if !self.may_match(s) {
                continue;
            }
            match self.score_from(s, Kind::Segment) {
                Some(score) => strong.push((score, t)),
                None => weak.push(t),
            }
        }
        if strong.len() < limit {
            strong.extend(weak.into_iter().filter_map(|t| {
                let s = text(&t);
                let hit = if s.is_ascii() {
                    self.fuzzy(s, false)
                } else {
                    self.fuzzy(&fold_str(s), false)
                };
                hit.map(|h| (h.score, t))
            }));
        }
        strong
    }

    fn eval(&self, text: &str, floor: Kind, with_indices: bool) -> Option<Hit> {
        if self.is_empty() {
            return Some(Hit {
                score: 0,
                indices: Vec::new(),
            });
        }
        if !self.may_match(text) {
            return None;
        }
        // An ASCII text (the usual name) is read in place; another is
        // folded once, character for character, so positions stay its own.
        if text.is_ascii() {
            self.eval_in(text.as_bytes(), text, floor, with_indices)
        } else {
            let chars: Vec<char> = text.chars().collect();
            self.eval_in(&chars, &fold_str(text), floor, with_indices)
        }
    }

    /// Scores `text` (its characters) against the query; `skimmed` is the
    /// text skim reads (its ASCII case ignored).
    fn eval_in<T: Copy + Into<char>>(&self, text: &[T], skimmed: &str, floor: Kind, with_indices: bool) -> Option<Hit> {
        let n = self.whole_chars.len();
        let same = |t: &[T]| t.iter().zip(&self.whole_chars).all(|(c, w)| fold((*c).into()) == *w);
        let whole = |kind: Kind| Hit {
            score: kind as i64 * KIND_STEP,
            indices: if with_indices { (0..n).collect() } else { Vec::new() },
        };
        if text.len() >= n && same(&text[..n]) {
            return Some(whole(if text.len() == n { Kind::Exact } else { Kind::Prefix }));
        }
        let mut hit = self.segments(text).or_else(|| {
            (floor == Kind::Fuzzy)
                .then(|| self.fuzzy(skimmed, with_indices))
                .flatten()
        })?;
        if !with_indices {
            hit.indices.clear();
        }
        Some(hit)
    }

    /// Every word at the start of a segment: scored by how early each one
    /// is, the first segment best.
    fn segments<T: Copy + Into<char>>(&self, text: &[T]) -> Option<Hit> {
        let mut quality = 0i64;
        let mut indices = Vec::new();
        for w in &self.words {
            let n = w.chars.len();
            let at_word = |s: usize| {
                text.get(s..s + n)
                    .is_some_and(|t| t.iter().zip(&w.chars).all(|(c, w)| fold((*c).into()) == *w))
            };
            let starts = |i: &usize| starts_segment(i.checked_sub(1).map(|p| text[p].into()), text[*i].into());
            // The word is tried first (cheap, and rarely there), the segment after.
            let at = (0..text.len()).find(|i| at_word(*i) && starts(i))?;
            let rank = (0..at).filter(starts).count();
            // Longer words say more; an earlier segment fits better.
            quality += 16 * n as i64 - 4 * (rank as i64).min(15) - (at as i64).min(31);
            indices.extend(at..at + n);
        }
        indices.sort_unstable();
        indices.dedup();
        Some(Hit {
            score: Kind::Segment as i64 * KIND_STEP + quality.clamp(0, KIND_STEP - 1),
            indices,
        })
    }

    /// Every word's characters in order: skim's score of each, summed.
    fn fuzzy(&self, text: &str, with_indices: bool) -> Option<Hit> {
        let mut quality = 0i64;
        let mut indices = Vec::new();
        for w in &self.words {
            if with_indices {
                let (s, idx) = self.skim.fuzzy_indices(text, &w.text)?;
                quality += s;
                indices.extend(idx);
            } else {
                quality += self.skim.fuzzy_match(text, &w.text)?;
            }
        }
        indices.sort_unstable();
        indices.dedup();
        Some(Hit {
            score: quality.clamp(0, KIND_STEP - 1),
            indices,
        })
    }
}

#[cfg(test)]
#[path = "matcher_tests.rs"]
mod tests;
