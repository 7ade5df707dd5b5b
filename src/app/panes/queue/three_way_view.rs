//! The stale dialog's three versions of each node, side by side: what the
//! agent saw, what the graph holds, what the proposal makes. In the middle
//! column the words that changed since the agent saw the node are
//! stressed; in the last, the words the proposal changes.

use similar::{ChangeTag, TextDiff};

use crate::shared::three_way::ThreeWay;
use crate::widgets::columns::side_by_side;
use crate::widgets::{RichLine, Tone};

/// The dialog's lines for `nodes` at `width` columns.
pub fn lines(nodes: &[ThreeWay], width: usize) -> Vec<RichLine> {
    let mut out = Vec::new();
    for n in nodes {
        out.push(vec![(n.name.clone(), Tone::Heading)]);
        let heads: Vec<RichLine> = n.heads.iter().map(|h| vec![(h.clone(), Tone::Dim)]).collect();
        out.extend(side_by_side(&heads, width));
        if n.rows.is_empty() {
            out.push(vec![("  no field differs".to_owned(), Tone::Dim)]);
        }
        for (field, [saw, now, makes]) in &n.rows {
            out.push(vec![(format!("{field}:"), Tone::Field)]);
            let cells = [
                plain(saw.as_deref()),
                stressed(saw.as_deref(), now.as_deref(), Tone::Warn),
                stressed(now.as_deref(), makes.as_deref(), Tone::AddedStrong),
            ];
            out.extend(side_by_side(&cells, width));
        }
    }
    out
}

fn plain(v: Option<&str>) -> RichLine {
    match v {
        Some(t) => vec![(t.to_owned(), Tone::Normal)],
        None => vec![("(none)".to_owned(), Tone::Dim)],
    }
}

/// `after`, its words not in `before` in `strong`.
fn stressed(before: Option<&str>, after: Option<&str>, strong: Tone) -> RichLine {
    let Some(after) = after else {
        return plain(None);
    };
    let mut out: RichLine = Vec::new();
    for c in TextDiff::from_words(before.unwrap_or(""), after).iter_all_changes() {
        let tone = match c.tag() {
            ChangeTag::Delete => continue,
            ChangeTag::Insert => strong,
            ChangeTag::Equal => Tone::Normal,
        };
        match out.last_mut() {
            Some((t, last)) if *last == tone => t.push_str(c.value()),
            _ => out.push((c.value().to_owned(), tone)),
        }
    }
    out
}
