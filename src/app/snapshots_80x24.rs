//! Every view at 80×24, the size a laptop split or a default terminal
//! gives: the queue and its dialogs over the demo queue, and the Graph and
//! Query panes driven as a person would (keys in, the worker's answers as
//! the worker computes them).

use crossterm::event::KeyCode;
use graphex_engine::Level;

use super::panes::testkit::{Run, demo_at};
use super::snapshots::{console, demo, press, screen};

const SIZE: (u16, u16) = (80, 24);

/// Every line of `text` is `SIZE.0` cells wide and the last line of each
/// bordered box ends with its corner: nothing was cut off the right.
fn assert_fits(text: &str) {
    for line in text.lines() {
        let inner = line.trim_start_matches('"');
        assert!(!inner.contains("…╮"), "a border title lost its end: {line}");
    }
}

#[test]
fn the_queue() {
    let d = demo();
    let s = console(&d, SIZE);
    let text = screen(&s);
    assert_fits(&text);
    assert!(text.contains("tier↓ ~ audit-logger"), "flags come first: {text}");
    insta::assert_snapshot!(text);
}

#[test]
fn the_reject_dialog() {
    let d = demo();
    let mut s = console(&d, SIZE);
    press(&mut s, 'r');
    insta::assert_snapshot!(screen(&s));
}

#[test]
fn a_flagged_accept_asks_first() {
    let d = demo();
    let mut s = console(&d, SIZE);
    let flagged = s
        .queue
        .items
        .iter()
        .position(|i| {
            i.lints
                .as_ref()
                .is_some_and(|l| l.iter().any(|(c, _)| *c == "tier-lowered"))
        })
        .expect("the demo has a tier-lowered proposal");
    for _ in 0..flagged {
        press(&mut s, 'j');
    }
    press(&mut s, 'a');
    let text = screen(&s);
    assert!(text.contains("tier-lowered"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn the_editor() {
    let d = demo();
    let mut s = console(&d, SIZE);
    press(&mut s, 'e');
    insta::assert_snapshot!(screen(&s));
}

#[test]
fn help() {
    let d = demo();
    let mut s = console(&d, SIZE);
    press(&mut s, '?');
    insta::assert_snapshot!(screen(&s));
}

#[test]
fn the_palette() {
    let d = demo();
    let mut s = console(&d, SIZE);
    press(&mut s, ':');
    for c in "accept".chars() {
        press(&mut s, c);
    }
    insta::assert_snapshot!(screen(&s));
}

#[test]
fn the_message_log() {
    let d = demo();
    let mut s = console(&d, SIZE);
    s.info("a status message long enough to be cut on the status line at eighty columns, kept whole here");
    press(&mut s, 'M');
    let text = screen(&s);
    assert!(text.contains("kept whole here"), "{text}");
    // Each message with the time it was said, masked here.
    let times = regex::Regex::new(r"\b\d\d:\d\d:\d\d\b").unwrap();
    assert!(times.is_match(&text), "{text}");
    insta::assert_snapshot!(times.replace_all(&text, "HH:MM:SS").into_owned());
}

fn graph_at(name: &str) -> Run {
    let mut r = demo_at(Level::Master);
    r.s.size = SIZE;
    r.press("2");
    r.jump(name);
    r
}

#[test]
fn the_graph_and_inspector() {
    let r = graph_at("orders-service");
    let text = r.screen();
    assert_fits(&text);
    assert!(text.contains("orders-service"), "{text}");
    insta::assert_snapshot!(undated(&text));
}

#[test]
fn the_jump() {
    let mut r = graph_at("orders-service");
    r.press("/");
    r.press("pay");
    insta::assert_snapshot!(r.screen());
}

#[test]
fn the_query_and_its_results() {
    let mut r = demo_at(Level::Master);
    r.s.size = SIZE;
    r.press("3");
    r.press("orders-service -> * --depth 1");
    r.key(KeyCode::Enter);
    let text = r.screen();
    assert_fits(&text);
    insta::assert_snapshot!(text);
}

/// The Graph pane with a dialog opened by `keys` on `centre`.
fn graph_dialog(centre: &str, keys: &str) -> String {
    let mut r = graph_at(centre);
    r.s.graph.selected = 0;
    r.press(keys);
    let text = r.screen();
    assert_fits(&text);
    text.replace(&r.dir.path().display().to_string(), "/work/shop")
}

#[test]
fn the_new_node_form() {
    insta::assert_snapshot!(graph_dialog("orders-service", "n"));
}

#[test]
fn the_relation_picker() {
    insta::assert_snapshot!(graph_dialog("orders-service", "l"));
}

#[test]
fn the_type_filter() {
    insta::assert_snapshot!(graph_dialog("orders-service", "t"));
}

#[test]
fn the_curator_list() {
    let text = graph_dialog("orders-service", "c");
    assert!(text.contains("needs care"), "{text}");
    assert!(text.contains("10 entries"), "the count is in the title: {text}");
    insta::assert_snapshot!(undated(&text));
    // The selected entry's needs are spelt out whole below the list.
    let text = graph_dialog("orders-service", "cjjjjjjjj");
    assert!(text.contains("│round-half-up-display: deprecated · stale"), "{text}");
}

/// The demo's dates move with the day it is built (its seed is written
/// `as_of` a moment): they are masked.
#[test]
fn the_history_of_a_node() {
    let shot = graph_dialog("orders-service", "v");
    let dates = regex::Regex::new(r"\d{4}-\d\d-\d\dT[\d:]*").unwrap();
    insta::assert_snapshot!(dates.replace_all(&shot, "[DATE]"));
}

#[test]
fn the_deprecation_reason() {
    insta::assert_snapshot!(graph_dialog("retry-queue", "X"));
}

#[test]
fn the_as_of_prompt() {
    insta::assert_snapshot!(graph_dialog("orders-service", "@"));
}

#[test]
fn the_query_editor_has_its_own_hints() {
    let mut r = demo_at(Level::Master);
    r.s.size = SIZE;
    r.press("3");
    r.press("orders-service -> ");
    let text = r.screen();
    assert_fits(&text);
    let hints = text.lines().last().unwrap_or_default();
    assert!(
        !hints.contains("v view"),
        "the results' keys are not the editor's: {hints}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn the_export_prompt() {
    insta::assert_snapshot!(undated(&graph_dialog("orders-service", "x")));
}

/// The screen with each age in days (`443d`, which the demo data's fixed
/// dates grow by one every day) as `#`s of the same width.
fn undated(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        let before_ok = start == 0 || !chars[start - 1].is_alphanumeric();
        let after_ok = i < chars.len() && chars[i] == 'd' && chars.get(i + 1).is_none_or(|c| !c.is_alphanumeric());
        if i > start && before_ok && after_ok {
            out.extend(std::iter::repeat_n('#', i - start));
        } else {
            out.extend(&chars[start..i]);
        }
        if i == start {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn ages_in_days_are_masked_and_nothing_else() {
    assert_eq!(
        undated("443d ago, 12d; v2d x5d 3 days 7"),
        "###d ago, ##d; v2d x5d 3 days 7"
    );
}

/// The Query pane with results, then `keys` on them.
fn query_dialog(keys: &str) -> String {
    let mut r = demo_at(Level::Master);
    r.s.size = SIZE;
    r.press("3");
    r.press("orders-service -> uses -> *");
    r.key(KeyCode::Enter);
    r.press(keys);
    let text = r.screen();
    assert_fits(&text);
    text
}

#[test]
fn the_copy_as_choice() {
    insta::assert_snapshot!(query_dialog("y"));
}

#[test]
fn the_save_query_prompt() {
    insta::assert_snapshot!(query_dialog("s"));
}

#[test]
fn the_what_if() {
    let mut r = demo_at(Level::Master);
    r.s.size = SIZE;
    r.press("2");
    r.jump("retry-queue");
    r.press("PW");
    let text = r.screen();
    assert!(text.contains("What if retry-queue"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn the_query_history_search() {
    let mut r = demo_at(Level::Master);
    r.s.size = SIZE;
    r.press("3");
    r.press("orders-service -> uses -> *");
    r.key(KeyCode::Enter);
    r.press("i");
    r.msg(crate::app::update::Msg::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('r'),
        crossterm::event::KeyModifiers::CONTROL,
    )));
    let text = r.screen();
    assert_fits(&text);
    assert!(text.contains("orders-service -> uses -> *"), "{text}");
    insta::assert_snapshot!(text);
}

/// `j` until the queue's cursor is on item `at`.
fn down_to(s: &mut super::state::AppState, at: usize) {
    for _ in 0..at {
        super::update::update(
            s,
            super::update::Msg::Key(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char('j'))),
        );
    }
    assert_eq!(s.queue.selected, at);
}

/// The stale accept's one dialog: the three versions of the node side by
/// side, as the worker computes them from the demo's stale proposal.
#[test]
fn the_stale_base_dialog() {
    use super::update::{Msg, update};
    use super::worker::Reply;
    let d = demo();
    let mut s = console(&d, SIZE);
    let at = s
        .queue
        .items
        .iter()
        .position(|i| !i.stale.is_empty())
        .expect("a stale proposal");
    down_to(&mut s, at);
    let id = s.queue.items[at].id.clone();
    let (_, p) = d.store.proposal(&id).unwrap();
    let nodes = graphex_engine::proposal::stale_versions(&d.store, &p).unwrap();
    let three = crate::shared::three_way::three_way(&nodes);
    assert!(!three.is_empty() && !three[0].rows.is_empty(), "{three:?}");
    update(
        &mut s,
        Msg::Reply(Reply::Stale {
            id,
            versions: crate::shared::cards::stale(&nodes),
            three,
            edit: false,
        }),
    );
    let text = screen(&s);
    assert_fits(&text);
    assert!(
        text.contains("agent saw v1") && text.contains("graph holds v2"),
        "{text}"
    );
    assert!(text.contains("the proposal makes"), "{text}");
    insta::assert_snapshot!(text);
}

/// `m` on the demo's near-duplicate: the merge into the existing node,
/// its update against that node and its lints, before anything is written.
#[test]
fn the_merge_of_a_near_duplicate() {
    use super::update::{Msg, update};
    use super::worker::Reply;
    let d = demo();
    let mut s = console(&d, SIZE);
    let at = s
        .queue
        .items
        .iter()
        .position(|i| {
            i.changes
                .iter()
                .any(|c| format!("{c:?}").contains("\"payment-service\""))
        })
        .expect("the demo's near-duplicate");
    down_to(&mut s, at);
    let id = s.queue.items[at].id.clone();
    let view = super::worker::merge_draft::merge_view(&d.store, &id).unwrap();
    assert_eq!(view.existing, "payments-service");
    update(&mut s, Msg::Reply(Reply::MergeDraft(Box::new(view))));
    let text = screen(&s);
    assert_fits(&text);
    assert!(text.contains("Merge into payments-service"), "{text}");
    assert!(text.contains("a accepts the merge"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn the_unlock_dialog() {
    use super::update::{Msg, update};
    use super::worker::Reply;
    let d = demo();
    let mut s = console(&d, SIZE);
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
    press(&mut s, 'U');
    let text = screen(&s);
    assert_fits(&text);
    assert!(text.contains("passphrase"), "{text}");
    insta::assert_snapshot!(text);
}

fn ctrl(r: &mut Run, c: char) {
    r.msg(crate::app::update::Msg::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char(c),
        crossterm::event::KeyModifiers::CONTROL,
    )));
}

#[test]
fn the_bulk_accept() {
    let d = demo();
    let mut s = console(&d, SIZE);
    press(&mut s, 'A');
    let text = screen(&s);
    assert_fits(&text);
    assert!(
        matches!(
            s.popups.last(),
            Some(super::state::Popup::Confirm {
                then: super::state::Confirmed::AcceptMany(_),
                ..
            })
        ),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn the_quit_question_over_an_edit() {
    let d = demo();
    let mut s = console(&d, SIZE);
    press(&mut s, 'e');
    press(&mut s, 'x');
    super::update::update(
        &mut s,
        super::update::Msg::Key(crossterm::event::KeyEvent::new(
            KeyCode::Char('c'),
            crossterm::event::KeyModifiers::CONTROL,
        )),
    );
    let text = screen(&s);
    assert_fits(&text);
    assert!(text.contains("lose this edit"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn the_tier_raise_review() {
    let mut r = graph_at("postgresql");
    r.press("e");
    r.key(KeyCode::Tab);
    r.key(KeyCode::Right);
    ctrl(&mut r, 's');
    let text = r.screen();
    assert_fits(&text);
    assert!(text.contains("cannot be undone"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn the_query_export_prompt() {
    insta::assert_snapshot!(query_dialog("x"));
}

#[test]
fn the_agent_id_prompt() {
    let mut r = graph_at("orders-service");
    r.press("P");
    r.press("i");
    let text = r.screen();
    assert_fits(&text);
    assert!(
        matches!(r.s.popups.last(), Some(super::state::Popup::AgentId { .. })),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn the_contradiction_card() {
    // The demo's contradiction, open again: its loser restored.
    let mut d = demo();
    d.store
        .set_status(
            "round-half-up-display",
            graphex_engine::model::Status::Active,
            Some("back for the test"),
        )
        .unwrap();
    let mut s = console(&d, SIZE);
    for c in &mut s.queue.contradictions {
        (c.left.updated_ms, c.right.updated_ms, c.edge_ms) = (0, 0, 0);
    }
    press(&mut s, 'G');
    let text = screen(&s);
    assert_fits(&text);
    assert!(text.contains("contradictions (1)"), "{text}");
    assert!(text.contains("h keep left"), "its keys in the hint line: {text}");
    insta::assert_snapshot!(text);
}

#[test]
fn at_80_columns_the_breadcrumbs_give_way_to_the_walk() {
    let mut r = graph_at("orders-service");
    for name in [
        "batch-processor",
        "order-state-machine",
        "idempotency-store",
        "batch-processor",
    ] {
        r.jump(name);
    }
    let text = r.screen();
    let line = text
        .lines()
        .find(|l| l.contains("depth "))
        .unwrap_or_else(|| panic!("no walk on screen: {text}"));
    let at = line.find("depth ").unwrap();
    assert!(
        line[..at].ends_with(' ') || line[..at].ends_with('│'),
        "the walk is never run into: {line:?}"
    );
    assert!(line.contains("depth 2 · both ways"), "the walk whole: {line:?}");
}
