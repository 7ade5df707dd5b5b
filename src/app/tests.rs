//! Reducer tests: keys and engine replies in, state and effects out; no
//! terminal, no engine.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use graphex_engine::Level;

use super::action::Action;
use super::keymap::Keymap;
use super::panes::queue::data::{ChangeView, QueueItem, QueueSnapshot};
use super::state::{AppState, Confirmed, Popup};
use super::update::{Effect, Msg, update};
use super::worker::{Reply, Request};
use crate::widgets::Tone;

pub fn item(id: &str, agent: &str, session: &str) -> QueueItem {
    QueueItem {
        id: id.repeat(64 / id.len().max(1)),
        short: id.repeat(12 / id.len().max(1)),
        agent: agent.into(),
        trust: 90.0,
        session: session.into(),
        created_ms: 0,
        source: "cli".into(),
        position: (1, 1),
        rationale: format!("why {id}"),
        changes: vec![ChangeView::AddNode {
            name: format!("node-{id}"),
            node_type: "service".into(),
            tier: "agent-readable".into(),
            description: "a node".into(),
            properties: Vec::new(),
            body: None,
            edges: Vec::new(),
        }],
        lints: Some(Vec::new()),
        merge: Vec::new(),
        stale: Vec::new(),
        group: None,
        conversation: Vec::new(),
        interdiff: None,
        revision: None,
        edit_text: format!("{{\"changes\": [{{\"op\": \"add_node\", \"name\": \"node-{id}\"}}]}}"),
    }
}

/// A console at master level showing `items`.
pub fn console(items: Vec<QueueItem>) -> AppState {
    let mut s = AppState::new(Keymap::load(&[]).unwrap(), "/repo".into());
    s.size = (120, 36);
    update(
        &mut s,
        Msg::Reply(Reply::Opened {
            level: Level::Master,
            root: "/repo".into(),
        }),
    );
    update(
        &mut s,
        Msg::Reply(Reply::Queue(QueueSnapshot {
            items,
            quarantined: Vec::new(),
            contradictions: Vec::new(),
            contradictions_total: 0,
        })),
    );
    s
}

pub fn three() -> AppState {
    console(vec![
        item("a", "claude", "s1"),
        item("b", "claude", "s1"),
        item("c", "codex", "s2"),
    ])
}

pub fn press(s: &mut AppState, code: KeyCode) -> Vec<Effect> {
    let mods = match code {
        KeyCode::Char(c) if c.is_ascii_uppercase() => KeyModifiers::SHIFT,
        _ => KeyModifiers::NONE,
    };
    update(s, Msg::Key(KeyEvent::new(code, mods)))
}

pub fn ch(s: &mut AppState, c: char) -> Vec<Effect> {
    press(s, KeyCode::Char(c))
}

pub fn ctrl(s: &mut AppState, c: char) -> Vec<Effect> {
    update(s, Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)))
}

pub fn typed(s: &mut AppState, text: &str) {
    for c in text.chars() {
        assert!(requests(ch(s, c)).iter().all(|r| matches!(r, Request::Validate { .. })));
    }
}

pub fn requests(fx: Vec<Effect>) -> Vec<Request> {
    fx.into_iter()
        .filter_map(|e| match e {
            Effect::Request(r) => Some(r),
            Effect::Quit | Effect::ClearScreen | Effect::Clipboard(_) | Effect::ExternalEdit { .. } | Effect::Go(_) => {
                None
            }
        })
        .collect()
}

pub fn is_error(s: &AppState, part: &str) -> bool {
    matches!(&s.message, Some((m, Tone::Error)) if m.contains(part))
}

#[test]
fn unlock_masks_keeps_the_dialog_on_failure_and_closes_on_success() {
    let mut s = three();
    s.level = Some(Level::Locked);
    ch(&mut s, 'U');
    for c in "wrong".chars() {
        ch(&mut s, c);
    }
    let r = requests(press(&mut s, KeyCode::Enter));
    assert!(matches!(&r[..], [Request::Unlock { human: false, .. }]), "{r:?}");
    assert!(matches!(s.popups.last(), Some(Popup::Unlock { input, busy: true, .. }) if input.is_empty()));
    update(&mut s, Msg::Reply(Reply::UnlockFailed("wrong passphrase".into())));
    assert!(
        matches!(s.popups.last(), Some(Popup::Unlock { error: Some(e), busy: false, .. }) if e == "wrong passphrase")
    );
    update(&mut s, Msg::Reply(Reply::Unlocked(Level::Master)));
    assert!(s.popups.is_empty());
    let r = requests(ch(&mut s, 'L'));
    assert!(matches!(&r[..], [Request::Lock]), "{r:?}");
}

#[test]
fn quit_asks_only_with_an_unsaved_edit() {
    let mut s = three();
    assert!(ch(&mut s, 'q').iter().any(|e| matches!(e, Effect::Quit)));
    let mut s = three();
    ch(&mut s, 'e');
    typed(&mut s, "x");
    assert!(!ctrl(&mut s, 'q').iter().any(|e| matches!(e, Effect::Quit)));
    assert!(matches!(
        s.popups.last(),
        Some(Popup::Confirm {
            then: Confirmed::Quit,
            ..
        })
    ));
    assert!(ch(&mut s, 'y').iter().any(|e| matches!(e, Effect::Quit)));
}

#[test]
fn the_palette_runs_the_action_it_matches() {
    let mut s = three();
    ch(&mut s, ':');
    for c in "next pane".chars() {
        ch(&mut s, c);
    }
    press(&mut s, KeyCode::Enter);
    assert_eq!(s.pane, super::action::Pane::Graph);
    assert!(s.popups.is_empty());
    update(&mut s, Msg::Action(Action::ShowQueue));
    assert_eq!(s.pane, super::action::Pane::Queue);
}

#[test]
fn the_palette_selection_stays_on_its_list() {
    let mut s = three();
    ch(&mut s, ':');
    for c in "pane".chars() {
        ch(&mut s, c);
    }
    let matches = super::palette::matches("pane", super::action::Pane::Queue);
    let n = matches.len();
    assert!(n > 1);
    for _ in 0..n + 5 {
        press(&mut s, KeyCode::Down);
    }
    assert!(matches!(s.popups.last(), Some(Popup::Palette { selected, .. }) if *selected == n - 1));
    press(&mut s, KeyCode::Enter);
    let mut want = three();
    let last = matches[n - 1].action.unwrap();
    if let super::action::Scope::Pane(p) = last.info().scope {
        want.pane = p;
    }
    update(&mut want, Msg::Action(last));
    assert_eq!(s.pane, want.pane, "enter ran the last match, the one shown selected");
}

fn quits(fx: &[Effect]) -> bool {
    fx.iter().any(|e| matches!(e, Effect::Quit))
}

#[test]
fn ctrl_c_quits_from_any_dialog_but_asks_for_an_unsaved_edit() {
    // From an unlock dialog busy with the KDF, a reason dialog, help.
    for open in [':', '?', 'r'] {
        let mut s = three();
        ch(&mut s, open);
        assert!(!s.popups.is_empty());
        assert!(quits(&ctrl(&mut s, 'c')), "ctrl-c quits from the {open} dialog");
    }
    let mut s = console(vec![item("a", "claude", "s1")]);
    s.level = Some(Level::Locked);
    ch(&mut s, 'U');
    typed_secret(&mut s, "pass");
    press(&mut s, KeyCode::Enter);
    assert!(matches!(s.popups.last(), Some(Popup::Unlock { busy: true, .. })));
    assert!(quits(&ctrl(&mut s, 'c')), "even while unlocking");
    // An unsaved edit asks first; a second ctrl-c at the question quits.
    let mut s = three();
    ch(&mut s, 'e');
    typed(&mut s, "x");
    assert!(!quits(&ctrl(&mut s, 'c')));
    assert!(matches!(
        s.popups.last(),
        Some(Popup::Confirm {
            then: Confirmed::Quit,
            ..
        })
    ));
    assert!(quits(&ctrl(&mut s, 'c')));
}

fn typed_secret(s: &mut AppState, text: &str) {
    for c in text.chars() {
        ch(s, c);
    }
}

#[test]
fn a_second_unlock_waits_for_the_first() {
    let mut s = console(Vec::new());
    s.level = Some(Level::Locked);
    ch(&mut s, 'U');
    typed_secret(&mut s, "pass");
    assert!(matches!(
        &requests(press(&mut s, KeyCode::Enter))[..],
        [Request::Unlock { human: false, .. }]
    ));
    press(&mut s, KeyCode::Esc);
    ch(&mut s, 'U');
    assert!(s.popups.is_empty(), "no second dialog while the first unlock runs");
    assert!(is_error(&s, "still unlocking"), "{:?}", s.message);
}

#[test]
fn pasting_into_the_palette_starts_the_choice_over() {
    let mut s = three();
    ch(&mut s, ':');
    press(&mut s, KeyCode::Down);
    press(&mut s, KeyCode::Down);
    update(&mut s, Msg::Paste("undo".into()));
    assert!(matches!(s.popups.last(), Some(Popup::Palette { selected: 0, .. })));
    let r = requests(press(&mut s, KeyCode::Enter));
    assert!(matches!(&r[..], [Request::Undo]), "the shown match runs: {r:?}");
}

#[test]
fn a_palette_decision_from_another_pane_shows_the_card_and_decides_nothing() {
    let mut s = three();
    ch(&mut s, '2');
    ch(&mut s, ':');
    update(&mut s, Msg::Paste("accept".into()));
    let r = requests(press(&mut s, KeyCode::Enter));
    assert!(r.is_empty(), "nothing decided off screen: {r:?}");
    assert_eq!(s.pane, super::action::Pane::Queue, "the card is on screen");
    assert!(s.busy.is_none());
    assert!(
        matches!(&s.message, Some((m, _)) if m.contains("press a")),
        "{:?}",
        s.message
    );
    // On the queue itself the palette's accept runs.
    ch(&mut s, ':');
    update(&mut s, Msg::Paste("accept".into()));
    let r = requests(press(&mut s, KeyCode::Enter));
    assert!(matches!(&r[..], [Request::Accept { .. }]), "{r:?}");
}

#[test]
fn the_palette_runs_an_action_of_another_pane_there() {
    let mut s = three();
    ch(&mut s, '2');
    assert_eq!(s.pane, super::action::Pane::Graph);
    ch(&mut s, ':');
    update(&mut s, Msg::Paste("toggle select".into()));
    press(&mut s, KeyCode::Enter);
    assert_eq!(s.pane, super::action::Pane::Queue, "it went to the queue");
    assert_eq!(s.queue.marked.len(), 1, "and selected the proposal");
}

#[test]
fn enter_in_help_runs_the_chosen_binding() {
    let mut s = three();
    ch(&mut s, '?');
    update(&mut s, Msg::Paste("show the card's changes".into()));
    press(&mut s, KeyCode::Enter);
    assert!(s.popups.is_empty());
    assert!(s.queue.hide_diff, "toggle_diff ran");
    // A dialog's key is listed but runs nothing.
    ch(&mut s, '?');
    update(&mut s, Msg::Paste("stale accept anyway".into()));
    assert!(requests(press(&mut s, KeyCode::Enter)).is_empty());
    assert!(!s.popups.is_empty(), "help stays open");
}

#[test]
fn lock_and_clear_drops_decrypted_state_and_clears_the_screen() {
    let mut s = three();
    ch(&mut s, 'e');
    typed(&mut s, "edited");
    assert!(s.unsaved_edit());
    // The editor sees keys first; the palette reaches Lock from inside it.
    let fx = update(&mut s, Msg::Action(Action::Lock));
    assert!(s.popups.is_empty(), "the editor and its text are gone");
    assert!(s.queue.items.is_empty() && s.queue.impact.is_none() && s.queue.sealed);
    assert!(
        fx.iter().any(|e| matches!(e, Effect::ClearScreen)),
        "the screen is cleared"
    );
    assert!(matches!(&requests(fx)[..], [Request::Lock]));
    assert!(matches!(&s.message, Some((m, _)) if m.contains("wiped")));
}

#[test]
fn the_message_log_keeps_every_message_in_full() {
    let mut s = three();
    let long = format!("{} the end-of-message-marker", "a long message word ".repeat(20));
    s.error(long.clone());
    s.info("a later one");
    ch(&mut s, 'M');
    assert!(matches!(s.popups.last(), Some(Popup::Messages { .. })));
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 36)).unwrap();
    t.draw(|f| super::view::draw(f, &s, &crate::widgets::ToneStyles::default()))
        .unwrap();
    let shot = t.backend().to_string();
    assert!(
        shot.contains("end-of-message-marker") && shot.contains("a later one"),
        "{shot}"
    );
    press(&mut s, KeyCode::Esc);
    assert!(s.popups.is_empty());
    // The palette finds it by name too.
    ch(&mut s, ':');
    update(&mut s, Msg::Paste("messages".into()));
    press(&mut s, KeyCode::Enter);
    assert!(matches!(s.popups.last(), Some(Popup::Messages { .. })));
    // Bounded.
    for i in 0..super::state::MAX_MESSAGES + 10 {
        s.info(format!("m{i}"));
    }
    assert_eq!(s.messages.len(), super::state::MAX_MESSAGES);
    assert_eq!(
        s.messages.last().unwrap().0,
        format!("m{}", super::state::MAX_MESSAGES + 9)
    );
}

#[test]
fn help_opens_on_the_keys_of_the_view_in_focus() {
    let mut s = three();
    let bar = crate::app::view::hints(&s);
    ch(&mut s, '?');
    let Some(super::state::Popup::Help { focus, .. }) = s.popups.last() else {
        panic!("no help")
    };
    assert_eq!(*focus, bar, "the hint bar's keys, whole");
    let rows = super::palette::help_rows(&s.keymap, "", s.pane, focus);
    // The queue's bar begins with `a accept`: accept's row comes first.
    assert_eq!(
        rows[0].action,
        Some(super::action::Action::Accept),
        "{:?}",
        rows[0].row.text
    );
    assert_eq!(rows[0].row.left, bar[0].0);
}

/// A pane never calls another: it asks for the place (`Effect::Go`), and
/// the shell opens it before the loop sees the effects, the opened pane's
/// own effects (its preview request) in its stead.
#[test]
fn a_pane_asks_for_another_panes_place_and_the_shell_opens_it() {
    use super::effect::Go;
    use super::panes::projection::work::Subject;
    let mut s = three();
    let mut fx = Vec::new();
    super::panes::queue::update::queue_action(&mut s, Action::PreviewImpact, &mut fx);
    assert_eq!(
        s.pane,
        super::action::Pane::Queue,
        "the queue pane opened nothing itself"
    );
    assert!(
        matches!(&fx[..], [Effect::Go(Go::Project(Subject::Proposal { centre, .. }))] if centre == "node-a"),
        "{fx:?}"
    );
    let fx = update(&mut s, Msg::Action(Action::PreviewImpact));
    assert_eq!(s.pane, super::action::Pane::Projection);
    assert!(!fx.iter().any(|e| matches!(e, Effect::Go(_))), "{fx:?}");
    assert!(
        !requests(fx).is_empty(),
        "the projection asks the worker for its preview"
    );
}
