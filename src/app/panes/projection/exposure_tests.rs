//! The exposure view at scale: findings grouped by kind (the most severe
//! first, by node within), groups that fold, the filter line, and the
//! selection staying on the row it was on, so `enter` and `e` act on the
//! node shown.

use crossterm::event::KeyCode;
use graphex_engine::Level;
use graphex_engine::exposure::FindingKind;

use super::exposure::{Exposure, Item, items};
use super::review::{ExposureView, FindingRow};
use super::review_ui::View;
use crate::app::action::Pane;
use crate::app::panes::testkit::{Run, demo_at};

fn finding(kind: FindingKind, node: &str, text: &str) -> FindingRow {
    FindingRow {
        kind,
        text: text.to_owned(),
        node: node.to_owned(),
    }
}

/// A report over demo nodes: one lowered tier, many mentions (more than
/// fit, so their group starts closed), one public edge.
fn report() -> ExposureView {
    let mut findings = vec![finding(
        FindingKind::LoweredTier,
        "retry-queue",
        "retry-queue is public now, was agent-restricted before",
    )];
    findings.extend((0..30).map(|i| {
        finding(
            FindingKind::MentionsHigher,
            &format!("node-{i:02}"),
            &format!("node-{i:02} (public) names card-processor (agent-restricted) in its description"),
        )
    }));
    findings.push(finding(
        FindingKind::PublicEdgeToHigher,
        "orders-service",
        "orders-service -[uses]-> fraud-detection-service (agent-readable)",
    ));
    ExposureView {
        covers_up_to: "agent-restricted".into(),
        tiers: vec![
            (
                "public".into(),
                3,
                2,
                vec!["orders-service".into(), "postgresql".into(), "retry-queue".into()],
            ),
            ("agent-readable".into(), 1, 0, vec!["fraud-detection-service".into()]),
        ],
        findings,
    }
}

fn labels(v: &ExposureView, x: &Exposure) -> Vec<String> {
    items(v, x)
        .iter()
        .map(|i| match i {
            Item::Group { title, count, open, .. } => format!("{} {title} ({count})", if *open { "▾" } else { "▸" }),
            Item::Finding { node, .. } | Item::Added { node, .. } => format!("  {node}"),
        })
        .collect()
}

#[test]
fn findings_are_grouped_by_kind_most_severe_first_with_counts() {
    let v = report();
    let got = labels(&v, &Exposure::default());
    assert_eq!(
        got,
        [
            "▾ tier lowered since an earlier version (1)",
            "  retry-queue",
            "▸ text naming a higher-tier node (30)",
            "▾ public node linked to a higher tier (1)",
            "  orders-service",
            "▾ public · 3 node(s), 2 edge(s) · adds (3)",
            "  orders-service",
            "  postgresql",
            "  retry-queue",
            "▾ agent-readable · 1 node(s), 0 edge(s) · adds (1)",
            "  fraud-detection-service",
        ],
        "a group of more than fit starts closed"
    );
    // The filter narrows findings and added names alike, by node or text,
    // every word; a group it empties is left out.
    let x = Exposure {
        filter: "NODE-1 card".into(),
        ..Exposure::default()
    };
    let got = labels(&v, &x);
    assert_eq!(got[0], "▾ text naming a higher-tier node (10)", "{got:?}");
    assert_eq!(got.len(), 11, "{got:?}");
    let x = Exposure {
        filter: "retry".into(),
        ..Exposure::default()
    };
    assert_eq!(
        labels(&v, &x),
        [
            "▾ tier lowered since an earlier version (1)",
            "  retry-queue",
            "▾ public · 3 node(s), 2 edge(s) · adds (1)",
            "  retry-queue",
        ]
    );
}

fn exposure_run() -> Run {
    let mut r = demo_at(Level::Master);
    r.s.size = (120, 36);
    r.s.pane = Pane::Projection;
    r.press("E");
    assert_eq!(r.s.projection.review.view, View::Exposure);
    r.s.projection.review.exposure = Some(Ok(report()));
    r
}

fn picked(r: &Run) -> Option<String> {
    let rev = &r.s.projection.review;
    let Some(Ok(v)) = &rev.exposure else { return None };
    items(v, &rev.x)
        .get(rev.picked)
        .map(|i| i.node().unwrap_or("(group)").to_owned())
}

#[test]
fn the_view_shows_headers_counts_and_its_own_keys() {
    let mut r = exposure_run();
    r.s.size = (80, 24);
    let shot = r.screen();
    insta::assert_snapshot!("exposure_grouped_80x24", shot);
    assert!(shot.contains("32 finding(s) · covers up to agent-restricted"), "{shot}");
    assert!(shot.contains("▾ tier lowered since an earlier version (1)"), "{shot}");
    assert!(shot.contains("▸ text naming a higher-tier node (30)"), "{shot}");
    // The hint line names this view's keys, not the previews'.
    assert!(shot.contains("open / fold") && shot.contains("filter"), "{shot}");
    assert!(!shot.contains("trust+"), "{shot}");
}

#[test]
fn folding_and_filtering_keep_enter_on_the_node_shown() {
    let mut r = exposure_run();
    // Open the closed group: enter on its heading.
    r.press("jj");
    assert_eq!(picked(&r).as_deref(), Some("(group)"));
    r.key(KeyCode::Enter);
    assert_eq!(r.s.pane, Pane::Projection, "a heading folds, it opens nothing");
    r.press("j");
    assert_eq!(picked(&r).as_deref(), Some("node-00"));
    // space on a member closes its group and selects the heading.
    r.press(" ");
    assert_eq!(picked(&r).as_deref(), Some("(group)"));
    r.press(" ");
    // Choose orders-service's public edge finding, then filter: the
    // selection stays on it as the rows above it go.
    r.press("G");
    r.press("k".repeat(6).as_str());
    assert_eq!(picked(&r).as_deref(), Some("orders-service"));
    let before = r.s.projection.review.picked;
    r.press("/");
    assert!(r.s.projection.review.x.filtering);
    assert!(r.screen().contains("to filter"), "the hint line is the filter's");
    r.press("orders");
    assert!(r.s.projection.review.picked < before, "rows above it went");
    assert_eq!(picked(&r).as_deref(), Some("orders-service"), "still on it");
    assert!(r.screen().contains("1 of 32 finding(s)"), "{}", r.screen());
    r.s.size = (80, 24);
    insta::assert_snapshot!("exposure_filtering_80x24", r.screen());
    r.s.size = (120, 36);
    r.key(KeyCode::Enter);
    assert!(!r.s.projection.review.x.filtering, "enter keeps the filter");
    assert_eq!(r.s.projection.review.x.filter, "orders");
    // e edits the node shown; enter opens it.
    r.press("e");
    assert_eq!(r.s.pane, Pane::Graph);
    assert_eq!(r.s.graph.place.as_ref().unwrap().centre, "orders-service");
    assert!(
        matches!(r.s.popups.last(), Some(crate::app::state::Popup::NodeForm(_))),
        "the edit form"
    );
    r.key(KeyCode::Esc);
    r.press("4");
    // esc clears the kept filter, still on the same row.
    r.key(KeyCode::Esc);
    assert!(r.s.projection.review.x.filter.is_empty());
    assert_eq!(picked(&r).as_deref(), Some("orders-service"));
    // A new report (the graph changed) keeps the selection on its row,
    // and where it was when the row is gone.
    let mut fewer = report();
    fewer.findings.remove(0);
    super::exposure::answered(&mut r.s.projection.review, Ok(fewer.clone()));
    assert_eq!(picked(&r).as_deref(), Some("orders-service"), "on the same row");
    let at = r.s.projection.review.picked;
    fewer.findings.retain(|f| f.node != "orders-service");
    super::exposure::answered(&mut r.s.projection.review, Ok(fewer));
    assert_eq!(r.s.projection.review.picked, at, "where it was on screen");
    r.s.projection.review.exposure = Some(Ok(report()));
    // A filter that takes the selected row away: the first row, no panic.
    r.press("/zzz-nothing");
    assert_eq!(picked(&r), None);
    r.key(KeyCode::Enter);
    r.key(KeyCode::Enter);
    assert_eq!(r.s.pane, Pane::Projection);
    assert!(r.screen().contains("0 of 32 finding(s)"), "{}", r.screen());
}
