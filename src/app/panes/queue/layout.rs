//! The queue's rows and its card's extent, shared by drawing and mouse
//! hit-testing.

use std::collections::BTreeSet;

use super::data::QueueItem;
use crate::app::layout::{age, areas};
use crate::app::state::AppState;
use crate::widgets::Tone;
use crate::widgets::clip::clip_middle;
use crate::widgets::grouped_list::Row;

/// How a lint reads: leaks and lowered tiers as errors, the rest as warnings.
pub fn lint_tone(code: &str) -> Tone {
    if code == "credential" || code.starts_with("tier") {
        Tone::Error
    } else {
        Tone::Warn
    }
}

/// Each lint code once, in order.
fn lint_codes(lints: &[(String, String)]) -> BTreeSet<&str> {
    lints.iter().map(|(c, _)| c.as_str()).collect()
}

/// A flag as a list row shows it: a few letters (the card names it whole;
/// docs/console.md lists them all).
pub fn flag_abbreviation(code: &str) -> &str {
    match code {
        "credential" => "cred",
        "tier-lowered" => "tier↓",
        "near-duplicate" => "dup",
        "mentions-higher" => "high",
        "cross-tier" => "xtier",
        "above-agent-tier" => "above",
        "dangling" => "dangl",
        "hidden" => "hid",
        "name-taken" => "taken",
        "no-such-edge" => "noedge",
        "lifecycle" => "life",
        "unreadable-edge" => "unread",
        "duplicate-removal" => "dup-rm",
        "federated" => "fed",
        "self-loop" => "loop",
        "cannot-apply" => "fails",
        other => other,
    }
}

/// The row's flags, first on the row so a narrow list still shows them:
/// lints (or `chk` while they are checked), stale, grouped.
fn row_flags(item: &QueueItem) -> Vec<(String, Tone)> {
    let mut out: Vec<(String, Tone)> = match &item.lints {
        None => vec![("chk".into(), Tone::Dim)],
        Some(lints) => lint_codes(lints)
            .into_iter()
            .map(|c| (flag_abbreviation(c).to_owned(), lint_tone(c)))
            .collect(),
    };
    if !item.stale.is_empty() {
        out.push(("stale".into(), Tone::Warn));
    }
    if item.group.is_some() {
        out.push(("grp".into(), Tone::Accent));
    }
    match item.revision {
        Some((round, false)) => out.push((format!("r{round}"), Tone::Accent)),
        Some((_, true)) => out.push(("rev!".into(), Tone::Warn)),
        None => {}
    }
    out
}

/// The narrowest a proposal's summary gets in the list, in characters.
const MIN_SUMMARY: usize = 12;

/// The room a summary keeps before trust and age leave the row (they are
/// on the card too).
const ROOM_FOR_TRUST: usize = 16;

/// Columns inside the list's border.
fn list_width(size: (u16, u16)) -> u16 {
    areas(size).list.width.saturating_sub(2)
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
        let flags: Vec<(String, Tone)> = row_flags(item).into_iter().map(|(f, t)| (format!("{f} "), t)).collect();
        let tail = [
            (format!(" {:.1} ", item.trust), Tone::Normal),
            (age(state.now_ms, item.created_ms), Tone::Dim),
        ];
        let width = |spans: &[(String, Tone)]| spans.iter().map(|(s, _)| s.chars().count()).sum::<usize>();
        // The summary takes what the other fields leave of the row; trust
        // and age go first when they would leave it too little.
        let fixed = 2 + head.chars().count() + width(&flags);
        let list = usize::from(list_width(state.size));
        let with_tail = list.saturating_sub(fixed + width(&tail));
        let (room, tail) = if with_tail >= ROOM_FOR_TRUST {
            (with_tail, &tail[..])
        } else {
            (list.saturating_sub(fixed).max(MIN_SUMMARY), &[][..])
        };
        let mut spans = vec![(head, Tone::Dim)];
        spans.extend(flags);
        spans.push((
            crate::widgets::clip::clip_around_arrow(&printable(&item.summary()), room),
            Tone::Accent,
        ));
        spans.extend(tail.iter().cloned());
        if q.skipped.contains(&item.id) {
            spans.push((" skipped".into(), Tone::Dim));
        }
        rows.push(Row::Item {
            spans,
            marked: q.marked.contains(&item.id),
            dimmed: q.skipped.contains(&item.id),
        });
    }
    contradiction_rows(state, &mut rows);
    rows
}

/// After the proposals (or in place of them when they are sealed): a
/// header, then one row per contradiction, both names clipped alike.
fn contradiction_rows(state: &AppState, rows: &mut Vec<Row>) {
    let q = &state.queue;
    if q.contradictions.is_empty() {
        return;
    }
    if q.sealed && state.pending > 0 {
        rows.push(Row::Header(format!("{} proposal(s) sealed: U unlocks", state.pending)));
    }
    rows.push(Row::Header(match q.contradiction_count() {
        n if n > q.contradictions.len() => format!("contradictions ({} of {n})", q.contradictions.len()),
        n => format!("contradictions ({n})"),
    }));
    let sep = " ≠ ";
    let room = usize::from(list_width(state.size)).saturating_sub(2 + sep.chars().count());
    for c in &q.contradictions {
        let (l, r) = (printable(&c.left.name), printable(&c.right.name));
        // The shorter name whole when it takes at most half; the other gets the rest.
        let (lc, rc) = (l.chars().count(), r.chars().count());
        let half = (room / 2).max(MIN_SUMMARY / 2);
        let (lw, rw) = if lc <= rc {
            let lw = lc.min(half);
            (lw, room.saturating_sub(lw).max(MIN_SUMMARY / 2))
        } else {
            let rw = rc.min(half);
            (room.saturating_sub(rw).max(MIN_SUMMARY / 2), rw)
        };
        rows.push(Row::Item {
            spans: vec![
                (clip_middle(&l, lw), Tone::Accent),
                (sep.to_owned(), Tone::Warn),
                (clip_middle(&r, rw), Tone::Accent),
            ],
            marked: false,
            dimmed: false,
        });
    }
}

/// The row index of the selected item.
pub fn selected_row(state: &AppState, rows: &[Row]) -> Option<usize> {
    if state.queue.is_empty() {
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
    if let Some(c) = q.current_contradiction() {
        use crate::app::action::Action;
        let key = |a: Action| state.keymap.keys_of(a).first().cloned().unwrap_or_default();
        let keys = super::contradiction_card::Keys {
            keep_left: key(Action::KeepLeft),
            keep_right: key(Action::KeepRight),
            dispute: key(Action::MarkDisputed),
            writable: state.level.is_some_and(|l| l >= graphex_engine::Level::Master),
        };
        let width = usize::from(areas(state.size).card.width.saturating_sub(2));
        return Some(super::contradiction_card::card_lines(c, state.now_ms, width, &keys));
    }
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

#[cfg(test)]
mod tests {
    use super::{clip_middle, flag_abbreviation};

    #[test]
    fn a_long_name_is_cut_in_the_middle_and_keeps_its_end() {
        assert_eq!(clip_middle("scale-consumer-42", 40), "scale-consumer-42");
        let a = clip_middle("+ scale-consumer-group-41", 14);
        let b = clip_middle("+ scale-consumer-group-42", 14);
        assert_eq!(a.chars().count(), 14);
        assert_ne!(a, b, "the distinguishing end stays: {a} / {b}");
        assert!(a.starts_with("+ scale") && a.ends_with("-41") && a.contains('…'), "{a}");
        assert_eq!(clip_middle("abc", 1), "…");
        assert_eq!(clip_middle("abc", 0), "");
        assert_eq!(clip_middle("näme-ünïcode", 5), "nä…de");
    }

    #[test]
    fn every_flag_a_card_names_has_a_short_form() {
        for code in [
            "credential",
            "tier-lowered",
            "near-duplicate",
            "mentions-higher",
            "cross-tier",
            "above-agent-tier",
            "dangling",
            "hidden",
            "name-taken",
            "no-such-edge",
            "lifecycle",
            "unreadable-edge",
            "duplicate-removal",
            "federated",
        ] {
            let short = flag_abbreviation(code);
            assert!(short.chars().count() <= 6 && short != code, "{code} → {short}");
        }
    }
}
