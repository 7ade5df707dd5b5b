//! The Query pane over the demo store: typing, live results, errors and
//! their fixes, completion, the results' keys, "as tier", export and copy.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use graphex_engine::Level;

use super::Mode;
use crate::app::action::Pane;
use crate::app::panes::testkit::{Run, demo_at};
use crate::app::state::Popup;
use crate::app::update::Msg;

fn query_pane() -> Run {
    let mut r = demo_at(Level::Master);
    r.press("3");
    assert_eq!(r.s.pane, Pane::Query);
    assert!(r.s.query.editing, "the editor has the keys at first");
    r
}

fn ctrl(r: &mut Run, c: char) {
    r.msg(Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)));
}

fn results(r: &Run) -> &super::work::ResultsView {
    match &r.s.query.results {
        Some(Ok(v)) => v,
        other => panic!("no results: {other:?}"),
    }
}

#[test]
fn typing_gives_live_results_and_keys_stay_in_the_editor() {
    let mut r = query_pane();
    // Letters that are keys elsewhere (q quits, u undoes) are text here.
    r.press("orders-service -> uses -> * --type glossary");
    assert_eq!(r.s.query.text(), "orders-service -> uses -> * --type glossary");
    assert!(!r.s.quit);
    let v = results(&r);
    assert!(v.total >= 3, "{v:?}");
    assert!(v.paths.iter().all(|p| p.nodes.last().unwrap().1 == "glossary"));
    let shot = r.screen();
    assert!(shot.contains("orders-service —uses→ order-batch"), "{shot}");
    assert!(shot.contains(&format!("{} paths", v.total)), "{shot}");
    // Each keystroke asked again; only the newest answer counts.
    let g = r.s.query.generation;
    r.msg(Msg::Reply(crate::app::worker::Reply::QueryResult {
        generation: g - 1,
        result: Box::new(Err(super::work::ErrorView {
            message: "stale".into(),
            span: (0, 0),
            candidates: Vec::new(),
        })),
    }));
    assert!(matches!(r.s.query.results, Some(Ok(_))), "an older answer is dropped");
}

#[test]
fn an_error_is_underlined_in_place_and_ctrl_f_applies_the_suggestion() {
    let mut r = query_pane();
    r.press("orders-servce -> depends-on -> *");
    let Some(Err(e)) = &r.s.query.results else {
        panic!("{:?}", r.s.query.results)
    };
    assert_eq!(e.span, (0, 13));
    assert_eq!(e.candidates.first().map(String::as_str), Some("orders-service"));
    let shot = r.screen();
    assert!(shot.contains("did you mean orders-service?"), "{shot}");
    assert!(shot.contains("ctrl-f applies it"), "{shot}");
    // The results of the last valid query stay, marked as such.
    ctrl(&mut r, 'f');
    assert_eq!(r.s.query.text(), "orders-service -> depends-on -> *");
    assert!(results(&r).total >= 5);
    assert!(r.s.message.as_ref().unwrap().0.contains("applied"));
}

#[test]
fn enter_runs_the_query_unless_a_completion_was_chosen_and_ctrl_z_undoes_one() {
    let mut r = query_pane();
    r.press("orders-service -> * --depth 1");
    r.key(KeyCode::Enter);
    assert_eq!(
        r.s.query.text(),
        "orders-service -> * --depth 1",
        "enter ran, it inserted nothing"
    );
    assert!(!r.s.query.editing && r.s.query.popup.is_none(), "on to the results");
    assert!(results(&r).total >= 5);
    // A candidate chosen with the arrows is what enter takes.
    let mut r = query_pane();
    r.press("orders-service -> own");
    assert!(r.s.query.popup.is_some());
    r.key(KeyCode::Down);
    r.key(KeyCode::Up);
    r.key(KeyCode::Enter);
    assert_eq!(r.s.query.text(), "orders-service -> owned-by ");
    assert!(r.s.query.editing, "a completion taken keeps the editor");
    // ctrl-z right after a completion puts the text and cursor back.
    ctrl(&mut r, 'z');
    assert_eq!(r.s.query.text(), "orders-service -> own");
    r.press("ed-by");
    assert_eq!(r.s.query.text(), "orders-service -> owned-by");
    // Once typed over, ctrl-z is the editor's own undo again.
    assert!(r.s.query.before_completion.is_none());
}

#[test]
fn completion_offers_names_relations_flags_and_values() {
    let mut r = query_pane();
    r.press("orders-se");
    let p = r.s.query.popup.as_ref().expect("a completion popup");
    assert_eq!(p.completion.items[0].text, "orders-service");
    r.key(KeyCode::Tab);
    assert_eq!(r.s.query.text(), "orders-service ");
    r.press("-> ");
    let p = r.s.query.popup.as_ref().expect("relations");
    assert!(
        p.completion
            .items
            .iter()
            .any(|c| c.text == "depends-on" && c.detail.contains("edges"))
    );
    r.press("own");
    r.key(KeyCode::Tab);
    assert_eq!(r.s.query.text(), "orders-service -> owned-by ");
    r.press("-> * --ti");
    r.key(KeyCode::Tab);
    assert_eq!(r.s.query.text(), "orders-service -> owned-by -> * --tier ");
    assert!(
        r.s.query
            .signature
            .as_deref()
            .unwrap_or("")
            .contains("at or below this tier")
    );
    assert!(r.screen().contains("at or below this tier"), "signature help is shown");
    r.press("pub");
    r.key(KeyCode::Down);
    r.key(KeyCode::Up);
    r.key(KeyCode::Tab);
    assert_eq!(r.s.query.text(), "orders-service -> owned-by -> * --tier public ");
    assert!(results(&r).total >= 1);
    // A name above the unlock level is never offered.
    let mut r = query_pane();
    r.press("fraud-vendor-re");
    let offered =
        r.s.query
            .popup
            .as_ref()
            .map(|p| p.completion.items.iter().map(|c| c.text.clone()).collect::<Vec<_>>())
            .unwrap_or_default();
    assert!(
        !offered.iter().any(|t| t == "fraud-vendor-renegotiation"),
        "{offered:?}"
    );
    // Esc closes the popup first, then leaves the editor.
    let mut r = query_pane();
    r.press("ord");
    assert!(r.s.query.popup.is_some());
    r.key(KeyCode::Esc);
    assert!(r.s.query.popup.is_none() && r.s.query.editing);
    r.key(KeyCode::Esc);
    assert!(!r.s.query.editing);
}

#[test]
fn the_results_keys_move_switch_views_open_and_cycle_tiers() {
    let mut r = query_pane();
    r.press("orders-service -> communicates-with -> *");
    r.key(KeyCode::Enter);
    assert!(!r.s.query.editing, "enter runs and goes to the results");
    let n = results(&r).paths.len();
    assert!(n >= 4, "{n}");
    r.press("jjk");
    assert_eq!(r.s.query.selected, 1);
    r.press("G");
    assert_eq!(r.s.query.selected, n - 1);
    r.press("v");
    assert_eq!(r.s.query.mode, Mode::Tree);
    assert!(
        r.screen().contains("orders-service ↔ communicates-with"),
        "{}",
        r.screen()
    );
    r.press("v");
    assert_eq!(r.s.query.mode, Mode::Json);
    assert!(
        r.screen()
            .contains("\"query\": \"orders-service -> communicates-with -> *\""),
        "{}",
        r.screen()
    );
    r.press("v");
    assert_eq!(r.s.query.mode, Mode::Table);
    // As tier: agent-readable nodes drop out for public.
    let before = results(&r).total;
    r.press("T");
    assert!(r.s.query.text().ends_with("--tier public"), "{}", r.s.query.text());
    let public = results(&r);
    assert!(public.total < before, "fraud-detection-service is agent-readable");
    assert!(
        !public
            .paths
            .iter()
            .any(|p| p.nodes.iter().any(|n| n.0 == "fraud-detection-service"))
    );
    assert!(r.screen().contains("as tier public"));
    r.press("TTT");
    assert!(!r.s.query.text().contains("--tier"), "back to the session's own view");
    // Enter opens the selected result's last node in the Graph pane.
    r.press("g");
    let last = results(&r).paths[0].nodes.last().unwrap().0.clone();
    r.key(KeyCode::Enter);
    assert_eq!(r.s.pane, Pane::Graph);
    assert_eq!(r.s.graph.place.as_ref().unwrap().centre, last);
    // i goes back to the editor.
    r.press("3i");
    assert!(r.s.query.editing);
}

#[test]
fn export_and_copy_the_results() {
    let mut r = query_pane();
    r.press("orders-service -> owned-by -> *");
    r.key(KeyCode::Esc);
    let file = r.dir.path().join("owners.json");
    r.press("x");
    let Some(Popup::QueryExport { input, .. }) = r.s.popups.last_mut() else {
        panic!()
    };
    *input = file.display().to_string();
    r.key(KeyCode::Enter);
    let text = std::fs::read_to_string(&file).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["query"], "orders-service -> owned-by -> *");
    assert!(v["total_results"].as_u64().unwrap() >= 1);
    r.press("x");
    let Some(Popup::QueryExport { input, .. }) = r.s.popups.last_mut() else {
        panic!()
    };
    *input = "owners.txt".into();
    r.key(KeyCode::Enter);
    assert!(matches!(
        r.s.popups.last(),
        Some(Popup::QueryExport { error: Some(_), .. })
    ));
    r.key(KeyCode::Esc);
    r.press("y");
    r.press("m");
    assert!(r.clipboard.last().unwrap().starts_with("graph LR"), "{:?}", r.clipboard);
    assert!(r.s.message.as_ref().unwrap().0.starts_with("copied"));
}

#[test]
fn lock_wipes_the_query_and_its_results() {
    let mut r = query_pane();
    r.press("orders-service -> uses -> *");
    assert!(r.s.query.results.is_some());
    ctrl(&mut r, 'c');
    assert!(r.s.quit, "ctrl-c still quits from the editor");
    let mut r = query_pane();
    r.press("postgresql -> * -> *");
    r.key(KeyCode::Esc);
    r.press("L");
    assert!(r.s.query.text().is_empty() && r.s.query.results.is_none() && r.s.query.last_good.is_none());
    assert!(!r.screen().contains("postgresql"));
}

#[test]
fn snapshot_of_the_pane() {
    let mut r = query_pane();
    r.s.size = (100, 24);
    r.press("orders-service -> depends-on -> * --depth 2");
    r.key(KeyCode::Esc);
    r.key(KeyCode::Esc);
    insta::assert_snapshot!(r.screen());
}

/// Every file under `dir`, read whole, holds `canary` nowhere.
fn nowhere_on_disk(dir: &std::path::Path, canary: &str) {
    for entry in walkdir(dir) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(
            !bytes.windows(canary.len()).any(|w| w == canary.as_bytes()),
            "{canary} in plain text in {}",
            entry.display()
        );
    }
}

fn walkdir(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn history_and_saved_queries_are_sealed_and_come_back() {
    const CANARY: &str = "canary-zq81x";
    let mut r = query_pane();
    // A run query goes to the history; ctrl-r finds it again.
    r.press(&format!("orders-service -> uses -> * --type {CANARY}"));
    r.key(KeyCode::Enter);
    r.press("i");
    ctrl(&mut r, 'u');
    r.press("retry-queue -> * -> *");
    r.key(KeyCode::Enter);
    ctrl(&mut r, 'r');
    let Some(Popup::QueryHistory {
        entries: Some(Ok(list)),
        ..
    }) = r.s.popups.last()
    else {
        panic!("no history: {:?}", r.s.popups.len())
    };
    assert_eq!(list[0], "retry-queue -> * -> *", "newest first");
    assert!(list.iter().any(|e| e.contains(CANARY)));
    r.press("canary");
    assert!(r.screen().contains(CANARY), "{}", r.screen());
    r.key(KeyCode::Enter);
    assert!(r.s.query.text().contains(CANARY));
    // Save it under a name; the palette loads it back.
    r.key(KeyCode::Esc);
    r.press("s");
    r.press("Bad Name");
    r.key(KeyCode::Enter);
    assert!(matches!(
        r.s.popups.last(),
        Some(Popup::SaveQuery { error: Some(_), .. })
    ));
    for _ in 0.."Bad Name".len() {
        r.key(KeyCode::Backspace);
    }
    r.press("uses-canary");
    r.key(KeyCode::Enter);
    assert_eq!(r.s.query.saved, ["uses-canary"]);
    r.press("i");
    ctrl(&mut r, 'u');
    r.key(KeyCode::Esc);
    r.key(KeyCode::Esc);
    assert!(!r.s.query.editing);
    r.press(":q uses");
    assert!(r.screen().contains("uses-canary"), "{}", r.screen());
    r.key(KeyCode::Enter);
    assert!(r.s.query.text().contains(CANARY), "{}", r.s.query.text());
    // Never in plain text on disk: not the store, not the history file.
    r.store.checkpoint().unwrap();
    nowhere_on_disk(r.dir.path(), CANARY);
    assert!(r.dir.path().join("state").exists(), "the history was written");
    // Locked, the console shows none of it.
    r.key(KeyCode::Esc);
    r.press("L");
    // The worker reopens the store with no key.
    r.store = graphex_engine::Store::open(r.dir.path(), &graphex_engine::Credentials::default()).unwrap();
    r.msg(Msg::Reply(crate::app::worker::Reply::Opened {
        level: Level::Locked,
        root: "/work/shop".into(),
    }));
    assert!(r.s.query.saved.is_empty());
    ctrl(&mut r, 'r');
    let shot = r.screen();
    assert!(!shot.contains(CANARY), "{shot}");
    assert!(shot.contains("sealed to the master key"), "{shot}");
    r.key(KeyCode::Esc);
    r.press(":q ");
    assert!(!r.screen().contains("uses-canary"));
}

/// The console's history popup, newest first.
fn history_list(r: &mut Run) -> Vec<String> {
    ctrl(r, 'r');
    let list = match r.s.popups.last() {
        Some(Popup::QueryHistory {
            entries: Some(Ok(list)),
            ..
        }) => list.clone(),
        _ => panic!("no history: {}", r.screen()),
    };
    r.key(KeyCode::Esc);
    list
}

#[test]
fn a_query_typed_at_the_human_level_is_never_shown_at_the_master_level() {
    // A human-only node of the demo, and a word only this query holds.
    const CANARY: &str = "fraud-scoring-thresholds -> * -> * --type canary-hq31";
    let mut r = demo_at(Level::Human);
    r.press("3");
    r.press(CANARY);
    r.key(KeyCode::Enter);
    assert!(history_list(&mut r).iter().any(|e| e == CANARY));
    // The same store at the master level (a new console, or the level changed).
    let master = graphex_engine::Credentials {
        passphrase: Some(crate::shared::demo::DEMO_PASSPHRASE.into()),
        ..graphex_engine::Credentials::default()
    };
    r.store = graphex_engine::Store::open(r.dir.path(), &master).unwrap();
    r.press("i");
    ctrl(&mut r, 'u');
    r.press("orders-service -> * -> *");
    r.key(KeyCode::Enter);
    let list = history_list(&mut r);
    assert_eq!(
        list,
        ["orders-service -> * -> *"],
        "the master level shows only its own"
    );
    nowhere_on_disk(r.dir.path(), "canary-hq31");
    // Back at the human level: both, newest first.
    let mut human = master;
    human.human_passphrase = Some(crate::shared::demo::DEMO_HUMAN_PASSPHRASE.into());
    r.store = graphex_engine::Store::open(r.dir.path(), &human).unwrap();
    assert_eq!(history_list(&mut r), ["orders-service -> * -> *", CANARY]);
}

#[test]
fn the_history_search_ranks_with_the_one_matcher_newer_first_among_equals() {
    let entries: Vec<String> = [
        "payments-service -> depends-on -> *",
        "orders-service -> uses -> *",
        "orders-service -> depends-on -> *",
        "order-batch",
    ]
    .map(String::from)
    .to_vec();
    let found = |q: &str| -> Vec<String> {
        super::update::history_matches(&entries, q)
            .into_iter()
            .map(|(e, _)| e)
            .collect()
    };
    // Every word, in any order; a prefix before a fuzzy match.
    assert_eq!(
        found("srv ordr"),
        ["orders-service -> uses -> *", "orders-service -> depends-on -> *"]
    );
    assert_eq!(
        found("order")[0],
        "orders-service -> uses -> *",
        "prefixes, the newer first"
    );
    assert_eq!(found("ORDER-BATCH"), ["order-batch"], "exact, any case");
    assert_eq!(found("").len(), entries.len(), "nothing typed: all, newest first");
    let (_, marked) = &super::update::history_matches(&entries, "dep on")[0];
    assert!(!marked.is_empty(), "the matched letters are marked");
}

/// `P` from the Query pane at 80×24: a tier that cannot see the query's
/// start says so in words, naming the node and its tier, never with a
/// parser's caret.
#[test]
fn projecting_a_query_a_tier_cannot_see_says_why_in_words() {
    let mut r = query_pane();
    r.s.size = (80, 24);
    r.press("postgresql");
    r.msg(Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)));
    r.press("P");
    assert_eq!(r.s.pane, Pane::Projection);
    r.press("[");
    let shot = r.screen();
    assert!(shot.contains("╭ public"), "{shot}");
    assert!(
        shot.contains("public receives nothing: postgresql is agent-readable"),
        "{shot}"
    );
    assert!(!shot.contains('^'), "no caret of a query error: {shot}");
}
