//! The queue's reducer tests: keys and engine replies in, state and
//! effects out; no terminal, no engine.

use crossterm::event::KeyCode;
use graphex_engine::Level;

use crate::app::panes::queue::data::{ChangeView, QueueSnapshot};
use crate::app::state::{Confirmed, Popup};
use crate::app::tests::{ch, console, ctrl, is_error, item, press, requests, three, typed};
use crate::app::update::{Effect, Msg, update};
use crate::app::worker::{Reply, Request};
use crate::widgets::Tone;

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
            contradictions: Vec::new(),
            contradictions_total: 0,
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
fn a_flagged_accept_takes_a_second_key_on_a_confirmation_naming_the_flags() {
    let mut s = three();
    let first = s.queue.items[0].id.clone();
    s.queue.items[0].lints = Some(vec![
        ("tier-lowered".into(), "lowers x".into()),
        ("dangling".into(), "d".into()),
        ("credential".into(), "c".into()),
    ]);
    // The cursor left on it: `a` alone decides nothing.
    assert!(requests(ch(&mut s, 'a')).is_empty());
    match s.popups.last() {
        Some(Popup::Confirm {
            text,
            then: Confirmed::Accept(id),
        }) => {
            assert_eq!(*id, first);
            assert!(text.contains("tier-lowered, credential"), "{text}");
            assert!(!text.contains("dangling"), "only the security-relevant flags: {text}");
        }
        _ => panic!("expected a confirmation naming the flags"),
    }
    assert!(requests(ch(&mut s, 'n')).is_empty());
    assert!(s.popups.is_empty() && s.busy.is_none());
    ch(&mut s, 'a');
    let r = requests(ch(&mut s, 'y'));
    assert!(
        matches!(&r[..], [Request::Accept { id, force: false }] if *id == first),
        "{r:?}"
    );
    // Stale as well: one dialog, the stale base's, naming the other flags
    // (no confirmation first that says `y accepts`).
    s.busy = None;
    s.queue.items[0].stale = vec!["x moved".into()];
    let r = requests(ch(&mut s, 'a'));
    assert!(
        matches!(&r[..], [Request::Accept { id, force: false }] if *id == first),
        "{r:?}"
    );
    assert!(s.popups.is_empty(), "no confirmation before the stale dialog");
    update(
        &mut s,
        Msg::Reply(Reply::Stale {
            id: first.clone(),
            versions: "x: seen 1, now 2".into(),
            three: Vec::new(),
            edit: false,
        }),
    );
    let Some(Popup::Stale { flags, .. }) = s.popups.last() else {
        panic!("no stale dialog")
    };
    assert_eq!(*flags, ["tier-lowered", "credential"]);
    let r = requests(ch(&mut s, 'f'));
    assert!(
        matches!(&r[..], [Request::Accept { id, force: true }] if *id == first),
        "{r:?}"
    );
}

#[test]
fn a_batch_accept_names_each_proposal_and_leaves_the_flagged_ones_out() {
    let mut s = three();
    let ids: Vec<String> = s.queue.items[..2].iter().map(|i| i.id.clone()).collect();
    s.queue.items[1].lints = Some(vec![("near-duplicate".into(), "close to y".into())]);
    assert!(requests(ch(&mut s, 'A')).is_empty());
    match s.popups.last() {
        Some(Popup::Confirm {
            text,
            then: Confirmed::AcceptMany(v),
        }) => {
            assert_eq!(*v, [ids[0].clone()], "only the unflagged one");
            assert!(
                text.contains(&s.queue.items[0].short) && text.contains(&s.queue.items[1].short),
                "{text}"
            );
            assert!(text.contains("[near-duplicate] left out"), "{text}");
        }
        _ => panic!("expected a confirmation naming each proposal"),
    }
    let r = requests(ch(&mut s, 'y'));
    assert!(
        matches!(&r[..], [Request::AcceptMany { ids: v }] if *v == [ids[0].clone()]),
        "{r:?}"
    );
    // A batch of flagged ones only decides nothing.
    let mut s = three();
    for i in 0..2 {
        s.queue.items[i].lints = Some(vec![("credential".into(), "k".into())]);
    }
    assert!(requests(ch(&mut s, 'A')).is_empty());
    assert!(s.popups.is_empty());
    assert!(is_error(&s, "flagged"), "{:?}", s.message);
}

#[test]
fn space_selects_without_moving() {
    let mut s = three();
    ch(&mut s, 'g');
    ch(&mut s, ' ');
    ch(&mut s, 'j');
    ch(&mut s, ' ');
    let ids: Vec<&String> = s.queue.items.iter().map(|i| &i.id).collect();
    assert!(s.queue.marked.contains(ids[0]) && s.queue.marked.contains(ids[1]));
    assert!(!s.queue.marked.contains(ids[2]), "g space j space selects [1] and [2]");
    assert_eq!(s.queue.selected, 1);
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
    update(
        &mut s,
        Msg::Reply(Reply::Sealed {
            pending: 3,
            contradictions: Vec::new(),
            contradictions_total: 0,
        }),
    );
    assert!(s.queue.items.is_empty());
    assert_eq!(s.pending, 3);
    s.level = Some(Level::Locked);
    assert!(requests(ch(&mut s, 'a')).is_empty());
    assert!(is_error(&s, "press U to unlock"));
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
            three: Vec::new(),
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
            contradictions: Vec::new(),
            contradictions_total: 0,
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
        Msg::Reply(Reply::Lints(vec![(
            id.clone(),
            vec![("credential".into(), "a key".into())],
        )])),
    );
    assert_eq!(s.queue.items[0].lints.as_ref().unwrap()[0].0, "credential");
    // A credential is a flag: the accept is confirmed with a second key.
    assert!(requests(ch(&mut s, 'a')).is_empty());
    let r = requests(ch(&mut s, 'y'));
    assert!(matches!(&r[..], [Request::Accept { id: i, .. }] if *i == id), "{r:?}");
}

#[test]
fn the_card_scrolls_no_further_than_its_end() {
    let mut s = three();
    let max = crate::app::panes::queue::layout::current_card(&s)
        .map(|l| crate::app::panes::queue::layout::card_max_scroll(&s, &l));
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
    let max = crate::app::panes::queue::layout::current_card(&s)
        .map_or(0, |l| crate::app::panes::queue::layout::card_max_scroll(&s, &l));
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
fn a_removed_edge_shows_as_a_removal_with_its_reason_escaped() {
    let mut it = item("a", "claude", "s1");
    it.changes = vec![ChangeView::RemoveEdge {
        from: "orders-service".into(),
        relation: "uses".into(),
        to: "api-gateway".into(),
        reason: Some("unused\u{1b}[2J\nsince v2".into()),
    }];
    let lines = crate::app::panes::queue::card::card_lines(&it, None, 0, true, false);
    let text: Vec<String> = lines
        .iter()
        .map(|l| l.iter().map(|(t, _)| t.as_str()).collect())
        .collect();
    let at = text
        .iter()
        .position(|l| l.contains("orders-service"))
        .expect("a removal line");
    assert_eq!(
        lines[at][0],
        ("1. − orders-service → uses → api-gateway".to_owned(), Tone::Removed)
    );
    assert_eq!(text[at], "1. − orders-service → uses → api-gateway (edge removed)");
    // The reason follows behind the gutter, escaped, one card line per line.
    assert_eq!(text[at + 1], "     reason:");
    assert!(
        text[at + 2].starts_with("     │ unused") && !text[at + 2].contains('\u{1b}'),
        "{text:?}"
    );
    assert_eq!(text[at + 3], "     │ since v2");
    assert_eq!(it.summary(), "− orders-service → api-gateway");
}

#[test]
fn a_merge_proposal_shows_its_three_versions_with_agent_text_escaped() {
    let node = |version: u64, description: &str| -> graphex_engine::Node {
        serde_json::from_value(serde_json::json!({
            "id": "0190f3a0-0000-7000-8000-000000000001", "name": "shared", "type": "service",
            "description": description, "tier": "agent-readable", "status": "active", "confidence": 1.0,
            "created": 0, "updated": 0, "version": version
        }))
        .unwrap()
    };
    let sides = graphex_engine::proposal::MergeSides {
        branch: "feature\u{1b}[2J".into(),
        base: Some(node(1, "as it was")),
        ours: node(2, "ours says this"),
        theirs: node(2, "theirs says\u{202e} that"),
    };
    let mut it = item("a", "merge", "merge of feature");
    it.merge = crate::shared::cards::merge_sides(&sides);
    let lines = crate::app::panes::queue::card::card_lines(&it, None, 0, false, true);
    let text: Vec<String> = lines
        .iter()
        .map(|l| l.iter().map(|(t, _)| t.as_str()).collect())
        .collect();
    let at = text
        .iter()
        .position(|l| l.contains("Merge of branch"))
        .expect("a merge heading");
    assert_eq!(lines[at][0].1, Tone::Heading);
    assert!(!text[at].contains('\u{1b}'), "{}", text[at]);
    let rest = text[at..].join("\n");
    for needle in [
        "base v1 → ours v2",
        "ours says this",
        "base v1 → theirs v2",
        "theirs says",
    ] {
        assert!(rest.contains(needle), "{needle:?} in {rest}");
    }
    assert!(!rest.contains('\u{202e}'), "{rest}");
}

#[test]
fn a_restore_is_drawn_as_a_node_coming_back_not_a_removal() {
    let mut it = item("a", "claude", "s1");
    let lifecycle = |verb: &'static str| ChangeView::Lifecycle {
        verb: verb.to_owned(),
        name: "orders-v1".into(),
        reason: None,
        affected: None,
        linked: Vec::new(),
    };
    it.changes = vec![lifecycle("restore"), lifecycle("deprecate")];
    let lines = crate::app::panes::queue::card::card_lines(&it, None, 0, true, false);
    let first = |prefix: &str| lines.iter().find(|l| l[0].0.starts_with(prefix)).map(|l| l[0].clone());
    assert_eq!(first("1."), Some(("1. + restore ".to_owned(), Tone::Added)));
    assert_eq!(first("2."), Some(("2. − deprecate ".to_owned(), Tone::Removed)));
}

#[test]
fn the_reject_dialog_recalls_earlier_reasons_and_offers_lint_reasons() {
    let mut s = three();
    ch(&mut s, 'r');
    for c in "dup of x".chars() {
        ch(&mut s, c);
    }
    press(&mut s, KeyCode::Enter);
    // The next proposal carries a credential lint.
    update(&mut s, Msg::Reply(Reply::Done("rejected".into())));
    let second = s.queue.items[1].id.clone();
    s.queue.items[1].lints = Some(vec![("credential".into(), "an AWS access key".into())]);
    s.queue.selected = 1;
    ch(&mut s, 'r');
    let input = |s: &crate::app::state::AppState| match s.popups.last() {
        Some(Popup::Reason { input, .. }) => input.clone(),
        _ => panic!("no reason dialog"),
    };
    press(&mut s, KeyCode::Up);
    assert_eq!(input(&s), "contains a credential");
    press(&mut s, KeyCode::Up);
    assert_eq!(input(&s), "dup of x", "then the earlier reason");
    press(&mut s, KeyCode::Up);
    assert_eq!(input(&s), "dup of x", "it stops at the oldest");
    press(&mut s, KeyCode::Down);
    assert_eq!(input(&s), "contains a credential");
    press(&mut s, KeyCode::Down);
    assert_eq!(input(&s), "", "back to what was typed: nothing");
    press(&mut s, KeyCode::Up);
    let r = requests(press(&mut s, KeyCode::Enter));
    assert!(
        matches!(&r[..], [Request::Reject { ids, reason }] if *ids == [second.clone()] && reason == "contains a credential"),
        "{r:?}"
    );
}

#[test]
fn ctrl_e_hands_the_edit_to_the_editor_and_a_mistake_puts_the_cursor_on_its_line() {
    let mut s = three();
    requests(ch(&mut s, 'e'));
    let original = match s.popups.last() {
        Some(Popup::Editor(ed)) => ed.text(),
        _ => panic!("no editor"),
    };
    let fx = ctrl(&mut s, 'e');
    let Some(Effect::ExternalEdit { name, text: handed }) = fx.first() else {
        panic!("{fx:?}")
    };
    assert!(name.starts_with("proposal-") && name.ends_with(".json"), "{name}");
    assert_eq!(*handed, original, "the whole text, as it stands");
    // The editor left a broken third line: it replaces the text, is checked…
    let broken = "{\n  \"agent\": \"a\",\n  \"trust\": ,,\n  \"changes\": []\n}".to_owned();
    let r = requests(update(&mut s, Msg::Edited(Ok(broken.clone()))));
    let Some(Request::Validate { generation, text }) = r.first() else {
        panic!("{r:?}")
    };
    assert_eq!(*text, broken);
    // …and the check's error moves the cursor to its line.
    update(
        &mut s,
        Msg::Reply(Reply::Validated {
            generation: *generation,
            result: Err("expected value at line 3 column 20".into()),
        }),
    );
    let Some(Popup::Editor(ed)) = s.popups.last() else {
        panic!()
    };
    assert_eq!(ed.area.cursor().0, 2);
    assert!(ed.modified());
    // A failed hand-off says why and changes nothing; ctrl-z undoes the hand-off.
    update(&mut s, Msg::Edited(Err("the editor \"vi\" exited with 1".into())));
    let Some(Popup::Editor(ed)) = s.popups.last() else {
        panic!()
    };
    assert_eq!(ed.text(), broken);
    assert!(ed.error.as_deref().is_some_and(|e| e.contains("exited with")));
    requests(ctrl(&mut s, 'z'));
    let Some(Popup::Editor(ed)) = s.popups.last() else {
        panic!()
    };
    assert_eq!(ed.text(), original, "one ctrl-z takes the whole hand-off back");
    // The next ctrl-z is the editor's own undo again (nothing typed: the
    // text stays).
    requests(ctrl(&mut s, 'z'));
    let Some(Popup::Editor(ed)) = s.popups.last() else {
        panic!()
    };
    assert_ne!(ed.text(), broken, "the hand-off is not redone by an undo");
}
