//! The search index a long-lived searcher keeps (the MCP server one per
//! session, `graphex search` one per run): every readable node's name, and
//! its description and body lowercased in one text, made once per commit
//! and tier and searched per call by [`Bodies::search`] with the ranking of
//! [`super::search`].
//!
//! Bodies live in the blobs, not the catalog, so reading them all is slow
//! (one decryption each): [`Bodies::refresh`] reads only the nodes whose
//! version changed since, and copies the others' from the index it
//! replaces. A search then passes over no node's text one by one: the
//! longest word of the query is looked for in the one text (a vectorised
//! substring search), the descriptions and bodies holding it are checked
//! for the other words, and a name is scored only when it holds every
//! character of the query (a bit set per name, made once).

use std::sync::Arc;

use aho_corasick::{AhoCorasick, Input};
use rustc_hash::FxHashMap;

use super::matcher::{KIND_STEP, Kind, Matcher, fold, lower_words};
use super::search::{SearchHit, half_description, ranked, scored};
use crate::model::{NodeId, NodeSummary, Status, Tier};
use crate::store::Store;

/// One readable node: its summary, where its description and body are in
/// the index's text.
#[derive(Debug)]
struct Row {
    node: Arc<NodeSummary>,
    /// `text[start..desc_end]` is the description, `text[desc_end + 1..body_end]` the body.
    start: usize,
    desc_end: usize,
    body_end: usize,
}

/// The readable nodes of one commit and tier, with their lowercased
/// descriptions and bodies.
#[derive(Debug, Default)]
pub struct Bodies {
    rows: Vec<Row>,
    /// The characters of each row's name ([`char_set`]), apart: the one
    /// thing a search reads of every row.
    chars: Vec<u64>,
    /// Each row's description and body, each followed by a newline: a query
    /// word holds no whitespace, so no match spans two of them.
    text: String,
    /// The commit and tier of the last refresh: nothing to read again
    /// until another commit.
    seen: Option<(u64, Tier)>,
    /// A refresh done a slice at a time ([`Bodies::refresh_some`]): the
    /// index it will replace keeps answering meanwhile.
    building: Option<Box<Building>>,
}

/// A refresh under way: the next index, made up to `next` of `slots`.
#[derive(Debug)]
struct Building {
    of: (u64, Tier),
    slots: Vec<u32>,
    next: usize,
    /// The rows of the index before, by node: its version and row.
    kept: FxHashMap<NodeId, (u64, usize)>,
    new: Bodies,
}

/// The bit of a folded character in a name's set: one each for `a`–`z`,
/// `0`–`9` and `-`, the rest shared (a set only rules names out).
fn bit(c: char) -> u64 {
    let i = match c {
        'a'..='z' => c as u32 - 'a' as u32,
        '0'..='9' => 26 + c as u32 - '0' as u32,
        '-' => 36,
        _ => 37 + c as u32 % 27,
    };
    1 << i
}

/// The set of the folded characters of `text`.
fn char_set(text: &str) -> u64 {
    if text.is_ascii() {
        text.bytes().fold(0, |s, b| s | bit(b.to_ascii_lowercase() as char))
    } else {
        text.chars().fold(0, |s, c| s | bit(fold(c)))
    }
}

/// Appends `s` lowercased (as `str::to_lowercase` does) to `text`.
fn push_lower(text: &mut String, s: &str) {
    if s.is_ascii() {
        let start = text.len();
        text.push_str(s);
        text[start..].make_ascii_lowercase();
    } else {
        text.push_str(&s.to_lowercase());
    }
}

impl Bodies {
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes the index of every node at or below `cap` (not archived) as
    /// of the store's commit, reading the body of each node whose version
    /// the index did not hold yet; returns how many were read. I/O- and
    /// CPU-heavy on the first call over a large store; a copy of the text
    /// after another commit; nothing when neither commit nor tier changed.
    pub fn refresh(&mut self, store: &Store, cap: Tier) -> usize {
        let mut read = 0;
        while !self.refresh_some(store, cap, usize::MAX, &mut read) {}
        read
    }

    /// Whether the index holds the store's commit at `cap`.
    pub fn is_current(&self, store: &Store, cap: Tier) -> bool {
        self.seen == Some((store.seen_seq(), cap))
    }

    /// [`Bodies::refresh`] a slice at a time, for a searcher that must stay
    /// responsive (the console's engine thread): reads at most `budget`
    /// bodies (adding them to `read`) and returns whether the index is now
    /// current. Until it is, [`Bodies::search`] answers from the index
    /// before; a commit or a tier change in between starts the slices over.
    pub fn refresh_some(&mut self, store: &Store, cap: Tier, budget: usize, read: &mut usize) -> bool {
        let of = (store.seen_seq(), cap);
        if self.seen == Some(of) {
            self.building = None;
            return true;
        }
        let c = store.catalog();
        if self.building.as_ref().is_none_or(|b| b.of != of) {
            self.building = Some(Box::new(Building {
                of,
                slots: c.node_slots().collect(),
                next: 0,
                kept: self
                    .rows
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (r.node.id, (r.node.version, i)))
                    .collect(),
                new: Bodies::default(),
            }));
        }
        let Bodies {
            rows, text, building, ..
        } = self;
        let Some(b) = building.as_mut() else {
            return false;
        };
        let mut spent = 0;
        while b.next < b.slots.len() && spent < budget {
            let slot = b.slots[b.next];
            b.next += 1;
            let Some(node) = c.shared_at(slot) else { continue };
            if node.tier > cap || node.status == Status::Archived {
                continue;
            }
            let new = &mut b.new;
            let start = new.text.len();
            push_lower(&mut new.text, &node.description);
            let desc_end = new.text.len();
            new.text.push('\n');
            // A body the index before held at the same version is copied.
            match b.kept.get(&node.id) {
                Some(&(version, i)) if version == node.version => {
                    new.text.push_str(&text[rows[i].desc_end + 1..rows[i].body_end]);
                }
                _ => {
                    // A blob that fails to open is searched without its
                    // body; `doctor` and `show` report it.
                    if let Some(body) = store.node_by_id(&node.id).ok().and_then(|full| full.body) {
                        push_lower(&mut new.text, &body);
                    }
                    spent += 1;
                }
            }
            let body_end = new.text.len();
            new.text.push('\n');
            new.chars.push(char_set(node.name.as_str()));
            new.rows.push(Row {
                node,
                start,
                desc_end,
                body_end,
            });
        }
        *read += spent;
        if b.next < b.slots.len() {
            return false;
        }
        let Some(done) = self.building.take() else {
            return false;
        };
        *self = done.new;
        self.seen = Some(of);
        true
    }

    /// The best `limit` matches of `text` among the indexed nodes, as
    /// [`super::search`] ranks them (names, then descriptions, then bodies).
    pub fn search(&self, text: &str, limit: usize) -> Vec<SearchHit> {
        let matcher = Matcher::new(text);
        if matcher.is_empty() {
            return Vec::new();
        }
        let words = lower_words(text);
        let mut in_text = self.holding(&words);
        // Folded as the matcher folds them, so a name it would match is
        // never ruled out.
        let query_chars = text.split_whitespace().fold(0, |s, w| s | char_set(w));
        let mut hits = Vec::new();
        // Names that may match only fuzzily, scored last and only if they can rank.
        let mut weak = Vec::new();
        for (i, chars) in self.chars.iter().enumerate() {
            let name = self.rows[i].node.name.as_str();
            if chars & query_chars != query_chars || !matcher.may_match(name) {
                continue;
            }
            let Some(name_score) = matcher.score_from(name, Kind::Segment) else {
                weak.push(i);
                continue;
            };
            let (in_desc, in_body) = in_text.remove(&i).unwrap_or_default();
            hits.extend(scored(
                &self.rows[i].node,
                Some(name_score),
                in_desc,
                in_body,
                words.len(),
            ));
        }
        // A fuzzy name match scores below KIND_STEP, plus at most half a
        // description's: with `limit` names above that, none could rank.
        let above_fuzzy = KIND_STEP + half_description(words.len());
        if hits.iter().filter(|h| h.score >= above_fuzzy).count() < limit {
            for i in weak {
                let (in_desc, in_body) = in_text.remove(&i).unwrap_or_default();
                let name_score = matcher.score(self.rows[i].node.name.as_str());
                hits.extend(scored(&self.rows[i].node, name_score, in_desc, in_body, words.len()));
            }
        }
        for (i, (in_desc, in_body)) in in_text {
            hits.extend(scored(&self.rows[i].node, None, in_desc, in_body, words.len()));
        }
        ranked(hits, limit)
    }

    /// The rows whose description, body or both hold every one of `words`
    /// (lowercase): the longest word looked for in the whole text, each
    /// description or body holding it checked for the others.
    fn holding(&self, words: &[String]) -> FxHashMap<usize, (bool, bool)> {
        let mut found: FxHashMap<usize, (bool, bool)> = FxHashMap::default();
        let Some(longest) = words.iter().max_by_key(|w| w.len()) else {
            return found;
        };
        let Ok(finder) = AhoCorasick::new([longest]) else {
            return found;
        };
        let mut at = 0;
        while let Some(m) = finder.find(Input::new(&self.text).range(at..)) {
            // The row whose description or body the match is in.
            let i = self.rows.partition_point(|r| r.start <= m.start()) - 1;
            let row = &self.rows[i];
            let (in_desc, range) = if m.start() < row.desc_end {
                (true, row.start..row.desc_end)
            } else {
                (false, row.desc_end + 1..row.body_end)
            };
            at = range.end + 1;
            let field = &self.text[range];
            if words.iter().all(|w| field.contains(w.as_str())) {
                let e = found.entry(i).or_default();
                if in_desc {
                    e.0 = true;
                } else {
                    e.1 = true;
                }
            }
            if at >= self.text.len() {
                break;
            }
        }
        found
    }
}

#[cfg(test)]
#[path = "bodies_tests.rs"]
mod tests;
