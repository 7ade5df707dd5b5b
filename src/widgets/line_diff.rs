//! The one diff the console draws, wherever two texts are compared (two
//! tiers, a proposal's before and after, two audit records, two versions
//! of a node, two rounds of a conversation): each line escaped, a changed
//! line's changed words stressed against the line it replaces, a kept
//! two-column gutter, and where each change starts, for `n`/`N`.
//!
//! With changes only, each run of unchanged lines folds into one
//! "… N unchanged lines" row, and the last heading in the run (the line
//! that says which node or field the next change belongs to) stays as a
//! hunk header. A diff scrolls by these lines (not by screen rows), so a
//! change `n` moves to is at the top whatever the width.

use similar::{ChangeTag, TextDiff};

use super::word_diff::word_diff;
use super::{RichLine, Tone};

/// Lines kept above a change `n` or `N` moves to.
const CONTEXT: usize = 1;

/// Below this share of words in common, a changed line is shown whole,
/// not as a few kept words among many stressed ones.
const ALIKE: f32 = 0.5;

/// A diff as drawn, and the line each change starts at.
#[derive(Debug, Default, PartialEq)]
pub struct Diff {
    pub lines: Vec<RichLine>,
    pub changes: Vec<usize>,
}

/// Whether a line heads what follows it: a section (`#`), a node in a
/// projection (`- name …` at the margin) or a field holding lines
/// (`body:`).
pub fn heading(line: &str) -> bool {
    !line.starts_with(' ') && (line.starts_with('#') || line.starts_with("- ") || line.ends_with(':'))
}

/// The diff of `a` and `b`; `same` is what an empty one says (its
/// context's words: two tiers, or before and after).
pub fn diff(a: &str, b: &str, same: &str, changes_only: bool) -> Diff {
    diff_headed(a, b, same, changes_only, heading)
}

/// [`diff`] with the text's own rule for which line heads the ones below
/// it (a proposal's JSON: its `"op"` and `"name"` lines).
pub fn diff_headed(a: &str, b: &str, same: &str, changes_only: bool, heads: fn(&str) -> bool) -> Diff {
    let mut out = Diff::default();
    let (mut old, mut new, mut kept) = (Vec::new(), Vec::new(), Vec::new());
    for c in TextDiff::from_lines(a, b).iter_all_changes() {
        let line = escaped(c.value());
        match c.tag() {
            ChangeTag::Equal => {
                change(&mut out, &mut old, &mut new);
                kept.push(line);
            }
            tag => {
                unchanged(&mut out, &mut kept, (changes_only, heads), false);
                if tag == ChangeTag::Delete {
                    old.push(line);
                } else {
                    new.push(line);
                }
            }
        }
    }
    change(&mut out, &mut old, &mut new);
    unchanged(&mut out, &mut kept, (changes_only, heads), true);
    if out.changes.is_empty() {
        out.lines.insert(0, vec![(same.to_owned(), Tone::Ok)]);
    }
    out
}

/// The diff's lines alone, every line kept.
pub fn diff_lines(a: &str, b: &str, same: &str) -> Vec<RichLine> {
    diff(a, b, same, false).lines
}

fn escaped(line: &str) -> String {
    graphex_engine::hygiene::visible_line(line.trim_end_matches('\n')).into_owned()
}

fn fold(out: &mut Diff, n: usize) {
    if n > 0 {
        out.lines.push(vec![(
            format!("  … {n} unchanged line{}", if n == 1 { "" } else { "s" }),
            Tone::Dim,
        )]);
    }
}

/// A run of unchanged lines; `last` when no change follows it.
fn unchanged(out: &mut Diff, kept: &mut Vec<String>, (changes_only, heads): (bool, fn(&str) -> bool), last: bool) {
    if kept.is_empty() {
        return;
    }
    if !changes_only {
        out.lines
            .extend(kept.iter().map(|l| vec![(format!("  {l}"), Tone::Dim)]));
    } else {
        // The heading the next change sits under stays, as a hunk header.
        match kept.iter().rposition(|l| heads(l)).filter(|_| !last) {
            Some(h) => {
                fold(out, h);
                out.lines.push(vec![(format!("  {}", kept[h]), Tone::Heading)]);
                fold(out, kept.len() - h - 1);
            }
            None => fold(out, kept.len()),
        }
    }
    kept.clear();
}

/// One change: the removed lines, then the added ones; the i-th removed
/// and the i-th added line, when alike, with their changed words stressed.
fn change(out: &mut Diff, old: &mut Vec<String>, new: &mut Vec<String>) {
    if old.is_empty() && new.is_empty() {
        return;
    }
    out.changes.push(out.lines.len());
    let pairs: Vec<Option<(RichLine, RichLine)>> = old
        .iter()
        .zip(new.iter())
        .map(|(o, n)| (TextDiff::from_words(o.as_str(), n.as_str()).ratio() >= ALIKE).then(|| word_diff(o, n)))
        .collect();
    let side = |lines: &[String], marker: &str, tone: Tone, pick: &dyn Fn(&(RichLine, RichLine)) -> RichLine| {
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mut row = vec![(marker.to_owned(), tone)];
                match pairs.get(i).and_then(Option::as_ref) {
                    Some(p) => row.extend(pick(p)),
                    None => row.push((l.clone(), tone)),
                }
                row
            })
            .collect::<Vec<_>>()
    };
    let removed = side(old, "- ", Tone::Removed, &|p| p.0.clone());
    let added = side(new, "+ ", Tone::Added, &|p| p.1.clone());
    out.lines.extend(removed);
    out.lines.extend(added);
    old.clear();
    new.clear();
}

/// The line a change is shown from: a line of context above it.
fn target(start: usize) -> usize {
    start.saturating_sub(CONTEXT)
}

/// The first line to show for the next (or previous) change from `scroll`.
pub fn step(changes: &[usize], scroll: usize, forward: bool) -> Option<usize> {
    let mut targets = changes.iter().map(|c| target(*c));
    if forward {
        targets.find(|t| *t > scroll)
    } else {
        targets.rev().find(|t| *t < scroll)
    }
}

/// Which change is at the top (1-based; 0 above the first).
pub fn at(changes: &[usize], scroll: usize) -> usize {
    changes.iter().filter(|c| target(**c) <= scroll).count()
}

/// Where a diff view is: its first line shown and whether unchanged runs
/// are folded. Every diff view keeps one and answers `n`, `N` and `c`
/// through it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffPlace {
    pub scroll: u16,
    pub changes_only: bool,
}

impl DiffPlace {
    /// `n` / `N`: the next or previous change, shown from a line above it;
    /// the words to say when there is none.
    pub fn step(&mut self, d: &Diff, forward: bool) -> Result<(), &'static str> {
        match step(&d.changes, usize::from(self.scroll), forward) {
            Some(line) => {
                self.scroll = u16::try_from(line).unwrap_or(u16::MAX);
                Ok(())
            }
            None if d.changes.is_empty() => Err("no change to move to"),
            None if forward => Err("no later change: N goes back"),
            None => Err("no earlier change: n goes on"),
        }
    }

    /// `c`: changes only, or every line; the change at the top stays
    /// there. `build` makes the diff folded or not.
    pub fn toggle(&mut self, build: impl Fn(bool) -> Diff) {
        let before = build(self.changes_only);
        let k = at(&before.changes, usize::from(self.scroll));
        self.changes_only = !self.changes_only;
        let after = build(self.changes_only);
        self.scroll = k
            .checked_sub(1)
            .and_then(|i| after.changes.get(i))
            .map_or(0, |c| u16::try_from(target(*c)).unwrap_or(u16::MAX));
    }

    /// `J` / `K` by `by` lines, kept within the diff.
    pub fn scroll_by(&mut self, d: &Diff, by: i32) {
        let last = d.lines.len().saturating_sub(1);
        let to = (i64::from(self.scroll) + i64::from(by)).clamp(0, i64::try_from(last).unwrap_or(i64::MAX));
        self.scroll = u16::try_from(to).unwrap_or(u16::MAX);
    }

    /// The lines from the one at the top, and what a frame says of the
    /// place: "change 3 of 18 · changes only".
    pub fn shown(&self, d: &Diff) -> (Vec<RichLine>, String) {
        let scroll = usize::from(self.scroll).min(d.lines.len().saturating_sub(1));
        let mut place = match (d.changes.len(), at(&d.changes, scroll)) {
            (0, _) => String::new(),
            (n, 0) => format!("{n} change(s)"),
            (n, k) => format!("change {k} of {n}"),
        };
        if self.changes_only {
            if !place.is_empty() {
                place.push_str(" · ");
            }
            place.push_str("changes only");
        }
        (d.lines.get(scroll..).unwrap_or_default().to_vec(), place)
    }
}

#[cfg(test)]
#[path = "line_diff_tests.rs"]
mod tests;
