//! Curator lists in the Graph pane: conventions, glossary terms, decisions
//! (or any type) as a sortable table with what needs care — near-duplicate
//! names, entries nothing links to, entries not changed for a long time —
//! and the glossary terms other nodes mention without a link, with an
//! offer to link them. Built on the worker from what the level reads.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent};
use graphex_engine::curate::{CuratorList, ListSpec, SortBy, curator_list};
use graphex_engine::model::{Name, NewEdge, NodeType, Relation, Timestamp};
use graphex_engine::store::Catalog;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::curate::Write;
use crate::app::effect::{Effect, request};
use crate::app::layout::age;
use crate::app::layout::block;
use crate::app::state::{AppState, Confirmed, Popup};
use crate::app::worker::Request;
use crate::widgets::clip::clip_middle;
use crate::widgets::dialog::centered;
use crate::widgets::grouped_list::{GroupedList, Row};
use crate::widgets::rich_text::RichText;
use crate::widgets::{Tone, ToneStyles};

/// The types a list is of, in the order ←/→ goes through them (empty: all).
pub const KINDS: [&str; 4] = ["convention", "glossary", "decision", ""];

/// Entries unchanged for longer are flagged stale.
pub const STALE_AFTER: Duration = Duration::from_secs(180 * 24 * 3600);

/// The relation a mention suggestion is linked with: the mentioning node
/// uses the term.
pub const MENTION_RELATION: &str = "uses";

pub use super::dialog_state::{CuratorDialog, EntryView, ListView, SORTS};

fn sort_name(s: SortBy) -> &'static str {
    match s {
        SortBy::Name => "name",
        SortBy::LastChange => "last change",
        SortBy::Scope => "scope",
        SortBy::Links => "links",
    }
}

/// The list on the worker (from the catalog only: no blob is read).
pub fn list(c: &Catalog, kind: &str, sort: SortBy, descending: bool, now: Timestamp) -> Result<ListView, String> {
    let types = if kind.is_empty() {
        Vec::new()
    } else {
        vec![NodeType::new(kind).map_err(|e| e.to_string())?]
    };
    let spec = ListSpec {
        sort,
        descending,
        stale_after: Some(STALE_AFTER),
        ..ListSpec::new(types, now)
    };
    let CuratorList { rows, mentions } = curator_list(c, &spec);
    Ok(ListView {
        rows: rows
            .into_iter()
            .map(|r| {
                let mut flags = Vec::new();
                if let Some(d) = &r.flags.near_duplicate_of {
                    flags.push(format!("near {d}"));
                }
                if r.flags.orphan {
                    flags.push("nothing links here".into());
                }
                if r.flags.stale {
                    flags.push("stale".into());
                }
                if r.flags.unlinked_mentions > 0 {
                    flags.push(format!("{} unlinked mention(s)", r.flags.unlinked_mentions));
                }
                EntryView {
                    name: r.name.to_string(),
                    node_type: r.node_type.to_string(),
                    status: r.status.to_string(),
                    last_change_ms: r.last_change.0,
                    scope: r.scope.map(|s| graphex_engine::hygiene::visible_line(&s).into_owned()),
                    links: r.links,
                    flags,
                }
            })
            .collect(),
        mentions: mentions
            .into_iter()
            .map(|m| (m.term.to_string(), m.mentioned_by.to_string()))
            .collect(),
    })
}

pub fn open(state: &mut AppState, fx: &mut Vec<Effect>) {
    if state.level.is_none() {
        state.error("the store is still opening");
        return;
    }
    state.popups.push(Popup::Curator(Box::default()));
    ask(state, fx);
}

/// Asks the worker for the list as the dialog is set.
fn ask(state: &mut AppState, fx: &mut Vec<Effect>) {
    let generation = state.next_generation();
    let now_ms = state.now_ms;
    if let Some(Popup::Curator(d)) = state.popups.last_mut() {
        d.generation = generation;
        d.selected = 0;
        request(
            fx,
            Request::Curator {
                generation,
                kind: KINDS[d.kind % KINDS.len()].to_owned(),
                sort: d.sort_by(),
                descending: d.descending,
                now: Timestamp(now_ms),
            },
        );
    }
}

pub fn listed(state: &mut AppState, generation: u64, result: Result<ListView, String>) {
    if let Some(Popup::Curator(d)) = state.popups.last_mut()
        && d.generation == generation
    {
        d.list = Some(result);
    }
}

pub fn key(state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) {
    let Some(Popup::Curator(d)) = state.popups.last_mut() else {
        return;
    };
    let n = d.len();
    if d.filter.key(&k) {
        d.selected = 0;
        return;
    }
    match k.code {
        KeyCode::Char('/') => d.filter.typing = true,
        KeyCode::Esc | KeyCode::Char('q') => {
            state.popups.pop();
        }
        KeyCode::Up | KeyCode::Char('k') => d.selected = d.selected.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => d.selected = (d.selected + 1).min(n.saturating_sub(1)),
        KeyCode::Left | KeyCode::Right => {
            let m = KINDS.len();
            d.kind = if k.code == KeyCode::Right {
                (d.kind + 1) % m
            } else {
                (d.kind + m - 1) % m
            };
            ask(state, fx);
        }
        KeyCode::Char('s') => {
            d.sort = (d.sort + 1) % SORTS.len();
            ask(state, fx);
        }
        KeyCode::Char('o') => {
            d.descending = !d.descending;
            ask(state, fx);
        }
        KeyCode::Char('m') => {
            d.mentions = !d.mentions;
            d.selected = 0;
        }
        KeyCode::Enter => {
            let Some(Ok(list)) = d.visible() else { return };
            if d.mentions {
                let Some((term, by)) = list.mentions.get(d.selected).cloned() else {
                    return;
                };
                let edge = (|| -> graphex_engine::Result<NewEdge> {
                    Ok(NewEdge::new(
                        Name::new(&by)?,
                        Relation::new(MENTION_RELATION)?,
                        Name::new(&term)?,
                    ))
                })();
                match edge {
                    Ok(e) => state.popups.push(Popup::Confirm {
                        text: format!("Link {by} {MENTION_RELATION} {term}? (one commit; u undoes it)"),
                        then: Confirmed::Write(Box::new(Write::Link(Box::new(e)))),
                    }),
                    Err(e) => state.error(e.to_string()),
                }
            } else if let Some(row) = list.rows.get(d.selected) {
                let name = row.name.clone();
                state.popups.pop();
                super::update::open(state, &name, fx);
            }
        }
        _ => {}
    }
}

/// After a link from the suggestions, the list is read again.
pub fn changed(state: &mut AppState, fx: &mut Vec<Effect>) {
    if matches!(state.popups.last(), Some(Popup::Curator(_))) {
        let selected = match state.popups.last() {
            Some(Popup::Curator(d)) => d.selected,
            _ => 0,
        };
        ask(state, fx);
        if let Some(Popup::Curator(d)) = state.popups.last_mut() {
            d.selected = selected;
        }
    }
}

pub fn draw(buf: &mut Buffer, d: &CuratorDialog, now_ms: i64, styles: &ToneStyles, main: Rect) {
    let area = centered(main, main.width.saturating_sub(2), main.height);
    ratatui::widgets::Clear.render(area, buf);
    let kind = match KINDS[d.kind % KINDS.len()] {
        "" => "all types",
        k => k,
    };
    // The keys are on the hint line: a title that lists them loses its end
    // on a narrow terminal.
    let filter = d.filter.title();
    let visible = d.visible();
    let count = match &visible {
        Some(Ok(l)) if !d.mentions => format!(
            " · {} entr{}",
            l.rows.len(),
            if l.rows.len() == 1 { "y" } else { "ies" }
        ),
        _ => String::new(),
    };
    let title = format!(
        "Curator: {kind}{}{count} · by {}{}{filter}",
        if d.mentions { " · unlinked mentions" } else { "" },
        sort_name(d.sort_by()),
        if d.descending { " ↓" } else { " ↑" },
    );
    let rows: Vec<Row> = match &visible {
        None => vec![Row::Header("reading…".into())],
        Some(Err(e)) => vec![Row::Header(e.clone())],
        Some(Ok(l)) if d.mentions => {
            let mut rows = vec![Row::Header(format!(
                "{} glossary mention(s) without a link: enter links the node to the term ({MENTION_RELATION})",
                l.mentions.len()
            ))];
            rows.extend(l.mentions.iter().map(|(term, by)| Row::Item {
                spans: vec![
                    (by.clone(), Tone::Normal),
                    (" mentions ".into(), Tone::Dim),
                    (term.clone(), Tone::Accent),
                ],
                marked: false,
                dimmed: false,
            }));
            rows
        }
        Some(Ok(l)) => entry_rows(l, now_ms),
    };
    let selected = (d.len() > 0).then(|| d.selected.min(d.len() - 1) + 1);
    // The selected entry's needs, whole and wrapped: a row's flags may be
    // cut at the right edge on a narrow terminal.
    let detail = match &visible {
        Some(Ok(l)) if !d.mentions => l.rows.get(d.selected.min(l.rows.len().saturating_sub(1))),
        _ => None,
    };
    let (list_area, detail_area) = match detail {
        Some(_) if area.height > 10 => {
            let h = DETAIL_HEIGHT;
            (
                Rect {
                    height: area.height - h,
                    ..area
                },
                Some(Rect {
                    y: area.bottom() - h,
                    height: h,
                    ..area
                }),
            )
        }
        _ => (area, None),
    };
    GroupedList {
        rows: &rows,
        selected,
        styles,
        block: Some(block(&title, true, styles)),
    }
    .render(list_area, buf);
    if let (Some(e), Some(at)) = (detail, detail_area) {
        RichText {
            lines: &[needs_line(e)],
            scroll: 0,
            styles,
            block: Some(block("Selected", false, styles)),
        }
        .render(at, buf);
    }
}

/// Rows of the selected entry's box (its border included).
const DETAIL_HEIGHT: u16 = 4;

/// What the selected entry needs, in full.
fn needs_line(e: &EntryView) -> crate::widgets::RichLine {
    let flags = entry_flags(e);
    vec![
        (format!("{}: ", e.name), Tone::Heading),
        if flags.is_empty() {
            ("nothing needs care".to_owned(), Tone::Dim)
        } else {
            (flags.join(" · "), Tone::Warn)
        },
    ]
}

/// An entry's status (when not active) and what needs care.
fn entry_flags(r: &EntryView) -> Vec<String> {
    let mut flags = Vec::new();
    if r.status != "active" {
        flags.push(r.status.clone());
    }
    flags.extend(r.flags.iter().cloned());
    flags
}

/// The widest a name or a scope column gets; longer ones are cut in the
/// middle so the columns after them stay aligned.
const NAME_COLUMN: usize = 36;
const SCOPE_COLUMN: usize = 20;

/// The entries as a table whose columns fit the longest name and scope
/// shown (up to a cap), with deprecated and archived entries flagged.
fn entry_rows(l: &ListView, now_ms: i64) -> Vec<Row> {
    let width = |f: &dyn Fn(&EntryView) -> usize, min: usize, cap: usize| {
        l.rows.iter().map(f).max().unwrap_or(0).clamp(min, cap)
    };
    let name_w = width(&|r| r.name.chars().count(), 4, NAME_COLUMN);
    let scope_w = width(
        &|r| r.scope.as_deref().map_or(1, |s| s.chars().count()),
        5,
        SCOPE_COLUMN,
    );
    // Item rows are drawn two columns in: the header is too.
    let mut rows = vec![Row::Header(format!(
        "  {:<name_w$} {:>9}  {:<scope_w$} {:>5}  needs care",
        "name", "changed", "scope", "links",
    ))];
    rows.extend(l.rows.iter().map(|r| {
        let flags = entry_flags(r);
        let name = clip_middle(&r.name, name_w);
        let scope = clip_middle(r.scope.as_deref().unwrap_or("-"), scope_w);
        Row::Item {
            spans: vec![
                (format!("{name:<name_w$} "), Tone::Normal),
                (format!("{:>5} ago  ", age(now_ms, r.last_change_ms)), Tone::Dim),
                (format!("{scope:<scope_w$} "), Tone::Dim),
                (format!("{:>5}  ", r.links), Tone::Normal),
                (flags.join(" · "), Tone::Warn),
            ],
            marked: false,
            dimmed: r.status != "active",
        }
    }));
    rows
}

#[cfg(test)]
mod tests {
    use super::{EntryView, ListView, entry_rows};
    use crate::widgets::grouped_list::Row;

    fn entry(name: &str, scope: Option<&str>, status: &str) -> EntryView {
        EntryView {
            name: name.into(),
            node_type: "convention".into(),
            status: status.into(),
            last_change_ms: 0,
            scope: scope.map(Into::into),
            links: 3,
            flags: Vec::new(),
        }
    }

    #[test]
    fn columns_align_whatever_the_scope_and_deprecated_entries_say_so() {
        let l = ListView {
            rows: vec![
                entry("a", Some("services/orders/very/long/scope/path"), "active"),
                entry("a-much-longer-convention-name", None, "deprecated"),
                entry("b", Some("db"), "active"),
            ],
            mentions: Vec::new(),
        };
        let rows = entry_rows(&l, 86_400_000);
        let texts: Vec<String> = rows
            .iter()
            .map(|r| match r {
                Row::Header(h) => h.clone(),
                Row::Item { spans, .. } => format!("  {}", spans.iter().map(|(s, _)| s.as_str()).collect::<String>()),
            })
            .collect();
        let col = |t: &str, word: &str| t.find(word).map(|b| t[..b].chars().count());
        let links: Vec<usize> = texts[1..].iter().map(|t| col(t, "    3  ").unwrap()).collect();
        assert!(links.windows(2).all(|w| w[0] == w[1]), "{texts:#?}");
        assert_eq!(col(&texts[0], "links").map(|c| c + 5), Some(links[0] + 5), "{texts:#?}");
        assert!(texts[2].contains("deprecated"), "{texts:#?}");
        assert!(texts[1].contains('…'), "a long scope is cut in the middle: {texts:#?}");
    }
}
