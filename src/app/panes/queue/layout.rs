//! The queue's rows and its card's extent, shared by drawing and mouse
//! hit-testing.

use std::collections::BTreeSet;

use super::data::QueueItem;
use crate::app::layout::{age, areas};
use crate::app::state::AppState;
use crate::widgets::Tone;
use crate::widgets::grouped_list::Row;

/// How a lint reads: leaks and lowered tiers as errors, the rest as warnings.
pub fn lint_tone(code: &str) -> Tone {
    if code == "credential" || code.starts_with("tier") {
        Tone::Error
    } else {
        Tone::Warn
    }
}

/// The badges of an item: lint codes (or that they are being checked),
/// stale, group.
pub fn badges(item: &QueueItem) -> Vec<(String, Tone)> {
    let mut out: Vec<(String, Tone)> = match &item.lints {
        None => vec![("[checking]".into(), Tone::Dim)],
        Some(lints) => lints
            .iter()
            .map(|(c, _)| *c)
            .collect::<BTreeSet<&str>>()
            .into_iter()
            .map(|c| (format!("[{c}]"), lint_tone(c)))
            .collect(),
    };
    if !item.stale.is_empty() {
        out.push(("[stale]".into(), Tone::Warn));
    }
    if item.group.is_some() {
        out.push(("[grouped]".into(), Tone::Accent));
    }
    out
}

/// The narrowest a proposal's summary gets in the list, in characters.
const MIN_SUMMARY: usize = 12;

/// Columns inside the list's border.
fn list_width(size: (u16, u16)) -> u16 {
    areas(size).list.width.saturating_sub(2)
}

/// `s` cut to `max` characters, with `…` marking a cut.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Agent text on one row: escapes, bidi and zero-width characters shown
/// escaped (engine hygiene), so a session name cannot reorder the list.
fn printable(s: &str) -> String {
    graphex_engine::hygiene::visible_line(s).into_owned()
}

/// The list rows: a header per agent session, then its proposals.
pub fn queue_rows(state: &AppState) -> Vec<Row> {
    let q = &state.queue;
    let mut rows = Vec::new();
    let mut last: Option<(&str, &str)> = None;
    for item in &q.items {
        let key = (item.agent.as_str(), item.session.as_str());
        if last != Some(key) {
            let n = q
                .items
                .iter()
                .filter(|i| i.agent == item.agent && i.session == item.session)
                .count();
            let session = if item.session.is_empty() {
                "-".to_owned()
            } else {
                printable(&item.session)
            };
            rows.push(Row::Header(format!("{} · {session} ({n})", printable(&item.agent))));
            last = Some(key);
        }
        let head = format!("[{}/{}] ", item.position.0, item.position.1);
        let tail: Vec<(String, Tone)> = [
            (format!(" {:.1} ", item.trust), Tone::Normal),
            (format!("{} ", age(state.now_ms, item.created_ms)), Tone::Dim),
        ]
        .into_iter()
        .chain(badges(item).into_iter().map(|(b, t)| (format!("{b} "), t)))
        .collect();
        // The summary takes what the other fields leave of the row.
        let used = 2 + head.chars().count() + tail.iter().map(|(s, _)| s.chars().count()).sum::<usize>();
        let room = usize::from(list_width(state.size))
            .saturating_sub(used)
            .max(MIN_SUMMARY);
        let mut spans = vec![
            (head, Tone::Dim),
            (clip(&printable(&item.summary()), room), Tone::Accent),
        ];
        spans.extend(tail);
        if q.skipped.contains(&item.id) {
            spans.push(("skipped".into(), Tone::Dim));
        }
        rows.push(Row::Item {
            spans,
            marked: q.marked.contains(&item.id),
            dimmed: q.skipped.contains(&item.id),
        });
    }
    rows
}

/// The row index of the selected item.
pub fn selected_row(state: &AppState, rows: &[Row]) -> Option<usize> {
    if state.queue.items.is_empty() {
        return None;
    }
    rows.iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, Row::Item { .. }))
        .nth(state.queue.selected)
        .map(|(i, _)| i)
}

/// The item index shown at `row`, if that row is an item.
pub fn item_at(rows: &[Row], row: usize) -> Option<usize> {
    match rows.get(row)? {
        Row::Item { .. } => Some(rows[..row].iter().filter(|r| matches!(r, Row::Item { .. })).count()),
        Row::Header(_) => None,
    }
}

/// The selected proposal's card as drawn, with its impact preview once
/// computed.
pub fn current_card(state: &AppState) -> Option<Vec<crate::widgets::RichLine>> {
    let q = &state.queue;
    let item = q.current()?;
    let impact = q.impact.as_ref().filter(|(id, _)| *id == item.id).map(|(_, r)| r);
    Some(super::card::card_lines(
        item,
        impact,
        state.now_ms,
        q.hide_info,
        q.hide_diff,
    ))
}

/// How far the card scrolls: its wrapped rows less the rows it shows, so
/// scrolling stops at its last line.
pub fn card_max_scroll(state: &AppState, lines: &[crate::widgets::RichLine]) -> u16 {
    let card = areas(state.size).card;
    let width = usize::from(card.width.saturating_sub(2));
    let shown = usize::from(card.height.saturating_sub(2));
    let rows: usize = lines
        .iter()
        .map(|l| crate::widgets::rich_text::wrap(l, width).len())
        .sum();
    u16::try_from(rows.saturating_sub(shown)).unwrap_or(u16::MAX)
}
