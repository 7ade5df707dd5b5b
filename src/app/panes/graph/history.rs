//! A node's history in the Graph pane: its versions with who, when and
//! which proposal, and word-level differences between any two of them.
//! The versions are read on the worker (one blob read each); the
//! differences are computed in the pane from their fields.

use graphex_engine::hygiene::visible_line;
use graphex_engine::model::Node;
use graphex_engine::store::Store;

use crate::widgets::word_diff::word_diff;
use crate::widgets::{RichLine, Tone};

/// One version as the history lists it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VersionView {
    pub version: u64,
    pub tier: String,
    /// Milliseconds since the epoch (0 when sealed).
    pub at_ms: i64,
    pub action: Option<String>,
    pub actor: Option<String>,
    pub proposal: Option<String>,
    /// Sealed above this session's level: listed, not shown.
    pub sealed: bool,
    /// Each field as one escaped line (`description`, `property owner`, …).
    pub fields: Vec<(String, String)>,
}

/// Every version of a node, oldest first.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HistoryView {
    pub name: String,
    pub versions: Vec<VersionView>,
}

/// The fields a version is compared on, each escaped to one line.
fn fields_of(n: &Node) -> Vec<(String, String)> {
    let line = |s: &str| visible_line(s).into_owned();
    let mut out = vec![
        ("type".to_owned(), n.node_type.to_string()),
        ("tier".to_owned(), n.tier.to_string()),
        ("status".to_owned(), n.status.to_string()),
        ("confidence".to_owned(), format!("{:.2}", n.confidence)),
        ("description".to_owned(), line(&n.description)),
    ];
    if let Some(r) = &n.status_reason {
        out.push(("status reason".to_owned(), line(r)));
    }
    for (k, v) in &n.properties {
        out.push((format!("property {}", line(k)), line(v)));
    }
    // A body keeps its line breaks (each line escaped on its own), so a
    // diff shows them as lines, not as `\n`.
    if let Some(b) = &n.body {
        out.push(("body".to_owned(), b.lines().map(line).collect::<Vec<_>>().join("\n")));
    }
    out
}

/// The history of `name` as this session reads it.
pub fn history(store: &Store, name: &str) -> Result<HistoryView, String> {
    let run = || -> graphex_engine::Result<HistoryView> {
        let current = store.node(name)?;
        let mut versions = Vec::new();
        for h in store.history(name)? {
            let fields = if h.sealed {
                Vec::new()
            } else if h.version == current.version {
                fields_of(&current)
            } else {
                fields_of(&store.node_version(&current.id, h.version)?)
            };
            versions.push(VersionView {
                version: h.version,
                tier: h.tier.to_string(),
                at_ms: h.at.0,
                action: h.action,
                actor: h.actor.map(|a| visible_line(&a).into_owned()),
                proposal: h.proposal.map(|p| p.chars().take(12).collect()),
                sealed: h.sealed,
                fields,
            });
        }
        Ok(HistoryView {
            name: name.to_owned(),
            versions,
        })
    };
    run().map_err(|e| e.to_string())
}

/// The fields that differ from `a` to `b`, each as a `-` and a `+` line
/// with the changed words stressed.
pub fn diff_lines(a: &VersionView, b: &VersionView) -> Vec<RichLine> {
    let mut out: Vec<RichLine> = vec![vec![(format!("v{} → v{}", a.version, b.version), Tone::Heading)]];
    if a.sealed || b.sealed {
        out.push(vec![(
            "a version sealed above this unlock level cannot be compared".into(),
            Tone::Warn,
        )]);
        return out;
    }
    let get = |v: &VersionView, f: &str| v.fields.iter().find(|(k, _)| k == f).map(|(_, x)| x.clone());
    let mut names: Vec<&str> = a.fields.iter().map(|(k, _)| k.as_str()).collect();
    for (k, _) in &b.fields {
        if !names.contains(&k.as_str()) {
            names.push(k);
        }
    }
    let mut changed = 0;
    for f in names {
        let (before, after) = (get(a, f), get(b, f));
        if before == after {
            continue;
        }
        changed += 1;
        out.push(vec![(format!("{f}:"), Tone::Field)]);
        let multi = |v: &Option<String>| v.as_deref().is_some_and(|t| t.contains('\n'));
        if multi(&before) || multi(&after) {
            let (b, a) = (before.as_deref().unwrap_or(""), after.as_deref().unwrap_or(""));
            for c in similar::TextDiff::from_lines(b, a).iter_all_changes() {
                let text = c.value().trim_end_matches('\n').to_owned();
                out.push(match c.tag() {
                    similar::ChangeTag::Delete => vec![("  - ".to_owned(), Tone::Removed), (text, Tone::Removed)],
                    similar::ChangeTag::Insert => vec![("  + ".to_owned(), Tone::Added), (text, Tone::Added)],
                    similar::ChangeTag::Equal => vec![(format!("    {text}"), Tone::Dim)],
                });
            }
            continue;
        }
        let (old, new) = word_diff(before.as_deref().unwrap_or(""), after.as_deref().unwrap_or(""));
        let mut minus = vec![("  - ".to_owned(), Tone::Removed)];
        if before.is_none() {
            minus.push(("(none)".into(), Tone::Dim));
        }
        minus.extend(old);
        let mut plus = vec![("  + ".to_owned(), Tone::Added)];
        if after.is_none() {
            plus.push(("(none)".into(), Tone::Dim));
        }
        plus.extend(new);
        out.push(minus);
        out.push(plus);
    }
    if changed == 0 {
        out.push(vec![("no field differs".into(), Tone::Dim)]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(version: u64, fields: &[(&str, &str)]) -> VersionView {
        VersionView {
            version,
            tier: "public".into(),
            at_ms: 0,
            action: None,
            actor: None,
            proposal: None,
            sealed: false,
            fields: fields.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect(),
        }
    }

    #[test]
    fn differences_stress_the_changed_words_and_name_added_fields() {
        let a = v(1, &[("description", "Retries failed calls"), ("type", "module")]);
        let b = v(
            3,
            &[
                ("description", "Retries failed upstream calls"),
                ("type", "module"),
                ("property owner", "orders-team"),
            ],
        );
        let lines = diff_lines(&a, &b);
        let text: Vec<String> = lines
            .iter()
            .map(|l| l.iter().map(|(s, _)| s.as_str()).collect())
            .collect();
        assert_eq!(text[0], "v1 → v3");
        assert!(text.contains(&"description:".to_owned()), "{text:?}");
        assert!(!text.contains(&"type:".to_owned()), "unchanged fields are not listed");
        assert!(
            lines
                .iter()
                .flatten()
                .any(|(s, t)| s.contains("upstream") && *t == Tone::AddedStrong),
            "{lines:?}"
        );
        assert!(text.iter().any(|l| l == "  - (none)"), "{text:?}");
        let same = diff_lines(&a, &a);
        assert_eq!(same[1][0].0, "no field differs");
    }

    #[test]
    fn a_body_diff_shows_its_lines_not_escapes() {
        let a = v(1, &[("body", "## orders\n- retries: 3\n- owner: team")]);
        let b = v(2, &[("body", "## orders\n- retries: 5\n- owner: team")]);
        let text: Vec<String> = diff_lines(&a, &b)
            .iter()
            .map(|l| l.iter().map(|(s, _)| s.as_str()).collect())
            .collect();
        assert!(text.contains(&"  - - retries: 3".to_owned()), "{text:?}");
        assert!(text.contains(&"  + - retries: 5".to_owned()), "{text:?}");
        assert!(text.contains(&"    ## orders".to_owned()), "{text:?}");
        assert!(!text.iter().any(|l| l.contains("\\n")), "no literal escapes: {text:?}");
    }
}
