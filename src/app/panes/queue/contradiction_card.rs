//! The card of a selected contradiction: the `contradicts` edge, both nodes
//! side by side (stacked on a narrow card), field against field, and how
//! to resolve it. Names, descriptions and provenance are agent or user
//! text: escaped, and descriptions behind a `│` gutter, as on a proposal's
//! card.

use graphex_engine::hygiene::agent_lines;
use unicode_width::UnicodeWidthStr as _;

use super::card::{QUOTED_LINES, one};
use super::contradiction::{ContradictionItem, Side};
use crate::app::layout::age;
use crate::widgets::rich_text::wrap;
use crate::widgets::{RichLine, Tone};

/// The narrowest card that shows both nodes side by side.
const SIDE_BY_SIDE: usize = 40;
/// Between the two columns.
const SEPARATOR: &str = " ┊ ";

/// The keys that resolve a contradiction, as bound (empty when unbound),
/// and whether this level may use them.
pub struct Keys {
    pub keep_left: String,
    pub keep_right: String,
    pub dispute: String,
    pub writable: bool,
}

/// One field of a side: its lines, each wrapped to the column on its own.
type Field = Vec<RichLine>;

fn fields(s: &Side, now_ms: i64, keep: &str, writable: bool) -> Vec<Field> {
    let head = if writable && !keep.is_empty() {
        vec![(keep.to_owned(), Tone::Key), (" keeps this one".into(), Tone::Dim)]
    } else {
        vec![("(read-only)".into(), Tone::Dim)]
    };
    let mut disputed = vec![(format!("confidence {:.2}", s.confidence), Tone::Normal)];
    if s.disputed {
        disputed.push((" · marked disputed".into(), Tone::Warn));
    }
    let description = agent_lines(&s.description, QUOTED_LINES)
        .into_iter()
        .map(|l| vec![("│ ".to_owned(), Tone::Dim), (l, Tone::Normal)])
        .collect();
    vec![
        vec![head],
        vec![vec![(one(&s.name), Tone::Accent)]],
        vec![vec![(format!("{} · {}", one(&s.node_type), s.tier), Tone::Normal)]],
        vec![disputed],
        vec![vec![(
            format!("updated {} ago · v{}", age(now_ms, s.updated_ms), s.version),
            Tone::Dim,
        )]],
        vec![vec![("by ".into(), Tone::Dim), (one(&s.origin), Tone::Normal)]],
        description,
    ]
}

/// `text` padded with spaces to `width` cells.
fn pad(mut line: RichLine, width: usize) -> RichLine {
    let used: usize = line.iter().map(|(s, _)| s.width()).sum();
    line.push((" ".repeat(width.saturating_sub(used)), Tone::Normal));
    line
}

/// Both sides field by field, each wrapped to half the card: a field's
/// rows line up with the other side's same field.
fn columns(out: &mut Vec<RichLine>, left: Vec<Field>, right: Vec<Field>, width: usize) {
    let col = width.saturating_sub(SEPARATOR.width()) / 2;
    for (l, r) in left.into_iter().zip(right) {
        let rows = |f: Field| -> Vec<RichLine> { f.iter().flat_map(|line| wrap(line, col)).collect() };
        let (l, r) = (rows(l), rows(r));
        for i in 0..l.len().max(r.len()) {
            let mut line = pad(l.get(i).cloned().unwrap_or_default(), col);
            line.push((SEPARATOR.to_owned(), Tone::Dim));
            line.extend(r.get(i).cloned().unwrap_or_default());
            out.push(line);
        }
    }
}

/// The card, `width` cells wide inside its border.
pub fn card_lines(c: &ContradictionItem, now_ms: i64, width: usize, keys: &Keys) -> Vec<RichLine> {
    let (l, r) = (&c.left, &c.right);
    let mut out: Vec<RichLine> = vec![
        vec![
            (one(&l.name), Tone::Accent),
            (" contradicts ".into(), Tone::Warn),
            (one(&r.name), Tone::Accent),
        ],
        vec![(
            format!("  edge: {} · {} ago", one(&c.edge), age(now_ms, c.edge_ms)),
            Tone::Dim,
        )],
        vec![(
            "Until one is deprecated, projections flag both as disputed.".into(),
            Tone::Dim,
        )],
        Vec::new(),
    ];
    let left = fields(l, now_ms, &keys.keep_left, keys.writable);
    let right = fields(r, now_ms, &keys.keep_right, keys.writable);
    if width >= SIDE_BY_SIDE {
        columns(&mut out, left, right, width);
    } else {
        for side in [left, right] {
            out.extend(side.into_iter().flatten());
            out.push(Vec::new());
        }
    }
    out.push(Vec::new());
    if keys.writable {
        out.push(vec![("Resolve".into(), Tone::Heading)]);
        for (key, what) in [
            (
                &keys.keep_left,
                format!("keep {}, deprecate {}", one(&l.name), one(&r.name)),
            ),
            (
                &keys.keep_right,
                format!("keep {}, deprecate {}", one(&r.name), one(&l.name)),
            ),
            (
                &keys.dispute,
                "mark both disputed: both stay, flagged; it leaves the queue".to_owned(),
            ),
        ] {
            if !key.is_empty() {
                out.push(vec![(format!("  {key} "), Tone::Key), (what, Tone::Normal)]);
            }
        }
    } else {
        out.push(vec![(
            "Read-only at this level: resolving it takes the master level (U unlocks).".into(),
            Tone::Warn,
        )]);
    }
    out
}
