//! Contradictions on the queue, over the demo store with one left open
//! (`round-half-even contradicts round-half-up-display`, its loser
//! restored): listed after the proposals, resolved by keeping one or
//! marking both disputed, read-only below the master level.

use crossterm::event::KeyCode;
use graphex_engine::curate::contradictions;
use graphex_engine::model::Status;
use graphex_engine::{Credentials, Level, Store};

use crate::app::panes::queue::contradiction::{Resolution, keep_reason, resolve};
use crate::app::panes::testkit::{Run, demo_at};
use crate::app::state::{Confirmed, Popup};
use crate::app::update::Msg;
use crate::app::worker::{Reply, read_queue_unlinted};
use crate::widgets::Tone;

const LEFT: &str = "round-half-even";
const RIGHT: &str = "round-half-up-display";

/// The demo at master with its contradiction open again, the queue read,
/// and the contradiction selected (it is listed last).
fn open_contradiction() -> Run {
    let mut r = demo_at(Level::Master);
    r.store
        .set_status(RIGHT, Status::Active, Some("back for the test"))
        .unwrap();
    r.load_queue();
    r.press("G");
    r
}

fn error_says(r: &Run, part: &str) -> bool {
    matches!(&r.s.message, Some((m, Tone::Error)) if m.contains(part))
}

#[test]
fn an_open_contradiction_is_listed_after_the_proposals_and_counted_apart() {
    let r = open_contradiction();
    assert_eq!(r.s.queue.contradictions.len(), 1);
    assert_eq!(r.s.pending, r.s.queue.items.len(), "proposals are counted on their own");
    let c =
        r.s.queue
            .current_contradiction()
            .expect("the last row is the contradiction");
    assert_eq!(c.key(), (LEFT, RIGHT));
    let text = r.screen();
    assert!(text.contains("contradictions (1)"), "{text}");
    assert!(text.contains(&format!("{LEFT} ≠ {RIGHT}")), "{text}");
    assert!(text.contains(&format!("Queue ({} · 1≠)", r.s.pending)), "{text}");
    assert!(text.contains("1 contradiction"), "{text}");
    assert!(text.contains("h keep left"), "its keys are in the hint line: {text}");
    assert!(!text.contains("a accept"), "not a proposal's: {text}");
    // A proposal's keys do nothing on it.
    let mut r = r;
    r.press("a");
    assert!(error_says(&r, "a contradiction is selected"), "{:?}", r.s.message);
    assert!(r.s.popups.is_empty());
    // Nor do its keys on a proposal.
    r.press("g");
    assert!(r.s.queue.current().is_some());
    r.press("h");
    assert!(error_says(&r, "select one"), "{:?}", r.s.message);
    assert!(r.s.popups.is_empty());
}

#[test]
fn keeping_one_deprecates_the_other_with_the_reason_and_the_item_leaves() {
    let mut r = open_contradiction();
    r.press("h");
    let Some(Popup::KeepReason {
        kept,
        deprecated,
        input,
        ..
    }) = r.s.popups.last()
    else {
        panic!("a reason first: {:?}", r.s.popups.len())
    };
    assert_eq!((kept.as_str(), deprecated.as_str()), (LEFT, RIGHT));
    assert_eq!(*input, format!("contradicts {LEFT}; kept {LEFT}"));
    // An emptied reason is refused; esc writes nothing.
    for _ in 0..input.len() {
        r.key(KeyCode::Backspace);
    }
    r.key(KeyCode::Enter);
    assert!(matches!(
        r.s.popups.last(),
        Some(Popup::KeepReason { error: Some(_), .. })
    ));
    r.key(KeyCode::Esc);
    assert!(r.s.popups.is_empty());
    assert_eq!(r.store.node(RIGHT).unwrap().status, Status::Active);
    // Then with its reason, confirmed.
    r.press("h");
    r.key(KeyCode::Enter);
    assert!(matches!(
        r.s.popups.last(),
        Some(Popup::Confirm { then: Confirmed::Resolve(_), text }) if text.contains(&format!("deprecate {RIGHT}"))
    ));
    assert_eq!(r.store.node(RIGHT).unwrap().status, Status::Active, "nothing before y");
    r.press("y");
    let gone = r.store.node(RIGHT).unwrap();
    assert_eq!(gone.status, Status::Deprecated, "{:?}", r.s.message);
    assert_eq!(
        gone.status_reason.as_deref(),
        Some("contradicts round-half-even; kept round-half-even")
    );
    assert_eq!(r.store.node(LEFT).unwrap().status, Status::Active);
    assert!(r.s.queue.contradictions.is_empty(), "resolved: it leaves the queue");
    assert!(matches!(&r.s.message, Some((m, Tone::Ok)) if m.contains("kept round-half-even")));
    // One commit on the timeline, which `u` undoes: it is back.
    r.press("u");
    assert_eq!(r.store.node(RIGHT).unwrap().status, Status::Active, "{:?}", r.s.message);
    r.load_queue();
    assert_eq!(r.s.queue.contradictions.len(), 1);
}

#[test]
fn marking_both_disputed_acknowledges_it_and_keeps_both() {
    let mut r = open_contradiction();
    r.press("D");
    assert!(matches!(
        r.s.popups.last(),
        Some(Popup::Confirm {
            then: Confirmed::Resolve(_),
            ..
        })
    ));
    r.press("n");
    assert!(r.s.popups.is_empty());
    let disputed = |r: &Run, name: &str| r.store.node(name).unwrap().properties.get("disputed").cloned();
    assert_eq!(disputed(&r, LEFT), None, "n writes nothing");
    r.press("D");
    r.press("y");
    for name in [LEFT, RIGHT] {
        assert_eq!(disputed(&r, name).as_deref(), Some("true"), "{name}: {:?}", r.s.message);
        assert_eq!(r.store.node(name).unwrap().status, Status::Active);
    }
    assert!(r.s.queue.contradictions.is_empty(), "acknowledged: it leaves the queue");
    let found = contradictions(r.store.catalog(), Level::Master.max_tier());
    assert!(found.iter().all(|c| c.acknowledged), "{found:?}");
}

#[test]
fn below_the_master_level_it_is_shown_read_only_and_refused() {
    let mut r = open_contradiction();
    let locked = Store::open(r.dir.path(), &Credentials::default()).unwrap();
    assert_eq!(locked.level(), Level::Locked);
    r.msg(Msg::Reply(Reply::Opened {
        level: Level::Locked,
        root: "/work/shop".into(),
    }));
    let (sealed, _) = read_queue_unlinted(&locked);
    assert!(matches!(&sealed, Reply::Sealed { contradictions, .. } if contradictions.len() == 1));
    r.msg(Msg::Reply(sealed));
    assert!(r.s.queue.items.is_empty(), "proposals stay sealed");
    assert!(r.s.queue.current_contradiction().is_some());
    let text = r.screen();
    assert!(text.contains("Read-only at this level"), "{text}");
    assert!(text.contains("unlock to resolve"), "the hint says so: {text}");
    assert!(text.contains("proposal(s) sealed"), "{text}");
    for key in ["h", "l", "D"] {
        r.press(key);
        assert!(error_says(&r, "takes the master level"), "{key}: {:?}", r.s.message);
        assert!(r.s.popups.is_empty(), "{key}");
    }
    assert_eq!(r.store.node(RIGHT).unwrap().status, Status::Active);
}

#[test]
fn a_reason_never_names_a_more_secret_node_to_the_deprecated_nodes_readers() {
    let mut r = open_contradiction();
    let c = r.s.queue.current_contradiction().unwrap().clone();
    assert_eq!(
        keep_reason(&c.left, &c.right),
        format!("contradicts {LEFT}; kept {LEFT}")
    );
    let mut secret = c.left.clone();
    secret.tier = "agent-restricted".into();
    let prefilled = keep_reason(&secret, &c.right);
    assert!(!prefilled.contains(LEFT), "{prefilled}");
    // A reason typed with a more secret name is refused, nothing written.
    let typed = Resolution::Keep {
        kept: LEFT.into(),
        deprecated: RIGHT.into(),
        reason: "fraud-detection-service says so".into(),
    };
    let err = resolve(&mut r.store, &typed).unwrap_err();
    assert!(
        err.contains("not deprecated") && err.contains("fraud-detection-service"),
        "{err}"
    );
    assert_eq!(r.store.node(RIGHT).unwrap().status, Status::Active);
}

/// A graph with more open contradictions than the queue lists (a generated
/// 100k store has tens of thousands): the first are listed with their
/// cards, every count says how many there are, and the header says where
/// the rest are.
#[test]
fn past_the_listed_ones_contradictions_are_counted_not_read() {
    use crate::app::panes::queue::contradiction::LISTED;
    use graphex_engine::model::{Name, NodeType, Relation};
    use graphex_engine::{NewEdge, NewNode, Tier};
    let mut r = open_contradiction();
    let mut batch = graphex_engine::store::Batch::default();
    let name = |i: usize| Name::new(&format!("claim-{i:03}")).unwrap();
    for i in 0..=LISTED + 1 {
        batch.add_node(NewNode::new(
            name(i),
            NodeType::new("concept").unwrap(),
            "a claim",
            Tier::Public,
        ));
    }
    for i in 0..=LISTED {
        batch.link(NewEdge::new(
            name(i),
            Relation::new("contradicts").unwrap(),
            name(i + 1),
        ));
    }
    r.store
        .apply_batch(batch, graphex_engine::store::Durability::Sync)
        .unwrap();
    let total = LISTED + 2;
    let Reply::Queue(q) = read_queue_unlinted(&r.store).0 else {
        panic!("the master level reads the queue");
    };
    assert_eq!((q.contradictions.len(), q.contradictions_total), (LISTED, total));
    r.load_queue();
    assert_eq!(r.s.queue.contradiction_count(), total);
    let text = r.screen();
    assert!(text.contains(&format!("{total} contradictions")), "{text}");
    r.press("g");
    let text = r.screen();
    assert!(
        text.contains(&format!("contradictions ({LISTED} of {total})")),
        "{text}"
    );
}
