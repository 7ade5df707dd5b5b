//! The reviewer's views in the Projection pane: their state, keys and
//! drawing (the exposure view's list is `exposure`'s). In exposure, `enter`
//! opens a node in the Graph pane, `e` opens its edit form there (the tier
//! and text, with the form's confirmations). The audit browser
//! lists records newest first with the chain's state on top; `enter`
//! replays one, or, with another marked, diffs the two replayed texts.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::review::{AuditView, ExposureView, ReplayView};
use crate::app::action::Action;
use crate::app::effect::{Effect, request};
use crate::app::layout::block;
use crate::app::state::AppState;
use crate::app::worker::Request;
use crate::widgets::grouped_list::{GroupedList, Row};
use crate::widgets::line_diff::{self, Diff, DiffPlace};
use crate::widgets::rich_text::RichText;
use crate::widgets::{RichLine, Tone, ToneStyles};

/// Which view the pane shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum View {
    #[default]
    Previews,
    Exposure,
    Audit,
}

/// One sideways step of the audit rows, in columns.
const HSTEP: usize = 16;

/// `spans` without their first `n` characters (a row scrolled sideways).
pub(super) fn skip_columns(spans: RichLine, n: usize) -> RichLine {
    let mut left = n;
    spans
        .into_iter()
        .filter_map(|(text, tone)| {
            let len = text.chars().count();
            if left >= len {
                left -= len;
                return None;
            }
            let kept: String = text.chars().skip(left).collect();
            left = 0;
            Some((kept, tone))
        })
        .collect()
}

/// The "since" choices of the audit filter, in days (none: all).
const SINCE: [Option<i64>; 4] = [None, Some(1), Some(7), Some(30)];

#[derive(Debug, Default)]
pub struct Review {
    pub view: View,
    pub generation: u64,
    pub exposure: Option<Result<ExposureView, String>>,
    pub audit: Option<Result<AuditView, String>>,
    pub agent: Option<String>,
    pub since: usize,
    pub picked: usize,
    pub mark: Option<usize>,
    pub replay: Option<Result<Vec<ReplayView>, String>>,
    /// The exposure view's filter and folds.
    pub x: super::exposure::Exposure,
    /// The audit browser's filter.
    pub af: super::audit_filter::AuditFilter,
    /// How far the audit or exposure rows are scrolled sideways (← →), in
    /// columns: a row's end stays reachable on a narrow terminal.
    pub hscroll: usize,
    /// How far the replay below the audit list is scrolled (J/K).
    pub replay_scroll: u16,
    /// Two records compared: folded to their changes (`c`).
    pub replay_folded: bool,
}

/// Two records replayed and compared through the console's one diff.
fn replay_diff(r: &Review, changes_only: bool) -> Option<Diff> {
    match &r.replay {
        Some(Ok(v)) if v.len() == 2 => Some(line_diff::diff(&v[0].text, &v[1].text, "no change", changes_only)),
        _ => None,
    }
}

/// Whether two records are compared (`n`, `N` and `c` move through them).
pub fn comparing(r: &Review) -> bool {
    matches!(&r.replay, Some(Ok(v)) if v.len() == 2)
}

/// Where the compared records are shown from.
fn replay_place(r: &Review) -> DiffPlace {
    DiffPlace {
        scroll: r.replay_scroll,
        changes_only: r.replay_folded,
    }
}

fn rows(r: &Review) -> usize {
    match (r.view, &r.exposure, &r.audit) {
        (View::Exposure, Some(Ok(v)), _) => super::exposure::items(v, &r.x).len(),
        (View::Audit, _, Some(Ok(a))) => super::audit_filter::visible(a, &r.af).len(),
        _ => 0,
    }
}

/// Asks for what the current view shows.
pub fn ask(state: &mut AppState, fx: &mut Vec<Effect>) {
    let generation = state.next_generation();
    let r = &mut state.projection.review;
    r.generation = generation;
    match r.view {
        View::Previews => {}
        View::Exposure => request(fx, Request::ExposureReport { generation }),
        View::Audit => {
            let since =
                SINCE[r.since % SINCE.len()].map(|d| graphex_engine::model::Timestamp(state.now_ms - d * 86_400_000));
            request(
                fx,
                Request::AuditList {
                    generation,
                    agent: r.agent.clone(),
                    since,
                },
            );
        }
    }
}

/// The reviewer's keys; false when the key is the previews'.
pub fn action(state: &mut AppState, a: Action, fx: &mut Vec<Effect>) -> bool {
    if state.projection.review.view == View::Exposure && super::exposure::action(state, a, fx) {
        return true;
    }
    let r = &mut state.projection.review;
    let n = rows(r);
    match a {
        Action::ShowExposure | Action::ShowAudit => {
            let want = if a == Action::ShowExposure {
                View::Exposure
            } else {
                View::Audit
            };
            r.view = if r.view == want { View::Previews } else { want };
            r.picked = 0;
            r.mark = None;
            r.replay = None;
            r.x = super::exposure::Exposure::default();
            r.af = super::audit_filter::AuditFilter::default();
            r.hscroll = 0;
            ask(state, fx);
        }
        _ if r.view == View::Previews => return false,
        Action::ChooseSubject if r.view == View::Audit => r.af.typing = true,
        Action::NextTier => r.hscroll = (r.hscroll + HSTEP).min(200),
        Action::PrevTier => r.hscroll = r.hscroll.saturating_sub(HSTEP),
        Action::NextChange | Action::PrevChange | Action::ChangesOnly if r.view == View::Audit => {
            let Some(d) = replay_diff(r, r.replay_folded) else {
                state.error("n, N and c move through two records compared: space marks one, enter on another");
                return true;
            };
            let mut at = replay_place(r);
            if a == Action::ChangesOnly {
                at.toggle(|folded| replay_diff(r, folded).unwrap_or_default());
            } else if let Err(why) = at.step(&d, a == Action::NextChange) {
                state.info(why);
                return true;
            }
            let r = &mut state.projection.review;
            (r.replay_scroll, r.replay_folded) = (at.scroll, at.changes_only);
        }
        Action::CardDown | Action::CardUp if comparing(r) => {
            let d = replay_diff(r, r.replay_folded).unwrap_or_default();
            let mut at = replay_place(r);
            at.scroll_by(&d, if a == Action::CardDown { 5 } else { -5 });
            r.replay_scroll = at.scroll;
        }
        Action::CardDown => {
            // Up to the replay's last line, so `K` comes back at once.
            let lines = match &r.replay {
                Some(Ok(v)) => v.iter().map(|x| x.text.lines().count() + 1).sum(),
                _ => 0,
            };
            let last = u16::try_from(lines.saturating_sub(1)).unwrap_or(u16::MAX);
            r.replay_scroll = r.replay_scroll.saturating_add(5).min(last);
        }
        Action::CardUp => r.replay_scroll = r.replay_scroll.saturating_sub(5),
        Action::Up => r.picked = r.picked.saturating_sub(1),
        Action::Down => r.picked = (r.picked + 1).min(n.saturating_sub(1)),
        Action::Top => r.picked = 0,
        Action::Bottom => r.picked = n.saturating_sub(1),
        Action::ReviewOpen => {
            let Some(Ok(v)) = &r.audit else { return true };
            let hash_at = |i: usize| v.rows.get(i).filter(|x| x.readable).map(|x| x.hash.clone());
            let mut hashes: Vec<String> = r.mark.and_then(hash_at).into_iter().collect();
            let picked = super::audit_filter::picked(r);
            match picked.and_then(hash_at) {
                Some(h) if r.mark != picked => hashes.push(h),
                Some(_) => {}
                None => {
                    state.error("this record is above this unlock level: it cannot be replayed here");
                    return true;
                }
            }
            let generation = state.next_generation();
            state.projection.review.generation = generation;
            state.projection.review.replay = None;
            state.projection.review.replay_scroll = 0;
            state.projection.review.replay_folded = false;
            request(fx, Request::AuditReplay { generation, hashes });
        }
        Action::AuditMark if r.view == View::Audit => {
            let picked = super::audit_filter::picked(r);
            r.mark = if r.mark == picked { None } else { picked };
        }
        Action::AuditAgent if r.view == View::Audit => {
            let agents = match &r.audit {
                Some(Ok(v)) => v.agents.clone(),
                _ => Vec::new(),
            };
            let i = r.agent.as_ref().and_then(|a| agents.iter().position(|x| x == a));
            r.agent = match i {
                None => agents.first().cloned(),
                Some(i) => agents.get(i + 1).cloned(),
            };
            r.picked = 0;
            r.mark = None;
            ask(state, fx);
        }
        Action::AuditSince if r.view == View::Audit => {
            r.since = (r.since + 1) % SINCE.len();
            r.picked = 0;
            r.mark = None;
            ask(state, fx);
        }
        _ => {}
    }
    true
}

pub fn exposure_answer(state: &mut AppState, generation: u64, result: Result<ExposureView, String>) {
    let r = &mut state.projection.review;
    if r.generation == generation {
        super::exposure::answered(r, result);
    }
}

pub fn audit_answer(state: &mut AppState, generation: u64, result: Result<AuditView, String>) {
    let r = &mut state.projection.review;
    if r.generation == generation {
        r.audit = Some(result);
    }
}

pub fn replayed(state: &mut AppState, generation: u64, result: Result<Vec<ReplayView>, String>) {
    let r = &mut state.projection.review;
    if r.generation == generation {
        r.replay = Some(result);
    }
}

pub(crate) fn draw(buf: &mut Buffer, r: &Review, styles: &ToneStyles, area: Rect) {
    match r.view {
        View::Previews => {}
        View::Exposure => super::exposure::draw(buf, r, styles, area),
        View::Audit => audit(buf, r, styles, area),
    }
}

fn item(spans: RichLine, marked: bool) -> Row {
    Row::Item {
        spans,
        marked,
        dimmed: false,
    }
}

/// The index in `rows` of the `picked`-th item (headers skipped).
pub(super) fn selected_row(rows: &[Row], picked: usize) -> Option<usize> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, Row::Item { .. }))
        .nth(picked)
        .map(|(i, _)| i)
}

fn audit(buf: &mut Buffer, r: &Review, styles: &ToneStyles, area: Rect) {
    let list_h = if r.replay.is_some() {
        area.height / 2
    } else {
        area.height
    };
    let list = Rect::new(area.x, area.y, area.width, list_h);
    let detail = Rect::new(area.x, area.y + list_h, area.width, area.height - list_h);
    let since = match SINCE[r.since % SINCE.len()] {
        None => "all time".to_owned(),
        Some(d) => format!("last {d} day(s)"),
    };
    // The keys are on the hint line: a title that lists them loses its end
    // on a narrow terminal.
    let title = format!(
        "Audit · agent {} · {since}{}{}",
        r.agent.as_deref().unwrap_or("any"),
        r.af.title(),
        if r.hscroll > 0 {
            format!(" · → {} columns", r.hscroll)
        } else {
            String::new()
        }
    );
    let rows: Vec<Row> = match &r.audit {
        None => vec![Row::Header("reading…".into())],
        Some(Err(e)) => vec![Row::Header(e.clone())],
        Some(Ok(v)) => {
            let (ok, n, problems) = &v.verify;
            let mut rows = vec![Row::Header(if *ok {
                format!("chain verified: {n} record(s) intact")
            } else {
                format!("CHAIN BROKEN: {}", problems.join("; "))
            })];
            let shown = super::audit_filter::visible(v, &r.af);
            rows.extend(shown.into_iter().map(|i| (i, &v.rows[i])).map(|(i, x)| {
                let spans = if x.readable {
                    vec![
                        (format!("#{:<5} {} {:<10} ", x.seq, x.at, x.kind), Tone::Dim),
                        (format!("{} ", x.agent), Tone::Accent),
                        (x.trust.map(|t| format!("trust {t:.1} ")).unwrap_or_default(), Tone::Dim),
                        (
                            format!("{} · {} · {} tokens · ", x.tier, x.centre, x.tokens),
                            Tone::Normal,
                        ),
                        (x.hash.get(..12).unwrap_or_default().to_owned(), Tone::Dim),
                    ]
                } else if x.tier == graphex_engine::model::Tier::HumanOnly.to_string() {
                    // Sealed at the writer's level: a human-level session made it.
                    vec![(
                        format!(
                            "#{:<5} {} {:<10} made at the human level (sealed under the human-only key: unlock human \
                             to read it)",
                            x.seq, x.at, x.kind
                        ),
                        Tone::Dim,
                    )]
                } else {
                    vec![(
                        format!("#{:<5} {} {:<10} sealed at {}", x.seq, x.at, x.kind, x.tier),
                        Tone::Dim,
                    )]
                };
                item(skip_columns(spans, r.hscroll), r.mark == Some(i))
            }));
            rows
        }
    };
    let selected = selected_row(&rows, r.picked);
    GroupedList {
        rows: &rows,
        selected,
        styles,
        block: Some(block(&title, true, styles)),
    }
    .render(list, buf);
    let lines: Vec<RichLine> = match &r.replay {
        None => return,
        Some(Err(e)) => vec![vec![(e.clone(), Tone::Error)]],
        Some(Ok(v)) if v.len() == 2 => {
            let (lines, place) = replay_place(r).shown(&replay_diff(r, r.replay_folded).unwrap_or_default());
            let title = format!(
                "#{} ({}) → #{} ({}): what changed",
                v[0].seq, v[0].at, v[1].seq, v[1].at
            );
            let mut frame = block(&title, false, styles);
            if !place.is_empty() {
                frame = frame.title_bottom(ratatui::text::Span::styled(format!(" {place} "), styles.dim));
            }
            return RichText {
                lines: &lines,
                scroll: 0,
                styles,
                block: Some(frame),
            }
            .render(detail, buf);
        }
        Some(Ok(v)) => v
            .iter()
            .flat_map(|x| {
                let head = vec![(
                    format!(
                        "#{} {} for {}: {}",
                        x.seq,
                        x.at,
                        x.agent,
                        if x.matches {
                            "rebuilt from that time's versions: the hash matches"
                        } else {
                            "REBUILT TEXT DIFFERS FROM THE RECORDED HASH"
                        }
                    ),
                    if x.matches { Tone::Ok } else { Tone::Error },
                )];
                std::iter::once(head).chain(
                    x.text
                        .lines()
                        .map(|l| vec![(graphex_engine::hygiene::visible_line(l).into_owned(), Tone::Normal)]),
                )
            })
            .collect(),
    };
    RichText {
        lines: &lines,
        scroll: r.replay_scroll,
        styles,
        block: Some(block("Replay", false, styles)),
    }
    .render(detail, buf);
}
