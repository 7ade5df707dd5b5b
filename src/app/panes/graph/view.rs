//! Drawing the Graph pane: the breadcrumbs and walk on the top line, the
//! rings on the left, the centre's inspector on the right; and the pane's
//! dialogs (jump, pickers, export).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use unicode_width::UnicodeWidthStr as _;

use super::Place;
use super::data::{Inspector, PathView};
use super::dialogs::HistoryDialog;
use super::rows;
use crate::app::layout::age;
use crate::app::layout::block;
use crate::app::state::{AppState, Popup};
use crate::widgets::dialog::{Dialog, centered};
use crate::widgets::grouped_list::{GroupedList, Row};
use crate::widgets::picker::{PickRow, Picker};
use crate::widgets::rich_text::RichText;
use crate::widgets::{RichLine, Tone, ToneStyles};

/// The pane's regions in `main`: the top line, the rings, the inspector.
pub fn areas(main: Rect) -> (Rect, Rect, Rect) {
    let top = Rect::new(main.x, main.y, main.width, 1);
    let body = Rect::new(main.x, main.y + 1, main.width, main.height.saturating_sub(1));
    let list_w = (main.width * 11 / 20).clamp(34.min(main.width), 90);
    (
        top,
        Rect::new(body.x, body.y, list_w, body.height),
        Rect::new(body.x + list_w, body.y, body.width - list_w, body.height),
    )
}

pub(crate) fn graph(buf: &mut Buffer, state: &AppState, styles: &ToneStyles, main: Rect) {
    let (top, list, inspector) = areas(main);
    let g = &state.graph;
    let Some(place) = &g.place else {
        welcome(buf, state, styles, main);
        return;
    };
    top_line(buf, state, place, styles, top);
    match &g.shown {
        None => text(
            buf,
            styles,
            "Neighbourhood",
            &[vec![("Reading…".into(), Tone::Dim)]],
            list,
        ),
        Some(Err(e)) => text(
            buf,
            styles,
            "Neighbourhood",
            &[vec![(e.clone(), Tone::Error)]],
            list.union(inspector),
        ),
        Some(Ok(n)) => {
            let (rows, selected) = rows::list_rows(g);
            let count: usize = n.rings.iter().map(|r| r.total).sum();
            let rows_n = rows::items(&rows::current(g)).len();
            let mut title = format!(
                "Neighbourhood · {count} node{} · {}/{rows_n}",
                if count == 1 { "" } else { "s" },
                g.selected.min(rows_n.saturating_sub(1)) + 1
            );
            title.push_str(&g.filter.title());
            if let Some((commit, at)) = n.as_of {
                title = format!(
                    "HISTORY · as of entry #{commit}, {} · {title}",
                    graphex_engine::model::Timestamp(at).to_rfc3339()
                );
            }
            if rows.is_empty() {
                let lines = vec![vec![(
                    "No neighbours here with this walk (d direction, s inactive, t/r filters, + depth).".into(),
                    Tone::Dim,
                )]];
                text(buf, styles, &title, &lines, list);
            } else {
                GroupedList {
                    rows: &rows,
                    selected,
                    styles,
                    block: Some(block(&title, true, styles)),
                }
                .render(list, buf);
            }
            // The selected neighbour once read, else the centre.
            let selected_name = match rows::selected(g) {
                Some(rows::Item::Node { row, .. }) => Some(row.name.as_str()),
                _ => None,
            };
            let lines = match (&g.inspected, selected_name) {
                (Some(Ok(i)), Some(name)) if i.name == name => inspector_lines(i, None, None, state.now_ms),
                (Some(Err(e)), Some(_)) => vec![vec![(e.clone(), Tone::Error)]],
                _ => inspector_lines(&n.inspector, g.mark.as_deref(), g.path.as_ref(), state.now_ms),
            };
            let title = if n.as_of.is_some() {
                "Inspector · HISTORY: the version of then"
            } else {
                "Inspector"
            };
            RichText {
                lines: &lines,
                scroll: g.inspector_scroll,
                styles,
                block: Some(block(title, false, styles)),
            }
            .render(inspector, buf);
        }
    }
}

fn text(buf: &mut Buffer, styles: &ToneStyles, title: &str, lines: &[RichLine], area: Rect) {
    RichText {
        lines,
        scroll: 0,
        styles,
        block: Some(block(title, true, styles)),
    }
    .render(area, buf);
}

fn welcome(buf: &mut Buffer, state: &AppState, styles: &ToneStyles, area: Rect) {
    let key = |a| state.keymap.keys_of(a).first().cloned().unwrap_or_else(|| "?".into());
    use crate::app::action::Action;
    let lines: Vec<RichLine> = vec![
        vec![("No node open.".into(), Tone::Heading)],
        Vec::new(),
        vec![
            (key(Action::Jump), Tone::Key),
            (
                " jumps to any node you can read, by name or description.".into(),
                Tone::Normal,
            ),
        ],
        vec![
            (key(Action::OpenNode), Tone::Key),
            (
                " on a proposal in the queue opens the node it touches.".into(),
                Tone::Normal,
            ),
        ],
        vec![
            (":graph NAME".into(), Tone::Key),
            (" in the command palette opens NAME.".into(), Tone::Normal),
        ],
    ];
    text(buf, styles, "Graph", &lines, area);
}

/// Breadcrumbs (the places back leads to, then the centre) on the left, the
/// walk on the right; the breadcrumbs give way from the left.
fn top_line(buf: &mut Buffer, state: &AppState, place: &Place, styles: &ToneStyles, area: Rect) {
    let g = &state.graph;
    let mut walk = walk_words(place);
    if let Some(at) = place.as_of {
        walk = format!("HISTORY {} · {walk}", as_of_words(at));
    }
    let room = usize::from(area.width).saturating_sub(walk.width() + 2);
    let mut crumbs: Vec<Span> = vec![Span::styled(place.centre.clone(), styles.of(Tone::Heading))];
    let mut used = place.centre.width();
    for p in g.back.iter().rev() {
        let piece = format!("{} › ", p.centre);
        if used + piece.width() + 2 > room {
            crumbs.insert(0, Span::styled("… ", styles.of(Tone::Dim)));
            break;
        }
        used += piece.width();
        crumbs.insert(0, Span::styled(piece, styles.of(Tone::Dim)));
    }
    if !g.forward.is_empty() {
        crumbs.push(Span::styled(
            format!("  ({} ahead)", g.forward.len()),
            styles.of(Tone::Dim),
        ));
    }
    // The breadcrumbs are cut where the walk begins (a space before it),
    // never the walk.
    let crumbs_width = u16::try_from(usize::from(area.width).saturating_sub(walk.width() + 1))
        .unwrap_or(area.width)
        .min(area.width);
    Line::from(crumbs).render(Rect::new(area.x, area.y, crumbs_width, 1), buf);
    let w = u16::try_from(walk.width()).unwrap_or(area.width).min(area.width);
    let tone = if place.as_of.is_some() {
        Tone::Warn
    } else {
        Tone::Accent
    };
    Line::from(Span::styled(walk, styles.of(tone)))
        .render(Rect::new(area.right().saturating_sub(w), area.y, w, 1), buf);
}

/// A point in time in words.
pub fn as_of_words(at: graphex_engine::as_of::AsOf) -> String {
    match at {
        graphex_engine::as_of::AsOf::Commit(n) => format!("as of entry #{n}"),
        graphex_engine::as_of::AsOf::Date(t) => format!("as of {}", t.to_rfc3339()),
    }
}

/// The walk in words: `depth 2 · both ways · active only · types: all`.
pub fn walk_words(place: &Place) -> String {
    let set = |s: &std::collections::BTreeSet<String>| {
        if s.is_empty() {
            "all".to_owned()
        } else {
            s.iter().cloned().collect::<Vec<_>>().join(",")
        }
    };
    format!(
        "depth {} · {} · {} · types: {} · relations: {}",
        place.depth,
        match place.direction {
            graphex_engine::traverse::Direction::Both => "both ways",
            graphex_engine::traverse::Direction::Out => "outgoing",
            graphex_engine::traverse::Direction::In => "incoming",
        },
        if place.inactive { "all statuses" } else { "active only" },
        set(&place.types),
        set(&place.relations),
    )
}

/// The inspector's lines: the centre's fields, then its text behind a
/// quote gutter, then the path from the mark, if asked.
pub fn inspector_lines(
    i: &Inspector,
    mark: Option<&str>,
    path: Option<&Result<PathView, String>>,
    now_ms: i64,
) -> Vec<RichLine> {
    let field = |k: &str, v: String| vec![(format!("{k:<12}"), Tone::Dim), (v, Tone::Normal)];
    let mut out: Vec<RichLine> = vec![
        vec![(i.name.clone(), Tone::Heading)],
        vec![(
            format!(
                "{} · {} · {} · confidence {:.2}",
                i.node_type, i.tier, i.status, i.confidence
            ),
            if i.status == "active" { Tone::Normal } else { Tone::Warn },
        )],
    ];
    if let Some(r) = &i.status_reason {
        out.push(field("reason", r.clone()));
    }
    out.push(field("provenance", i.provenance.clone()));
    if let Some(origin) = &i.federated_from {
        out.push(vec![
            (format!("{:<12}", "origin"), Tone::Dim),
            (format!("federated from {origin}, read-only"), Tone::Warn),
        ]);
    }
    out.push(field(
        "versions",
        format!("{} · last change {} ago", i.versions, age(now_ms, i.updated_ms)),
    ));
    if let Some(m) = mark {
        out.push(field("mark", m.to_owned()));
    }
    let quoted = |out: &mut Vec<RichLine>, title: &str, lines: &[String]| {
        if lines.is_empty() {
            return;
        }
        out.push(Vec::new());
        out.push(vec![(title.to_owned(), Tone::Heading)]);
        out.extend(
            lines
                .iter()
                .map(|l| vec![("│ ".to_owned(), Tone::Dim), (l.clone(), Tone::Normal)]),
        );
    };
    if !i.properties.is_empty() {
        out.push(Vec::new());
        out.push(vec![("Properties".into(), Tone::Heading)]);
        for (k, v) in &i.properties {
            out.push(vec![
                (format!("  {k}"), Tone::Field),
                (" = ".into(), Tone::Dim),
                (v.clone(), Tone::Normal),
            ]);
        }
    }
    quoted(&mut out, "Description", &i.description);
    quoted(&mut out, "Body", &i.body);
    match path {
        None => {}
        Some(Err(e)) => {
            out.push(Vec::new());
            out.push(vec![(format!("Path: {e}"), Tone::Error)]);
        }
        Some(Ok(p)) => {
            out.push(Vec::new());
            out.push(vec![(format!("Path from {} to {}", p.from, p.to), Tone::Heading)]);
            if p.steps.is_empty() {
                out.push(vec![("no path joins them with this walk".into(), Tone::Dim)]);
            }
            for (name, via) in &p.steps {
                let mut line = Vec::new();
                if let Some((rel, arrow)) = via {
                    line.push((format!("  {} {rel} ", arrow.glyph()), Tone::Dim));
                } else {
                    line.push(("  ".into(), Tone::Dim));
                }
                line.push((name.clone(), Tone::Normal));
                out.push(line);
            }
        }
    }
    out
}

/// Draws the pane's dialog `p`; false when `p` is not one of the pane's.
pub(crate) fn popup(buf: &mut Buffer, state: &AppState, p: &Popup, styles: &ToneStyles, main: Rect) -> bool {
    match p {
        Popup::Jump(j) => {
            let rows: Vec<PickRow> = j
                .hits
                .iter()
                .map(|h| match &h.description {
                    None => PickRow {
                        left: h.node_type.clone(),
                        text: h.name.clone(),
                        matched: h.matched.clone(),
                    },
                    Some(d) => PickRow {
                        left: h.node_type.clone(),
                        text: format!("{} — {d}", h.name),
                        matched: Vec::new(),
                    },
                })
                .collect();
            let footer = if j.searching {
                "searching…"
            } else if j.input.trim().is_empty() && !rows.is_empty() {
                "recent and nearby nodes: enter takes one · or type a name or words of a description · esc closes"
            } else if j.input.trim().is_empty() {
                "type a name or words of a description · esc closes"
            } else if rows.is_empty() {
                "no node matches · esc closes"
            } else {
                "enter opens · ↑↓ choose · esc closes"
            };
            let title = j.purpose.title();
            Picker {
                title: &title,
                query: &j.input,
                selected: (!rows.is_empty()).then_some(j.selected.min(rows.len().saturating_sub(1))),
                rows: &rows,
                footer,
                styles,
            }
            .render(centered(main, 90, main.height.saturating_sub(2)), buf);
        }
        Popup::Facets(f) => {
            let rows = f.pick_rows();
            let h = u16::try_from(rows.len() + 4).unwrap_or(u16::MAX).min(main.height);
            Picker {
                title: f.kind.title(),
                query: "",
                selected: Some(f.selected.min(rows.len().saturating_sub(1))),
                rows: &rows,
                footer: "space picks · enter applies · backspace: all · esc cancels",
                styles,
            }
            .render(centered(main, 72, h), buf);
        }
        Popup::Export { input, error } => {
            let mut body: Vec<RichLine> = vec![vec![(
                "Export the nodes on screen and the edges among them. The file is plain text: it holds the names shown."
                    .into(),
                Tone::Normal,
            )]];
            if let Some(e) = error {
                body.push(vec![(e.clone(), Tone::Error)]);
            }
            let d = Dialog {
                title: "Export (.mmd Mermaid, .dot DOT)",
                body: &body,
                input: Some((input.as_str(), false)),
                footer: "enter exports · esc cancels",
                styles,
            };
            crate::app::layout::dialog(buf, main, d);
        }
        Popup::AsOf { input, error } => {
            let mut body: Vec<RichLine> = vec![vec![(
                "Show the graph as it was: a date (2026-11-01, the end of that day UTC), an instant (2026-11-01T12:00:00Z) or a timeline entry (#42, see graphex timeline). Empty: now."
                    .into(),
                Tone::Normal,
            )]];
            if let Some(e) = error {
                body.push(vec![(e.clone(), Tone::Error)]);
            }
            let d = Dialog {
                title: "As of",
                body: &body,
                input: Some((input.as_str(), false)),
                footer: "enter shows · esc cancels",
                styles,
            };
            crate::app::layout::dialog(buf, main, d);
        }
        Popup::History(h) => history(buf, h, styles, main),
        Popup::Curator(d) => super::curator::draw(buf, d, state.now_ms, styles, main),
        _ => return super::form_view::popup(buf, state, p, styles, main),
    }
    true
}

fn history(buf: &mut Buffer, h: &HistoryDialog, styles: &ToneStyles, main: Rect) {
    let area = centered(main, main.width.saturating_sub(2), main.height);
    ratatui::widgets::Clear.render(area, buf);
    let list_w = (area.width / 3).clamp(24.min(area.width), 48);
    let (list, diff) = (
        Rect::new(area.x, area.y, list_w, area.height),
        Rect::new(area.x + list_w, area.y, area.width - list_w, area.height),
    );
    let title = format!("History of {}", h.name);
    let view = match &h.view {
        None => {
            return text(
                buf,
                styles,
                &title,
                &[vec![("Reading the versions…".into(), Tone::Dim)]],
                area,
            );
        }
        Some(Err(e)) => return text(buf, styles, &title, &[vec![(e.clone(), Tone::Error)]], area),
        Some(Ok(v)) => v,
    };
    let compared = h.compared();
    let rows: Vec<Row> = view
        .versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mut spans = vec![(format!("v{:<3}", v.version), Tone::Heading)];
            if v.sealed {
                spans.push((format!(" sealed ({})", v.tier), Tone::Dim));
            } else {
                spans.push((
                    format!(" {} ", graphex_engine::model::Timestamp(v.at_ms).to_rfc3339()),
                    Tone::Dim,
                ));
                spans.push((v.action.clone().unwrap_or_else(|| "?".into()), Tone::Normal));
                if let Some(a) = &v.actor {
                    spans.push((format!(" by {a}"), Tone::Normal));
                }
                if let Some(p) = &v.proposal {
                    spans.push((format!(" · proposal {p}"), Tone::Dim));
                }
            }
            if compared.is_some_and(|(from, to)| from == i && from != to) {
                spans.push(("  ◂ from".into(), Tone::Accent));
            }
            Row::Item {
                spans,
                marked: h.base == Some(i),
                dimmed: v.sealed,
            }
        })
        .collect();
    GroupedList {
        rows: &rows,
        selected: compared.map(|(_, to)| to),
        styles,
        block: Some(block(&title, true, styles)),
    }
    .render(list, buf);
    let (lines, place) = match compared {
        Some((from, to)) if from != to => {
            let d = h.diff(h.place.changes_only).unwrap_or_default();
            let (lines, place) = h.place.shown(&d);
            let mut head = vec![vec![(
                format!("v{} → v{}", view.versions[from].version, view.versions[to].version),
                Tone::Heading,
            )]];
            head.extend(lines);
            (head, place)
        }
        Some((_, to)) => {
            let v = &view.versions[to];
            let mut out: Vec<RichLine> = vec![vec![(format!("v{}: the first version", v.version), Tone::Heading)]];
            for (k, x) in &v.fields {
                let mut lines = x.lines();
                out.push(vec![
                    (format!("{k}: "), Tone::Field),
                    (lines.next().unwrap_or("").to_owned(), Tone::Normal),
                ]);
                out.extend(lines.map(|l| vec![(format!("  {l}"), Tone::Normal)]));
            }
            (out, String::new())
        }
        None => (vec![vec![("no versions".into(), Tone::Dim)]], String::new()),
    };
    let mut frame = block("Differences", false, styles);
    if !place.is_empty() {
        frame = frame.title_bottom(ratatui::text::Span::styled(format!(" {place} "), styles.dim));
    }
    RichText {
        lines: &lines,
        scroll: 0,
        styles,
        block: Some(frame),
    }
    .render(diff, buf);
}
