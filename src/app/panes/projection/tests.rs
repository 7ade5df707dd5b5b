//! The Projection pane over the demo store: opening from the Graph and
//! Query panes, the tiers side by side, why, diff, the trust slider, the
//! budget, audit records (one per distinct text), and the canaries: a
//! human-only description in no frame, an agent-restricted one in neither
//! lower column.

use crossterm::event::KeyCode;
use graphex_engine::Level;
use graphex_engine::model::Tier;

use super::work::Subject;
use crate::app::action::Pane;
use crate::app::panes::testkit::{Run, demo_at};

fn preview(r: &Run) -> &super::work::PreviewView {
    match &r.s.projection.shown {
        Some(Ok(v)) => v,
        other => panic!("no preview: {other:?}"),
    }
}

fn at(level: Level, node: &str) -> Run {
    let mut r = demo_at(level);
    r.s.size = (160, 40);
    r.s.pane = Pane::Graph;
    r.jump(node);
    r.press("P");
    assert_eq!(r.s.pane, Pane::Projection);
    r
}

fn preview_records(r: &Run) -> usize {
    r.store
        .audit_list(Some(super::update::AGENT), None, 1000)
        .unwrap()
        .iter()
        .filter(|e| e.kind == "preview")
        .count()
}

#[test]
fn each_tier_side_by_side_with_meters_and_why() {
    let mut r = at(Level::Master, "orders-service");
    let v = preview(&r);
    assert_eq!(v.tiers.iter().map(|t| t.tier).collect::<Vec<_>>(), super::work::TIERS);
    let (public, readable) = (&v.tiers[0], &v.tiers[1]);
    assert!(
        !public.text.contains("fraud-detection-service"),
        "agent-readable content stays out of public"
    );
    assert!(readable.text.contains("fraud-detection-service"));
    assert!(public.tokens <= public.budget && readable.tokens > public.tokens);
    let shot = r.screen();
    for t in ["public ·", "agent-readable ·", "agent-restricted ·"] {
        assert!(shot.contains(t), "{t} column: {shot}");
    }
    assert!(shot.contains(&format!("{}/8000", public.tokens)), "{shot}");
    assert!(shot.contains("human-only: never projected"), "{shot}");
    let out = public
        .verdicts
        .iter()
        .find(|v| v.name == "fraud-detection-service")
        .expect("a verdict on the agent-readable neighbour");
    assert!(!out.included && out.why == "out: tier (agent-readable)", "{out:?}");
    r.press("w");
    let shot = r.screen();
    assert!(shot.contains("✓ orders-service  in: distance 0"), "why in: {shot}");
    // The "out" verdicts come first.
    let (first_out, first_in) = (shot.find('✗'), shot.find('✓'));
    assert!(
        matches!((first_out, first_in), (Some(o), Some(i)) if o < i),
        "out verdicts first: {shot}"
    );
}

#[test]
fn diff_mode_shows_what_one_tier_adds() {
    let mut r = at(Level::Master, "orders-service");
    r.press("d");
    let shot = r.screen();
    assert!(shot.contains("What agent-readable receives beyond public"), "{shot}");
    assert!(
        shot.lines()
            .any(|l| l.contains("+ ") && l.contains("fraud-detection-service")),
        "{shot}"
    );
    r.press("D");
    assert!(
        r.screen()
            .contains("What agent-restricted receives beyond agent-readable")
    );
    r.press("d");
    assert!(r.s.projection.diff.is_none());
}

#[test]
fn the_trust_slider_marks_where_a_score_falls_and_the_budget_steps() {
    let mut r = at(Level::Master, "orders-service");
    let tier_at = |r: &mut Run, score: f64| {
        r.s.projection.trust = score;
        super::work::TIERS[super::update::trust_tier(&r.s)]
    };
    assert_eq!(tier_at(&mut r, 69.9), Tier::Public);
    assert_eq!(
        tier_at(&mut r, 90.0),
        Tier::Public,
        "above 90 reads agent-readable, 90 itself does not"
    );
    assert_eq!(tier_at(&mut r, 90.1), Tier::AgentReadable);
    r.s.projection.trust = 70.0;
    r.press(",");
    assert!((r.s.projection.trust - 69.9).abs() < 1e-9);
    r.press(">>");
    assert!((r.s.projection.trust - 79.9).abs() < 1e-9);
    assert!(r.screen().contains("trust 79.9"), "{}", r.screen());
    // The budget: a smaller one cuts, and each distinct text is recorded once.
    let records = preview_records(&r);
    let texts = r.s.projection.shown.as_ref().unwrap().as_ref().unwrap().tiers.len();
    assert_eq!(records, texts, "one record per tier's text");
    for _ in 0..30 {
        r.press("-");
    }
    assert_eq!(r.s.projection.spec.as_ref().unwrap().budget, 500);
    assert!(preview(&r).tiers[1].tokens <= 500);
    let after_cut = preview_records(&r);
    assert!(after_cut > records);
    // Back and forth to texts already shown: nothing more recorded.
    r.press("+-+-");
    assert_eq!(preview_records(&r), after_cut, "every text here was shown before");
}

#[test]
fn the_query_pane_sends_its_query_and_a_change_redraws() {
    let mut r = demo_at(Level::Master);
    r.press("3");
    r.press("orders-service -> owned-by -> *");
    r.key(KeyCode::Esc);
    r.press("P");
    assert_eq!(r.s.pane, Pane::Projection);
    assert_eq!(
        r.s.projection.spec.as_ref().unwrap().subject,
        Subject::Query("orders-service -> owned-by -> *".into())
    );
    assert!(preview(&r).tiers[0].text.contains("orders-team"));
    let generation = r.s.projection.generation;
    r.msg(crate::app::update::Msg::Reply(crate::app::worker::Reply::GraphChanged));
    assert!(r.s.projection.generation > generation, "a change recomputes");
    r.press("L");
    assert!(r.s.projection.spec.is_none() && r.s.projection.shown.is_none());
}

/// A human-only description is in no frame at any level; an agent-restricted
/// one is in neither the public nor the agent-readable column.
#[test]
fn canaries_stay_in_their_tiers() {
    let human = demo_at(Level::Human);
    let secret = human.store.node("fraud-vendor-renegotiation").unwrap().description;
    let restricted = human.store.node("card-processor").unwrap().description;
    drop(human);
    for level in [Level::Master, Level::Human] {
        for centre in ["tomas-reyes", "fraud-signals-vendor", "payments-service"] {
            let mut r = at(level, centre);
            // The pane's own frames only (the jump that chose the node is
            // the Graph pane's, which may show what this level reads).
            r.frames.clear();
            r.msg(crate::app::update::Msg::Resize(160, 40));
            r.press("w");
            r.press("w");
            r.press("d");
            r.press("DD");
            let v = preview(&r);
            for t in &v.tiers[..2] {
                assert!(
                    !t.text.contains(&restricted),
                    "{centre}: {} holds the restricted text",
                    t.tier
                );
            }
            for frame in &r.frames {
                assert!(
                    !frame.contains(&secret[..40.min(secret.len())]),
                    "{centre} at {level:?}: {frame}"
                );
            }
        }
    }
}

#[test]
fn snapshots_wide_and_narrow() {
    let mut r = at(Level::Master, "retry-queue");
    insta::assert_snapshot!("wide", r.screen());
    r.msg(crate::app::update::Msg::Resize(100, 30));
    r.press("]");
    insta::assert_snapshot!("narrow", r.screen());
}

#[test]
fn at_80x24_the_slider_and_its_tier_stay_on_the_top_line() {
    let mut r = at(Level::Master, "retry-queue");
    r.msg(crate::app::update::Msg::Resize(80, 24));
    let shot = r.screen();
    let top = shot.lines().nth(1).unwrap_or_default();
    assert!(top.contains("trust ") && top.contains("▏ → "), "{top}");
    assert!(top.contains("retry-queue"), "the subject stays, cut if need be: {top}");
    insta::assert_snapshot!("small_80x24", shot);
}

#[test]
fn a_proposal_previews_before_and_after_accepting_and_what_if_moves_a_node() {
    let mut r = demo_at(Level::Master);
    r.s.size = (160, 40);
    let crate::app::worker::Reply::Queue(snap) = crate::app::worker::read_queue(&r.store) else {
        panic!()
    };
    let commits = r.store.timeline(1).unwrap()[0].commit;
    r.msg(crate::app::update::Msg::Reply(crate::app::worker::Reply::Queue(snap)));
    r.press("p");
    assert_eq!(r.s.pane, Pane::Projection);
    let v = preview(&r);
    assert!(
        v.tiers.iter().all(|t| t.sealed || t.before.is_some()),
        "before and after per tier"
    );
    assert!(
        v.tiers
            .iter()
            .any(|t| t.before.as_ref().is_some_and(|(b, _)| *b != t.text)),
        "accepting changes some tier's projection"
    );
    assert!(r.screen().contains("before → after accepting"), "{}", r.screen());
    assert_eq!(r.store.timeline(1).unwrap()[0].commit, commits, "nothing was written");
    // What-if on a node: each tier in turn, then off.
    let mut r = at(Level::Master, "postgresql");
    r.press("W");
    let Some((Tier::Public, Some(Ok(lines)))) = &r.s.projection.what_if else {
        panic!("{:?}", r.s.projection.what_if)
    };
    assert!(lines.iter().any(|l| l.contains("public agents")), "{lines:?}");
    assert!(
        r.screen().contains("What if postgresql (depth 2) were public"),
        "{}",
        r.screen()
    );
    r.press("WWWW");
    assert!(r.s.projection.what_if.is_none());
}

#[test]
fn exposure_findings_open_in_the_graph_and_the_audit_replays_and_diffs() {
    let mut r = at(Level::Master, "orders-service");
    // Exposure: findings first, grouped, each opening its node in the Graph pane.
    r.press("E");
    let Some(Ok(v)) = &r.s.projection.review.exposure else {
        panic!("{:?}", r.s.projection.review.exposure)
    };
    assert!(v.tiers.iter().any(|t| t.0 == "agent-readable" && !t.3.is_empty()));
    let first = if let Some(f) = v.findings.first() {
        f.node.clone()
    } else {
        v.tiers[0].3[0].clone()
    };
    assert!(r.screen().contains("Exposure"), "{}", r.screen());
    // The first row is its group's heading: j to the first node in it.
    r.press("j");
    r.key(KeyCode::Enter);
    assert_eq!(r.s.pane, Pane::Graph);
    assert_eq!(r.s.graph.place.as_ref().unwrap().centre, first);
    // e opens the node's edit form there, with its confirmations.
    r.press("4");
    r.press("e");
    assert!(matches!(r.s.popups.last(), Some(crate::app::state::Popup::NodeForm(_))));
    r.key(KeyCode::Esc);
    r.press("4E");
    // Audit: the previews shown were recorded; the chain verifies.
    r.press("A");
    let Some(Ok(a)) = &r.s.projection.review.audit else {
        panic!()
    };
    assert!(a.verify.0, "{:?}", a.verify);
    // Newest first: the previews, then the demo queue's submissions.
    let previews = a.rows.iter().take_while(|x| x.kind == "preview").count();
    assert!(previews >= 3, "{:?}", a.rows);
    assert!(a.rows[previews..].iter().all(|x| x.kind == "proposal"), "{:?}", a.rows);
    assert!(r.screen().contains("chain verified"), "{}", r.screen());
    let hints = r.screen().lines().last().unwrap_or_default().to_owned();
    assert!(
        hints.contains("space mark · a agent · t since · A back"),
        "the hint line is the audit's: {hints}"
    );
    // Replay the newest: rebuilt from that time's versions, same hash.
    r.key(KeyCode::Enter);
    let Some(Ok(re)) = &r.s.projection.review.replay else {
        panic!("{:?}", r.s.projection.review.replay)
    };
    assert!(re.len() == 1 && re[0].matches, "{re:?}");
    assert!(r.screen().contains("the hash matches"));
    // Mark one, choose another: the two texts diffed.
    r.press(" j");
    r.key(KeyCode::Enter);
    let Some(Ok(re)) = &r.s.projection.review.replay else {
        panic!()
    };
    assert_eq!(re.len(), 2);
    assert!(r.screen().contains("what changed"), "{}", r.screen());
    // Filters: one agent, then the last day.
    let agents = match &r.s.projection.review.audit {
        Some(Ok(a)) => a.agents.clone(),
        other => panic!("{other:?}"),
    };
    assert!(agents.iter().any(|a| a == super::update::AGENT), "{agents:?}");
    r.press("a");
    assert_eq!(r.s.projection.review.agent.as_ref(), agents.first());
    r.press("t");
    let Some(Ok(a)) = &r.s.projection.review.audit else {
        panic!()
    };
    assert!(!a.rows.is_empty(), "today's previews are within the last day");
    r.press("A");
    assert_eq!(r.s.projection.review.view, super::review_ui::View::Previews);
}

#[test]
fn the_agent_id_is_set_and_checked() {
    let mut r = at(Level::Master, "retry-queue");
    r.press("i");
    let Some(crate::app::state::Popup::AgentId { input, .. }) = r.s.popups.last_mut() else {
        panic!()
    };
    *input = "bad id!".into();
    r.key(KeyCode::Enter);
    assert!(matches!(
        r.s.popups.last(),
        Some(crate::app::state::Popup::AgentId { error: Some(_), .. })
    ));
    let Some(crate::app::state::Popup::AgentId { input, .. }) = r.s.popups.last_mut() else {
        panic!()
    };
    *input = "claude-code".into();
    r.key(KeyCode::Enter);
    assert_eq!(r.s.projection.spec.as_ref().unwrap().agent, "claude-code");
    assert!(r.screen().contains("agent claude-code"));
    let recorded = r.store.audit_list(Some("claude-code"), None, 10).unwrap();
    assert!(!recorded.is_empty(), "the previews are recorded for that agent");
}

#[test]
fn an_empty_diff_says_what_it_compares() {
    let same = super::tier_diff::diff_lines("a\nb\n", "a\nb\n", "no change");
    assert_eq!(same[0][0].0, "no change");
    let tiers = super::tier_diff::diff_lines("a\n", "a\n", "the two tiers receive the same text");
    assert_eq!(tiers[0][0].0, "the two tiers receive the same text");
    let changed = super::tier_diff::diff_lines("a\n", "b\n", "no change");
    assert!(changed.iter().all(|l| l[0].0 != "no change"), "{changed:?}");
}

#[test]
fn curating_with_the_pane_hidden_records_nothing_until_it_is_shown() {
    let mut r = at(Level::Master, "orders-service");
    let shown = preview_records(&r);
    assert!(shown > 0, "the previews on screen are recorded");
    // To the Graph pane: a write changes the graph while pane 4 holds a subject.
    r.press("2");
    assert_eq!(r.s.pane, Pane::Graph);
    r.press("l");
    for c in "documents".chars() {
        r.press(&c.to_string());
    }
    r.key(KeyCode::Enter);
    for c in "minor-un".chars() {
        r.press(&c.to_string());
    }
    r.key(KeyCode::Enter);
    assert!(r.s.projection.stale, "the previews wait for the pane");
    assert_eq!(preview_records(&r), shown, "nothing recorded that nobody saw");
    // Shown again: computed, drawn and recorded then.
    r.press("4");
    assert!(!r.s.projection.stale);
    assert!(
        preview_records(&r) > shown,
        "the new texts are recorded as they are shown"
    );
}

#[test]
fn previews_made_at_the_human_level_are_labelled_so_for_a_master_reader() {
    let mut r = at(Level::Human, "orders-service");
    assert!(preview_records(&r) > 0, "the human level recorded its previews");
    // The same store read at the master level: those records say who made them.
    let creds = graphex_engine::Credentials {
        passphrase: Some(crate::shared::demo::DEMO_PASSPHRASE.into()),
        ..graphex_engine::Credentials::default()
    };
    r.store = graphex_engine::Store::open(r.dir.path(), &creds).unwrap();
    r.s.level = Some(Level::Master);
    r.press("A");
    let shot = r.screen();
    assert!(shot.contains("made at the human level"), "{shot}");
    assert!(!shot.contains("sealed at human-only"), "{shot}");
}

#[test]
fn a_tier_below_the_subject_receives_nothing_and_says_why() {
    // An agent-readable node: public cannot see it at all.
    let r = at(Level::Master, "fraud-detection-service");
    let v = preview(&r);
    let public = &v.tiers[0];
    assert_eq!(public.tier, Tier::Public);
    assert_eq!(
        public.note.as_deref(),
        Some("public receives nothing: fraud-detection-service is agent-readable"),
        "{public:?}"
    );
    assert!(public.error.is_none(), "no error: {public:?}");
    assert!(
        v.tiers[1].error.is_none() && v.tiers[1].note.is_none(),
        "agent-readable receives it"
    );
    assert!(r.screen().contains("public receives nothing"), "{}", r.screen());
    assert!(!r.screen().contains('^'), "no caret of a query error");
}

#[test]
fn the_audit_list_filters_as_you_type_and_replays_the_record_shown() {
    let mut r = at(Level::Master, "orders-service");
    r.press("2");
    r.jump("retry-queue");
    r.press("P");
    r.press("A");
    let centres = |r: &Run| -> Vec<String> {
        let Some(Ok(a)) = &r.s.projection.review.audit else {
            panic!("{:?}", r.s.projection.review.audit)
        };
        super::audit_filter::visible(a, &r.s.projection.review.af)
            .into_iter()
            .map(|i| a.rows[i].centre.clone())
            .collect()
    };
    let all = centres(&r);
    assert!(all.iter().any(|c| c.contains("orders-service")) && all.iter().any(|c| c.contains("retry-queue")));
    r.press("/retry");
    let shown = centres(&r);
    assert!(!shown.is_empty() && shown.len() < all.len(), "{shown:?}");
    assert!(shown.iter().all(|c| c.contains("retry")), "{shown:?}");
    assert!(shown.iter().any(|c| c.contains("node:retry-queue")), "{shown:?}");
    assert!(r.screen().contains("filter: retry"), "{}", r.screen());
    r.key(KeyCode::Enter);
    assert!(!r.s.projection.review.af.typing);
    // Enter now replays the first record shown, not the log's first.
    let Some(Ok(a)) = &r.s.projection.review.audit else {
        panic!()
    };
    let first_shown = a.rows[super::audit_filter::visible(a, &r.s.projection.review.af)[0]].seq;
    r.key(KeyCode::Enter);
    let Some(Ok(re)) = &r.s.projection.review.replay else {
        panic!("{:?}", r.s.projection.review.replay)
    };
    assert_eq!(re[0].seq, first_shown);
    // Esc clears the filter.
    r.key(KeyCode::Esc);
    assert_eq!(centres(&r).len(), all.len());
}

#[test]
fn audit_rows_scroll_sideways_on_a_narrow_terminal() {
    let mut r = at(Level::Master, "orders-service");
    r.msg(crate::app::update::Msg::Resize(80, 24));
    r.press("A");
    let hash = {
        let Some(Ok(a)) = &r.s.projection.review.audit else {
            panic!()
        };
        a.rows[0].hash[..12].to_owned()
    };
    assert!(!r.screen().contains(&hash), "cut at 80 columns at first");
    for _ in 0..8 {
        if r.screen().contains(&hash) {
            break;
        }
        r.press("]");
    }
    assert!(
        r.screen().contains(&hash),
        "→ brings the hash into view: {}",
        r.screen()
    );
    assert!(r.s.projection.review.hscroll > 0);
    r.press("[[[[[[[[[[");
    assert_eq!(r.s.projection.review.hscroll, 0);
}

#[test]
fn snapshot_of_the_audit_view_at_80x24() {
    let mut r = at(Level::Master, "orders-service");
    r.msg(crate::app::update::Msg::Resize(80, 24));
    r.press("A");
    let shot = audit_shot(&r);
    assert!(shot.contains("chain verified"), "{shot}");
    insta::assert_snapshot!("audit_80x24", shot);
}

#[test]
fn exposure_rows_scroll_sideways_too() {
    let mut r = at(Level::Master, "orders-service");
    r.msg(crate::app::update::Msg::Resize(80, 24));
    r.press("E");
    let before = r.screen();
    r.press("]");
    assert_eq!(r.s.projection.review.hscroll, 16);
    let after = r.screen();
    assert_ne!(after, before, "the rows moved sideways");
    assert!(after.contains("finding(s)"), "the summary stays: {after}");
    r.press("[");
    assert_eq!(r.screen(), before);
}

/// The audit view at 80×24 with times and hashes replaced by stand-ins of
/// the same width, so the snapshot holds run to run.
fn audit_shot(r: &Run) -> String {
    let mut shot = r.screen();
    let Some(Ok(a)) = &r.s.projection.review.audit else {
        panic!()
    };
    for x in &a.rows {
        shot = shot.replace(&x.at, &"T".repeat(x.at.chars().count()));
        if let Some(h) = x.hash.get(..12) {
            shot = shot.replace(h, "HASH--------");
        }
    }
    shot
}

#[test]
fn snapshot_of_a_replay_and_a_replay_diff_at_80x24() {
    let mut r = at(Level::Master, "orders-service");
    r.msg(crate::app::update::Msg::Resize(80, 24));
    r.press("A");
    r.key(KeyCode::Enter);
    let one = audit_shot(&r);
    assert!(one.contains("the hash matches"), "{one}");
    insta::assert_snapshot!("audit_replay_80x24", one);
    r.press(" j");
    r.key(KeyCode::Enter);
    let two = audit_shot(&r);
    assert!(two.contains("what changed"), "{two}");
    insta::assert_snapshot!("audit_replay_diff_80x24", two);
}

#[test]
fn a_long_replay_scrolls_with_j_and_k() {
    let mut r = at(Level::Master, "orders-service");
    r.msg(crate::app::update::Msg::Resize(80, 24));
    r.press("A");
    r.key(KeyCode::Enter);
    let top = r.screen();
    assert!(top.contains("the hash matches"), "{top}");
    r.press("J");
    assert_eq!(r.s.projection.review.replay_scroll, 5);
    assert!(!r.screen().contains("the hash matches"), "scrolled past the header");
    for _ in 0..50 {
        r.press("J");
    }
    let Some(Ok(re)) = &r.s.projection.review.replay else {
        panic!()
    };
    let last = re[0].text.lines().count() as u16;
    assert_eq!(r.s.projection.review.replay_scroll, last, "stops at the last line");
    r.press("KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK");
    assert_eq!(r.screen(), top);
}

/// Two audit records compared use the console's one diff: `n` / `N` go
/// change to change, the frame says which, `c` folds the unchanged runs.
#[test]
fn two_audit_records_compared_move_change_to_change() {
    let mut r = at(Level::Master, "orders-service");
    r.msg(crate::app::update::Msg::Resize(80, 24));
    r.press("A");
    // Two previews of different tiers: their texts differ.
    r.press(" j");
    r.key(KeyCode::Enter);
    assert!(super::review_ui::comparing(&r.s.projection.review));
    let hints = r.screen().lines().last().unwrap_or_default().to_owned();
    assert!(hints.contains("n next change"), "{hints}");
    let shot = r.screen();
    assert!(shot.contains("change(s)"), "{shot}");
    r.press("n");
    let shot = r.screen();
    assert!(shot.contains("change 1 of"), "{shot}");
    r.press("c");
    let shot = r.screen();
    assert!(r.s.projection.review.replay_folded);
    assert!(shot.contains("change 1 of") && shot.contains("changes only"), "{shot}");
    r.press("N");
    assert!(
        r.s.message.as_ref().is_some_and(|m| m.0.contains("no earlier change")),
        "{:?}",
        r.s.message
    );
}
