//! Toned cells side by side: each cell wrapped to its column's width as
//! every text is (`rich_text::wrap`), the columns padded and joined by a
//! rule, so the rows never need the terminal's own wrapping.

use unicode_width::UnicodeWidthStr;

use super::rich_text::wrap;
use super::{RichLine, Tone};

/// The rows that show `cells` side by side in `width` columns, joined by
/// ` │ `; each cell gets an equal share.
pub fn side_by_side(cells: &[RichLine], width: usize) -> Vec<RichLine> {
    const RULE: &str = " │ ";
    let n = cells.len().max(1);
    let col = (width.saturating_sub(3 * (n - 1)) / n).max(4);
    let wrapped: Vec<Vec<RichLine>> = cells
        .iter()
        .map(|c| {
            let mut rows = wrap(c, col);
            rows.iter_mut().for_each(trim_end);
            rows
        })
        .collect();
    let height = wrapped.iter().map(Vec::len).max().unwrap_or(0);
    (0..height)
        .map(|row| {
            let mut line: RichLine = Vec::new();
            for (i, cell) in wrapped.iter().enumerate() {
                if i > 0 {
                    line.push((RULE.to_owned(), Tone::Dim));
                }
                let part = cell.get(row).cloned().unwrap_or_default();
                let used: usize = part.iter().map(|(s, _)| s.width()).sum();
                line.extend(part);
                if i + 1 < wrapped.len() && used < col {
                    line.push((" ".repeat(col - used), Tone::Normal));
                }
            }
            trim_end(&mut line);
            line
        })
        .collect()
}

fn trim_end(row: &mut RichLine) {
    while let Some((last, _)) = row.last_mut() {
        let kept = last.trim_end().len();
        last.truncate(kept);
        if !last.is_empty() {
            break;
        }
        row.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(l: &RichLine) -> String {
        l.iter().map(|(s, _)| s.as_str()).collect()
    }

    #[test]
    fn cells_wrap_in_their_columns_and_keep_their_tones() {
        let cells = vec![
            vec![("retries three times".to_owned(), Tone::Normal)],
            vec![
                ("retries ".to_owned(), Tone::Normal),
                ("five".to_owned(), Tone::AddedStrong),
            ],
            vec![("x".to_owned(), Tone::Normal)],
        ];
        let rows = side_by_side(&cells, 30);
        let all: Vec<String> = rows.iter().map(text).collect();
        // 30 columns: two rules of 3 leave 8 for each cell.
        assert_eq!(
            all,
            [
                "retries  │ retries  │ x",
                "three    │ five     │",
                "times    │          │"
            ]
        );
        assert!(
            rows.iter()
                .flatten()
                .any(|(s, t)| s == "five" && *t == Tone::AddedStrong),
            "{rows:?}"
        );
        assert!(all.iter().all(|l| l.chars().count() <= 30), "{all:?}");
    }
}
