//! A revision's conversation as the console and the command line show it:
//! each earlier round (its id, the reviewer's request, the agent's replies)
//! and the interdiff, what changed between the last round and this one,
//! line by line over the proposals' JSON (like patch sets in code review).
//!
//! The reviewer's comment and the agent's replies are shown behind a `│`
//! gutter, escaped: agent text never passes for the card's own lines.

use graphex_engine::hygiene::agent_lines;
use graphex_engine::proposal::{Outcome, Round, StoredProposal, edit_text};
use similar::{ChangeTag, TextDiff};

/// What a line of the conversation is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Kind {
    Heading,
    /// The card's own words.
    Note,
    /// Someone's comment, behind its gutter.
    Quoted,
    /// A problem with the conversation itself.
    Warning,
    Added,
    Removed,
    Same,
}

/// The most lines of one comment shown.
const COMMENT_LINES: usize = 8;
/// Unchanged lines kept around each change of the interdiff.
const CONTEXT: usize = 2;

/// The lines for a card whose proposal revises earlier ones: each earlier
/// round, the problems, then the interdiff against the last round.
pub fn lines(rounds: &[Round], problems: &[String], current: &StoredProposal) -> Vec<(Kind, String)> {
    let mut out = before_interdiff(rounds, problems);
    if let Some(last) = rounds.last() {
        out.extend(interdiff(&last.proposal, current));
    }
    out
}

/// The two texts the interdiff compares: the last round's proposal and this
/// one, as JSON, the `revises` field (which always differs) left out.
pub fn interdiff_texts(rounds: &[Round], current: &StoredProposal) -> Option<(String, String)> {
    rounds
        .last()
        .map(|last| (compared_text(&last.proposal), compared_text(current)))
}

/// Whether a line of a proposal's JSON says which change the lines below
/// it belong to (the interdiff's hunk headers).
pub fn heads_a_change(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with("\"op\":") || l.starts_with("\"name\":")
}

/// Everything but the interdiff: the heading, the problems, each earlier
/// round, and the interdiff's own heading.
pub fn before_interdiff(rounds: &[Round], problems: &[String]) -> Vec<(Kind, String)> {
    let mut out = Vec::new();
    if rounds.is_empty() && problems.is_empty() {
        return out;
    }
    out.push((
        Kind::Heading,
        format!("Revision {} of a conversation", rounds.len() + 1),
    ));
    for p in problems {
        out.push((Kind::Warning, format!("! {}", graphex_engine::hygiene::visible_line(p))));
    }
    for (i, r) in rounds.iter().enumerate() {
        out.push((
            Kind::Note,
            format!(
                "round {} · {} · {}",
                i + 1,
                r.id.short(),
                r.proposal.created.to_rfc3339()
            ),
        ));
        if let Some(d) = &r.decision {
            let on = d
                .change
                .map_or_else(|| "the whole proposal".to_owned(), |c| format!("change {c}"));
            let what = match d.outcome {
                Outcome::ChangesRequested => format!("reviewer asked for changes on {on}:"),
                other => format!("{}:", other.as_str()),
            };
            out.push((Kind::Note, format!("  {what}")));
            if let Some(text) = &d.reason {
                quote(&mut out, text);
            }
        }
        for reply in &r.replies {
            let on = reply.change.map_or_else(String::new, |c| format!(" on change {c}"));
            out.push((
                Kind::Note,
                format!(
                    "  {} replied{on} ({}):",
                    graphex_engine::hygiene::visible_line(&reply.agent),
                    reply.created.to_rfc3339()
                ),
            ));
            quote(&mut out, &reply.text);
        }
    }
    if let Some(last) = rounds.last() {
        out.push((
            Kind::Heading,
            format!("What changed since round {} ({})", rounds.len(), last.id.short()),
        ));
    }
    out
}

fn quote(out: &mut Vec<(Kind, String)>, text: &str) {
    out.extend(
        agent_lines(text, COMMENT_LINES)
            .into_iter()
            .map(|l| (Kind::Quoted, format!("    │ {l}"))),
    );
}

/// The changes between two proposals' JSON, with a little context; the
/// `revises` field, which always differs, left out.
pub fn interdiff(before: &StoredProposal, after: &StoredProposal) -> Vec<(Kind, String)> {
    let (a, b) = (compared_text(before), compared_text(after));
    let diff = TextDiff::from_lines(&a, &b);
    let mut out = Vec::new();
    for group in diff.grouped_ops(CONTEXT) {
        if !out.is_empty() {
            out.push((Kind::Same, "│ …".to_owned()));
        }
        for op in group {
            for change in diff.iter_changes(&op) {
                let line = graphex_engine::hygiene::visible_line(change.value().trim_end_matches('\n')).into_owned();
                out.push(match change.tag() {
                    ChangeTag::Delete => (Kind::Removed, format!("- {line}")),
                    ChangeTag::Insert => (Kind::Added, format!("+ {line}")),
                    // Unchanged agent text keeps a gutter, as quoted text does.
                    ChangeTag::Equal => (Kind::Same, format!("│ {line}")),
                });
            }
        }
    }
    if out.is_empty() {
        out.push((Kind::Note, "  no change to the proposal itself".to_owned()));
    }
    out
}

/// A proposal as the interdiff compares it.
fn compared_text(p: &StoredProposal) -> String {
    let mut s = p.submission.clone();
    s.revises = None;
    edit_text(&StoredProposal {
        submission: s,
        ..p.clone()
    })
}

/// The lines as plain text at `indent`, for the command line.
pub fn text(lines: &[(Kind, String)], indent: &str) -> String {
    lines.iter().map(|(_, l)| format!("{indent}{l}\n")).collect()
}
