//! Curation in the Graph pane over the demo store: forms checked as you
//! type, each write one commit with its timeline entry, undo, and nothing
//! written while a form is invalid.

use crossterm::event::KeyCode;
use graphex_engine::Level;
use graphex_engine::model::{Status, Tier};

use super::form::Field;
use crate::app::action::Pane;
use crate::app::panes::testkit::{Run, demo_at};
use crate::app::state::Popup;
use crate::app::update::Msg;

fn graph_at(level: Level, centre: &str) -> Run {
    let mut r = demo_at(level);
    r.s.pane = Pane::Graph;
    r.jump(centre);
    r
}

fn form(r: &Run) -> &super::form::NodeForm {
    match r.s.popups.last() {
        Some(Popup::NodeForm(f)) => f,
        other => panic!("no form: {}", other.is_some()),
    }
}

fn commits(r: &Run) -> u64 {
    r.store.timeline(1).unwrap()[0].commit
}

/// Types `text` into the focused field (each char a key).
fn type_text(r: &mut Run, text: &str) {
    for c in text.chars() {
        r.msg(Msg::Key(crossterm::event::KeyEvent::new(
            KeyCode::Char(c),
            crossterm::event::KeyModifiers::NONE,
        )));
    }
}

fn ctrl_s(r: &mut Run) {
    r.msg(Msg::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('s'),
        crossterm::event::KeyModifiers::CONTROL,
    )));
}

#[test]
fn a_new_node_is_checked_as_typed_and_written_once_valid() {
    let mut r = graph_at(Level::Master, "orders-service");
    let before = commits(&r);
    r.press("n");
    assert_eq!(form(&r).focus, Field::Type);
    // The type cycles through the spec's types and those in use.
    r.key(KeyCode::Right);
    assert_ne!(form(&r).values.node_type, "convention");
    r.key(KeyCode::Left);
    assert_eq!(form(&r).values.node_type, "convention");
    r.key(KeyCode::Tab);
    // A taken name, readable or not, is said at once.
    type_text(&mut r, "retry-queue");
    assert!(
        matches!(&form(&r).name_check, Some(Err(e)) if e.contains("taken")),
        "{:?}",
        form(&r).name_check
    );
    for _ in 0.."retry-queue".len() {
        r.key(KeyCode::Backspace);
    }
    type_text(&mut r, "fraud-vendor-renegotiation");
    assert!(
        matches!(&form(&r).name_check, Some(Err(e)) if e.contains("cannot read")),
        "a human-only name is taken too: {:?}",
        form(&r).name_check
    );
    assert!(r.screen().contains("✗ taken"), "{}", r.screen());
    for _ in 0.."fraud-vendor-renegotiation".len() {
        r.key(KeyCode::Backspace);
    }
    type_text(&mut r, "Bad Name");
    ctrl_s(&mut r);
    assert!(
        form(&r).error.as_deref().unwrap_or("").starts_with("name:"),
        "{:?}",
        form(&r).error
    );
    for _ in 0.."Bad Name".len() {
        r.key(KeyCode::Backspace);
    }
    type_text(&mut r, "log-format");
    assert_eq!(form(&r).name_check, Some(Ok(())));
    assert!(r.screen().contains("✓ free"));
    // No description: refused in place, nothing written.
    ctrl_s(&mut r);
    assert!(form(&r).error.as_deref().unwrap_or("").contains("description"));
    r.key(KeyCode::Tab);
    type_text(&mut r, "Logs are JSON lines");
    r.key(KeyCode::Tab);
    r.key(KeyCode::Left);
    assert_eq!(form(&r).values.tier, Some(Tier::Public));
    r.key(KeyCode::Tab);
    type_text(&mut r, "owner=platform-team; bad key=x");
    ctrl_s(&mut r);
    assert!(
        form(&r).error.as_deref().unwrap_or("").contains("property"),
        "{:?}",
        form(&r).error
    );
    assert_eq!(commits(&r), before, "nothing written while the form is invalid");
    for _ in 0.."; bad key=x".len() {
        r.key(KeyCode::Backspace);
    }
    r.key(KeyCode::Tab);
    type_text(&mut r, "# Log format");
    r.key(KeyCode::Enter);
    type_text(&mut r, "One JSON object per line.");
    ctrl_s(&mut r);
    assert!(r.s.popups.is_empty(), "the form closes once written");
    assert_eq!(commits(&r), before + 1, "one commit");
    assert_eq!(r.centre(), "log-format", "the new node opens");
    let n = r.store.node("log-format").unwrap();
    assert_eq!(n.tier, Tier::Public);
    assert_eq!(n.properties.get("owner").map(String::as_str), Some("platform-team"));
    assert_eq!(n.body.as_deref(), Some("# Log format\nOne JSON object per line."));
    assert_eq!(r.store.timeline(1).unwrap()[0].changes[0].action, "add");
}

#[test]
fn an_edit_reviews_its_diff_and_a_lower_tier_shows_what_it_exposes() {
    let mut r = graph_at(Level::Master, "postgresql");
    let before = commits(&r);
    r.press("e");
    assert!(form(&r).is_edit());
    assert_eq!(form(&r).values.name, "postgresql");
    ctrl_s(&mut r);
    assert_eq!(form(&r).error.as_deref(), Some("nothing changed"));
    type_text(&mut r, " (primary store)");
    r.key(KeyCode::Tab);
    r.key(KeyCode::Left);
    assert_eq!(form(&r).values.tier, Some(Tier::Public));
    ctrl_s(&mut r);
    let review = form(&r).review.clone().expect("a review before saving");
    assert!(
        review[0].contains("goes down from agent-readable to public"),
        "{review:?}"
    );
    assert!(
        review.iter().any(|l| l.contains("tokens")),
        "the what-if exposure: {review:?}"
    );
    assert!(
        !review.iter().any(|l| l.contains("Checking")) && review.iter().any(|l| l == "What changes:"),
        "the answer replaced its promise: {review:?}"
    );
    let shot = r.screen();
    assert!(shot.contains("Review") && shot.contains("(primary"), "{shot}");
    assert_eq!(commits(&r), before, "nothing written before the second ctrl-s");
    // Esc leaves the review for the form; back to agent-readable, save.
    r.key(KeyCode::Esc);
    assert!(form(&r).review.is_none());
    r.key(KeyCode::Right);
    ctrl_s(&mut r);
    ctrl_s(&mut r);
    assert!(r.s.popups.is_empty());
    assert_eq!(commits(&r), before + 1);
    let n = r.store.node("postgresql").unwrap();
    assert!(n.description.ends_with(" (primary store)"), "{}", n.description);
    assert_eq!(n.tier, Tier::AgentReadable);
    // Undo puts the earlier version back, as a new commit.
    r.press("u");
    assert!(
        r.s.message.as_ref().unwrap().0.starts_with("undid"),
        "{:?}",
        r.s.message
    );
    assert!(
        !r.store
            .node("postgresql")
            .unwrap()
            .description
            .contains("primary store")
    );
}

#[test]
fn link_unlink_and_the_lifecycle_keys_each_make_one_commit() {
    let mut r = graph_at(Level::Master, "retry-queue");
    let start = commits(&r);
    // Link: a relation in use, then the target by fuzzy jump.
    r.press("l");
    let Some(Popup::Relation { .. }) = r.s.popups.last() else {
        panic!("no relation picker")
    };
    assert!(
        r.screen().contains("depends-on"),
        "relations in use are offered: {}",
        r.screen()
    );
    // The one matcher: every word, in any order, the best first.
    type_text(&mut r, "on dep");
    let rows = super::curate_ui::relation_rows(&r.s, "on dep");
    assert_eq!(rows.first().map(|x| x.0.as_str()), Some("depends-on"), "{rows:?}");
    assert!(!rows[0].2.is_empty(), "the matched letters are marked");
    for _ in 0.."on dep".len() {
        r.key(KeyCode::Backspace);
    }
    type_text(&mut r, "documents");
    r.key(KeyCode::Enter);
    let Some(Popup::Jump(_)) = r.s.popups.last() else {
        panic!("no target picker")
    };
    assert!(!r.row_names().contains(&"minor-unit".to_owned()), "{:?}", r.row_names());
    type_text(&mut r, "minor-un");
    r.key(KeyCode::Enter);
    assert_eq!(commits(&r), start + 1, "{:?}", r.s.message);
    assert!(r.row_names().contains(&"minor-unit".to_owned()), "{:?}", r.row_names());
    // Unlink it again from its row, after a confirmation.
    r.select("minor-unit");
    r.press("D");
    let Some(Popup::Confirm { text, .. }) = r.s.popups.last() else {
        panic!("no confirmation")
    };
    assert!(text.contains("retry-queue documents minor-unit"), "{text}");
    r.press("y");
    assert_eq!(commits(&r), start + 2);
    assert!(!r.row_names().contains(&"minor-unit".to_owned()));
    // Deprecate needs a reason; then restore; then deprecate and archive.
    r.s.graph.selected = 0;
    r.press("X");
    r.key(KeyCode::Enter);
    let Some(Popup::Prompt { error: Some(_), .. }) = r.s.popups.last() else {
        panic!("a reason is required")
    };
    type_text(&mut r, "replaced by the outbox");
    r.key(KeyCode::Enter);
    assert_eq!(r.store.node("retry-queue").unwrap().status, Status::Deprecated);
    r.press("R");
    assert_eq!(r.store.node("retry-queue").unwrap().status, Status::Active);
    // Archiving an active node is refused: the lifecycle deprecates first.
    r.press("A");
    assert_eq!(r.store.node("retry-queue").unwrap().status, Status::Active);
    r.press("X");
    type_text(&mut r, "replaced by the outbox");
    r.key(KeyCode::Enter);
    assert_eq!(r.store.node("retry-queue").unwrap().status, Status::Deprecated);
    r.press("A");
    assert_eq!(r.store.node("retry-queue").unwrap().status, Status::Archived);
    assert_eq!(commits(&r), start + 6, "one commit each");
    let actions: Vec<String> = r
        .store
        .timeline(5)
        .unwrap()
        .iter()
        .map(|e| e.changes[0].action.clone())
        .collect();
    assert_eq!(actions, ["archive", "deprecate", "restore", "deprecate", "unlink"]);
}

#[test]
fn supersede_picks_the_successor_and_deprecates_the_old_node() {
    let mut r = graph_at(Level::Master, "redis-idempotency-cache");
    r.press("s");
    r.s.graph.selected = 0;
    r.press("R");
    assert_eq!(r.store.node("redis-idempotency-cache").unwrap().status, Status::Active);
    r.press("S");
    type_text(&mut r, "integer-arithmetic-for-orders");
    r.key(KeyCode::Enter);
    let Some(Popup::Prompt { title, .. }) = r.s.popups.last() else {
        panic!("no reason prompt")
    };
    assert!(
        title.contains("integer-arithmetic-for-orders supersedes redis-idempotency-cache"),
        "{title}"
    );
    type_text(&mut r, "postgres is the source of truth");
    r.key(KeyCode::Enter);
    let old = r.store.node("redis-idempotency-cache").unwrap();
    assert_eq!(old.status, Status::Deprecated, "{:?}", r.s.message);
    assert_eq!(old.status_reason.as_deref(), Some("postgres is the source of truth"));
}

#[test]
fn below_the_master_level_and_in_the_past_nothing_is_written() {
    let mut r = graph_at(Level::Master, "orders-service");
    r.press("L");
    r.msg(Msg::Reply(crate::app::worker::Reply::Opened {
        level: Level::Locked,
        root: "/work/shop".into(),
    }));
    r.jump("orders-service");
    for k in ["n", "e", "l", "X", "S", "A", "R"] {
        r.press(k);
        assert!(r.s.popups.is_empty(), "{k} opened a dialog while locked");
        assert!(
            r.s.message.as_ref().unwrap().0.contains("master level"),
            "{k}: {:?}",
            r.s.message
        );
    }
    let mut r = graph_at(Level::Master, "orders-service");
    r.press("@");
    let Some(Popup::AsOf { input, .. }) = r.s.popups.last_mut() else {
        panic!()
    };
    *input = "#1".into();
    r.key(KeyCode::Enter);
    r.press("n");
    assert!(r.s.popups.is_empty());
    assert!(r.s.message.as_ref().unwrap().0.contains("view of the past"));
}

#[test]
fn curator_lists_sort_flag_open_and_link_mentions() {
    let mut r = graph_at(Level::Master, "orders-service");
    r.press("c");
    let list = |r: &Run| match r.s.popups.last() {
        Some(Popup::Curator(d)) => d.list.clone().unwrap().unwrap(),
        _ => panic!("no curator list"),
    };
    let conventions = list(&r);
    assert!(conventions.rows.len() >= 8, "{:?}", conventions.rows.len());
    assert!(conventions.rows.iter().all(|e| e.node_type == "convention"));
    let names: Vec<&str> = conventions.rows.iter().map(|e| e.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "by name first");
    assert!(r.screen().contains("Curator: convention"), "{}", r.screen());
    // By links, most first.
    r.press("ssso");
    let by_links = list(&r);
    assert!(by_links.rows.windows(2).all(|w| w[0].links >= w[1].links));
    // Decisions: the human-only one is not listed at the master level.
    r.key(KeyCode::Right);
    r.key(KeyCode::Right);
    let decisions = list(&r);
    assert!(decisions.rows.iter().all(|e| e.node_type == "decision"));
    assert!(!decisions.rows.iter().any(|e| e.name == "fraud-vendor-renegotiation"));
    assert!(!r.screen().contains("fraud-vendor-renegotiation"));
    // Glossary: a mention without a link is offered, and linked on enter.
    r.key(KeyCode::Left);
    let glossary = list(&r);
    let Some((term, by)) = glossary.mentions.first().cloned() else {
        panic!("the demo has a glossary term mentioned without a link")
    };
    r.press("m");
    r.key(KeyCode::Enter);
    let Some(Popup::Confirm { text, .. }) = r.s.popups.last() else {
        panic!("no confirmation")
    };
    assert!(text.contains(&format!("{by} uses {term}")), "{text}");
    r.press("y");
    let e = r.store.catalog().by_name(&by).unwrap().id;
    assert!(
        r.store
            .catalog()
            .outgoing(&e)
            .any(|x| x.relation.as_str() == "uses" && r.store.catalog().node(&x.to).unwrap().name.as_str() == term),
        "{by} now uses {term}"
    );
    assert!(
        !list(&r).mentions.contains(&(term, by)),
        "the suggestion is gone once linked"
    );
    // Enter on an entry opens it in the browser.
    r.press("m");
    let first = list(&r).rows[0].name.clone();
    r.key(KeyCode::Enter);
    assert!(r.s.popups.is_empty());
    assert_eq!(r.centre(), first);
}

/// Pulls `glossary-term` (public) into `r`'s store from a new publisher.
fn pull_one(r: &mut Run) {
    use graphex_engine::federation::{self, FederationConfig, PublishConfig, SourceConfig};
    let dir = tempfile::tempdir().unwrap();
    let pass: graphex_engine::age_secret::SecretString = "publisher".into();
    graphex_engine::Store::init(dir.path(), &pass, &pass, graphex_engine::KdfCost(Some(4))).unwrap();
    let creds = graphex_engine::Credentials {
        passphrase: Some(pass),
        ..graphex_engine::Credentials::default()
    };
    let mut p = graphex_engine::Store::open(dir.path(), &creds).unwrap();
    p.add_node(graphex_engine::NewNode::new(
        graphex_engine::model::Name::new("glossary-term").unwrap(),
        graphex_engine::model::NodeType::new("glossary").unwrap(),
        "A term \u{202e}reversed",
        Tier::Public,
    ))
    .unwrap();
    let fed = FederationConfig {
        project: Some("org".into()),
        publish: vec![PublishConfig {
            subgraph: "glossary".into(),
            nodes: vec!["glossary-*".into()],
            to: Vec::new(),
        }],
        ..FederationConfig::default()
    };
    let bundle = federation::plan_publish(&p, &fed, "glossary").unwrap().bundle;
    let src = SourceConfig {
        project: "org".into(),
        subgraph: "glossary".into(),
        access: "read-only".into(),
        path: Some("glossary.bundle".into()),
        git: None,
        git_ref: None,
        key: federation::publisher_key(&p).unwrap().to_hex(),
    };
    federation::pull(&mut r.store, &src, &bundle, false).unwrap();
}

#[test]
fn a_federated_node_says_where_it_comes_from_and_the_edit_keys_refuse() {
    let mut r = demo_at(Level::Master);
    pull_one(&mut r);
    r.s.pane = Pane::Graph;
    r.jump("glossary-term");
    assert_eq!(r.centre(), "glossary-term");
    let screen = r.screen();
    assert!(
        screen.contains("origin      federated from org/glossary, read-only"),
        "{screen}"
    );
    assert!(screen.contains("\\u{202e}reversed"), "bundle text stays data: {screen}");
    let before = commits(&r);
    for key in ["e", "X", "A", "l", "S"] {
        r.s.message = None;
        r.press(key);
        let msg = r.s.message.as_ref().map(|m| m.0.clone()).unwrap_or_default();
        assert!(
            msg.contains("glossary-term is federated from org/glossary: read-only here"),
            "{key}: {msg}"
        );
        assert!(r.s.popups.is_empty(), "{key} opened a dialog");
    }
    assert_eq!(commits(&r), before, "nothing written");
}

/// "superseded by X" on a public node, X agent-restricted: the default
/// reason would tell public readers X exists. Flagged before saving; `n`
/// writes nothing, `y` writes it as it is.
#[test]
fn a_reason_naming_a_more_secret_node_is_flagged_before_saving() {
    let mut r = graph_at(Level::Master, "error-code-format");
    r.press("S");
    type_text(&mut r, "card-processor");
    r.key(KeyCode::Enter);
    assert!(matches!(r.s.popups.last(), Some(Popup::Prompt { .. })));
    type_text(&mut r, "use card-processor codes");
    r.key(KeyCode::Enter);
    let Some(Popup::Confirm { text, .. }) = r.s.popups.last() else {
        panic!("no confirmation: {:?}", r.s.message)
    };
    assert!(
        text.contains("names card-processor (agent-restricted)") && text.contains("public readers"),
        "{text}"
    );
    // `n` goes back to the reason, its text kept; nothing is written, and
    // keys go to the prompt, not the Graph.
    r.press("n");
    let Some(Popup::Prompt { input, error, .. }) = r.s.popups.last() else {
        panic!("the reason prompt is gone: {:?}", r.s.message)
    };
    assert_eq!(input, "use card-processor codes");
    assert!(
        error.as_deref().is_some_and(|e| e.contains("not saved yet")),
        "{error:?}"
    );
    assert_eq!(
        r.store.node("error-code-format").unwrap().status,
        Status::Active,
        "nothing written"
    );
    r.key(KeyCode::Enter);
    r.press("y");
    assert!(r.s.popups.is_empty(), "done: {:?}", r.s.message);
    let old = r.store.node("error-code-format").unwrap();
    assert_eq!(old.status, Status::Deprecated, "{:?}", r.s.message);
    assert_eq!(old.status_reason.as_deref(), Some("use card-processor codes"));
    // A reason that names nothing secret is written at once.
    let mut r = graph_at(Level::Master, "fifo-order-batches");
    r.press("S");
    type_text(&mut r, "monetary-values-in-cents");
    r.key(KeyCode::Enter);
    r.key(KeyCode::Enter);
    assert_eq!(r.store.node("fifo-order-batches").unwrap().status, Status::Deprecated);
}

#[test]
fn a_tier_raise_shows_what_agents_lose_and_says_it_cannot_be_undone() {
    let mut r = graph_at(Level::Master, "postgresql");
    r.press("e");
    r.key(KeyCode::Tab);
    r.key(KeyCode::Right);
    assert_eq!(form(&r).values.tier, Some(Tier::AgentRestricted));
    ctrl_s(&mut r);
    let review = form(&r).review.clone().expect("a review before saving");
    assert!(
        review[0].contains("goes up from agent-readable to agent-restricted"),
        "{review:?}"
    );
    assert!(
        review.iter().any(|l| l == "What changes:"),
        "the answer came: {review:?}"
    );
    assert!(
        review
            .iter()
            .any(|l| l.contains("agent-readable agents") && l.contains("tokens")),
        "what agent-readable stops receiving: {review:?}"
    );
    assert!(review.iter().any(|l| l.contains("cannot be undone")), "{review:?}");
    ctrl_s(&mut r);
    assert_eq!(r.store.node("postgresql").unwrap().tier, Tier::AgentRestricted);
    r.press("u");
    assert!(
        r.s.message.as_ref().is_some_and(|m| m.0.contains("raised the tier")),
        "undo refuses, as the review said: {:?}",
        r.s.message
    );
}

#[test]
fn tab_turns_a_new_link_around_to_come_into_the_node() {
    let mut r = graph_at(Level::Master, "retry-queue");
    r.s.graph.selected = 0;
    r.press("l");
    r.key(KeyCode::Tab);
    assert!(r.screen().contains("incoming (tab: outgoing)"), "{}", r.screen());
    type_text(&mut r, "documents");
    r.key(KeyCode::Enter);
    let Some(Popup::Jump(j)) = r.s.popups.last() else {
        panic!("no source picker")
    };
    assert!(j.purpose.title().contains("choose the source"), "{}", j.purpose.title());
    type_text(&mut r, "minor-un");
    r.key(KeyCode::Enter);
    let incoming: Vec<String> = {
        let s = r.store.summary("retry-queue").unwrap().id;
        r.store
            .catalog()
            .incoming(&s)
            .filter(|e| e.relation.as_str() == "documents")
            .filter_map(|e| r.store.catalog().node(&e.from).map(|n| n.name.to_string()))
            .collect()
    };
    assert_eq!(incoming, ["minor-unit"], "{:?}", r.s.message);
}

#[test]
fn the_successor_can_be_made_in_place_from_the_supersede_picker() {
    let mut r = graph_at(Level::Master, "fifo-order-batches");
    r.s.graph.selected = 0;
    r.press("S");
    type_text(&mut r, "ordered-batch-windows");
    r.key(KeyCode::Enter);
    assert!(
        r.s.message.as_ref().is_some_and(|m| m.0.contains("ctrl-n creates")),
        "no match says how to make it: {:?}",
        r.s.message
    );
    r.msg(Msg::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('n'),
        crossterm::event::KeyModifiers::CONTROL,
    )));
    assert_eq!(form(&r).values.name, "ordered-batch-windows");
    assert_eq!(form(&r).values.node_type, "convention", "the old node's type");
    assert_eq!(form(&r).supersedes.as_deref(), Some("fifo-order-batches"));
    type_text(&mut r, "Batches close on fixed windows, in order.");
    let before = r.store.seen_seq();
    ctrl_s(&mut r);
    // Not written yet: the supersede's reason is asked first, and both go
    // in one commit.
    let Some(Popup::Prompt { title, .. }) = r.s.popups.last() else {
        panic!("no reason prompt: {:?}", r.s.message)
    };
    assert!(
        title.contains("ordered-batch-windows supersedes fifo-order-batches"),
        "{title}"
    );
    assert!(r.store.node("ordered-batch-windows").is_err(), "no successor yet");
    r.key(KeyCode::Enter);
    // The new node is agent-readable, the old one public: the default
    // reason would name it to public readers, so that is asked too.
    let Some(Popup::Confirm { text, .. }) = r.s.popups.last() else {
        panic!("no confirmation: {:?}", r.s.message)
    };
    assert!(text.contains("names ordered-batch-windows (agent-readable)"), "{text}");
    // `n`: back to the reason, no orphan successor written.
    r.press("n");
    assert!(matches!(r.s.popups.last(), Some(Popup::Prompt { .. })));
    assert!(r.store.node("ordered-batch-windows").is_err(), "no orphan");
    r.key(KeyCode::Enter);
    r.press("y");
    assert!(
        r.s.popups.is_empty(),
        "the prompt and the form closed: {:?}",
        r.s.message
    );
    assert_eq!(r.store.seen_seq(), before + 1, "one commit for both");
    assert!(r.store.node("ordered-batch-windows").is_ok());
    let old = r.store.node("fifo-order-batches").unwrap();
    assert_eq!(old.status, Status::Deprecated, "{:?}", r.s.message);
    assert_eq!(
        old.status_reason.as_deref(),
        Some("superseded by ordered-batch-windows")
    );
}

#[test]
fn the_curator_list_filters_as_you_type_and_enter_opens_what_is_shown() {
    let mut r = graph_at(Level::Master, "orders-service");
    r.press("c");
    let names = |r: &Run| match r.s.popups.last() {
        Some(Popup::Curator(d)) => d
            .visible()
            .unwrap()
            .unwrap()
            .rows
            .iter()
            .map(|e| e.name.clone())
            .collect::<Vec<_>>(),
        _ => panic!("no curator list"),
    };
    let every = names(&r).len();
    r.press("/");
    r.press("batch");
    let shown = names(&r);
    assert!(!shown.is_empty() && shown.len() < every, "{shown:?}");
    assert!(shown.iter().all(|n| n.contains("batch")), "{shown:?}");
    assert!(r.screen().contains("filter: batch"), "{}", r.screen());
    // Enter keeps the filter; the list has the keys again, and enter opens
    // the row shown, not the row of the unfiltered list.
    r.key(KeyCode::Enter);
    r.key(KeyCode::Enter);
    assert!(r.s.popups.is_empty());
    assert_eq!(r.centre(), shown[0]);
    // Esc clears a filter before it closes the list.
    r.press("c/zz");
    r.key(KeyCode::Enter);
    assert!(names(&r).is_empty());
    r.key(KeyCode::Esc);
    assert_eq!(names(&r).len(), every);
    r.key(KeyCode::Esc);
    assert!(r.s.popups.is_empty());
}

#[test]
fn an_empty_picker_offers_recent_and_nearby_nodes() {
    let mut r = graph_at(Level::Master, "batch-processor");
    r.jump("orders-service");
    r.press("S");
    let Some(Popup::Jump(j)) = r.s.popups.last() else {
        panic!("no picker")
    };
    let names: Vec<&str> = j.hits.iter().map(|h| h.name.as_str()).collect();
    assert!(!names.contains(&"orders-service"), "never itself: {names:?}");
    assert_eq!(j.hits[0].name, "batch-processor", "the last place first: {names:?}");
    assert_eq!(j.hits[0].node_type, "recent");
    assert!(j.hits.iter().any(|h| h.node_type == "nearby"), "{names:?}");
    assert!(r.screen().contains("recent and nearby nodes"), "{}", r.screen());
    // Enter takes the one offered.
    r.key(KeyCode::Enter);
    assert!(
        matches!(r.s.popups.last(), Some(Popup::Prompt { .. })),
        "on to the reason"
    );
}
