//! The rings as list rows: a header per ring, then its neighbours, or its
//! groups (opened on demand). A folded node hides the branch reached
//! through it in the deeper rings.

use std::collections::{BTreeSet, HashSet};

use super::Graph;
use super::data::{Neighbourhood, ProposedRow, RingEntry, RingRow};
use crate::widgets::Tone;
use crate::widgets::grouped_list::Row;

/// What a selectable row stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum Item<'a> {
    /// The centre itself, first: what `m`, `v` and the curation keys act on
    /// until a neighbour is selected.
    Centre { name: &'a str, node_type: &'a str },
    Node {
        row: &'a RingRow,
        /// Inside an opened group.
        member: bool,
    },
    Group {
        distance: u32,
        relation: &'a str,
        arrow: &'a str,
        count: usize,
        open: bool,
    },
}

/// A line of the list: a ring's header or an item.
#[derive(Clone, Debug, PartialEq)]
pub enum Line<'a> {
    Header {
        distance: u32,
        total: usize,
    },
    Item(Item<'a>),
    /// A node a pending proposal would link to the centre: shown, not
    /// selectable (it is not in the graph yet).
    Proposed(&'a ProposedRow),
}

/// The key an opened group is remembered by.
pub fn group_key(distance: u32, relation: &str, arrow: &str) -> (u32, String, String) {
    (distance, relation.to_owned(), arrow.to_owned())
}

/// The lines of `n` as `g` shows them; with a `filter`, only the nodes
/// whose name holds it (any case), and the groups holding one, opened.
pub fn lines<'a>(
    n: &'a Neighbourhood,
    folded: &BTreeSet<String>,
    opened: &BTreeSet<(u32, String, String)>,
    filter: &crate::app::filter_line::FilterLine,
) -> Vec<Line<'a>> {
    let narrowed = !filter.text.trim().is_empty();
    let keep = |r: &RingRow| filter.holds([r.name.as_str()]);
    // Folded nodes and everything reached through them, ring by ring.
    let mut hidden: HashSet<&str> = HashSet::new();
    let mut out = vec![Line::Item(Item::Centre {
        name: &n.inspector.name,
        node_type: &n.inspector.node_type,
    })];
    for ring in &n.rings {
        let cut = |r: &RingRow, hidden: &HashSet<&str>| {
            r.via
                .as_deref()
                .is_some_and(|v| folded.contains(v) || hidden.contains(v))
        };
        let mut ring_lines = Vec::new();
        let mut newly_hidden = Vec::new();
        for e in &ring.entries {
            match e {
                RingEntry::Node(r) => {
                    if cut(r, &hidden) {
                        newly_hidden.push(r.name.as_str());
                    } else if keep(r) {
                        ring_lines.push(Line::Item(Item::Node { row: r, member: false }));
                    }
                }
                RingEntry::Group {
                    relation,
                    arrow,
                    members,
                } => {
                    let open = narrowed || opened.contains(&group_key(ring.distance, relation, arrow.glyph()));
                    let shown: Vec<&RingRow> = members
                        .iter()
                        .filter(|m| {
                            let c = cut(m, &hidden);
                            if c {
                                newly_hidden.push(m.name.as_str());
                            }
                            !c && keep(m)
                        })
                        .collect();
                    if shown.is_empty() {
                        continue;
                    }
                    ring_lines.push(Line::Item(Item::Group {
                        distance: ring.distance,
                        relation,
                        arrow: arrow.glyph(),
                        count: shown.len(),
                        open,
                    }));
                    if open {
                        ring_lines.extend(
                            shown
                                .into_iter()
                                .map(|row| Line::Item(Item::Node { row, member: true })),
                        );
                    }
                }
            }
        }
        hidden.extend(newly_hidden);
        if !ring_lines.is_empty() {
            out.push(Line::Header {
                distance: ring.distance,
                total: ring.total,
            });
            out.extend(ring_lines);
        }
    }
    out.extend(
        n.proposed
            .iter()
            .filter(|p| filter.holds([p.name.as_str()]))
            .map(Line::Proposed),
    );
    out
}

/// The selectable items, in order.
pub fn items<'a>(lines: &[Line<'a>]) -> Vec<Item<'a>> {
    lines
        .iter()
        .filter_map(|l| match l {
            Line::Item(i) => Some(i.clone()),
            Line::Header { .. } | Line::Proposed(_) => None,
        })
        .collect()
}

/// The lines of the pane's current neighbourhood (none while loading).
pub fn current(g: &Graph) -> Vec<Line<'_>> {
    match &g.shown {
        Some(Ok(n)) => lines(n, &g.folded, &g.opened, &g.filter),
        _ => Vec::new(),
    }
}

/// The selected item, if any.
pub fn selected(g: &Graph) -> Option<Item<'_>> {
    items(&current(g)).into_iter().nth(g.selected)
}

/// The list's rows, for drawing, and the index of the selected one.
pub fn list_rows(g: &Graph) -> (Vec<Row>, Option<usize>) {
    let mut rows = Vec::new();
    let mut selected = None;
    let mut item = 0;
    let mut proposed_heading = false;
    for l in current(g) {
        match l {
            Line::Proposed(p) => {
                if !proposed_heading {
                    proposed_heading = true;
                    rows.push(Row::Header("proposed (not in the graph yet)".into()));
                }
                rows.push(proposed_row(p));
            }
            Line::Header { distance, total } => rows.push(Row::Header(format!(
                "depth {distance} · {total} node{}",
                if total == 1 { "" } else { "s" }
            ))),
            Line::Item(i) => {
                if item == g.selected {
                    selected = Some(rows.len());
                }
                item += 1;
                rows.push(item_row(g, &i));
            }
        }
    }
    (rows, selected)
}

/// A proposed node, dimmed, with the proposal it comes from.
fn proposed_row(p: &ProposedRow) -> Row {
    Row::Item {
        spans: vec![
            ("+ ".to_owned(), Tone::Dim),
            (format!("{} {} ", p.arrow.glyph(), p.relation), Tone::Dim),
            (p.name.clone(), Tone::Dim),
            (format!("  {}", p.node_type), Tone::Dim),
            (format!("  proposal {} · {}", p.proposal, p.agent), Tone::Dim),
        ],
        marked: false,
        dimmed: true,
    }
}

fn item_row(g: &Graph, i: &Item<'_>) -> Row {
    match i {
        Item::Centre { name, node_type } => Row::Item {
            spans: vec![
                ("◉ ".to_owned(), Tone::Accent),
                ((*name).to_owned(), Tone::Heading),
                (format!("  {node_type}  (centre)"), Tone::Dim),
            ],
            marked: g.mark.as_deref() == Some(*name),
            dimmed: false,
        },
        Item::Node { row, member } => {
            let fold = if g.folded.contains(&row.name) { "▸ " } else { "" };
            let mut spans = vec![
                (if *member { "    ".to_owned() } else { String::new() }, Tone::Normal),
                (format!("{} {} ", row.arrow.glyph(), row.relation), Tone::Dim),
                (format!("{fold}{}", row.name), Tone::Normal),
                (format!("  {}", row.node_type), Tone::Dim),
            ];
            if row.status != "active" {
                spans.push((format!(" ({})", row.status), Tone::Warn));
            }
            if let Some(v) = &row.via {
                spans.push((format!("  via {v}"), Tone::Dim));
            }
            Row::Item {
                spans,
                marked: g.mark.as_deref() == Some(row.name.as_str()),
                dimmed: row.status != "active",
            }
        }
        Item::Group {
            relation,
            arrow,
            count,
            open,
            ..
        } => Row::Item {
            spans: vec![
                (if *open { "▾ " } else { "▸ " }.to_owned(), Tone::Accent),
                (format!("{arrow} {relation} "), Tone::Dim),
                (
                    format!("{count} node{}", if *count == 1 { "" } else { "s" }),
                    Tone::Normal,
                ),
            ],
            marked: false,
            dimmed: false,
        },
    }
}
