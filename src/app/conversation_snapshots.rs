//! A revision in the queue: the reviewer's request, the agent's reply and
//! the interdiff on its card (snapshot), and the request-changes dialog
//! (keys to the worker's request).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use graphex_engine::proposal::{self, Source, Submission};

use super::snapshots::{console, demo, press, screen};
use super::state::Popup;
use super::update::{Msg, update};

/// The queue's first proposal sent back, answered and revised (the
/// description of its first change reworded); returns the old short id.
fn revise_first(store: &mut graphex_engine::Store) -> String {
    let first = store.pending().unwrap().pending.remove(0);
    store
        .request_changes(&first.id, "say which team owns it", Some(1))
        .unwrap();
    let sub = &first.proposal.submission;
    store
        .comment(&sub.agent, &sub.session, first.id.short(), Some(1), "the platform team")
        .unwrap();
    let mut json = serde_json::to_value(sub).unwrap();
    json["revises"] = serde_json::json!(first.id.as_str());
    json["rationale"] = serde_json::json!("as asked: the owner is named");
    let revised = Submission::from_json(json.to_string().as_bytes()).unwrap();
    let settings = graphex_engine::config::Config::load(&store.layout().gpp())
        .unwrap()
        .projection_settings()
        .unwrap();
    proposal::submit(store, &settings.policy, revised, Source::Mcp).unwrap();
    first.id.short().to_owned()
}

#[test]
fn a_revision_shows_its_conversation_and_interdiff() {
    let mut d = demo();
    let old = revise_first(&mut d.store);
    let mut s = console(&d, (80, 24));
    // The revision is the last one in; its card is the one shown.
    let at = s.queue.items.iter().position(|i| i.revision.is_some()).unwrap();
    for _ in 0..at {
        press(&mut s, 'j');
    }
    assert_eq!(s.queue.items[at].revision, Some((2, false)));
    // Down the card to the conversation.
    for _ in 0..2 {
        press(&mut s, 'J');
    }
    let times = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z").unwrap();
    let shot = screen(&s).replace(&old, "ROUND1------");
    let shot = times.replace_all(&shot, "TTTT-TT-TTTTT:TT:TTZ").into_owned();
    assert!(shot.contains("│ say which team owns it"), "{shot}");
    assert!(shot.contains("│ the platform team"), "{shot}");
    assert!(shot.contains("What changed since round 1 (ROUND1------)"), "{shot}");
    assert!(shot.contains("+   \"rationale\": \"as asked: the owner is"), "{shot}");
    // The console's one diff: unchanged runs folded, the removed line
    // beside the added one.
    assert!(shot.contains("… 4 unchanged lines"), "{shot}");
    assert!(shot.contains("-   \"rationale\": \"Orders time out"), "{shot}");
    insta::assert_snapshot!("revision_card_80x24", shot);
}

#[test]
fn c_asks_for_changes_on_the_whole_or_one_change() {
    let d = demo();
    let mut s = console(&d, (80, 24));
    let id = s.queue.items[0].id.clone();
    press(&mut s, 'c');
    assert!(matches!(
        s.popups.last(),
        Some(Popup::ChangesComment { change: None, .. })
    ));
    let key = |s: &mut super::state::AppState, code| update(s, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    // Enter on nothing says what is missing and sends nothing.
    key(&mut s, KeyCode::Enter);
    assert!(matches!(
        s.popups.last(),
        Some(Popup::ChangesComment { error: Some(_), .. })
    ));
    key(&mut s, KeyCode::Tab);
    assert!(matches!(
        s.popups.last(),
        Some(Popup::ChangesComment { change: Some(1), .. })
    ));
    let n = s.queue.items[0].changes.len();
    for _ in 0..n {
        key(&mut s, KeyCode::Tab);
    }
    assert!(
        matches!(s.popups.last(), Some(Popup::ChangesComment { change: None, .. })),
        "after the last change, the whole proposal again"
    );
    key(&mut s, KeyCode::Tab);
    for c in "name the owner".chars() {
        press(&mut s, c);
    }
    let text = screen(&s);
    assert!(
        text.contains("Ask for changes") && text.contains("change 1 of"),
        "{text}"
    );
    let fx = update(&mut s, Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)));
    let sent: Vec<_> = fx
        .iter()
        .filter_map(|e| match e {
            super::effect::Effect::Request(super::worker::Request::RequestChanges { id, comment, change }) => {
                Some((id.clone(), comment.clone(), *change))
            }
            _ => None,
        })
        .collect();
    assert_eq!(sent, [(id, "name the owner".to_owned(), Some(1))]);
    assert!(s.popups.is_empty());
}
