use super::*;

fn text(l: &RichLine) -> String {
    l.iter().map(|(s, _)| s.as_str()).collect()
}

fn texts(d: &Diff) -> Vec<String> {
    d.lines.iter().map(text).collect()
}

#[test]
fn changed_words_are_stressed_and_changes_located() {
    let a = "keep zero\nkeep one\nretry three times\nkeep two\nkeep three\nold tail\n";
    let b = "keep zero\nkeep one\nretry five times\nkeep two\nkeep three\nnew line entirely different\n";
    let d = diff(a, b, "same", false);
    assert_eq!(
        texts(&d),
        [
            "  keep zero",
            "  keep one",
            "- retry three times",
            "+ retry five times",
            "  keep two",
            "  keep three",
            "- old tail",
            "+ new line entirely different",
        ]
    );
    assert_eq!(d.changes, [2, 6]);
    assert!(
        d.lines[2].contains(&("three".to_owned(), Tone::RemovedStrong)),
        "{:?}",
        d.lines[2]
    );
    assert!(
        d.lines[3].contains(&("five".to_owned(), Tone::AddedStrong)),
        "{:?}",
        d.lines[3]
    );
    assert_eq!(d.lines[3][0], ("+ ".to_owned(), Tone::Added));
    // Lines with little in common are shown whole, not stressed word by word.
    assert_eq!(d.lines[7][1], ("new line entirely different".to_owned(), Tone::Added));
    // Changes only: each unchanged run is one row, the changes where they were.
    let c = diff(a, b, "same", true);
    assert_eq!(
        texts(&c),
        [
            "  … 2 unchanged lines",
            "- retry three times",
            "+ retry five times",
            "  … 2 unchanged lines",
            "- old tail",
            "+ new line entirely different",
        ]
    );
    assert_eq!(c.changes, [1, 4]);
    let same = diff("a\n", "a\n", "no change", true);
    assert_eq!(same.lines[0][0].0, "no change");
    assert_eq!(same.lines[1][0].0, "  … 1 unchanged line");
}

/// Changes only keeps the line that says which node a change belongs to,
/// as a hunk header; a heading after the last change heads nothing.
#[test]
fn changes_only_keeps_each_changes_heading() {
    let a = "## Project Context: x\n### Architecture\n- a is a Service\n  - serves one\n  - uses b\n- b is a Database\n  - stores rows\n  - kept\n- c is a Queue\n  - queues\n";
    let b = "## Project Context: x\n### Architecture\n- a is a Service\n  - serves one\n  - uses b\n- b is a Database\n  - stores rows and keys\n  - kept\n- c is a Queue\n  - queues\n";
    let c = diff(a, b, "same", true);
    assert_eq!(
        texts(&c),
        [
            "  … 5 unchanged lines",
            "  - b is a Database",
            "-   - stores rows",
            "+   - stores rows and keys",
            "  … 3 unchanged lines",
        ]
    );
    assert_eq!(c.lines[1][0].1, Tone::Heading);
    assert_eq!(c.changes, [2]);
    // A heading right above the change: nothing folded after it.
    let d = diff("# h\nx\n", "# h\ny\n", "same", true);
    assert_eq!(texts(&d), ["  # h", "- x", "+ y"]);
    assert!(heading("body:") && heading("- n is a T") && !heading("  - nested") && !heading("type: Service"));
}

#[test]
fn next_and_previous_change_from_a_scroll() {
    let changes = [0, 5, 9];
    assert_eq!(step(&changes, 0, true), Some(4));
    assert_eq!(step(&changes, 4, true), Some(8));
    assert_eq!(step(&changes, 8, true), None);
    assert_eq!(step(&changes, 8, false), Some(4));
    assert_eq!(step(&changes, 4, false), Some(0));
    assert_eq!(step(&changes, 0, false), None);
    assert_eq!(step(&[], 0, true), None);
    assert_eq!((at(&changes, 0), at(&changes, 4), at(&changes, 6)), (1, 2, 2));
}

/// The place every diff view keeps: `n`, `N`, `c` and the frame's words.
#[test]
fn a_place_moves_change_to_change_and_keeps_it_across_folding() {
    let a: String = (0..30).map(|i| format!("line {i}\n")).collect();
    let b = a
        .replace("line 5\n", "line five\n")
        .replace("line 20\n", "line twenty\n");
    let build = |folded: bool| diff(&a, &b, "same", folded);
    let mut p = DiffPlace::default();
    let full = build(false);
    assert_eq!(p.shown(&full).1, "2 change(s)");
    p.step(&full, true).unwrap();
    assert_eq!(p.shown(&full).1, "change 1 of 2");
    p.step(&full, true).unwrap();
    assert_eq!(p.shown(&full).1, "change 2 of 2");
    assert_eq!(p.step(&full, true), Err("no later change: N goes back"));
    // Folding keeps change 2 at the top.
    p.toggle(build);
    assert!(p.changes_only);
    let folded = build(true);
    let (lines, place) = p.shown(&folded);
    assert_eq!(place, "change 2 of 2 · changes only");
    assert!(lines.iter().any(|l| text(l) == "+ line twenty"), "{lines:?}");
    p.step(&folded, false).unwrap();
    assert_eq!(p.shown(&folded).1, "change 1 of 2 · changes only");
    p.scroll_by(&folded, 1000);
    assert_eq!(usize::from(p.scroll), folded.lines.len() - 1);
    let none = diff("a\n", "a\n", "same", false);
    assert_eq!(DiffPlace::default().step(&none, true), Err("no change to move to"));
}

/// A line escaped before it is diffed: a hostile text cannot draw.
#[test]
fn lines_are_escaped() {
    let d = diff("a\n", "b\u{1b}[2J\n", "same", false);
    assert!(d.lines.iter().any(|l| text(l) == r"+ b\x1b[2J"), "{:?}", d.lines);
}
