//! Toned cells side by side: each cell wrapped at spaces to its column's
//! width (a word longer than the column is cut), the columns padded and
//! joined by a rule, so the rows never need the terminal's own wrapping.

use super::{RichLine, Tone};

/// The rows that show `cells` side by side in `width` columns, joined by
/// ` │ `; each cell gets an equal share.
pub fn side_by_side(cells: &[RichLine], width: usize) -> Vec<RichLine> {
    const RULE: &str = " │ ";
    let n = cells.len().max(1);
    let col = (width.saturating_sub(3 * (n - 1)) / n).max(4);
    let wrapped: Vec<Vec<RichLine>> = cells.iter().map(|c| wrap(c, col)).collect();
    let height = wrapped.iter().map(Vec::len).max().unwrap_or(0);
    (0..height)
        .map(|row| {
            let mut line: RichLine = Vec::new();
            for (i, cell) in wrapped.iter().enumerate() {
                if i > 0 {
                    line.push((RULE.to_owned(), Tone::Dim));
                }
                let part = cell.get(row).cloned().unwrap_or_default();
                let used: usize = part.iter().map(|(s, _)| s.chars().count()).sum();
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

/// `cell` wrapped to `width` columns, keeping each word's tone.
pub fn wrap(cell: &RichLine, width: usize) -> Vec<RichLine> {
    let width = width.max(1);
    let mut rows: Vec<RichLine> = vec![Vec::new()];
    let mut used = 0;
    for (text, tone) in cell {
        for word in text.split_inclusive(' ') {
            let mut rest: Vec<char> = word.chars().collect();
            while !rest.is_empty() {
                let visible = rest.len() - rest.iter().rev().take_while(|c| **c == ' ').count();
                if used > 0 && used + visible > width {
                    rows.push(Vec::new());
                    used = 0;
                }
                let take = rest.len().min(width - used);
                let head: String = rest.drain(..take).collect();
                used += take;
                push(rows.last_mut().expect("a row"), head, *tone);
                if rest.iter().all(|c| *c == ' ') {
                    break;
                }
                // A word longer than a whole row goes on cut.
                rows.push(Vec::new());
                used = 0;
            }
        }
    }
    rows.iter_mut().for_each(trim_end);
    rows
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

fn push(row: &mut RichLine, text: String, tone: Tone) {
    match row.last_mut() {
        Some((t, last)) if *last == tone => t.push_str(&text),
        _ => row.push((text, tone)),
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

    #[test]
    fn a_cell_wraps_at_spaces_and_cuts_a_long_word() {
        let cell = vec![("one two three abcdefghij".to_owned(), Tone::Normal)];
        let rows: Vec<String> = wrap(&cell, 8).iter().map(text).collect();
        assert_eq!(rows, ["one two", "three", "abcdefgh", "ij"]);
    }
}
