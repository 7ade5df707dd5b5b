//! The card of the selected proposal as toned lines: who proposed it, its
//! lints, stale and group state, why, each change with field-level word
//! diffs, and the impact preview. The lints come before anything the agent
//! wrote, and agent text sits behind a `│` gutter, so padding cannot push
//! the lints away and fake lines cannot pass for the card's own.

use graphex_engine::hygiene::agent_lines;

use super::data::{ChangeView, ImpactView, QueueItem};
use super::layout::lint_tone;
use crate::app::layout::age;
use crate::widgets::word_diff::word_diff;
use crate::widgets::{RichLine, Tone};

/// The most lines of one agent-written text on the card.
pub(crate) const QUOTED_LINES: usize = 12;
/// A body is code or a document the reviewer must see: far more of it.
const BODY_LINES: usize = 200;

/// One line of agent text: escaped (engine hygiene), line breaks as `⏎`.
pub(crate) fn one(s: &str) -> String {
    agent_lines(s, usize::MAX).join("⏎")
}

/// Agent text behind a dim `│` gutter, escaped, blank runs collapsed and cut
/// at `max` lines, so it can never pass for the card's own lines.
fn push_text(out: &mut Vec<RichLine>, indent: &str, s: &str, tone: Tone, max: usize) {
    for l in agent_lines(s, max) {
        out.push(vec![(format!("{indent}│ "), Tone::Dim), (l, tone)]);
    }
}

/// The card: `hide_info` drops the header, rationale and lints;
/// `hide_diff` the changes.
pub fn card_lines(
    item: &QueueItem,
    impact: Option<&Result<Vec<ImpactView>, String>>,
    now_ms: i64,
    hide_info: bool,
    hide_diff: bool,
) -> Vec<RichLine> {
    let mut out: Vec<RichLine> = Vec::new();
    if !hide_info {
        info(&mut out, item, now_ms);
    }
    if !hide_diff {
        out.push(vec![(format!("Changes ({})", item.changes.len()), Tone::Heading)]);
        for (i, c) in item.changes.iter().enumerate() {
            change(&mut out, i + 1, c);
        }
        out.push(Vec::new());
    }
    impact_lines(&mut out, impact);
    if hide_info && hide_diff {
        out.push(vec![(
            "(i shows the header and lints, d the changes)".into(),
            Tone::Dim,
        )]);
    }
    out
}

fn info(out: &mut Vec<RichLine>, item: &QueueItem, now_ms: i64) {
    out.push(vec![
        ("Proposed by ".into(), Tone::Dim),
        (one(&item.agent), Tone::Accent),
        (format!(" (trust {:.1})", item.trust), Tone::Normal),
        (" · session ".into(), Tone::Dim),
        (
            if item.session.is_empty() {
                "-".into()
            } else {
                one(&item.session)
            },
            Tone::Normal,
        ),
        (
            format!(" · via {} · {} ago", item.source, age(now_ms, item.created_ms)),
            Tone::Dim,
        ),
    ]);
    match &item.lints {
        None => out.push(vec![("Lints: checking…".into(), Tone::Dim)]),
        // Notes below (stale, grouped) are not "nothing to say".
        Some(lints) if lints.is_empty() && (!item.stale.is_empty() || item.group.is_some()) => {
            out.push(vec![("Notes".into(), Tone::Heading)]);
        }
        Some(lints) if lints.is_empty() => out.push(vec![("Lints: none".into(), Tone::Dim)]),
        Some(lints) => {
            out.push(vec![(format!("Lints ({})", lints.len()), Tone::Heading)]);
            for (code, text) in lints {
                // A near-duplicate's second line: the existing node, beside it.
                let (first, existing) = text
                    .split_once('\n')
                    .map_or((text.as_str(), None), |(a, b)| (a, Some(b)));
                out.push(vec![
                    (format!("  ! {code}: "), lint_tone(code)),
                    (one(first), Tone::Normal),
                ]);
                if let Some(node) = existing {
                    out.push(vec![
                        ("      existing: ".into(), Tone::Field),
                        (one(node), Tone::Normal),
                        (" (o opens it)".into(), Tone::Dim),
                    ]);
                }
            }
        }
    }
    for s in &item.stale {
        out.push(vec![("  ⚠ stale: ".into(), Tone::Warn), (one(s), Tone::Normal)]);
    }
    for (i, line) in item.merge.iter().enumerate() {
        let tone = if i == 0 { Tone::Heading } else { Tone::Normal };
        out.push(vec![(format!("  {}", one(line)), tone)]);
    }
    if let Some(g) = &item.group {
        out.push(vec![("  ⧉ grouped: ".into(), Tone::Accent), (one(g), Tone::Normal)]);
    }
    conversation(out, &item.conversation);
    if let Some((a, b)) = &item.interdiff {
        let d = crate::widgets::line_diff::diff_headed(
            a,
            b,
            "no change to the proposal itself",
            true,
            crate::shared::conversation::heads_a_change,
        );
        out.extend(d.lines.into_iter().map(|mut l| {
            l.insert(0, ("  ".to_owned(), Tone::Dim));
            l
        }));
    }
    if !item.rationale.is_empty() {
        out.push(vec![("Rationale".into(), Tone::Heading)]);
        push_text(out, "  ", &item.rationale, Tone::Normal, QUOTED_LINES);
    }
    out.push(Vec::new());
}

pub(super) fn change(out: &mut Vec<RichLine>, n: usize, c: &ChangeView) {
    match c {
        ChangeView::AddNode {
            name,
            node_type,
            tier,
            description,
            properties,
            body,
            edges,
        } => {
            out.push(vec![
                (format!("{n}. + "), Tone::Added),
                (format!("[{}] ", one(node_type)), Tone::Dim),
                (one(name), Tone::Added),
                (format!(" ({tier})"), Tone::Dim),
            ]);
            push_text(out, "     ", description, Tone::Added, QUOTED_LINES);
            for (k, v) in properties {
                out.push(vec![
                    (format!("     {} = ", one(k)), Tone::Field),
                    (one(v), Tone::Added),
                ]);
            }
            if let Some(b) = body {
                out.push(vec![(
                    format!("     body ({} bytes, {} lines):", b.len(), b.lines().count()),
                    Tone::Dim,
                )]);
                push_text(out, "     ", b, Tone::Added, BODY_LINES);
            }
            for (f, r, t) in edges {
                out.push(vec![(
                    format!("     + {} → {} → {}", one(f), one(r), one(t)),
                    Tone::Added,
                )]);
            }
        }
        ChangeView::AddEdge { from, relation, to } => out.push(vec![(
            format!("{n}. + {} → {} → {}", one(from), one(relation), one(to)),
            Tone::Added,
        )]),
        ChangeView::RemoveEdge {
            from,
            relation,
            to,
            reason,
        } => {
            out.push(vec![
                (
                    format!("{n}. − {} → {} → {}", one(from), one(relation), one(to)),
                    Tone::Removed,
                ),
                (" (edge removed)".into(), Tone::Dim),
            ]);
            if let Some(r) = reason {
                out.push(vec![("     reason:".into(), Tone::Field)]);
                push_text(out, "     ", r, Tone::Normal, QUOTED_LINES);
            }
        }
        ChangeView::Update {
            name,
            fields,
            unreadable,
        } => {
            out.push(vec![(format!("{n}. ~ "), Tone::Warn), (one(name), Tone::Accent)]);
            if let Some(why) = unreadable {
                out.push(vec![(format!("     ({why})"), Tone::Warn)]);
            }
            if fields.is_empty() && unreadable.is_none() {
                out.push(vec![("     (no field changes)".into(), Tone::Dim)]);
            }
            for f in fields {
                out.push(vec![(format!("     {}:", f.field), Tone::Field)]);
                let before = f.before.as_deref().map(one).unwrap_or_default();
                let after = f.after.as_deref().map(one).unwrap_or_default();
                let (old, new) = word_diff(&before, &after);
                let mut minus = vec![("     - ".to_owned(), Tone::Removed)];
                if f.before.is_none() {
                    minus.push(("(none)".into(), Tone::Dim));
                }
                minus.extend(old);
                let mut plus = vec![("     + ".to_owned(), Tone::Added)];
                if f.after.is_none() {
                    plus.push(("(none)".into(), Tone::Dim));
                }
                plus.extend(new);
                out.push(minus);
                out.push(plus);
            }
        }
        ChangeView::Lifecycle {
            verb,
            name,
            reason,
            affected,
            linked,
        } => {
            // A restore brings a node back: not drawn as a removal.
            let (mark, tone) = if *verb == "restore" {
                ("+", Tone::Added)
            } else {
                ("−", Tone::Removed)
            };
            let mut line = vec![(format!("{n}. {mark} {verb} "), tone), (one(name), Tone::Accent)];
            if let Some(r) = reason {
                line.push((format!(": {}", one(r)), Tone::Normal));
            }
            out.push(line);
            out.push(vec![
                ("     affects ".into(), Tone::Dim),
                (
                    affected
                        .as_deref()
                        .map_or_else(|| "(not in the graph, or not readable here)".into(), one),
                    Tone::Normal,
                ),
            ]);
            linked_lines(out, name, linked);
        }
        ChangeView::Supersede {
            old,
            new,
            effect: (effect, fails),
            old_now,
            new_now,
            linked,
        } => {
            out.push(vec![
                (format!("{n}. ⇢ "), Tone::Warn),
                (one(new), Tone::Accent),
                (" supersedes ".into(), Tone::Normal),
                (one(old), Tone::Accent),
                (
                    format!(" ({})", one(effect)),
                    if *fails { Tone::Warn } else { Tone::Dim },
                ),
            ]);
            for (label, now) in [("old", old_now), ("new", new_now)] {
                out.push(vec![
                    (format!("     {label}: "), Tone::Dim),
                    (
                        now.as_deref()
                            .map_or_else(|| "(not in the graph, or not readable here)".into(), one),
                        Tone::Normal,
                    ),
                ]);
            }
            linked_lines(out, old, linked);
        }
    }
}

/// The nodes linked to `name`, which a deprecation or supersession affects.
fn linked_lines(out: &mut Vec<RichLine>, name: &str, linked: &[String]) {
    if linked.is_empty() {
        out.push(vec![(
            format!("     nothing links to or from {}", one(name)),
            Tone::Dim,
        )]);
        return;
    }
    out.push(vec![(format!("     linked to {}:", one(name)), Tone::Dim)]);
    for l in linked {
        out.push(vec![(format!("       {}", one(l)), Tone::Normal)]);
    }
}

fn impact_lines(out: &mut Vec<RichLine>, impact: Option<&Result<Vec<ImpactView>, String>>) {
    out.push(vec![("Impact if accepted".into(), Tone::Heading)]);
    match impact {
        None => out.push(vec![("  computing…".into(), Tone::Dim)]),
        Some(Err(e)) => out.push(vec![("  no preview: ".into(), Tone::Warn), (one(e), Tone::Normal)]),
        Some(Ok(tiers)) => {
            for t in tiers {
                let delta = i128::try_from(t.tokens_after).unwrap_or(0) - i128::try_from(t.tokens_before).unwrap_or(0);
                let line = if t.centres_changed == 0 {
                    vec![
                        (format!("  {:<17}", t.tier), Tone::Normal),
                        ("no change".into(), Tone::Dim),
                    ]
                } else {
                    vec![
                        (format!("  {:<17}", t.tier), Tone::Normal),
                        (
                            format!("{delta:+} tokens"),
                            if delta >= 0 { Tone::Added } else { Tone::Removed },
                        ),
                        (
                            format!(
                                " across {} projection(s) ({} → {})",
                                t.centres_changed, t.tokens_before, t.tokens_after
                            ),
                            Tone::Dim,
                        ),
                    ]
                };
                out.push(line);
            }
        }
    }
}

/// A revision's earlier rounds (shared with the CLI).
fn conversation(out: &mut Vec<RichLine>, lines: &[(crate::shared::conversation::Kind, String)]) {
    use crate::shared::conversation::Kind;
    for (kind, text) in lines {
        let tone = match kind {
            Kind::Heading => Tone::Heading,
            Kind::Note => Tone::Dim,
            Kind::Quoted => Tone::Normal,
            Kind::Warning => Tone::Error,
            Kind::Added => Tone::Added,
            Kind::Removed => Tone::Removed,
            Kind::Same => Tone::Dim,
        };
        out.push(vec![(format!("  {text}"), tone)]);
    }
}
