//! The exposure view: the findings grouped by kind, the most severe kind
//! first and by node within it, then what each tier adds, a group per
//! tier. A group opens and closes (`enter` or `space` on it; one that fits
//! opens by itself), and a filter line (`/`) narrows findings and added
//! names by node name or finding text; `esc` clears it. The selection
//! follows its row through both, so `enter` and `e` act on the node shown.

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::review::ExposureView;
use super::review_ui::{Review, selected_row};
use crate::app::action::Action;
use crate::app::effect::{Effect, Go, go};
use crate::app::layout::block;
use crate::app::state::AppState;
use crate::widgets::grouped_list::{GroupedList, Row};
use crate::widgets::{Tone, ToneStyles};

/// A group of at most this many rows opens by itself.
const OPEN_UP_TO: usize = 20;

/// The view's filter and the groups opened or closed by hand.
#[derive(Debug, Default)]
pub struct Exposure {
    pub filter: String,
    /// The filter line takes the keys.
    pub filtering: bool,
    /// A group's key → open, as the reviewer left it; the others open when
    /// they fit.
    pub folds: BTreeMap<String, bool>,
}

/// A selectable row of the view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item<'a> {
    Group {
        key: String,
        title: String,
        count: usize,
        open: bool,
        tone: Tone,
    },
    Finding {
        text: &'a str,
        node: &'a str,
    },
    Added {
        tier: &'a str,
        node: &'a str,
    },
}

impl Item<'_> {
    /// The node `enter` opens and `e` edits.
    pub fn node(&self) -> Option<&str> {
        match self {
            Item::Group { .. } => None,
            Item::Finding { node, .. } | Item::Added { node, .. } => Some(node),
        }
    }

    /// What stays the same row when counts, folds and the filter change.
    fn id(&self) -> (u8, &str, &str) {
        match self {
            Item::Group { key, .. } => (0, key, ""),
            Item::Finding { text, node } => (1, node, text),
            Item::Added { tier, node } => (2, tier, node),
        }
    }
}

/// Whether `row`'s words hold every word of the filter (any case).
fn matches(words: &[String], texts: &[&str]) -> bool {
    words
        .iter()
        .all(|w| texts.iter().any(|t| t.to_lowercase().contains(w.as_str())))
}

/// The view's rows as `x` shows them: each group, then its members when
/// it is open; groups the filter leaves empty are left out.
pub fn items<'a>(v: &'a ExposureView, x: &Exposure) -> Vec<Item<'a>> {
    let words: Vec<String> = x.filter.split_whitespace().map(str::to_lowercase).collect();
    let filtered = !words.is_empty();
    let mut out = Vec::new();
    let group = |out: &mut Vec<Item<'a>>, key: String, title: String, tone: Tone, members: Vec<Item<'a>>| {
        if filtered && members.is_empty() {
            return;
        }
        let open = x.folds.get(&key).copied().unwrap_or(members.len() <= OPEN_UP_TO);
        out.push(Item::Group {
            key,
            title,
            count: members.len(),
            open,
            tone,
        });
        if open {
            out.extend(members);
        }
    };
    for kind in graphex_engine::exposure::FindingKind::BY_SEVERITY {
        let members: Vec<Item<'a>> = v
            .findings
            .iter()
            .filter(|f| f.kind == kind && matches(&words, &[&f.node, &f.text]))
            .map(|f| Item::Finding {
                text: &f.text,
                node: &f.node,
            })
            .collect();
        if members.is_empty() && !filtered {
            continue;
        }
        let tone = if kind == graphex_engine::exposure::FindingKind::LoweredTier {
            Tone::Error
        } else {
            Tone::Warn
        };
        group(
            &mut out,
            format!("finding {}", kind.lint()),
            kind.title().to_owned(),
            tone,
            members,
        );
    }
    for (tier, nodes, edges, adds) in &v.tiers {
        let members: Vec<Item<'a>> = adds
            .iter()
            .filter(|n| matches(&words, &[n]))
            .map(|n| Item::Added { tier, node: n })
            .collect();
        group(
            &mut out,
            format!("tier {tier}"),
            format!("{tier} · {nodes} node(s), {edges} edge(s) · adds"),
            Tone::Heading,
            members,
        );
    }
    out
}

/// The rows of the view's current report.
fn current(r: &Review) -> Vec<Item<'_>> {
    match &r.exposure {
        Some(Ok(v)) => items(v, &r.x),
        _ => Vec::new(),
    }
}

/// Changes what the view shows, keeping the selection on its row. When the
/// row is gone: a filter selects the first match; a new report (the row
/// fixed) keeps the selection where it was on screen.
fn keeping_selection(r: &mut Review, first: bool, change: impl FnOnce(&mut Review)) {
    let before = current(r).get(r.picked).map(|i| {
        let (k, a, b) = i.id();
        (k, a.to_owned(), b.to_owned())
    });
    change(r);
    let now = current(r);
    let found = before.and_then(|(k, a, b)| now.iter().position(|i| i.id() == (k, a.as_str(), b.as_str())));
    r.picked = match found {
        Some(i) => i,
        None if first => 0,
        None => r.picked.min(now.len().saturating_sub(1)),
    };
}

/// A new report (the graph changed): the selection stays on its row.
pub fn answered(r: &mut Review, report: Result<ExposureView, String>) {
    keeping_selection(r, false, |r| r.exposure = Some(report));
}

/// Opens or closes the group of the selected row, selecting the group.
fn fold(r: &mut Review) {
    let rows = current(r);
    let Some((at, key, open)) = rows[..rows.len().min(r.picked + 1)]
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, item)| match item {
            Item::Group { key, open, .. } => Some((i, key.clone(), *open)),
            _ => None,
        })
    else {
        return;
    };
    r.picked = at;
    r.x.folds.insert(key, !open);
}

/// The exposure view's own keys (the shared list moves are the review's);
/// false when `a` is not one of them.
pub fn action(state: &mut AppState, a: Action, fx: &mut Vec<Effect>) -> bool {
    let r = &mut state.projection.review;
    match a {
        Action::ChooseSubject => r.x.filtering = true,
        Action::AuditMark => fold(r),
        Action::ReviewOpen | Action::ReviewFix => {
            let rows = current(r);
            let node = match rows.get(r.picked) {
                None => {
                    state.error("nothing selected");
                    return true;
                }
                Some(Item::Group { .. }) if a == Action::ReviewOpen => None,
                Some(Item::Group { .. }) => {
                    state.error("e edits a node: choose a finding or a name in the group");
                    return true;
                }
                Some(item) => item.node().map(str::to_owned),
            };
            let Some(name) = node else {
                fold(r);
                return true;
            };
            go(
                fx,
                if a == Action::ReviewFix {
                    Go::EditNode(name)
                } else {
                    Go::Node(name)
                },
            );
        }
        _ => return false,
    }
    true
}

/// A key for the filter line while it is open, or `esc` clearing a kept
/// filter; false when the key is not the view's.
pub fn key(state: &mut AppState, k: &KeyEvent) -> bool {
    let r = &mut state.projection.review;
    if r.view != super::review_ui::View::Exposure
        || !(r.x.filtering || k.code == KeyCode::Esc && !r.x.filter.is_empty())
    {
        return false;
    }
    match k.code {
        KeyCode::Esc => keeping_selection(r, true, |r| {
            r.x.filter.clear();
            r.x.filtering = false;
        }),
        KeyCode::Enter => r.x.filtering = false,
        KeyCode::Up | KeyCode::Down => {
            let n = current(r).len();
            r.picked = if k.code == KeyCode::Up {
                r.picked.saturating_sub(1)
            } else {
                (r.picked + 1).min(n.saturating_sub(1))
            };
        }
        _ => {
            let mut filter = r.x.filter.clone();
            let changed = crate::app::text_input::edit_line(&mut filter, k);
            keeping_selection(r, true, |r| r.x.filter = filter);
            // Other keys (ctrl-c) are the keymap's.
            return changed;
        }
    }
    true
}

/// The view's keys for the hint line, as the keymap binds them.
pub fn hints(state: &AppState) -> Vec<(String, String)> {
    let x = &state.projection.review.x;
    if x.filtering {
        return crate::app::component::fixed(&[
            ("type", "to filter"),
            ("↑↓", "choose"),
            ("enter", "keep"),
            ("esc", "clear"),
        ]);
    }
    let mut out = crate::app::component::keyed(
        state,
        &[
            (Action::ReviewOpen, "open / fold"),
            (Action::AuditMark, "fold"),
            (Action::ReviewFix, "edit"),
            (Action::ChooseSubject, "filter"),
            (Action::ShowExposure, "back"),
            (Action::NextTier, "scroll →"),
        ],
    );
    if !x.filter.is_empty() {
        out.push(("esc".into(), "clear filter".into()));
    }
    out
}

pub(crate) fn draw(buf: &mut Buffer, r: &Review, styles: &ToneStyles, area: Rect) {
    let x = &r.x;
    let line_h = u16::from(x.filtering || !x.filter.is_empty()).min(area.height);
    let list = Rect::new(area.x, area.y, area.width, area.height - line_h);
    let items = current(r);
    let mut rows: Vec<Row> = vec![Row::Header(match &r.exposure {
        None => "reading…".into(),
        Some(Err(e)) => e.clone(),
        Some(Ok(v)) => {
            let shown: usize = items
                .iter()
                .map(|i| match i {
                    Item::Group { key, count, .. } if key.starts_with("finding ") => *count,
                    _ => 0,
                })
                .sum();
            let of = if x.filter.trim().is_empty() {
                String::new()
            } else {
                format!("{shown} of ")
            };
            format!("{of}{} finding(s) · covers up to {}", v.findings.len(), v.covers_up_to)
        }
    })];
    rows.extend(items.iter().map(|i| Row::Item {
        spans: super::review_ui::skip_columns(
            match i {
                Item::Group {
                    title,
                    count,
                    open,
                    tone,
                    ..
                } => vec![
                    ((if *open { "▾ " } else { "▸ " }).to_owned(), Tone::Dim),
                    (format!("{title} ({count})"), *tone),
                ],
                Item::Finding { text, .. } => {
                    vec![("    ".to_owned(), Tone::Normal), ((*text).to_owned(), Tone::Normal)]
                }
                Item::Added { node, .. } => vec![("    ".to_owned(), Tone::Normal), ((*node).to_owned(), Tone::Normal)],
            },
            r.hscroll,
        ),
        marked: false,
        dimmed: false,
    }));
    GroupedList {
        rows: &rows,
        selected: selected_row(&rows, r.picked),
        styles,
        block: Some(block("Exposure", true, styles)),
    }
    .render(list, buf);
    if line_h == 1 {
        let shown = graphex_engine::hygiene::visible_line(&x.filter).into_owned();
        let spans = if x.filtering {
            vec![
                Span::styled("/ ", styles.of(Tone::Key)),
                Span::styled(shown, styles.of(Tone::Normal)),
                Span::styled("▏", styles.of(Tone::Accent)),
            ]
        } else {
            vec![
                Span::styled("filter: ", styles.dim),
                Span::styled(shown, styles.of(Tone::Normal)),
                Span::styled(" · esc clears", styles.dim),
            ]
        };
        Line::from(spans).render(Rect::new(area.x, list.bottom(), area.width, 1), buf);
    }
}
