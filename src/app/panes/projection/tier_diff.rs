//! The line diff of two projections' texts (two tiers, a proposal's before
//! and after, two audit records): each line escaped, a changed line's
//! changed words stressed against the line it replaces, and where each
//! change starts, for `n`/`N`. With changes only, each run of unchanged
//! lines folds into one "… N unchanged lines" row.
//!
//! The tier diff scrolls by these lines (not by screen rows), so a change
//! `n` moves to is at the top whatever the width.

use similar::{ChangeTag, TextDiff};

use super::PAIRS;
use super::ProjectionPane;
use crate::app::state::AppState;
use crate::widgets::word_diff::word_diff;
use crate::widgets::{RichLine, Tone};

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

/// The diff of `a` and `b`; `same` is what an empty one says (its context's
/// words: two tiers, or before and after).
pub fn diff(a: &str, b: &str, same: &str, changes_only: bool) -> Diff {
    let mut out = Diff::default();
    let (mut old, mut new, mut kept) = (Vec::new(), Vec::new(), Vec::new());
    for c in TextDiff::from_lines(a, b).iter_all_changes() {
        let line = graphex_engine::hygiene::visible_line(c.value().trim_end_matches('\n')).into_owned();
        match c.tag() {
            ChangeTag::Equal => {
                change(&mut out, &mut old, &mut new);
                kept.push(line);
            }
            tag => {
                unchanged(&mut out, &mut kept, changes_only);
                if tag == ChangeTag::Delete {
                    old.push(line);
                } else {
                    new.push(line);
                }
            }
        }
    }
    change(&mut out, &mut old, &mut new);
    unchanged(&mut out, &mut kept, changes_only);
    if out.changes.is_empty() {
        out.lines.insert(0, vec![(same.to_owned(), Tone::Ok)]);
    }
    out
}

/// The diff's lines alone.
pub fn diff_lines(a: &str, b: &str, same: &str) -> Vec<RichLine> {
    diff(a, b, same, false).lines
}

fn unchanged(out: &mut Diff, kept: &mut Vec<String>, changes_only: bool) {
    match kept.len() {
        0 => {}
        n if changes_only => out.lines.push(vec![(
            format!("  … {n} unchanged line{}", if n == 1 { "" } else { "s" }),
            Tone::Dim,
        )]),
        _ => out
            .lines
            .extend(kept.iter().map(|l| vec![(format!("  {l}"), Tone::Dim)])),
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

/// The tier diff the pane shows, or why there is none.
pub fn current(p: &ProjectionPane) -> Result<Diff, &'static str> {
    let Some(d) = p.diff else {
        return Err("n, N and c move through the tier diff: d shows it");
    };
    let Some(Ok(v)) = &p.shown else {
        return Err("nothing projected yet");
    };
    let (a, b) = PAIRS[d % PAIRS.len()];
    let (ta, tb) = (&v.tiers[a], &v.tiers[b]);
    if ta.sealed || tb.sealed {
        return Err("a tier above this unlock level cannot be compared");
    }
    Ok(diff(
        &ta.text,
        &tb.text,
        "the two tiers receive the same text",
        p.changes_only,
    ))
}

/// `n` / `N`: the next or previous change, shown from a line above it.
pub fn next_change(state: &mut AppState, forward: bool) {
    let d = match current(&state.projection) {
        Ok(d) => d,
        Err(e) => return state.error(e),
    };
    let scroll = usize::from(state.projection.scroll);
    match step(&d.changes, scroll, forward) {
        Some(line) => state.projection.scroll = u16::try_from(line).unwrap_or(u16::MAX),
        None if d.changes.is_empty() => state.info("no change between these two tiers"),
        None if forward => state.info("no later change: N goes back"),
        None => state.info("no earlier change: n goes on"),
    }
}

/// `c`: changes only, or every line; the change at the top stays there.
pub fn toggle_changes_only(state: &mut AppState) {
    let before = match current(&state.projection) {
        Ok(d) => d,
        Err(e) => return state.error(e),
    };
    let k = at(&before.changes, usize::from(state.projection.scroll));
    state.projection.changes_only = !state.projection.changes_only;
    let after = current(&state.projection).unwrap_or_default();
    state.projection.scroll = k
        .checked_sub(1)
        .and_then(|i| after.changes.get(i))
        .map_or(0, |c| u16::try_from(target(*c)).unwrap_or(u16::MAX));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(l: &RichLine) -> String {
        l.iter().map(|(s, _)| s.as_str()).collect()
    }

    #[test]
    fn changed_words_are_stressed_and_changes_located() {
        let a = "# head\nkeep one\nretry three times\nkeep two\nkeep three\nold tail\n";
        let b = "# head\nkeep one\nretry five times\nkeep two\nkeep three\nnew line entirely different\n";
        let d = diff(a, b, "same", false);
        let all: Vec<String> = d.lines.iter().map(text).collect();
        assert_eq!(
            all,
            [
                "  # head",
                "  keep one",
                "- retry three times",
                "+ retry five times",
                "  keep two",
                "  keep three",
                "- old tail",
                "+ new line entirely different",
            ]
        );
        assert_eq!(d.changes, [2, 6]);
        assert!(
            d.lines[2].contains(&("three".to_owned(), Tone::RemovedStrong)),
            "{:?}",
            d.lines[2]
        );
        assert!(
            d.lines[3].contains(&("five".to_owned(), Tone::AddedStrong)),
            "{:?}",
            d.lines[3]
        );
        assert_eq!(d.lines[3][0], ("+ ".to_owned(), Tone::Added));
        // Lines with little in common are shown whole, not stressed word by word.
        assert_eq!(d.lines[7][1], ("new line entirely different".to_owned(), Tone::Added));
        // Changes only: each unchanged run is one row, the changes where they were.
        let c = diff(a, b, "same", true);
        let all: Vec<String> = c.lines.iter().map(text).collect();
        assert_eq!(
            all,
            [
                "  … 2 unchanged lines",
                "- retry three times",
                "+ retry five times",
                "  … 2 unchanged lines",
                "- old tail",
                "+ new line entirely different",
            ]
        );
        assert_eq!(c.changes, [1, 4]);
        let same = diff("a\n", "a\n", "no change", true);
        assert_eq!(same.lines[0][0].0, "no change");
        assert_eq!(same.lines[1][0].0, "  … 1 unchanged line");
    }

    #[test]
    fn next_and_previous_change_from_a_scroll() {
        let changes = [0, 5, 9];
        assert_eq!(step(&changes, 0, true), Some(4));
        assert_eq!(step(&changes, 4, true), Some(8));
        assert_eq!(step(&changes, 8, true), None);
        assert_eq!(step(&changes, 8, false), Some(4));
        assert_eq!(step(&changes, 4, false), Some(0));
        assert_eq!(step(&changes, 0, false), None);
        assert_eq!(step(&[], 0, true), None);
        assert_eq!((at(&changes, 0), at(&changes, 4), at(&changes, 6)), (1, 2, 2));
    }

    /// A line escaped before it is diffed: a hostile text cannot draw.
    #[test]
    fn lines_are_escaped() {
        let d = diff("a\n", "b\u{1b}[2J\n", "same", false);
        assert!(d.lines.iter().any(|l| text(l) == r"+ b\x1b[2J"), "{:?}", d.lines);
    }
}
