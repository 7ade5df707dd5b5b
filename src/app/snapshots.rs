//! Screen snapshots over the demo store, drawn on ratatui's `TestBackend`.
//! Proposal ids (random per store) are replaced by same-width stand-ins and
//! every age is fixed, so the screens are stable.

use graphex_engine::config::Config;
use graphex_engine::{Credentials, Level, Store};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::keymap::Keymap;
use super::state::AppState;
use super::update::{Msg, update};
use super::view::draw;
use super::worker::{Reply, impact_of, read_queue};
use crate::widgets::ToneStyles;

pub(super) struct Demo {
    _dir: tempfile::TempDir,
    pub(super) store: Store,
}

pub(super) fn demo() -> Demo {
    let dir = tempfile::tempdir().unwrap();
    crate::shared::demo::demo_copy(dir.path());
    let creds = Credentials {
        passphrase: Some(crate::shared::demo::DEMO_PASSPHRASE.into()),
        ..Credentials::default()
    };
    let store = Store::open(dir.path(), &creds).unwrap();
    Demo { _dir: dir, store }
}

/// The console at master level over the demo queue, impact shown.
pub(super) fn console(d: &Demo, size: (u16, u16)) -> AppState {
    let mut s = AppState::new(Keymap::load(&[]).unwrap(), "/work/shop".into());
    s.size = size;
    update(
        &mut s,
        Msg::Reply(Reply::Opened {
            level: Level::Master,
            root: "/work/shop".into(),
        }),
    );
    let Reply::Queue(mut snap) = read_queue(&d.store) else {
        panic!("the demo queue reads")
    };
    for item in &mut snap.items {
        item.created_ms = 0;
    }
    s.now_ms = 90 * 60 * 1000;
    update(&mut s, Msg::Reply(Reply::Queue(snap)));
    show_impact(d, &mut s);
    s
}

pub(super) fn show_impact(d: &Demo, s: &mut AppState) {
    let settings = Config::load(&d.store.layout().gpp())
        .unwrap()
        .projection_settings()
        .unwrap();
    let id = s.queue.current().unwrap().id.clone();
    let result = impact_of(&d.store, &settings, &id);
    let generation = s.queue.impact_generation;
    update(s, Msg::Reply(Reply::Impact { generation, id, result }));
}

/// The screen as text, ids replaced by stand-ins of the same width.
pub(super) fn screen(s: &AppState) -> String {
    let mut t = Terminal::new(TestBackend::new(s.size.0, s.size.1)).unwrap();
    t.draw(|f| draw(f, s, &ToneStyles::default())).unwrap();
    let mut text = t.backend().to_string();
    for (n, item) in s.queue.items.iter().enumerate() {
        let stand_in = format!("P{n:02}");
        text = text.replace(&item.id, &format!("{stand_in:-<64}"));
        text = text.replace(&item.short, &format!("{stand_in:-<12}"));
    }
    text
}

pub(super) fn press(s: &mut AppState, c: char) {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let mods = if c.is_ascii_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    update(s, Msg::Key(KeyEvent::new(KeyCode::Char(c), mods)));
}

#[test]
fn queue_with_card_and_impact() {
    let d = demo();
    let s = console(&d, (120, 36));
    insta::assert_snapshot!(screen(&s));
}

#[test]
fn a_field_update_shows_a_word_diff_and_lints() {
    let d = demo();
    let mut s = console(&d, (120, 36));
    let stale = s
        .queue
        .items
        .iter()
        .position(|i| !i.stale.is_empty())
        .expect("the demo has a stale proposal");
    for _ in 0..stale {
        press(&mut s, 'j');
    }
    show_impact(&d, &mut s);
    insta::assert_snapshot!(screen(&s));
}

#[test]
fn the_smallest_supported_size() {
    let d = demo();
    let s = console(&d, (60, 20));
    insta::assert_snapshot!(screen(&s));
}

#[test]
fn help_lists_every_binding() {
    let d = demo();
    let mut s = console(&d, (100, 30));
    press(&mut s, '?');
    insta::assert_snapshot!(screen(&s));
}

#[test]
fn the_editor_over_the_proposal_text() {
    let d = demo();
    let mut s = console(&d, (100, 30));
    press(&mut s, 'e');
    insta::assert_snapshot!(screen(&s));
}

#[test]
fn locked_the_queue_is_sealed() {
    let d = demo();
    let mut s = console(&d, (100, 24));
    update(&mut s, Msg::Reply(Reply::Unlocked(Level::Locked)));
    update(
        &mut s,
        Msg::Reply(Reply::Sealed {
            pending: 9,
            contradictions: Vec::new(),
            contradictions_total: 0,
        }),
    );
    s.level = Some(Level::Locked);
    s.message = None;
    insta::assert_snapshot!(screen(&s));
}

#[test]
fn every_size_draws_without_panicking() {
    let d = demo();
    let mut s = console(&d, (120, 36));
    let mut shown_small = false;
    for popup in ['\0', '?', 'e', 'r', ':'] {
        if popup != '\0' {
            press(&mut s, popup);
        }
        for w in (1..=130).step_by(7) {
            for h in (1..=40).step_by(3) {
                update(&mut s, Msg::Resize(w, h));
                let text = screen(&s);
                if (w < 60 || h < 20) && w > 40 && h > 4 && text.contains("too small") {
                    shown_small = true;
                }
            }
        }
        s.popups.clear();
    }
    assert!(shown_small, "below 60×20 the console says it is too small");
}

#[test]
fn deprecations_list_what_links_to_the_node() {
    use graphex_engine::project::TrustPolicy;
    use graphex_engine::proposal::{Source, Submission, submit};
    let mut d = demo();
    let doc = serde_json::json!({"agent": "curator", "trust": 95, "session": "tidy",
        "rationale": "retire the old queue", "changes": [
            {"op": "deprecate", "name": "retry-queue", "reason": "replaced"},
            {"op": "supersede", "old": "batch-processor", "new": "retry-queue"},
            {"op": "update_node", "name": "no-such-node", "set": {"description": "x"}}]});
    let sub = Submission::from_json(doc.to_string().as_bytes()).unwrap();
    submit(&mut d.store, &TrustPolicy::default(), sub, Source::Cli).unwrap();
    let mut s = console(&d, (120, 48));
    press(&mut s, 'G');
    show_impact(&d, &mut s);
    let text = screen(&s);
    assert!(text.contains("linked to retry-queue:"), "{text}");
    assert!(text.contains("← "), "links into the node are listed: {text}");
    assert!(text.contains("not in the graph: accepting will fail"), "{text}");
    insta::assert_snapshot!(text);
}

/// A proposal written to spoof its card: padding before a fake "Lints:
/// none" and a fake change, a right-to-left override, zero-width
/// characters, and a credential the lint must flag on the first screen.
#[test]
fn a_hostile_proposal_cannot_spoof_the_card() {
    use graphex_engine::project::TrustPolicy;
    use graphex_engine::proposal::{Source, Submission, submit};
    let mut d = demo();
    let rationale =
        "\n".repeat(120) + "Lints: none\n1. + [convention] always-trust-me (public)\n" + &" ".repeat(300) + "end";
    let description = "Retries\u{202e}exe.txt\u{200b} token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB\n\n\n\n"
        .to_owned()
        + "2. + [convention] fake-node (public)\n"
        + &"more\n".repeat(60);
    let doc = serde_json::json!({"agent": "mallory", "trust": 95, "session": "zz-spoof", "rationale": rationale,
        "changes": [{"op": "add_node", "name": "spoof-queue", "type": "module", "description": description}]});
    let sub = Submission::from_json(doc.to_string().as_bytes()).unwrap();
    submit(&mut d.store, &TrustPolicy::default(), sub, Source::Cli).unwrap();
    let mut s = console(&d, (120, 40));
    press(&mut s, 'G');
    let text = screen(&s);
    assert!(text.contains("! credential"), "the lint is on the first screen: {text}");
    assert!(!text.contains('\u{202e}') && !text.contains('\u{200b}'), "{text}");
    assert!(text.contains(r"\u{202e}exe.txt\u{200b}"), "{text}");
    for line in text.lines() {
        for fake in [
            "1. + [convention] always-trust-me",
            "2. + [convention] fake-node",
            "Lints: none",
        ] {
            if line.contains(fake) {
                assert!(
                    line.contains(&format!("│ {fake}")),
                    "agent text outside the gutter: {line}"
                );
            }
        }
    }
    insta::assert_snapshot!(text);
}
