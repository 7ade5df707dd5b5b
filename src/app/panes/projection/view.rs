//! Drawing the Projection pane: the subject, the budget and the trust
//! slider (the store's thresholds marked) on top; the tiers side by side
//! on a wide terminal, as tabs on a narrow one; each with its token meter
//! and its text, or each node's verdict; or a diff between two tiers; and
//! the human-only tier as "never projected".

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::update::trust_tier;
use super::work::{PreviewView, TIERS, TierView};
use super::{PAIRS, tier_diff};
use crate::app::layout::block;
use crate::app::state::AppState;
use crate::widgets::bars::TabBar;
use crate::widgets::rich_text::RichText;
use crate::widgets::{RichLine, Tone, ToneStyles};

/// Side by side from this width; tabs below it.
pub const WIDE: u16 = 150;

pub(crate) fn projection(buf: &mut Buffer, state: &AppState, styles: &ToneStyles, main: Rect) {
    let p = &state.projection;
    if p.review.view != super::review_ui::View::Previews {
        return super::review_ui::draw(buf, &p.review, styles, main);
    }
    let Some(spec) = &p.spec else {
        let lines: Vec<RichLine> = vec![
            vec![("Nothing projected yet.".into(), Tone::Heading)],
            Vec::new(),
            vec![(
                "P on a node in the Graph pane, P on a query in the Query pane, or / here to choose a node: each agent tier's projection shows side by side."
                    .into(),
                Tone::Normal,
            )],
        ];
        return rich(buf, styles, "Projection", &lines, main, 0);
    };
    let top = Rect::new(main.x, main.y, main.width, 1.min(main.height));
    let what_if_rows = if p.what_if.is_some() { 7.min(main.height / 3) } else { 0 };
    let body = Rect::new(
        main.x,
        main.y + 1,
        main.width,
        main.height.saturating_sub(2 + what_if_rows),
    );
    let bottom = Rect::new(main.x, main.bottom().saturating_sub(1), main.width, 1);
    if let Some((tier, answer)) = &p.what_if {
        let area = Rect::new(main.x, body.bottom(), main.width, what_if_rows);
        let lines: Vec<RichLine> = match answer {
            None => vec![vec![("computing…".into(), Tone::Dim)]],
            Some(Err(e)) => vec![vec![(e.clone(), Tone::Error)]],
            Some(Ok(l)) => l.iter().map(|x| vec![(x.clone(), Tone::Normal)]).collect(),
        };
        let title = format!(
            "What if {} were {tier} (nothing is written) · W: next tier",
            spec.subject.label()
        );
        rich(buf, styles, &title, &lines, area, 0);
    }
    let at = trust_tier(state);
    top_line(state, spec, at, styles).render(top, buf);
    let view = match &p.shown {
        None => {
            return rich(
                buf,
                styles,
                "Projection",
                &[vec![("projecting…".into(), Tone::Dim)]],
                body,
                0,
            );
        }
        Some(Err(e)) => return rich(buf, styles, "Projection", &[vec![(e.clone(), Tone::Error)]], body, 0),
        Some(Ok(v)) => v,
    };
    human_only(buf, view, styles, bottom);
    if p.diff.is_some() {
        return diff(buf, p, view, styles, body);
    }
    if body.width >= WIDE {
        let w = body.width / 3;
        for (i, t) in view.tiers.iter().enumerate() {
            let x = body.x + w * i as u16;
            let width = if i == 2 { body.right() - x } else { w };
            column(
                buf,
                t,
                p.why,
                i == at,
                p.scroll,
                styles,
                Rect::new(x, body.y, width, body.height),
            );
        }
    } else {
        let titles: Vec<String> = view.tiers.iter().map(|t| t.tier.to_string()).collect();
        TabBar {
            titles: &titles,
            focused: p.tab,
            right: &[("[ ] switch".into(), Tone::Dim)],
            styles,
        }
        .render(Rect::new(body.x, body.y, body.width, 1), buf);
        let rest = Rect::new(body.x, body.y + 1, body.width, body.height.saturating_sub(1));
        if let Some(t) = view.tiers.get(p.tab) {
            column(buf, t, p.why, p.tab == at, p.scroll, styles, rest);
        }
    }
}

fn rich(buf: &mut Buffer, styles: &ToneStyles, title: &str, lines: &[RichLine], area: Rect, scroll: u16) {
    RichText {
        lines,
        scroll,
        styles,
        block: Some(block(title, true, styles)),
    }
    .render(area, buf);
}

/// The top line: the subject, the agent, the budget, the trust slider and
/// the tier it gives. However narrow the pane, the slider and its tier
/// stay whole: the thresholds, the agent and the budget leave first, and
/// the subject is cut in the middle.
fn top_line<'a>(state: &AppState, spec: &super::work::Spec, at: usize, styles: &ToneStyles) -> Line<'a> {
    let width = usize::from(crate::app::layout::areas(state.size).main.width);
    let (bar, thresholds) = slider(state, if width >= 100 { 21 } else { 11 });
    let tier = format!(" → {}", TIERS[at]);
    let agent = format!(" · agent {}", spec.agent);
    let budget = format!(" · budget {}", spec.budget);
    let label = spec.subject.label();
    let len = |s: &str| s.chars().count();
    // The subject whole if it fits beside the slider, else cut in the middle.
    let mut room = width.saturating_sub(len(&bar) + len(&tier) + 3);
    let subject = crate::widgets::clip::clip_middle(&label, room.max(1));
    room = room.saturating_sub(len(&subject));
    let mut take = |s: String| {
        if len(&s) <= room {
            room -= len(&s);
            s
        } else {
            String::new()
        }
    };
    // What stays beside them, most wanted first.
    let budget = take(budget);
    let thresholds = take(thresholds);
    let agent = take(agent);
    Line::from(vec![
        Span::styled(subject, styles.of(Tone::Heading)),
        Span::styled(format!("{agent}{budget} · "), styles.dim),
        Span::styled(bar, styles.of(Tone::Accent)),
        Span::styled(thresholds, styles.dim),
        Span::styled(tier, styles.of(Tone::Key)),
    ])
}

/// The trust slider, `trust 80.0 ▕····│····●····│··▏`, and the store's
/// thresholds it marks, ` thresholds 70 · 90`.
pub fn slider(state: &AppState, cells: usize) -> (String, String) {
    let p = &state.projection;
    let policy = match &p.shown {
        Some(Ok(v)) => v.policy.clone(),
        _ => graphex_engine::project::TrustPolicy::default(),
    };
    let cells = cells.max(3);
    let at = |score: f64| ((score / 100.0) * (cells - 1) as f64).round() as usize;
    let mut bar: Vec<char> = vec!['·'; cells];
    bar[at(policy.low).min(cells - 1)] = '│';
    bar[at(policy.high).min(cells - 1)] = '│';
    bar[at(p.trust).min(cells - 1)] = '●';
    (
        format!("trust {:.1} ▕{}▏", p.trust, bar.into_iter().collect::<String>()),
        format!(" thresholds {} · {}", policy.low, policy.high),
    )
}

fn meter(t: &TierView) -> String {
    let cells = 10usize;
    let filled = (t.tokens * cells).checked_div(t.budget).unwrap_or(0).min(cells);
    format!(
        "{}{} {}/{}",
        "█".repeat(filled),
        "░".repeat(cells - filled),
        t.tokens,
        t.budget
    )
}

fn column(buf: &mut Buffer, t: &TierView, why: bool, at_trust: bool, scroll: u16, styles: &ToneStyles, area: Rect) {
    let title = if t.sealed {
        format!("{} · above this unlock level", t.tier)
    } else {
        format!("{} · {} · {}", t.tier, meter(t), t.hash.get(..12).unwrap_or_default())
    };
    let lines: Vec<RichLine> = if t.sealed {
        vec![vec![(
            "This session cannot read this tier: unlock further to see what it receives.".into(),
            Tone::Dim,
        )]]
    } else if let Some(e) = &t.error {
        vec![vec![(e.replace('\n', " "), Tone::Error)]]
    } else if let Some(n) = &t.note {
        vec![vec![(n.clone(), Tone::Dim)]]
    } else if let Some((before, tokens)) = &t.before {
        let mut lines = vec![vec![(
            format!("before → after accepting: {tokens} → {} tokens", t.tokens),
            Tone::Heading,
        )]];
        lines.extend(tier_diff::diff_lines(before, &t.text, "no change"));
        lines
    } else if why {
        // What an agent does not receive first: that is what a reviewer
        // looks for (the order within each group is the engine's).
        t.verdicts
            .iter()
            .filter(|v| !v.included)
            .chain(t.verdicts.iter().filter(|v| v.included))
            .map(|v| {
                vec![
                    (
                        format!("{} ", if v.included { "✓" } else { "✗" }),
                        if v.included { Tone::Ok } else { Tone::Dim },
                    ),
                    (v.name.clone(), Tone::Normal),
                    (format!("  {}", v.why), Tone::Dim),
                ]
            })
            .collect()
    } else {
        text_lines(&t.text)
    };
    RichText {
        lines: &lines,
        scroll,
        styles,
        block: Some(block(&title, at_trust, styles)),
    }
    .render(area, buf);
}

/// A projection's text as lines, each shown inert (the text is stored
/// content, made safe for agents; the screen escapes it once more).
fn text_lines(text: &str) -> Vec<RichLine> {
    text.lines()
        .map(|l| {
            let shown = graphex_engine::hygiene::visible_line(l).into_owned();
            let tone = if l.starts_with('#') {
                Tone::Heading
            } else {
                Tone::Normal
            };
            vec![(shown, tone)]
        })
        .collect()
}

/// What tier B receives that A does not (`+`), and the reverse (`-`),
/// scrolled by diff lines (see `tier_diff`); the bottom border says which
/// change is at the top, so a narrow title never hides it.
fn diff(buf: &mut Buffer, p: &super::ProjectionPane, v: &PreviewView, styles: &ToneStyles, area: Rect) {
    let (a, b) = PAIRS[p.diff.unwrap_or(0) % PAIRS.len()];
    let (ta, tb) = (&v.tiers[a], &v.tiers[b]);
    let (lines, place) = match tier_diff::current(p) {
        Ok(d) => crate::widgets::line_diff::DiffPlace {
            scroll: p.scroll,
            changes_only: p.changes_only,
        }
        .shown(&d),
        Err(e) => (vec![vec![(e.to_owned(), Tone::Dim)]], String::new()),
    };
    let title = format!("What {} receives beyond {} (+), and the reverse (-)", tb.tier, ta.tier);
    let mut frame = block(&title, true, styles);
    if !place.is_empty() {
        frame = frame.title_bottom(Span::styled(format!(" {place} "), styles.dim));
    }
    RichText {
        lines: &lines,
        scroll: 0,
        styles,
        block: Some(frame),
    }
    .render(area, buf);
}

fn human_only(buf: &mut Buffer, v: &PreviewView, styles: &ToneStyles, area: Rect) {
    let text = match v.human_only {
        Some(n) => format!("human-only: never projected · {n} node(s) of that tier around this subject"),
        None => "human-only: never projected (unlock human-only to count what it holds here)".to_owned(),
    };
    Line::from(Span::styled(text, styles.dim)).render(area, buf);
}

/// Draws the pane's dialog (the agent id); false when `p` is not it.
pub(crate) fn popup(buf: &mut Buffer, p: &crate::app::state::Popup, styles: &ToneStyles, main: Rect) -> bool {
    let crate::app::state::Popup::AgentId { input, error } = p else {
        return false;
    };
    let mut body: Vec<RichLine> = vec![vec![(
        "The agent the previews are made for, as its records in the audit log will name it.".to_owned(),
        Tone::Normal,
    )]];
    if let Some(e) = error {
        body.push(vec![(e.clone(), Tone::Error)]);
    }
    let d = crate::widgets::dialog::Dialog {
        title: "Agent id",
        body: &body,
        input: Some((input.as_str(), false)),
        footer: "enter sets it · esc cancels",
        styles,
    };
    crate::app::layout::dialog(buf, main, d);
    true
}
