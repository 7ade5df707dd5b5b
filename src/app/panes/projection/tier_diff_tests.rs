//! The tier diff over the demo store: `n`/`N` move from change to change,
//! `c` folds the unchanged lines and keeps the change at the top; and, as
//! drawn, a wrapped change keeps its `+`/`-` on every row and its changed
//! words stressed.

use graphex_engine::Level;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::Widget;

use super::tier_diff::{current, diff};
use crate::app::action::Pane;
use crate::app::panes::testkit::{Run, demo_at};
use crate::widgets::ToneStyles;
use crate::widgets::rich_text::RichText;

fn diffing(node: &str) -> Run {
    let mut r = demo_at(Level::Master);
    r.s.size = (160, 40);
    r.s.pane = Pane::Graph;
    r.jump(node);
    r.press("P");
    r.press("d");
    assert!(r.s.projection.diff.is_some());
    r
}

fn scroll(r: &Run) -> usize {
    usize::from(r.s.projection.scroll)
}

#[test]
fn n_and_shift_n_move_from_change_to_change() {
    let mut r = diffing("orders-service");
    let d = current(&r.s.projection).unwrap();
    assert!(
        d.changes.len() >= 2,
        "the demo's tiers differ in places: {:?}",
        d.changes
    );
    let targets: Vec<usize> = d
        .changes
        .iter()
        .map(|c| c.saturating_sub(1))
        .filter(|t| *t > 0)
        .collect();
    r.press("n");
    assert_eq!(
        scroll(&r),
        targets[0],
        "the first change below the top, a line above it"
    );
    let shot = r.screen();
    // Row 3 is the context line under the border, row 4 the change.
    let row = |i: usize| {
        shot.lines()
            .nth(i)
            .unwrap_or_default()
            .trim_start_matches(['"', '│'])
            .to_owned()
    };
    assert!(row(3).starts_with("  "), "a line of context: {shot}");
    assert!(
        row(4).starts_with("+ ") || row(4).starts_with("- "),
        "then the change: {shot}"
    );
    assert!(shot.contains("change 1 of"), "{shot}");
    assert!(
        shot.contains("n next change · N prev change · c changes only"),
        "the hint line is the diff's: {shot}"
    );
    for t in &targets[1..] {
        r.press("n");
        assert_eq!(scroll(&r), *t);
    }
    r.press("n");
    assert_eq!(scroll(&r), *targets.last().unwrap(), "the last change stays");
    assert!(
        r.s.message.as_ref().is_some_and(|s| s.0.contains("no later change")),
        "{:?}",
        r.s.message
    );
    r.press("N");
    assert_eq!(scroll(&r), targets[targets.len() - 2]);
    r.press("gN");
    assert_eq!(scroll(&r), 0, "nothing above the top");
    // D and d start each diff at its top.
    r.press("nD");
    assert_eq!(scroll(&r), 0);
}

#[test]
fn changes_only_folds_unchanged_lines_and_keeps_the_change_in_view() {
    let mut r = diffing("orders-service");
    let full = current(&r.s.projection).unwrap();
    r.press("nn");
    let on = super::tier_diff::at(&full.changes, scroll(&r));
    assert!(on >= 2, "past the first change: {on}");
    r.press("c");
    assert!(r.s.projection.changes_only);
    let folded = current(&r.s.projection).unwrap();
    assert!(folded.lines.len() < full.lines.len());
    assert_eq!(folded.changes.len(), full.changes.len(), "every change is kept");
    assert_eq!(
        super::tier_diff::at(&folded.changes, scroll(&r)),
        on,
        "the same change at the top"
    );
    let shot = r.screen();
    assert!(shot.contains("unchanged line"), "{shot}");
    assert!(shot.contains("changes only"), "{shot}");
    r.msg(crate::app::update::Msg::Resize(80, 24));
    insta::assert_snapshot!("tier_diff_changes_only_80x24", r.screen());
    r.press("c");
    assert!(!r.s.projection.changes_only);
    assert_eq!(super::tier_diff::at(&full.changes, scroll(&r)), on);
    // Outside diff mode the keys say what they are for.
    r.press("d");
    assert!(
        !r.screen().contains("next change"),
        "the previews' hints: {}",
        r.screen()
    );
    r.press("n");
    assert!(
        r.s.message.as_ref().is_some_and(|s| s.0.contains("d shows it")),
        "{:?}",
        r.s.message
    );
}

#[test]
fn a_wrapped_change_keeps_its_marker_and_stresses_changed_words() {
    let styles = ToneStyles {
        dim: Style::new().fg(Color::DarkGray),
        added: Style::new().fg(Color::Green),
        removed: Style::new().fg(Color::Red),
        added_strong: Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
        removed_strong: Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        ..ToneStyles::default()
    };
    let d = diff(
        "keep\nretry three times then fail over\n",
        "keep\nretry five times then fail over\n",
        "same",
        false,
    );
    let mut buf = Buffer::empty(Rect::new(0, 0, 16, 5));
    RichText {
        lines: &d.lines,
        scroll: 0,
        styles: &styles,
        block: None,
    }
    .render(buf.area, &mut buf);
    let rows: Vec<String> = (0..5)
        .map(|y| (0..16).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect();
    assert_eq!(
        rows,
        [
            "  keep          ",
            "- retry three   ",
            "- times then    ",
            "- fail over     ",
            "+ retry five    ",
        ]
    );
    // The changed words stressed, the rest in the line's tone, the
    // repeated markers in it too.
    assert_eq!(buf[(8, 1)].style().add_modifier, Modifier::BOLD, "three");
    assert_eq!(buf[(8, 4)].style().add_modifier, Modifier::BOLD, "five");
    assert_eq!(buf[(2, 4)].style().add_modifier, Modifier::empty(), "retry");
    assert_eq!(buf[(2, 4)].fg, Color::Green);
    assert_eq!(buf[(0, 3)].fg, Color::Red, "the repeated marker");
}
