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
        source: "cli",
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
        stale: Vec::new(),
        group: None,
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
        })),
    );
    s
}

fn three() -> AppState {
    console(vec![
        item("a", "claude", "s1"),
        item("b", "claude", "s1"),
        item("c", "codex", "s2"),
    ])
}

fn press(s: &mut AppState, code: KeyCode) -> Vec<Effect> {
    let mods = match code {
        KeyCode::Char(c) if c.is_ascii_uppercase() => KeyModifiers::SHIFT,
        _ => KeyModifiers::NONE,
    };
    update(s, Msg::Key(KeyEvent::new(code, mods)))
}

fn ch(s: &mut AppState, c: char) -> Vec<Effect> {
    press(s, KeyCode::Char(c))
}

fn ctrl(s: &mut AppState, c: char) -> Vec<Effect> {
    update(s, Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)))
}

fn typed(s: &mut AppState, text: &str) {
    for c in text.chars() {
        assert!(requests(ch(s, c)).iter().all(|r| matches!(r, Request::Validate { .. })));
    }
}

fn requests(fx: Vec<Effect>) -> Vec<Request> {
    fx.into_iter()
        .filter_map(|e| match e {
            Effect::Request(r) => Some(r),
            Effect::Quit | Effect::ClearScreen => None,
        })
        .collect()
}

fn is_error(s: &AppState, part: &str) -> bool {
    matches!(&s.message, Some((m, Tone::Error)) if m.contains(part))
}

#[test]
fn accept_sends_one_request_and_waits_for_its_outcome() {
    let mut s = three();
    let first = s.queue.items[0].id.clone();
    let r = requests(ch(&mut s, 'a'));
    assert!(
        matches!(&r[..], [Request::Accept { id, force: false }] if *id == first),
        "{r:?}"
    );
    assert!(s.busy.is_some());
    // A second decision waits for the first.
    assert!(requests(ch(&mut s, 'a')).is_empty());
    assert!(is_error(&s, "still accepting"), "{:?}", s.message);
    // The queue comes back without it, then the outcome.
    let rest = vec![item("b", "claude", "s1"), item("c", "codex", "s2")];
    update(
        &mut s,
        Msg::Reply(Reply::Queue(QueueSnapshot {
            items: rest,
            quarantined: Vec::new(),
        })),
    );
    update(&mut s, Msg::Reply(Reply::Done("accepted".into())));
    assert!(s.busy.is_none());
    assert_eq!(s.pending, 2);
    assert_eq!(s.queue.current().unwrap().id, item("b", "", "").id);
    assert!(matches!(&s.message, Some((m, Tone::Ok)) if m == "accepted"));
}

#[test]
fn reject_asks_for_a_reason_and_refuses_an_empty_one() {
    let mut s = three();
    assert!(requests(ch(&mut s, 'r')).is_empty());
    assert!(matches!(s.popups.last(), Some(Popup::Reason { .. })));
    assert!(requests(press(&mut s, KeyCode::Enter)).is_empty());
    assert!(matches!(s.popups.last(), Some(Popup::Reason { error: Some(e), .. }) if e.contains("reason is required")));
    for c in "dup of x".chars() {
        ch(&mut s, c);
    }
    let r = requests(press(&mut s, KeyCode::Enter));
    let first = s.queue.items[0].id.clone();
    assert!(
        matches!(&r[..], [Request::Reject { ids, reason }] if *ids == [first.clone()] && reason == "dup of x"),
        "{r:?}"
    );
    assert!(s.popups.is_empty());
}

#[test]
fn deciding_a_whole_session_asks_to_confirm() {
    let mut s = three();
    assert!(requests(ch(&mut s, 'A')).is_empty());
    let ids: Vec<String> = s.queue.items[..2].iter().map(|i| i.id.clone()).collect();
    assert!(
        matches!(s.popups.last(), Some(Popup::Confirm { then: Confirmed::AcceptMany(v), .. }) if *v == ids),
        "both proposals of session s1, not codex's"
    );
    assert!(requests(ch(&mut s, 'n')).is_empty());
    assert!(s.popups.is_empty());
    ch(&mut s, 'A');
    let r = requests(ch(&mut s, 'y'));
    assert!(matches!(&r[..], [Request::AcceptMany { ids: v }] if *v == ids), "{r:?}");
}

#[test]
fn marked_proposals_are_the_batch_and_one_needs_no_confirmation() {
    let mut s = three();
    ch(&mut s, 'j');
    ch(&mut s, 'j');
    ch(&mut s, ' ');
    let third = s.queue.items[2].id.clone();
    assert!(s.queue.marked.contains(&third));
    let r = requests(ch(&mut s, 'A'));
    assert!(
        matches!(&r[..], [Request::AcceptMany { ids }] if *ids == [third.clone()]),
        "{r:?}"
    );
    assert!(s.queue.marked.is_empty(), "marks clear once sent");
    assert!(s.popups.is_empty());
}

#[test]
fn rejecting_a_batch_asks_for_one_reason_then_to_confirm() {
    let mut s = three();
    ch(&mut s, 'R');
    for c in "noise".chars() {
        ch(&mut s, c);
    }
    assert!(requests(press(&mut s, KeyCode::Enter)).is_empty());
    assert!(matches!(
        s.popups.last(),
        Some(Popup::Confirm { then: Confirmed::RejectMany(ids, reason), .. }) if ids.len() == 2 && reason == "noise"
    ));
    let r = requests(ch(&mut s, 'y'));
    assert!(
        matches!(&r[..], [Request::Reject { ids, .. }] if ids.len() == 2),
        "{r:?}"
    );
}

#[test]
fn skip_moves_on_and_wraps_past_skipped_ones() {
    let mut s = three();
    ch(&mut s, 's');
    assert_eq!(s.queue.selected, 1);
    ch(&mut s, 's');
    assert_eq!(s.queue.selected, 2);
    ch(&mut s, 's');
    assert_eq!(s.queue.skipped.len(), 3);
    assert!(matches!(&s.message, Some((m, _)) if m.contains("every proposal is skipped")));
    ch(&mut s, 'g');
    assert!(
        requests(ch(&mut s, 'a')).len() == 1,
        "skipped ones can still be decided"
    );
}

#[test]
fn below_master_the_queue_is_sealed_and_decisions_are_refused() {
    let mut s = three();
    update(&mut s, Msg::Reply(Reply::Sealed { pending: 3 }));
    assert!(s.queue.items.is_empty());
    assert_eq!(s.pending, 3);
    s.level = Some(Level::Locked);
    assert!(requests(ch(&mut s, 'a')).is_empty());
    assert!(is_error(&s, "press U to unlock"));
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
fn the_editor_validates_live_and_drops_stale_validations() {
    let mut s = three();
    let r = requests(ch(&mut s, 'e'));
    let Some(Request::Validate { generation: g1, .. }) = r.first() else {
        panic!("{r:?}")
    };
    let g1 = *g1;
    // Typing inside the editor is text, not commands: `q` and `a` type.
    let r = requests(ch(&mut s, 'q'));
    let Some(Request::Validate { generation: g2, text }) = r.first() else {
        panic!("{r:?}")
    };
    assert!(text.starts_with('q'));
    let g2 = *g2;
    assert!(g2 > g1);
    update(
        &mut s,
        Msg::Reply(Reply::Validated {
            generation: g1,
            result: Ok(1),
        }),
    );
    let Some(Popup::Editor(ed)) = s.popups.last() else {
        panic!()
    };
    assert!(ed.validation.is_none(), "an older validation is dropped");
    update(
        &mut s,
        Msg::Reply(Reply::Validated {
            generation: g2,
            result: Err("expected value at line 1".into()),
        }),
    );
    assert!(requests(ctrl(&mut s, 's')).is_empty(), "an invalid edit is not saved");
    let Some(Popup::Editor(ed)) = s.popups.last() else {
        panic!()
    };
    assert!(ed.error.as_deref().unwrap().contains("not saved"));
    // Esc on a modified edit asks before discarding.
    press(&mut s, KeyCode::Esc);
    assert!(matches!(
        s.popups.last(),
        Some(Popup::Confirm {
            then: Confirmed::DiscardEdit,
            ..
        })
    ));
    ch(&mut s, 'y');
    assert!(s.popups.is_empty());
}

#[test]
fn a_valid_edit_is_accepted_on_save_and_closes_when_saved() {
    let mut s = three();
    ch(&mut s, 'e');
    typed(&mut s, " ");
    let g = s.generation;
    update(
        &mut s,
        Msg::Reply(Reply::Validated {
            generation: g,
            result: Ok(1),
        }),
    );
    let r = requests(ctrl(&mut s, 's'));
    assert!(
        matches!(&r[..], [Request::AcceptEdit { force: false, text, .. }] if text.starts_with(' ')),
        "{r:?}"
    );
    update(&mut s, Msg::Reply(Reply::EditSaved("accepted the edit".into())));
    assert!(s.popups.is_empty());
}

#[test]
fn a_stale_accept_shows_the_versions_and_f_forces() {
    let mut s = three();
    let id = s.queue.items[0].id.clone();
    ch(&mut s, 'a');
    update(
        &mut s,
        Msg::Reply(Reply::Stale {
            id: id.clone(),
            versions: "base / current / proposed".into(),
            edit: false,
        }),
    );
    assert!(s.busy.is_none());
    assert!(matches!(s.popups.last(), Some(Popup::Stale { .. })));
    let r = requests(ch(&mut s, 'f'));
    assert!(
        matches!(&r[..], [Request::Accept { id: i, force: true }] if *i == id),
        "{r:?}"
    );
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
fn selection_follows_the_proposal_when_the_queue_reloads() {
    let mut s = three();
    ch(&mut s, 'j');
    let chosen = s.queue.current().unwrap().id.clone();
    let g = s.queue.impact_generation;
    update(
        &mut s,
        Msg::Reply(Reply::Impact {
            generation: g,
            id: chosen.clone(),
            result: Ok(Vec::new()),
        }),
    );
    // A new proposal arrives in an earlier session: indexes shift.
    let mut items = vec![item("z", "claude", "s1")];
    items.extend(s.queue.items.clone());
    let fx = update(
        &mut s,
        Msg::Reply(Reply::Queue(QueueSnapshot {
            items,
            quarantined: Vec::new(),
        })),
    );
    assert_eq!(s.queue.current().unwrap().id, chosen);
    assert_eq!(s.pending, 4);
    // The graph may have changed: the preview is asked again, and the
    // shown one stays until the new one comes.
    let r = requests(fx);
    assert!(matches!(&r[..], [Request::Impact { id, .. }] if *id == chosen), "{r:?}");
    assert!(s.queue.impact.is_some());
}

#[test]
fn impact_previews_of_an_earlier_selection_are_dropped() {
    let mut s = three();
    let first = s.queue.impact_generation;
    let first_id = s.queue.items[0].id.clone();
    let r = requests(ch(&mut s, 'j'));
    assert!(
        matches!(&r[..], [Request::Impact { generation, .. }] if *generation > first),
        "{r:?}"
    );
    update(
        &mut s,
        Msg::Reply(Reply::Impact {
            generation: first,
            id: first_id,
            result: Ok(Vec::new()),
        }),
    );
    assert!(s.queue.impact.is_none());
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
fn accepting_waits_for_the_lints_to_show() {
    let mut a = item("a", "claude", "s1");
    a.lints = None;
    let mut s = console(vec![a, item("b", "claude", "s1")]);
    assert!(requests(ch(&mut s, 'a')).is_empty());
    assert!(is_error(&s, "still being checked"), "{:?}", s.message);
    assert!(requests(ch(&mut s, 'A')).is_empty(), "nor as part of a batch");
    let id = s.queue.items[0].id.clone();
    update(
        &mut s,
        Msg::Reply(Reply::Lints(vec![(id.clone(), vec![("credential", "a key".into())])])),
    );
    assert_eq!(s.queue.items[0].lints.as_ref().unwrap()[0].0, "credential");
    let r = requests(ch(&mut s, 'a'));
    assert!(matches!(&r[..], [Request::Accept { id: i, .. }] if *i == id), "{r:?}");
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
fn the_card_scrolls_no_further_than_its_end() {
    let mut s = three();
    let max =
        super::panes::queue::layout::current_card(&s).map(|l| super::panes::queue::layout::card_max_scroll(&s, &l));
    assert_eq!(max, Some(0), "a short card does not scroll");
    for _ in 0..5 {
        ch(&mut s, 'J');
    }
    assert_eq!(s.queue.card_scroll, 0);
    // A long body (shown whole, unlike a rationale, which is cut) makes a
    // card that scrolls, up to its last row.
    let mut long = item("d", "claude", "s1");
    if let ChangeView::AddNode { body, .. } = &mut long.changes[0] {
        *body = Some((0..80).map(|i| format!("line {i}\n")).collect());
    }
    let mut s = console(vec![long]);
    let max = super::panes::queue::layout::current_card(&s)
        .map_or(0, |l| super::panes::queue::layout::card_max_scroll(&s, &l));
    assert!(max > 40, "{max}");
    for _ in 0..100 {
        ch(&mut s, 'J');
    }
    assert_eq!(s.queue.card_scroll, max);
    ch(&mut s, 'K');
    assert_eq!(s.queue.card_scroll, max - 3, "one K comes back at once");
}

#[test]
fn page_keys_move_the_editors_cursor_a_page() {
    let mut long = item("d", "claude", "s1");
    long.edit_text = (0..200).map(|i| format!("line {i}\n")).collect();
    let mut s = console(vec![long]);
    ch(&mut s, 'e');
    press(&mut s, KeyCode::PageDown);
    let Some(Popup::Editor(ed)) = s.popups.last() else {
        panic!("editor")
    };
    let (row, top) = (ed.area.cursor().0, ed.top);
    assert!(row > 10, "a page down: {row}");
    assert!(top <= row && row < top + 40, "the cursor stays in view: {top} {row}");
    press(&mut s, KeyCode::PageUp);
    let Some(Popup::Editor(ed)) = s.popups.last() else {
        panic!("editor")
    };
    assert_eq!(ed.area.cursor().0, 0);
    // ctrl-z undoes typing.
    typed(&mut s, "zz");
    ctrl(&mut s, 'z');
    let Some(Popup::Editor(ed)) = s.popups.last() else {
        panic!("editor")
    };
    assert!(!ed.text().starts_with("zz"), "{}", &ed.text()[..10]);
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
