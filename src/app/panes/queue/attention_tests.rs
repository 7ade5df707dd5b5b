//! The queue's reducer tests for what needs a person: the hints a locked
//! queue offers, `]`/`[` to the flagged and revised proposals, a revision's
//! arrival, reasons offered as short phrases, and a near-duplicate's
//! existing node.

use crossterm::event::KeyCode;
use graphex_engine::Level;

use crate::app::panes::queue::data::{ChangeView, QueueSnapshot};
use crate::app::state::Popup;
use crate::app::tests::{ch, press, three};
use crate::app::update::{Msg, update};
use crate::app::worker::Reply;

#[test]
fn locked_the_hints_lead_with_unlock_and_offer_no_decision() {
    use crate::app::component::Component as _;
    let mut s = three();
    let hints = |s: &crate::app::state::AppState| super::component::QueueComponent.hints(s);
    let master = hints(&s);
    assert!(master.iter().any(|(_, h)| h == "accept"), "{master:?}");
    s.level = Some(Level::Locked);
    let locked = hints(&s);
    assert_eq!(locked[0], ("U".to_owned(), "unlock".to_owned()), "{locked:?}");
    for decision in ["accept", "reject", "edit"] {
        assert!(!locked.iter().any(|(_, h)| h == decision), "{decision}: {locked:?}");
    }
}

#[test]
fn brackets_jump_to_the_proposals_that_need_a_person() {
    let mut s = three();
    s.queue.items[2].stale = vec!["x moved".into()];
    ch(&mut s, ']');
    assert_eq!(s.queue.selected, 2, "the stale one");
    s.queue.items[1].revision = Some((2, false));
    ch(&mut s, ']');
    assert_eq!(s.queue.selected, 1, "round the list to the revision");
    ch(&mut s, '[');
    assert_eq!(s.queue.selected, 2);
    s.queue.items[1].revision = None;
    s.queue.items[2].stale.clear();
    ch(&mut s, ']');
    assert_eq!(s.queue.selected, 2, "nothing else: the cursor stays");
    assert!(
        s.message
            .as_ref()
            .is_some_and(|m| m.0.contains("no other proposal needs a person"))
    );
}

#[test]
fn a_revision_that_arrives_is_announced_with_the_key_that_reaches_it() {
    let mut s = three();
    let mut items = s.queue.items.clone();
    let mut revision = crate::app::tests::item("d", "codex", "s9");
    revision.revision = Some((2, false));
    items.insert(1, revision);
    update(
        &mut s,
        Msg::Reply(Reply::Queue(QueueSnapshot {
            items,
            ..QueueSnapshot::default()
        })),
    );
    let said = s.message.as_ref().map(|m| m.0.clone()).unwrap_or_default();
    assert!(
        said.contains("revision arrived: dddddddddddd (round 2, codex)") && said.contains("] goes to it"),
        "{said}"
    );
    // A flagged proposal between the cursor and the revision: `]` goes to
    // the revision first, then on as usual.
    let rev = "d".repeat(64);
    let at = s.queue.items.iter().position(|i| i.id == rev).unwrap();
    let n = s.queue.items.len();
    assert!(n >= 4, "{n}");
    let flagged = (at + n - 1) % n;
    s.queue.items[flagged].stale = vec!["x moved".into()];
    s.queue.selected = (at + n - 2) % n;
    ch(&mut s, ']');
    assert_eq!(s.queue.selected, at, "the arrived revision");
    ch(&mut s, ']');
    assert_eq!(s.queue.selected, flagged, "then the next that needs a person");
}

#[test]
fn suggestions_are_short_phrases_and_the_changes_dialog_offers_them_too() {
    let mut s = three();
    s.queue.items[0].lints = Some(vec![
        (
            "near-duplicate".into(),
            "change 1: accounts-servce is very close to the existing accounts-service; is it the same thing?".into(),
        ),
        (
            "tier-lowered".into(),
            "change 2: lowers accounts-core from agent-readable to public, exposing it (and its history)".into(),
        ),
    ]);
    let input = |s: &crate::app::state::AppState| match s.popups.last() {
        Some(Popup::Reason { input, .. } | Popup::ChangesComment { input, .. }) => input.clone(),
        _ => panic!("no dialog"),
    };
    ch(&mut s, 'r');
    press(&mut s, KeyCode::Up);
    assert_eq!(input(&s), "duplicate of accounts-service");
    press(&mut s, KeyCode::Up);
    assert_eq!(input(&s), "lowers a tier to public");
    press(&mut s, KeyCode::Esc);
    ch(&mut s, 'c');
    press(&mut s, KeyCode::Up);
    assert_eq!(input(&s), "duplicate of accounts-service", "c offers them too");
    press(&mut s, KeyCode::Down);
    assert_eq!(input(&s), "", "back to what was typed");
}

#[test]
fn o_on_a_near_duplicate_opens_the_existing_node() {
    let mut s = three();
    s.queue.items[0].changes = vec![ChangeView::AddNode {
        name: "accounts-servce".into(),
        node_type: "service".into(),
        tier: "agent-readable".into(),
        description: "d".into(),
        properties: Vec::new(),
        body: None,
        edges: Vec::new(),
    }];
    s.queue.items[0].lints = Some(vec![(
        "near-duplicate".into(),
        "change 1: accounts-servce is very close to the existing accounts-service; is it the same thing?".into(),
    )]);
    ch(&mut s, 'o');
    assert_eq!(s.pane, crate::app::action::Pane::Graph);
    assert_eq!(
        s.graph.place.as_ref().map(|p| p.centre.as_str()),
        Some("accounts-service")
    );
}

#[test]
fn a_near_duplicate_shows_the_existing_node_beside_it() {
    let r = crate::app::panes::testkit::demo_at(Level::Master);
    let lint = graphex_engine::proposal::Lint::NearDuplicate {
        change: 1,
        name: "orders-servce".into(),
        existing: "orders-service".into(),
    };
    let shown = crate::app::panes::queue::data::lints_shown(&r.store, &[lint]);
    let (code, text) = &shown[0];
    assert_eq!(code, "near-duplicate");
    let (first, existing) = text.split_once('\n').expect("a second line");
    assert!(first.contains("the existing orders-service"), "{first}");
    assert!(existing.starts_with("[service] orders-service ("), "{existing}");
    let mut s = three();
    s.queue.items[0].lints = Some(shown);
    s.size = (160, 48);
    let screen = crate::app::snapshots::screen(&s);
    assert!(screen.contains("existing: [service] orders-service"), "{screen}");
}

/// `m` is offered (first) on a near-duplicate only; elsewhere it says why
/// it does nothing; the merge shown takes `e` to the editor with its text.
#[test]
fn m_merges_a_near_duplicate_only_and_e_edits_the_merge() {
    use crate::app::component::Component as _;
    let mut s = three();
    let hints = |s: &crate::app::state::AppState| super::component::QueueComponent.hints(s);
    assert!(
        !hints(&s).iter().any(|(_, h)| h == "merge into existing"),
        "{:?}",
        hints(&s)
    );
    ch(&mut s, 'm');
    let said = s.message.as_ref().map(|m| m.0.clone()).unwrap_or_default();
    assert!(said.contains("this proposal adds none"), "{said}");
    s.queue.items[0].lints = Some(vec![(
        "near-duplicate".into(),
        "change 1: accounts-servce is very close to the existing accounts-service; is it the same thing?".into(),
    )]);
    assert_eq!(hints(&s)[0], ("m".to_owned(), "merge into existing".to_owned()));
    let fx = ch(&mut s, 'm');
    assert!(
        fx.iter().any(|e| matches!(e, crate::app::update::Effect::Request(crate::app::worker::Request::MergeDraft { id }) if *id == s.queue.items[0].id)),
        "{fx:?}"
    );
    let view = super::data::MergeView {
        id: s.queue.items[0].id.clone(),
        short: s.queue.items[0].short.clone(),
        change: 1,
        added: "accounts-servce".into(),
        existing: "accounts-service".into(),
        changes: Vec::new(),
        lints: Vec::new(),
        text: "{\"merged\": true}".into(),
    };
    update(&mut s, Msg::Reply(Reply::MergeDraft(Box::new(view))));
    assert!(s.busy.is_none());
    ch(&mut s, 'e');
    let Some(Popup::Editor(ed)) = s.popups.last() else {
        panic!("no editor")
    };
    assert_eq!(ed.text(), "{\"merged\": true}");
}
