//! Mermaid and DOT writers shared by query results, subgraphs and
//! `graphex export`, with the escaping each format needs: any text (names,
//! types, relations, descriptions) may hold quotes, `<`, `#`, `%`, braces, backslashes,
//! newlines or control characters, and none of it may end a label or
//! inject a statement.

use std::fmt::Write as _;

/// A node as a diagram shows it.
pub struct DiagramNode<'a> {
    pub name: &'a str,
    pub node_type: &'a str,
    /// Shown under the name when given (cut to [`DESCRIPTION_CHARS`]).
    pub description: Option<&'a str>,
}

/// An edge as a diagram shows it, by the names of its ends.
pub struct DiagramEdge<'a> {
    pub from: &'a str,
    pub relation: &'a str,
    pub to: &'a str,
    pub bidirectional: bool,
}

/// How much of a description a diagram shows.
pub const DESCRIPTION_CHARS: usize = 120;

fn cut(s: &str) -> String {
    let mut out: String = s.chars().take(DESCRIPTION_CHARS).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// A control character (other than newline) as visible text.
fn visible(c: char) -> String {
    format!("\\u{{{:x}}}", u32::from(c))
}

/// Text inside a DOT double-quoted string.
pub fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => out.push_str(&dot_escape(&visible(c))),
            c => out.push(c),
        }
    }
    out
}

/// Text inside a Mermaid `"..."` label: entity codes for what Mermaid
/// would read as markup or the end of the label. `%` and braces too:
/// Mermaid reads `%%{init: …}%%` anywhere in a diagram (inside a label
/// as well) as a directive that reconfigures it, before any parsing.
pub fn mermaid_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '%' => out.push_str("#37;"),
            '{' => out.push_str("#123;"),
            '}' => out.push_str("#125;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '&' => out.push_str("#amp;"),
            '|' => out.push_str("#124;"),
            '`' => out.push_str("#96;"),
            '\n' => out.push_str("<br/>"),
            '\r' => {}
            c if c.is_control() => out.push_str(&mermaid_escape(&visible(c))),
            c => out.push(c),
        }
    }
    out
}

/// A Mermaid id for any name: letters and digits kept, every other
/// character written as `_` and its code, `_` as `__`, so that two names
/// never share an id (`-` → `_h`, `.` → `_d` as before).
pub fn mermaid_id(name: &str) -> String {
    let mut id = String::from("n_");
    for c in name.chars() {
        match c {
            '_' => id.push_str("__"),
            '-' => id.push_str("_h"),
            '.' => id.push_str("_d"),
            c if c.is_ascii_alphanumeric() => id.push(c),
            c => {
                let _ = write!(id, "_u{:x}_", u32::from(c));
            }
        }
    }
    id
}

/// A Mermaid flowchart.
pub fn mermaid(nodes: &[DiagramNode<'_>], edges: &[DiagramEdge<'_>]) -> String {
    let mut s = String::from("graph LR\n");
    for n in nodes {
        let desc = n
            .description
            .map(|d| format!("<br/>{}", mermaid_escape(&cut(d))))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  {}[\"{}<br/><i>{}</i>{desc}\"]",
            mermaid_id(n.name),
            mermaid_escape(n.name),
            mermaid_escape(n.node_type)
        );
    }
    for e in edges {
        let arrow = if e.bidirectional { "<-->" } else { "-->" };
        let _ = writeln!(
            s,
            "  {} {arrow}|{}| {}",
            mermaid_id(e.from),
            mermaid_escape(e.relation),
            mermaid_id(e.to)
        );
    }
    s
}

/// A Graphviz digraph.
pub fn dot(nodes: &[DiagramNode<'_>], edges: &[DiagramEdge<'_>]) -> String {
    let mut s = String::from("digraph graphex {\n  rankdir=LR;\n  node [shape=box];\n");
    for n in nodes {
        let desc = n
            .description
            .map(|d| format!("\\n{}", dot_escape(&cut(d))))
            .unwrap_or_default();
        let name = dot_escape(n.name);
        let _ = writeln!(
            s,
            "  \"{name}\" [label=\"{name}\\n({}){desc}\"];",
            dot_escape(n.node_type)
        );
    }
    for e in edges {
        let dir = if e.bidirectional { ", dir=both" } else { "" };
        let _ = writeln!(
            s,
            "  \"{}\" -> \"{}\" [label=\"{}\"{dir}];",
            dot_escape(e.from),
            dot_escape(e.to),
            dot_escape(e.relation)
        );
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mermaid_ids_never_merge_two_names() {
        let ids: std::collections::HashSet<String> = ["a-b", "a.b", "a_b", "a__b", "a_hb", "ab", "a b", "a\"b"]
            .iter()
            .map(|n| mermaid_id(n))
            .collect();
        assert_eq!(ids.len(), 8, "{ids:?}");
    }

    #[test]
    fn hostile_text_stays_inside_its_label() {
        let evil = "x\"];\n  evil[\"<script>#1|`\\\u{1b}";
        let n = [DiagramNode {
            name: "a",
            node_type: "service",
            description: Some(evil),
        }];
        let m = mermaid(&n, &[]);
        assert_eq!(m.lines().count(), 2, "{m}");
        assert!(
            !m.contains("<script>") && !m.contains("\"];") && !m.contains('\u{1b}'),
            "{m}"
        );
        let d = dot(&n, &[]);
        assert_eq!(d.lines().count(), 5, "{d}");
        assert!(d.contains("x\\\"];\\n  evil[\\\"<script>#1|`\\\\\\\\u{1b}"), "{d}");
    }

    /// Mermaid reads `%%{init: …}%%` anywhere in a diagram as a directive
    /// (a theme, a security level, a script-enabling config): none may come
    /// from a label. Entity codes keep the text visible.
    #[test]
    fn a_directive_in_a_label_is_written_as_entity_codes() {
        let directive = "%%{init: {\"theme\":\"dark\"}}%%";
        let n = [DiagramNode {
            name: "a",
            node_type: "service",
            description: Some(directive),
        }];
        let m = mermaid(&n, &[]);
        assert!(
            !m.contains("%%{") && !m.contains('%') && !m.contains('{') && !m.contains('}'),
            "{m}"
        );
        assert!(
            m.contains("#37;#37;#123;init: #123;#quot;theme#quot;:#quot;dark#quot;#125;#125;#37;#37;"),
            "{m}"
        );
        let decoded = [("#quot;", "\""), ("#37;", "%"), ("#123;", "{"), ("#125;", "}")]
            .iter()
            .fold(m.clone(), |s, (code, c)| s.replace(code, c));
        assert!(decoded.contains(directive), "{decoded}");
    }
}
