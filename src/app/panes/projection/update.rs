//! The Projection pane's keys: what to project (from the Graph and Query
//! panes, or the jump), the budget, the trust slider, the tier tabs, why,
//! and diff mode; and the worker's answers.

use super::work::{PreviewView, Spec, Subject, TIERS};
use super::{BUDGET, PAIRS};
use crate::app::action::{Action, Pane};
use crate::app::effect::{Effect, Go, go, request};
use crate::app::state::AppState;
use crate::app::worker::Request;

/// The agent id previews are made (and recorded) for.
pub const AGENT: &str = "console-preview";

/// Opens the pane on `subject`, keeping the budget.
pub fn open(state: &mut AppState, subject: Subject, fx: &mut Vec<Effect>) {
    state.pane = Pane::Projection;
    // With a revision range open, a node is shown before and after it.
    let subject = match (&state.projection.range, subject) {
        (Some(r), Subject::Node { name, .. }) if r.open => Subject::Range {
            centre: name,
            label: r.label.clone(),
        },
        (_, s) => s,
    };
    let budget = state.projection.spec.as_ref().map_or(BUDGET, |s| s.budget);
    state.projection.spec = Some(Spec {
        subject,
        agent: AGENT.to_owned(),
        budget,
    });
    state.projection.scroll = 0;
    ask(state, fx);
}

/// Asks the worker for the previews of the current spec.
pub fn ask(state: &mut AppState, fx: &mut Vec<Effect>) {
    let Some(spec) = state.projection.spec.clone() else {
        return;
    };
    let generation = state.next_generation();
    state.projection.generation = generation;
    request(fx, Request::Preview { generation, spec });
}

pub fn shown(state: &mut AppState, generation: u64, result: Result<PreviewView, String>) {
    if generation == state.projection.generation && state.projection.spec.is_some() {
        state.projection.shown = Some(result);
    }
}

/// The tier index the slider's trust score maps to.
pub fn trust_tier(state: &AppState) -> usize {
    let policy = match &state.projection.shown {
        Some(Ok(v)) => v.policy.clone(),
        _ => graphex_engine::project::TrustPolicy::default(),
    };
    let tier = policy.max_tier(graphex_engine::project::Access::Trust {
        score: state.projection.trust,
        local: false,
    });
    TIERS.iter().position(|t| *t == tier).unwrap_or(0)
}

pub fn projection_action(state: &mut AppState, a: Action, fx: &mut Vec<Effect>) {
    if super::review_ui::action(state, a, fx) {
        return;
    }
    let p = &mut state.projection;
    let step_trust = |p: &mut super::ProjectionPane, by: f64| {
        p.trust = ((p.trust + by) * 10.0).round().clamp(0.0, 1000.0) / 10.0;
    };
    match a {
        Action::Up | Action::CardUp => p.scroll = p.scroll.saturating_sub(if a == Action::Up { 1 } else { 5 }),
        Action::Down | Action::CardDown => p.scroll = p.scroll.saturating_add(if a == Action::Down { 1 } else { 5 }),
        Action::PageUp => p.scroll = p.scroll.saturating_sub(20),
        Action::PageDown => p.scroll = p.scroll.saturating_add(20),
        Action::Top => p.scroll = 0,
        Action::TrustUp => step_trust(p, 0.1),
        Action::TrustDown => step_trust(p, -0.1),
        Action::TrustUpMore => step_trust(p, 5.0),
        Action::TrustDownMore => step_trust(p, -5.0),
        Action::BudgetUp | Action::BudgetDown => {
            let Some(spec) = p.spec.as_mut() else {
                state.error("nothing projected yet: P on a node in the Graph pane or a query in the Query pane");
                return;
            };
            spec.budget = if a == Action::BudgetUp {
                (spec.budget + 250).min(100_000)
            } else {
                spec.budget.saturating_sub(250).max(250)
            };
            ask(state, fx);
        }
        Action::NextTier => p.tab = (p.tab + 1) % TIERS.len(),
        Action::PrevTier => p.tab = (p.tab + TIERS.len() - 1) % TIERS.len(),
        Action::ToggleWhy => p.why = !p.why,
        // The diff scrolls by its own lines: each view starts at its top.
        Action::ToggleTierDiff => {
            p.diff = if p.diff.is_some() { None } else { Some(0) };
            p.scroll = 0;
        }
        Action::CycleTierDiff => {
            p.diff = Some(p.diff.map_or(0, |d| (d + 1) % PAIRS.len()));
            p.scroll = 0;
        }
        Action::NextChange | Action::PrevChange => super::tier_diff::next_change(state, a == Action::NextChange),
        Action::ChangesOnly => super::tier_diff::toggle_changes_only(state),
        Action::WhatIf => what_if(state, fx),
        Action::AgentId => match &p.spec {
            Some(spec) => {
                let input = spec.agent.clone();
                state
                    .popups
                    .push(crate::app::state::Popup::AgentId { input, error: None });
            }
            None => state.error("nothing projected yet: P on a node in the Graph pane or a query in the Query pane"),
        },
        Action::ChooseSubject => go(fx, Go::ChooseToProject),
        _ => {}
    }
}

/// `W`: the next hypothetical tier for the subject node (then none).
fn what_if(state: &mut AppState, fx: &mut Vec<Effect>) {
    use graphex_engine::model::Tier;
    let Some(Subject::Node { name, .. }) = state.projection.spec.as_ref().map(|s| s.subject.clone()) else {
        state.error("what-if moves a node: project around a node (P in the Graph pane, or /)");
        return;
    };
    const CYCLE: [Tier; 4] = [
        Tier::Public,
        Tier::AgentReadable,
        Tier::AgentRestricted,
        Tier::HumanOnly,
    ];
    let next = match state.projection.what_if.as_ref().map(|(t, _)| *t) {
        None => Some(CYCLE[0]),
        Some(t) => CYCLE
            .iter()
            .position(|c| *c == t)
            .and_then(|i| CYCLE.get(i + 1))
            .copied(),
    };
    let Some(tier) = next else {
        state.projection.what_if = None;
        return;
    };
    let generation = state.next_generation();
    state.projection.what_if_generation = generation;
    state.projection.what_if = Some((tier, None));
    request(fx, Request::Exposure { generation, name, tier });
}

/// The worker's what-if answer; false when it is not this pane's.
pub fn what_if_answer(state: &mut AppState, generation: u64, result: &Result<Vec<String>, String>) -> bool {
    if generation != state.projection.what_if_generation {
        return false;
    }
    if let Some((_, answer)) = state.projection.what_if.as_mut() {
        *answer = Some(result.clone());
    }
    true
}

/// Keys of the agent id dialog.
pub fn dialog_key(state: &mut AppState, k: crossterm::event::KeyEvent, fx: &mut Vec<Effect>) {
    use crossterm::event::KeyCode;
    let Some(crate::app::state::Popup::AgentId { input, error }) = state.popups.last_mut() else {
        return;
    };
    match k.code {
        KeyCode::Esc => {
            state.popups.pop();
        }
        KeyCode::Enter => {
            let id = input.trim().to_owned();
            let ok = !id.is_empty()
                && id.len() <= 64
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
            if !ok {
                *error = Some("1 to 64 characters of letters, digits, - _ .".into());
                return;
            }
            state.popups.pop();
            if let Some(spec) = state.projection.spec.as_mut() {
                spec.agent = id;
            }
            ask(state, fx);
        }
        _ => {
            if crate::app::text_input::edit_line(input, &k) {
                *error = None;
            }
        }
    }
}

/// The graph changed: the previews are made again.
pub fn changed(state: &mut AppState, fx: &mut Vec<Effect>) {
    // A preview is recorded in the audit log as seen: computed only for a
    // pane on screen, else when it is next shown.
    if state.pane != crate::app::action::Pane::Projection {
        state.projection.stale = true;
        return;
    }
    state.projection.stale = false;
    if state.projection.spec.is_some() {
        ask(state, fx);
    }
    if state.projection.review.view != super::review_ui::View::Previews {
        super::review_ui::ask(state, fx);
    }
}
