//! Browsing the rings over the demo store: the inspector follows the
//! cursor, ring groups that fit open by themselves, and the rings' filter.

use crossterm::event::KeyCode;
use graphex_engine::Level;

use super::rows;
use crate::app::panes::testkit::{Run, demo_at};
use crate::app::update::Msg;
use crate::app::worker::Reply;

#[test]
fn the_inspector_follows_the_cursor_and_comes_back_to_the_centre() {
    let mut r = demo_at(Level::Master);
    r.press("2");
    r.jump("retry-queue");
    let centre = |r: &Run| r.screen().contains("Description") && r.s.graph.inspected.is_none();
    assert!(centre(&r), "the centre first: {}", r.screen());
    // Down to the first neighbour row (opening a group on the way).
    for _ in 0..20 {
        r.press("j");
        match rows::selected(&r.s.graph) {
            Some(rows::Item::Node { .. }) => break,
            Some(rows::Item::Group { open: false, .. }) => r.press(" "),
            _ => {}
        }
    }
    let Some(rows::Item::Node { row, .. }) = rows::selected(&r.s.graph) else {
        panic!("no neighbour row: {}", r.screen())
    };
    let name = row.name.clone();
    let Some(Ok(i)) = &r.s.graph.inspected else {
        panic!("the neighbour is read for the inspector: {:?}", r.s.graph.inspected)
    };
    assert_eq!(i.name, name);
    let expected = r.store.node(&name).unwrap().description;
    let first_words: String = expected.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    assert!(r.screen().contains(&first_words), "{first_words:?} in {}", r.screen());
    // Back on the centre, the centre's inspector again.
    r.press("g");
    assert!(centre(&r), "{}", r.screen());
}

#[test]
fn ring_groups_that_fit_open_by_themselves_and_stay_as_the_user_left_them() {
    let mut r = demo_at(Level::Master);
    r.s.size = (160, 60);
    r.press("2");
    r.jump("orders-service");
    r.press("-");
    let groups = |r: &Run| -> Vec<bool> {
        rows::items(&rows::current(&r.s.graph))
            .iter()
            .filter_map(|i| match i {
                rows::Item::Group { open, .. } => Some(*open),
                _ => None,
            })
            .collect()
    };
    let g = groups(&r);
    assert!(
        !g.is_empty() && g.iter().all(|o| *o),
        "depth 1 fits: every group open {g:?}"
    );
    // Closed by hand, it stays closed when the graph is shown again.
    r.s.graph.selected = 1;
    r.press(" ");
    assert_eq!(groups(&r).iter().filter(|o| !**o).count(), 1);
    r.msg(Msg::Reply(Reply::GraphChanged));
    assert_eq!(groups(&r).iter().filter(|o| !**o).count(), 1, "kept closed");
    // Two rings deep, every group open would not fit: as many open as
    // fit, nearest first, so the first screen shows names, and the rows
    // still fit the list.
    r.press("+");
    let deeper: Vec<bool> = rows::items(&rows::current(&r.s.graph))
        .iter()
        .filter_map(|i| match i {
            rows::Item::Group { open, distance: 2, .. } => Some(*open),
            _ => None,
        })
        .collect();
    assert!(!deeper.is_empty() && deeper.iter().any(|o| !*o), "not all: {deeper:?}");
    let open_now = rows::items(&rows::current(&r.s.graph))
        .iter()
        .filter(|i| matches!(i, rows::Item::Group { open: true, .. }))
        .count();
    assert!(open_now > 0, "some groups open");
}

#[test]
fn the_rings_filter_narrows_the_rows_as_you_type() {
    let mut r = demo_at(Level::Master);
    r.press("2");
    r.jump("orders-service");
    let all = r.shown_count();
    r.press("F");
    assert!(r.s.graph.filter.typing);
    r.press("pay");
    let names = r.row_names();
    assert!(!names.is_empty() && names.len() < all, "{names:?}");
    assert!(names.iter().all(|n| n.contains("pay")), "{names:?}");
    assert!(r.screen().contains("filter: pay"), "{}", r.screen());
    // Inside a group too: a match in a closed group is shown, its group open.
    assert!(names.iter().any(|n| n == "payments-service"), "{names:?}");
    r.key(KeyCode::Enter);
    assert!(
        !r.s.graph.filter.typing,
        "enter keeps the filter and gives the keys back"
    );
    r.press("j");
    assert_eq!(r.s.graph.filter.text, "pay", "j moved, it did not type");
    r.press("F");
    r.key(KeyCode::Esc);
    assert!(r.s.graph.filter.text.is_empty());
    assert_eq!(r.shown_count(), all);
}

#[test]
fn on_a_group_the_hint_line_says_what_space_does() {
    let mut r = demo_at(Level::Master);
    r.msg(Msg::Resize(80, 24));
    r.press("2");
    let hints = |r: &Run| r.screen().lines().last().unwrap_or_default().to_owned();
    assert!(!hints(&r).contains("group"), "on the centre: {}", hints(&r));
    r.press("j");
    let Some(rows::Item::Group { open: false, .. }) = rows::selected(&r.s.graph) else {
        panic!("orders-service's first ring is grouped at 80×24: {}", r.screen())
    };
    assert!(hints(&r).starts_with("\"space open group"), "{}", hints(&r));
    r.press(" ");
    assert!(hints(&r).starts_with("\"space close group"), "{}", hints(&r));
    // The rows themselves no longer carry the hint (it was cut at 80 columns).
    assert!(!r.screen().contains("(space"), "{}", r.screen());
}

#[test]
fn nodes_pending_proposals_would_add_show_dimmed_with_their_proposal() {
    let mut r = demo_at(Level::Master);
    r.msg(Msg::Resize(160, 48));
    r.press("2");
    r.jump("orders-service");
    let Some(Ok(n)) = &r.s.graph.shown else { panic!() };
    let proposed: Vec<String> = n.proposed.iter().map(|p| p.name.clone()).collect();
    assert!(proposed.iter().any(|p| p == "upstream-timeout-budget"), "{proposed:?}");
    let screen = r.screen();
    assert!(screen.contains("proposed (not in the graph yet)"), "{screen}");
    assert!(
        screen.contains("+ → uses upstream-timeout-budget  convention  proposal P00---------"),
        "{screen}"
    );
    // Not in the graph: never an item to select (nor the inspector's).
    let items = rows::items(&rows::current(&r.s.graph));
    assert!(!items.is_empty());
    assert!(
        items
            .iter()
            .all(|i| !matches!(i, rows::Item::Node { row, .. } if proposed.contains(&row.name))),
        "{items:?}"
    );
    // Below the master level the queue is sealed: nothing proposed shows.
    let locked = graphex_engine::Store::open(r.dir.path(), &graphex_engine::Credentials::default()).unwrap();
    assert_eq!(locked.level(), Level::Locked);
    let filter = graphex_engine::traverse::Filter::default();
    let n = super::data::neighbourhood(
        &locked,
        "orders-service",
        2,
        graphex_engine::traverse::Direction::Both,
        &filter,
        Some(&mut graphex_engine::proposal::PendingScans::default()),
    )
    .unwrap();
    assert!(n.proposed.is_empty());
}

#[test]
fn recentring_reads_the_queue_again_only_when_it_changed() {
    let mut r = demo_at(Level::Master);
    r.press("2");
    r.jump("orders-service");
    let scans = r.pending.scans();
    assert!(scans >= 1, "the first recentre reads the queue");
    r.jump("retry-queue");
    r.jump("orders-service");
    assert_eq!(r.pending.scans(), scans, "nothing changed: the last scan again");
    let doc = serde_json::json!({"agent": "claude-code", "trust": 95, "session": "s1", "rationale": "warm it",
        "changes": [
            {"op": "add_node", "name": "cache-warmer", "type": "module", "description": "warms caches", "tier": "public"},
            {"op": "add_edge", "from": "cache-warmer", "relation": "uses", "to": "orders-service"}]});
    let sub = graphex_engine::proposal::Submission::from_json(doc.to_string().as_bytes()).unwrap();
    graphex_engine::proposal::submit(
        &mut r.store,
        &graphex_engine::project::TrustPolicy::default(),
        sub,
        graphex_engine::proposal::Source::Cli,
    )
    .unwrap();
    r.jump("retry-queue");
    r.jump("orders-service");
    assert_eq!(r.pending.scans(), scans + 1, "a new proposal: read once more");
    let Some(Ok(n)) = &r.s.graph.shown else { panic!() };
    assert!(n.proposed.iter().any(|p| p.name == "cache-warmer"), "{:?}", n.proposed);
}

#[test]
fn the_jump_finds_words_of_a_body_and_says_so() {
    let mut r = demo_at(Level::Master);
    r.press("2");
    // "Terminates TLS" is written only in api-gateway's body.
    r.press("/");
    r.press("terminates tls");
    let screen = r.screen();
    assert!(screen.contains("api-gateway — in its body"), "{screen}");
    r.key(KeyCode::Enter);
    assert_eq!(r.centre(), "api-gateway");
}
