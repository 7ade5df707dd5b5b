//! The Graph pane over the demo store: keys in, the worker's answers
//! computed as the worker computes them, state and screens out.

use std::path::Path;

use crossterm::event::KeyCode;
use graphex_engine::traverse::Direction;
use graphex_engine::{Credentials, Level, Store};

use super::data::RingEntry;
use super::rows::{self};
use super::work;
use crate::app::action::{Action, Pane};
use crate::app::keymap::Keymap;
use crate::app::panes::testkit::{Run, demo_at};
use crate::app::state::Popup;
use crate::app::update::Msg;
use crate::app::worker::Reply;

#[test]
fn jump_recentre_back_and_forward_keep_each_places_walk() {
    let mut r = demo_at(Level::Master);
    r.press("2");
    assert_eq!(r.s.pane, Pane::Graph);
    // The pane starts on the best connected node there is.
    assert_eq!(r.centre(), "orders-service", "{}", r.screen());
    r.jump("retry-q");
    assert_eq!(r.centre(), "retry-queue");
    r.press("b");
    r.jump("orders-ser");
    assert_eq!(r.centre(), "orders-service");
    let Some(Ok(n)) = &r.s.graph.shown else {
        panic!("{:?}", r.s.graph.shown)
    };
    assert!(
        matches!(n.rings[0].entries[0], RingEntry::Group { .. }),
        "orders-service has more neighbours than a ring shows row by row"
    );
    // The walk of this place: all statuses, one ring deeper.
    r.press("s+");
    let here = r.s.graph.place.clone().unwrap();
    assert!(here.inactive && here.depth == 3);
    // Open the biggest group and recentre on its first member.
    r.press("j j");
    let first = r.row_names()[0].clone();
    r.key(KeyCode::Enter);
    assert_eq!(r.centre(), first);
    assert!(
        r.s.graph.place.as_ref().unwrap().inactive,
        "a new centre keeps the walk"
    );
    r.press("sd");
    let there = r.s.graph.place.clone().unwrap();
    assert!(!there.inactive && there.direction == Direction::Out);
    r.press("b");
    assert_eq!(
        r.s.graph.place.as_ref(),
        Some(&here),
        "back restores the walk as it was"
    );
    r.press("f");
    assert_eq!(r.s.graph.place.as_ref(), Some(&there));
    let top = r.screen();
    assert!(top.contains("orders-service › "), "breadcrumbs: {top}");
    assert!(top.contains("depth 3 · outgoing · active only"), "{top}");
    r.press("f");
    assert_eq!(r.s.message.as_ref().unwrap().0, "nothing to go forward to");
}

#[test]
fn moving_folding_depth_and_direction_keys() {
    let mut r = demo_at(Level::Master);
    r.s.pane = Pane::Graph;
    r.jump("retry-queue");
    assert_eq!(r.centre(), "retry-queue");
    let all = rows::items(&rows::current(&r.s.graph)).len();
    assert!(all > 3, "{all}");
    r.press("G");
    assert_eq!(r.s.graph.selected, all - 1);
    r.press("k");
    assert_eq!(r.s.graph.selected, all - 2);
    r.press("g");
    assert_eq!(r.s.graph.selected, 0);
    r.press("j");
    assert_eq!(r.s.graph.selected, 1);
    // Folding a first-ring node hides what was reached through it.
    r.press("g");
    let parent = {
        let Some(Ok(n)) = &r.s.graph.shown else { panic!() };
        n.rings[1]
            .entries
            .iter()
            .find_map(|e| match e {
                RingEntry::Node(row) => row.via.clone(),
                RingEntry::Group { members, .. } => members[0].via.clone(),
            })
            .expect("the second ring is reached through the first")
    };
    let before = r.shown_count();
    r.select(&parent);
    r.press(" ");
    assert!(r.s.graph.folded.contains(&parent));
    assert!(r.shown_count() < before, "the branch is hidden");
    assert!(r.screen().contains(&format!("▸ {parent}")), "{}", r.screen());
    r.press(" ");
    assert_eq!(r.shown_count(), before, "unfolded again");
    // Depth stays within 1..=MAX_DEPTH; each step asks again.
    r.press("---");
    assert_eq!(r.s.graph.place.as_ref().unwrap().depth, 1);
    assert!(r.s.message.as_ref().unwrap().0.contains("depth stays 1"));
    let shallow = r.shown_count();
    r.press("+");
    assert_eq!(r.s.graph.place.as_ref().unwrap().depth, 2);
    assert!(r.shown_count() > shallow);
    for _ in 0..10 {
        r.press("=");
    }
    assert_eq!(r.s.graph.place.as_ref().unwrap().depth, super::MAX_DEPTH);
    r.press("d");
    assert_eq!(r.s.graph.place.as_ref().unwrap().direction, Direction::Out);
    r.press("dd");
    assert_eq!(r.s.graph.place.as_ref().unwrap().direction, Direction::Both);
    // The inspector scrolls.
    r.key(KeyCode::PageDown);
    assert_eq!(
        r.s.graph.selected,
        rows::items(&rows::current(&r.s.graph)).len() - 1,
        "a page down, no further than the end"
    );
    r.key(KeyCode::PageUp);
    assert_eq!(r.s.graph.selected, 0);
    r.press("J");
    assert_eq!(r.s.graph.inspector_scroll, 3);
    r.press("K");
    assert_eq!(r.s.graph.inspector_scroll, 0);
}

#[test]
fn type_and_relation_pickers_filter_with_counts() {
    let mut r = demo_at(Level::Master);
    r.s.pane = Pane::Graph;
    r.jump("orders-service");
    r.press("t");
    let Some(Popup::Facets(p)) = r.s.popups.last() else {
        panic!("no picker")
    };
    let convention = p.rows.iter().position(|(t, _)| t == "convention").unwrap();
    let count = p.rows[convention].1;
    assert!(count >= 2, "{:?}", p.rows);
    assert!(r.screen().contains(&format!("convention  ({count})")), "{}", r.screen());
    for _ in 0..convention {
        r.key(KeyCode::Down);
    }
    r.press(" ");
    r.key(KeyCode::Enter);
    let place = r.s.graph.place.clone().unwrap();
    assert_eq!(place.types.iter().collect::<Vec<_>>(), ["convention"]);
    let names = r.row_names();
    assert!(!names.is_empty());
    for n in &names {
        assert_eq!(
            r.store.summary(n).unwrap().node_type.as_str(),
            "convention",
            "{n} is not a convention"
        );
    }
    // Relations: only `owned-by`.
    r.press("t");
    r.key(KeyCode::Backspace);
    r.key(KeyCode::Enter);
    assert!(r.s.graph.place.as_ref().unwrap().types.is_empty());
    r.press("r");
    let Some(Popup::Facets(p)) = r.s.popups.last() else {
        panic!("no picker")
    };
    let owned = p.rows.iter().position(|(t, _)| t == "owned-by").unwrap();
    for _ in 0..owned {
        r.key(KeyCode::Down);
    }
    r.press(" ");
    r.key(KeyCode::Enter);
    let Some(Ok(n)) = &r.s.graph.shown else { panic!() };
    let relations: Vec<&str> = n
        .rings
        .iter()
        .flat_map(|ring| ring.entries.iter())
        .map(|e| match e {
            RingEntry::Node(row) => row.relation.as_str(),
            RingEntry::Group { relation, .. } => relation.as_str(),
        })
        .collect();
    assert!(
        !relations.is_empty() && relations.iter().all(|r| *r == "owned-by"),
        "{relations:?}"
    );
    // Esc leaves a picker without changing anything.
    r.press("r");
    r.key(KeyCode::Backspace);
    r.key(KeyCode::Esc);
    assert_eq!(r.s.graph.place.as_ref().unwrap().relations.len(), 1);
}

#[test]
fn a_mark_and_the_shortest_path_to_the_centre() {
    let mut r = demo_at(Level::Master);
    r.s.pane = Pane::Graph;
    r.press("p");
    assert!(r.s.message.as_ref().unwrap().0.contains("mark a node first"));
    r.jump("retry-queue");
    r.press("m");
    // The centre is selected first: `m` marks it.
    let marked = r.s.graph.mark.clone().unwrap();
    assert_eq!(marked, "retry-queue");
    r.jump("orders-team");
    r.press("p");
    let Some(Ok(p)) = &r.s.graph.path else {
        panic!("{:?}", r.s.graph.path)
    };
    assert_eq!(p.steps.first().map(|s| s.0.as_str()), Some(marked.as_str()));
    assert_eq!(p.steps.last().map(|s| s.0.as_str()), Some("orders-team"));
    assert!(r.screen().contains(&format!("Path from {marked} to orders-team")));
}

#[test]
fn the_queue_and_the_palette_open_nodes_here() {
    let mut r = demo_at(Level::Master);
    let Reply::Queue(snap) = crate::app::worker::read_queue(&r.store) else {
        panic!()
    };
    let first = snap.items[0]
        .changes
        .iter()
        .find_map(|c| c.touched().first().map(|n| (*n).to_owned()));
    r.msg(Msg::Reply(Reply::Queue(snap)));
    r.press("o");
    match first {
        Some(name) => {
            assert_eq!(r.s.pane, Pane::Graph);
            assert_eq!(r.centre(), name);
        }
        None => assert!(r.s.message.as_ref().unwrap().0.contains("only adds new nodes")),
    }
    r.press(":");
    r.press("graph payments-service");
    r.key(KeyCode::Enter);
    assert_eq!(r.centre(), "payments-service");
    assert!(matches!(r.s.graph.shown, Some(Ok(_))));
    r.press(":");
    r.press("graph no-such-node");
    r.key(KeyCode::Enter);
    let Some(Err(e)) = &r.s.graph.shown else { panic!() };
    assert!(e.contains("no node named \"no-such-node\""), "{e}");
}

#[test]
fn lock_wipes_the_pane_and_a_change_redraws_it() {
    let mut r = demo_at(Level::Master);
    r.s.pane = Pane::Graph;
    r.jump("orders-service");
    r.press("L");
    assert!(r.s.graph.place.is_none() && r.s.graph.shown.is_none() && r.s.graph.back.is_empty());
    assert!(!r.screen().contains("orders-service"));
    r.jump("payments-service");
    let generation = r.s.graph.generation;
    r.msg(Msg::Reply(Reply::GraphChanged));
    assert!(r.s.graph.generation > generation, "a change asks again");
    // An answer to an older request is dropped.
    r.msg(Msg::Reply(Reply::Shown {
        generation,
        result: Box::new(Err("stale".into())),
    }));
    assert!(matches!(r.s.graph.shown, Some(Ok(_))));
}

#[test]
fn export_writes_a_new_file_of_what_is_shown() {
    let mut r = demo_at(Level::Master);
    r.s.pane = Pane::Graph;
    r.jump("retry-queue");
    let file = r.dir.path().join("around.mmd");
    r.press("x");
    let Some(Popup::Export { input, .. }) = r.s.popups.last_mut() else {
        panic!()
    };
    assert_eq!(input, "retry-queue.mmd");
    input.clear();
    r.msg(Msg::Paste(file.display().to_string()));
    r.key(KeyCode::Enter);
    assert!(
        r.s.message.as_ref().unwrap().0.starts_with("exported "),
        "{:?}",
        r.s.message
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.starts_with("graph LR") && text.contains("n_retry_hqueue["),
        "{text}"
    );
    for name in r.row_names() {
        assert!(text.contains(&format!("[\"{name}<br/>")), "{name} missing: {text}");
    }
    // Never over an existing file; a wrong extension is said in place.
    r.press("x");
    let Some(Popup::Export { input, .. }) = r.s.popups.last_mut() else {
        panic!()
    };
    *input = file.display().to_string();
    r.key(KeyCode::Enter);
    assert!(r.s.message.as_ref().unwrap().0.contains("already exists"));
    r.press("x");
    let Some(Popup::Export { input, .. }) = r.s.popups.last_mut() else {
        panic!()
    };
    *input = "out.svg".into();
    r.key(KeyCode::Enter);
    let Some(Popup::Export { error: Some(e), .. }) = r.s.popups.last() else {
        panic!()
    };
    assert!(e.contains(".mmd") && e.contains(".dot"), "{e}");
    assert!(!Path::new("out.svg").exists());
}

/// A human-only node is no row, group, count, facet, hit or path at the
/// master level, in any frame of a browse around it.
#[test]
fn a_human_only_node_is_absent_from_every_frame() {
    const SECRET: [&str; 2] = ["fraud-vendor-renegotiation", "ines-halvorsen"];
    let count_around = |level: Level| {
        let mut r = demo_at(level);
        r.s.pane = Pane::Graph;
        r.jump("tomas-reyes");
        r.press("s");
        let Some(Ok(n)) = &r.s.graph.shown else { panic!() };
        (n.rings[0].total, r)
    };
    let (human_total, _) = count_around(Level::Human);
    let (total, mut r) = count_around(Level::Master);
    assert_eq!(total + 1, human_total, "the human-only neighbour is not counted");
    r.press("++tr");
    r.key(KeyCode::Esc);
    r.jump("platform-team");
    r.press("+mG");
    r.jump("fraud-signals-vendor");
    r.press("p");
    r.press("/");
    r.press("fraud-vendor");
    r.key(KeyCode::Esc);
    r.press("/ines");
    r.key(KeyCode::Esc);
    r.msg(Msg::Resize(160, 48));
    r.press("b");
    assert!(r.frames.len() > 20);
    for frame in &r.frames {
        for secret in SECRET {
            assert!(!frame.contains(secret), "{secret} drawn:\n{frame}");
        }
    }
}

#[test]
fn history_lists_versions_and_diffs_any_two() {
    use graphex_engine::model::NodePatch;
    let mut r = demo_at(Level::Master);
    for d in [
        "Retries failed upstream calls",
        "Retries failed upstream calls with backoff",
    ] {
        let patch = NodePatch {
            description: Some(d.into()),
            ..NodePatch::default()
        };
        r.store.update_node("retry-queue", &patch).unwrap();
    }
    r.s.pane = Pane::Graph;
    r.jump("retry-queue");
    r.press("v");
    let Some(Popup::History(h)) = r.s.popups.last() else {
        panic!("no history")
    };
    let Some(Ok(view)) = &h.view else {
        panic!("{:?}", h.view)
    };
    assert_eq!(view.versions.len(), 3, "{view:?}");
    assert_eq!(h.compared(), Some((1, 2)), "the newest against the one before");
    let shot = r.screen();
    assert!(
        shot.contains("History of retry-queue") && shot.contains("v2 → v3"),
        "{shot}"
    );
    assert!(shot.contains("with backoff"), "{shot}");
    // The console's one diff: n goes to a change, the frame says which,
    // c folds the unchanged fields.
    assert!(shot.contains("change(s)"), "{shot}");
    r.press("n");
    assert!(r.screen().contains("change 1 of"), "{}", r.screen());
    r.press("c");
    let shot = r.screen();
    assert!(
        shot.contains("changes only") && shot.contains("unchanged line"),
        "{shot}"
    );
    r.press("c");
    // Compare from the first version instead.
    r.key(KeyCode::Up);
    r.key(KeyCode::Up);
    r.press(" ");
    r.key(KeyCode::Down);
    r.key(KeyCode::Down);
    let Some(Popup::History(h)) = r.s.popups.last() else {
        panic!()
    };
    assert_eq!(h.compared(), Some((0, 2)));
    assert!(r.screen().contains("v1 → v3"));
    r.key(KeyCode::Esc);
    assert!(r.s.popups.is_empty());
}

#[test]
fn as_of_shows_the_past_marked_as_history() {
    use graphex_engine::model::{Name, NewEdge, NewNode, NodeType, Relation, Tier};
    let mut r = demo_at(Level::Master);
    let before = r.store.timeline(1).unwrap()[0].commit;
    r.store
        .add_node(NewNode::new(
            Name::new("late-arrival").unwrap(),
            NodeType::new("module").unwrap(),
            "added after the point",
            Tier::Public,
        ))
        .unwrap();
    r.store
        .link(NewEdge::new(
            Name::new("retry-queue").unwrap(),
            Relation::new("uses").unwrap(),
            Name::new("late-arrival").unwrap(),
        ))
        .unwrap();
    r.s.pane = Pane::Graph;
    r.jump("retry-queue");
    assert!(r.row_names().contains(&"late-arrival".to_owned()));
    r.press("@");
    let Some(Popup::AsOf { input, .. }) = r.s.popups.last_mut() else {
        panic!()
    };
    *input = "yesterday".into();
    r.key(KeyCode::Enter);
    let Some(Popup::AsOf { error: Some(e), .. }) = r.s.popups.last() else {
        panic!("a bad point is said in place")
    };
    assert!(e.contains("#42"), "{e}");
    let Some(Popup::AsOf { input, .. }) = r.s.popups.last_mut() else {
        panic!()
    };
    *input = format!("#{before}");
    r.key(KeyCode::Enter);
    assert!(r.s.popups.is_empty());
    assert!(
        !r.row_names().contains(&"late-arrival".to_owned()),
        "{:?}",
        r.row_names()
    );
    let shot = r.screen();
    assert!(shot.contains("HISTORY"), "{shot}");
    assert!(shot.contains(&format!("entry #{before}")), "{shot}");
    // `@` opens empty: `@ enter` is back to now.
    r.press("@");
    let Some(Popup::AsOf { input, .. }) = r.s.popups.last() else {
        panic!()
    };
    assert!(input.is_empty(), "{input}");
    r.key(KeyCode::Enter);
    assert!(r.row_names().contains(&"late-arrival".to_owned()));
    assert!(!r.screen().contains("HISTORY"));
    assert_eq!(
        super::dialogs::parse_as_of("2026-11-01").unwrap(),
        Some(graphex_engine::as_of::AsOf::Date(graphex_engine::model::Timestamp(
            graphex_engine::model::Timestamp::parse("2026-11-02").unwrap().0 - 1
        ))),
        "a date is the end of that day"
    );
}

fn snapshot_of(size: (u16, u16)) -> String {
    let mut r = demo_at(Level::Master);
    r.s.pane = Pane::Graph;
    r.s.size = size;
    r.s.now_ms = r.store.summary("orders-service").unwrap().updated.0 + 2 * 86_400_000;
    r.jump("retry-queue");
    r.press("m");
    r.jump("orders-service");
    r.press("j j");
    let shot = r.screen();
    assert!(shot.contains("▾ "), "the first group is open: {shot}");
    shot.replace(&r.dir.path().display().to_string(), "/work/shop")
}

#[test]
fn snapshot_80x24() {
    insta::assert_snapshot!(snapshot_of((80, 24)));
}

#[test]
fn snapshot_160x48() {
    insta::assert_snapshot!(snapshot_of((160, 48)));
}

#[test]
fn every_graph_action_is_bound_and_listed() {
    let keymap = Keymap::load(&[]).unwrap();
    for info in crate::app::action::ALL {
        if info.scope == crate::app::action::Scope::Pane(Pane::Graph) {
            assert!(!keymap.keys_of(info.action).is_empty(), "{} has no key", info.name);
        }
    }
    assert_eq!(Action::Jump.info().name, "jump");
}

#[test]
fn unlocking_redraws_the_pane_from_what_the_new_level_reads() {
    let mut r = demo_at(Level::Master);
    r.s.pane = Pane::Graph;
    r.jump("tomas-reyes");
    r.press("s");
    let count = |r: &Run| match &r.s.graph.shown {
        Some(Ok(n)) => n.rings[0].total,
        other => panic!("{other:?}"),
    };
    let before = count(&r);
    // The worker reopens at the human level and says so.
    let creds = Credentials {
        passphrase: Some(crate::shared::demo::DEMO_PASSPHRASE.into()),
        human_passphrase: Some(crate::shared::demo::DEMO_HUMAN_PASSPHRASE.into()),
        ..Credentials::default()
    };
    r.store = Store::open(r.dir.path(), &creds).unwrap();
    r.msg(Msg::Reply(Reply::Opened {
        level: Level::Human,
        root: "/work/shop".into(),
    }));
    assert_eq!(count(&r), before + 1, "the human-only neighbour appears");
    assert!(format!("{:?}", r.s.graph.shown).contains("fraud-vendor-renegotiation"));
}

#[test]
fn stored_text_is_shown_escaped_never_as_structure() {
    use graphex_engine::model::{Name, NewNode, NodeType, Tier};
    let mut r = demo_at(Level::Master);
    let mut n = NewNode::new(
        Name::new("hostile-note").unwrap(),
        NodeType::new("concept").unwrap(),
        "Looks fine\u{202e}txt.exe\u{200b}\n\n\n\nInspector\nmark        someone-else",
        Tier::Public,
    );
    n.properties.insert("owner".into(), "a\u{1b}[31mred".into());
    n.body = Some("line one\n\u{1b}]52;c;Y2xpcA==\u{7}".into());
    r.store.add_node(n).unwrap();
    r.s.pane = Pane::Graph;
    r.jump("hostile-note");
    let shot = r.screen();
    for raw in ['\u{202e}', '\u{200b}', '\u{1b}', '\u{7}'] {
        assert!(!shot.contains(raw), "{raw:?} reached the screen:\n{shot}");
    }
    assert!(shot.contains(r"\u{202e}txt.exe"), "{shot}");
    for line in shot.lines() {
        if line.contains("mark        someone-else") {
            assert!(line.contains("│ mark"), "stored text outside the gutter: {line}");
        }
    }
    // The edit form and the history show it escaped too.
    r.press("e");
    let form = r.screen();
    assert!(!form.contains('\u{202e}') && !form.contains('\u{1b}'), "{form}");
    r.key(KeyCode::Esc);
    r.press("v");
    let history = r.screen();
    assert!(
        !history.contains('\u{202e}') && !history.contains('\u{1b}'),
        "{history}"
    );
}

/// The jump without its shortcuts: every name scored (no prefilter), every
/// match sorted, every description lowercased; (name, whether the
/// description matched) of each hit.
fn jump_by_full_sort(c: &graphex_engine::store::Catalog, query: &str) -> Vec<(String, bool)> {
    let m = graphex_engine::lookup::Matcher::new(query);
    let query = query.trim();
    if query.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<_> = c
        .nodes()
        .filter_map(|n| m.score(n.name.as_str()).map(|s| (s, n)))
        .collect();
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| {
                a.1.name
                    .as_str()
                    .chars()
                    .count()
                    .cmp(&b.1.name.as_str().chars().count())
            })
            .then_with(|| a.1.name.cmp(&b.1.name))
    });
    let mut hits: Vec<(String, bool)> = scored
        .iter()
        .take(work::JUMP_HITS)
        .map(|(_, n)| (n.name.to_string(), false))
        .collect();
    if hits.len() < work::JUMP_HITS && query.chars().count() >= 2 {
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        let mut by_text: Vec<_> = c
            .nodes()
            .filter(|n| !hits.iter().any(|h| h.0 == n.name.as_str()))
            .filter(|n| {
                let d = n.description.to_lowercase();
                words.iter().all(|w| d.contains(w.as_str()))
            })
            .collect();
        by_text.sort_by(|a, b| a.name.cmp(&b.name));
        let room = work::JUMP_HITS - hits.len();
        hits.extend(by_text.into_iter().take(room).map(|n| (n.name.to_string(), true)));
    }
    hits
}

#[test]
fn the_jump_picks_what_a_full_sort_of_every_match_would() {
    let r = demo_at(Level::Master);
    let c = r.store.catalog();
    for q in [
        "o",
        "or",
        "orders",
        "ORDERS",
        "Stock SKU",
        "PENDING → validated",
        "the",
        "zzz q",
        "ordr srv",
        "srv ordr",
        "",
    ] {
        let hits: Vec<(String, bool)> = work::jump(c, q, None)
            .into_iter()
            .map(|h| (h.name, h.description.is_some()))
            .collect();
        assert_eq!(hits, jump_by_full_sort(c, q), "{q:?}");
    }
    assert!(
        work::jump(c, "PENDING → validated", None)
            .iter()
            .any(|h| h.description.is_some()),
        "a non-ASCII description is matched too"
    );
    let first = |q: &str| work::jump(c, q, None).first().map(|h| h.name.clone());
    assert_eq!(
        first("ordr srv").as_deref(),
        Some("orders-service"),
        "every word, in any order"
    );
    assert_eq!(first("srv ordr").as_deref(), Some("orders-service"));
    assert_eq!(
        first("ORDERS-SERVICE").as_deref(),
        Some("orders-service"),
        "exact first"
    );
    let top = &work::jump(c, "ordr srv", None)[0];
    let picked: String = top.matched.iter().filter_map(|i| top.name.chars().nth(*i)).collect();
    assert_eq!(picked, "ordrsrv", "the matched letters are highlighted");
}

#[test]
fn back_returns_to_the_cursor_and_the_groups_as_they_were() {
    let mut r = crate::app::panes::testkit::demo_at(Level::Master);
    r.press("2");
    r.jump("orders-service");
    r.press("jjj");
    let (selected, opened) = (r.s.graph.selected, r.s.graph.opened.clone());
    assert_eq!(selected, 3);
    r.jump("batch-processor");
    assert_eq!(r.s.graph.selected, 0, "a new centre starts at its top");
    r.press("b");
    assert_eq!(
        r.s.graph.place.as_ref().map(|p| p.centre.as_str()),
        Some("orders-service")
    );
    assert_eq!(r.s.graph.selected, selected, "the cursor where it was");
    assert_eq!(r.s.graph.opened, opened, "the groups as they were");
    r.press("f");
    assert_eq!(r.s.graph.selected, 0, "forward too: batch-processor as it was left");
}
