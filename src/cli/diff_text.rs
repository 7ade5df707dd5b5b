//! `graphex diff` as text for a terminal and as markdown for a pull-request
//! comment. Node content is agent-written: every value is quoted (escapes
//! shown) on a line of its own, and markdown keeps it inside code.

use std::fmt::Write as _;

use graphex_engine::compare::{Comparison, NodeChange, NodeChangeKind, TierExposure};

use crate::shared::cards::diff_line;

fn mark(k: NodeChangeKind) -> &'static str {
    match k {
        NodeChangeKind::Added => "+",
        NodeChangeKind::Gone => "-",
        NodeChangeKind::Changed => "~",
        NodeChangeKind::Deprecated | NodeChangeKind::Archived => "✗",
        NodeChangeKind::Restored => "↺",
    }
}

/// A node's line, then its fields' `before → after`, at `indent`.
fn node(s: &mut String, n: &NodeChange, indent: &str) {
    let _ = writeln!(
        s,
        "{indent}{} {} [{}] {} {}",
        mark(n.change),
        n.name,
        n.node_type,
        n.change.as_str(),
        tiers(n)
    );
    for f in &n.fields {
        s.push_str(&diff_line(f, &format!("{indent}    ")));
    }
}

fn tiers(n: &NodeChange) -> String {
    match (n.tier_before, n.tier_after) {
        (Some(a), Some(b)) if a != b => format!("{a} → {b}"),
        (_, Some(t)) | (Some(t), None) => t.to_string(),
        (None, None) => String::new(),
    }
}

fn tokens(t: &TierExposure) -> String {
    let delta = i64::try_from(t.tokens_after).unwrap_or(i64::MAX) - i64::try_from(t.tokens_before).unwrap_or(i64::MAX);
    format!("{} → {} ({delta:+})", t.tokens_before, t.tokens_after)
}

fn names(list: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut s = list.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if list.len() > SHOWN {
        let _ = write!(s, ", … {} more", list.len() - SHOWN);
    }
    s
}

/// The comparison for a terminal.
pub fn text(c: &Comparison, before: &str, after: &str, level: &str) -> String {
    let mut s = format!("{before} → {after}, read at {level}\n");
    if c.is_empty() {
        s.push_str("\nno difference this level can see or count\n");
        return s;
    }
    let _ = writeln!(s, "\nNodes ({})", c.nodes.len());
    for n in &c.nodes {
        node(&mut s, n, "  ");
    }
    if !c.edges.is_empty() {
        let _ = writeln!(s, "\nRelations ({})", c.edges.len());
        for e in &c.edges {
            let sign = if e.added { "+" } else { "-" };
            let _ = writeln!(s, "  {sign} {} → {} → {} ({})", e.from, e.relation, e.to, e.tier);
        }
    }
    for t in &c.sealed {
        let _ = writeln!(
            s,
            "\n{}: sealed at this level: {} → {} node(s), {} → {} edge(s)",
            t.tier, t.nodes.0, t.nodes.1, t.edges.0, t.edges.1
        );
    }
    s.push_str("\nWhat each agent tier receives\n");
    for t in &c.exposure {
        let _ = writeln!(
            s,
            "  {:<17} +{} node(s){} -{} node(s){}; relations +{} -{}; tokens around the changes {}",
            t.tier.to_string(),
            t.nodes_gained.len(),
            if t.nodes_gained.is_empty() {
                String::new()
            } else {
                format!(" ({})", names(&t.nodes_gained))
            },
            t.nodes_lost.len(),
            if t.nodes_lost.is_empty() {
                String::new()
            } else {
                format!(" ({})", names(&t.nodes_lost))
            },
            t.relations_gained,
            t.relations_lost,
            tokens(t)
        );
    }
    if !c.findings.is_empty() {
        let _ = writeln!(s, "\nFindings ({})", c.findings.len());
        for f in &c.findings {
            let _ = writeln!(s, "  ! {:<16} {}", f.code, f.text);
        }
    }
    s
}

/// A code fence longer than any run of backticks in `text`.
fn fence(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat((longest + 1).max(3))
}

/// The comparison as a pull-request comment: a summary table per agent
/// tier, the findings, then the nodes and fields in a `diff` block.
pub fn markdown(c: &Comparison, before: &str, after: &str, level: &str) -> String {
    let mut s = String::from("### Graphex: what this change does to the graph\n\n");
    let _ = writeln!(s, "`{before}` → `{after}`, read at {level}.\n");
    if c.is_empty() {
        s.push_str("No difference this level can see or count.\n");
        return s;
    }
    let _ = writeln!(
        s,
        "**{} node(s), {} relation(s) changed; {} finding(s).**\n",
        c.nodes.len(),
        c.edges.len(),
        c.findings.len()
    );
    s.push_str("| agent tier | nodes gained | nodes lost | relations | tokens around the changes |\n");
    s.push_str("|---|---|---|---|---|\n");
    for t in &c.exposure {
        let _ = writeln!(
            s,
            "| {} | {} | {} | +{} / -{} | {} |",
            t.tier,
            t.nodes_gained.len(),
            t.nodes_lost.len(),
            t.relations_gained,
            t.relations_lost,
            tokens(t)
        );
    }
    if !c.findings.is_empty() {
        s.push_str("\n**Findings**\n\n");
        for f in &c.findings {
            let _ = writeln!(s, "- ⚠ `{}` `{}`: {}", f.code, f.node, f.text.replace('`', "'"));
        }
    }
    for t in &c.sealed {
        let _ = writeln!(
            s,
            "\n_{}: sealed at this level: {} → {} node(s), {} → {} edge(s)._",
            t.tier, t.nodes.0, t.nodes.1, t.edges.0, t.edges.1
        );
    }
    let mut body = String::new();
    for n in &c.nodes {
        node(&mut body, n, "");
    }
    for e in &c.edges {
        let sign = if e.added { "+" } else { "-" };
        let _ = writeln!(body, "{sign} {} → {} → {} ({})", e.from, e.relation, e.to, e.tier);
    }
    let f = fence(&body);
    let _ = write!(
        s,
        "\n<details><summary>Nodes and relations</summary>\n\n{f}diff\n{body}{f}\n\n</details>\n"
    );
    s
}

#[cfg(test)]
mod tests {
    use super::fence;

    #[test]
    fn a_fence_outruns_the_backticks_inside() {
        assert_eq!(fence("plain"), "```");
        assert_eq!(fence("a ```` b"), "`````");
    }
}
