//! Text for the review queue: the spec's "Proposed by ..." card, one per
//! proposal, with each change, lints, stale state and group.
//!
//! Everything an agent wrote (rationale, descriptions, property values,
//! bodies, reasons) is drawn behind a `│` gutter, escaped, with blank-line
//! runs collapsed and long text cut, so it can never look like the card's
//! own lines (a fake "1. + ..." change or "Lints: none"); the lints come
//! first, so no amount of agent text can push them out of sight.

use std::fmt::Write as _;

use graphex_engine::Store;
use graphex_engine::hygiene::{agent_lines, visible_line};
use graphex_engine::model::{FieldDiff, Node, Timestamp};
use graphex_engine::proposal::{Card, Change, Group, StaleNode};

/// `s` safe for a terminal: terminal escapes, controls, bidirectional and
/// zero-width characters are shown escaped (one list, in the engine's
/// hygiene), and line breaks continue at `indent`.
pub fn clean(s: &str, indent: &str) -> String {
    graphex_engine::hygiene::visible_text(s).replace('\n', &format!("\n{indent}"))
}

/// The most lines of one agent-written text on a card.
const QUOTED_LINES: usize = 12;

/// Agent text behind a gutter at `indent`, one `indent│ line` per line.
fn quoted(out: &mut String, indent: &str, text: &str, max: usize) {
    for line in agent_lines(text, max) {
        let _ = writeln!(out, "{indent}│ {line}");
        if line.is_empty() {
            out.pop();
            out.pop();
            out.push('\n');
        }
    }
}

/// How long ago `t` was, in words.
pub fn age(t: Timestamp) -> String {
    let secs = Timestamp::now().0.saturating_sub(t.0).max(0) / 1000;
    match secs {
        0..60 => format!("{secs}s ago"),
        60..3600 => format!("{}m ago", secs / 60),
        3600..86400 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86400),
    }
}

/// The one-line header of a card.
pub fn header(c: &Card) -> String {
    let s = &c.proposal.submission;
    let mut badges = String::new();
    for code in c
        .lints
        .iter()
        .map(|l| l.code())
        .collect::<std::collections::BTreeSet<_>>()
    {
        let _ = write!(badges, " [{code}]");
    }
    if !c.stale.is_empty() {
        badges.push_str(" [stale]");
    }
    if let Some(g) = c.group {
        let _ = write!(badges, " [group {}]", g + 1);
    }
    format!(
        "[{}/{}] {}  agent:{} (trust {:.1})  session {}  {}{}",
        c.position.0,
        c.position.1,
        c.id.short(),
        visible_line(&s.agent),
        s.trust,
        if s.session.is_empty() {
            "-".to_owned()
        } else {
            clean(&s.session, " ")
        },
        age(c.proposal.created),
        badges
    )
}

/// The whole card: the header, then what the engine found (lints, stale
/// bases, group), then what the agent wrote.
pub fn card(store: &Store, c: &Card, groups: &[Group]) -> String {
    let mut out = header(c);
    out.push('\n');
    let s = &c.proposal.submission;
    if c.lints.is_empty() {
        out.push_str("  Lints: none\n");
    } else {
        out.push_str("  Lints:\n");
        for l in &c.lints {
            let _ = writeln!(out, "    ! {}", visible_line(&l.explain()));
        }
    }
    for name in &c.stale {
        let _ = writeln!(out, "  Stale: {}", stale_note(store, c, name));
    }
    for line in c.merge.iter().flat_map(merge_sides) {
        let _ = writeln!(out, "  {line}");
    }
    let talk = super::conversation::lines(&c.rounds, &c.revision_problems, &c.proposal);
    out.push_str(&super::conversation::text(&talk, "  "));
    if let Some(g) = c.group.and_then(|g| groups.get(g)) {
        let others: Vec<&str> = g.proposals.iter().filter(|p| **p != c.id).map(|p| p.short()).collect();
        let _ = writeln!(
            out,
            "  Group {}: also touching {}: {}",
            c.group.map_or(0, |g| g + 1),
            g.names.join(", "),
            others.join(", ")
        );
    }
    if !s.rationale.is_empty() {
        out.push_str("  Rationale:\n");
        quoted(&mut out, "    ", &s.rationale, QUOTED_LINES);
    }
    for (i, change) in s.changes.iter().enumerate() {
        out.push_str(&describe(store, i + 1, change));
    }
    out
}

/// `, N edge(s) removed` when an accept removed any.
pub(crate) fn removed_note(n: usize) -> String {
    if n > 0 {
        format!(", {n} edge(s) removed")
    } else {
        String::new()
    }
}

/// One change, numbered, with its suggested edges or field diffs.
pub fn describe(store: &Store, n: usize, change: &Change) -> String {
    let mut out = String::new();
    match change {
        Change::AddNode {
            name,
            node_type,
            description,
            tier,
            properties,
            suggested_edges,
            body,
            ..
        } => {
            let _ = writeln!(out, "  {n}. + [{}] {name} ({tier})", visible_line(node_type.as_str()));
            quoted(&mut out, "       ", description, QUOTED_LINES);
            for (k, v) in properties {
                match agent_lines(v, 3).as_slice() {
                    [one] => {
                        let _ = writeln!(out, "       {} = │ {one}", visible_line(k));
                    }
                    _ => {
                        let _ = writeln!(out, "       {} =", visible_line(k));
                        quoted(&mut out, "         ", v, 3);
                    }
                }
            }
            if let Some(b) = body {
                out.push_str(&body_preview(b));
            }
            for (f, r, t) in suggested_edges {
                let _ = writeln!(out, "       + {f} → {r} → {t}");
            }
        }
        Change::AddEdge { from, relation, to, .. } => {
            let _ = writeln!(out, "  {n}. + {from} → {relation} → {to}");
        }
        Change::RemoveEdge {
            from,
            relation,
            to,
            reason,
        } => {
            let _ = writeln!(
                out,
                "  {n}. - {from} → {relation} → {to} (edge removed){}",
                reason_suffix(reason.as_deref())
            );
        }
        Change::UpdateNode { name, set } => {
            let _ = writeln!(out, "  {n}. ~ {name}");
            match store.node(name.as_str()) {
                Ok(current) => {
                    let next = set.patch().apply(&current);
                    for d in graphex_engine::model::field_diff(&current, &next) {
                        out.push_str(&diff_line(&d, "       "));
                    }
                }
                Err(_) => {
                    let _ = writeln!(out, "       (not readable here: {name})");
                }
            }
        }
        Change::Deprecate { name, reason } => {
            let _ = writeln!(out, "  {n}. - deprecate {name}{}", reason_suffix(reason.as_deref()));
        }
        Change::Archive { name, reason } => {
            let _ = writeln!(out, "  {n}. - archive {name}{}", reason_suffix(reason.as_deref()));
        }
        Change::Restore { name, reason } => {
            let _ = writeln!(
                out,
                "  {n}. + restore {name} (active again){}",
                reason_suffix(reason.as_deref())
            );
        }
        Change::Supersede { old, new } => {
            let (effect, _) = supersede_effect(store, old.as_str());
            let _ = writeln!(out, "  {n}. ⇢ {new} supersedes {old} ({effect})");
        }
    }
    out
}

/// What accepting a supersede does to `old`, as accept will do it: it
/// becomes deprecated, or (already deprecated or archived) the change fails.
/// The flag says it fails. The card never promises what accept will not do.
pub fn supersede_effect(store: &Store, old: &str) -> (String, bool) {
    use graphex_engine::model::Status;
    match store.catalog().by_name(old).map(|n| n.status) {
        Some(status @ (Status::Deprecated | Status::Archived)) => {
            (format!("{old} is already {status}: accepting this change fails"), true)
        }
        _ => (format!("{old} becomes deprecated"), false),
    }
}

fn reason_suffix(reason: Option<&str>) -> String {
    reason
        .map(|r| {
            format!(":\n{}", {
                let mut out = String::new();
                quoted(&mut out, "       ", r, 3);
                out.trim_end_matches('\n').to_owned()
            })
        })
        .unwrap_or_default()
}

/// The size and first lines of a body, so nothing is accepted unseen.
fn body_preview(body: &str) -> String {
    const LINES: usize = 6;
    let mut out = format!("       body ({} bytes, {} lines):\n", body.len(), body.lines().count());
    quoted(&mut out, "       ", body, LINES);
    if out.ends_with("more lines)\n") || out.ends_with("more line)\n") {
        out.push_str("       (graphex edit ID shows all of it)\n");
    }
    out
}

/// `field: before → after`.
pub fn diff_line(d: &FieldDiff, indent: &str) -> String {
    // Debug quoting escapes control characters and line breaks.
    let show = |v: &Option<String>| v.as_deref().map_or_else(|| "(none)".to_owned(), |s| format!("{s:?}"));
    format!("{indent}{}: {} → {}\n", d.field, show(&d.before), show(&d.after))
}

/// The three versions of each stale node, for a refused accept.
/// Why `name` makes the card stale: the version the agent saw and the one
/// there now.
pub fn stale_note(store: &Store, c: &Card, name: &str) -> String {
    let base = c
        .proposal
        .bases
        .iter()
        .find(|(n, _)| n.as_str() == name)
        .and_then(|(_, v)| *v)
        .map_or_else(|| "unseen".to_owned(), |v| format!("v{v}"));
    let now = store.catalog().by_name(name).map(|n| n.version).unwrap_or_default();
    format!("{name} changed since it was proposed (agent saw {base}, now v{now})")
}

pub fn stale(nodes: &[StaleNode]) -> String {
    let mut out = String::new();
    for s in nodes {
        let _ = writeln!(out, "{}:", s.name);
        let mut lines = match &s.base {
            Some(base) => diff_block(
                base,
                &s.current,
                &format!("since the agent saw it (v{} → v{}):", base.version, s.current.version),
            ),
            None => vec!["  the agent could not see it when proposing".to_owned()],
        };
        lines.extend(diff_block(
            &s.current,
            &s.proposed,
            "what the proposal would change now:",
        ));
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// `label`, then the field-level changes from `a` to `b`, a line each.
fn diff_block(a: &Node, b: &Node, label: &str) -> Vec<String> {
    let d = graphex_engine::model::field_diff(a, b);
    let mut out = vec![format!("  {label}")];
    if d.is_empty() {
        out.push("    (no field changes)".into());
    }
    out.extend(d.iter().map(|f| diff_line(f, "    ").trim_end().to_owned()));
    out
}

/// A merge proposal's three versions: what each branch changed since the
/// version both started from (or, for a name both branches took, how
/// theirs differs from ours).
pub fn merge_sides(m: &graphex_engine::proposal::MergeSides) -> Vec<String> {
    let mut out = vec![format!(
        "Merge of branch {}: {} changed on both branches",
        visible_line(&m.branch),
        m.ours.name
    )];
    match &m.base {
        Some(base) => {
            out.extend(diff_block(
                base,
                &m.ours,
                &format!("base v{} → ours v{} (this branch, kept):", base.version, m.ours.version),
            ));
            out.extend(diff_block(
                base,
                &m.theirs,
                &format!(
                    "base v{} → theirs v{} (the other branch):",
                    base.version, m.theirs.version
                ),
            ));
        }
        None => out.extend(diff_block(
            &m.ours,
            &m.theirs,
            "ours → theirs (both added a node under this name):",
        )),
    }
    out
}
