//! A node's history in the Graph pane: its versions with who, when and
//! which proposal, and the differences between any two of them, drawn by
//! the console's one diff.
//! The versions are read on the worker (one blob read each); the
//! differences are computed in the pane from their fields.

use graphex_engine::hygiene::visible_line;
use graphex_engine::model::Node;
use graphex_engine::store::Store;

use crate::widgets::Tone;
use crate::widgets::line_diff::{self, Diff};

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

/// A version as the lines it is compared on: `field: value`, a body's
/// lines under `body:`, indented.
pub fn version_text(v: &VersionView) -> String {
    let mut out = String::new();
    for (k, x) in &v.fields {
        if x.contains('\n') || k == "body" {
            out.push_str(&format!("{k}:\n"));
            out.extend(x.lines().map(|l| format!("  {l}\n")));
        } else {
            out.push_str(&format!("{k}: {x}\n"));
        }
    }
    out
}

/// `a` against `b` through the console's one diff (words stressed, `n`,
/// `N`, changes only); a sealed version cannot be compared.
pub fn compare(a: &VersionView, b: &VersionView, changes_only: bool) -> Diff {
    if a.sealed || b.sealed {
        return Diff {
            lines: vec![vec![(
                "a version sealed above this unlock level cannot be compared".into(),
                Tone::Warn,
            )]],
            changes: Vec::new(),
        };
    }
    line_diff::diff(&version_text(a), &version_text(b), "no field differs", changes_only)
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

    fn texts(d: &Diff) -> Vec<String> {
        d.lines
            .iter()
            .map(|l| l.iter().map(|(s, _)| s.as_str()).collect())
            .collect()
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
        let d = compare(&a, &b, false);
        let text = texts(&d);
        assert_eq!(
            text,
            [
                "- description: Retries failed calls",
                "+ description: Retries failed upstream calls",
                "  type: module",
                "+ property owner: orders-team",
            ]
        );
        assert_eq!(d.changes, [0, 3]);
        assert!(
            d.lines
                .iter()
                .flatten()
                .any(|(s, t)| s.contains("upstream") && *t == Tone::AddedStrong),
            "{:?}",
            d.lines
        );
        // Changes only folds the unchanged field.
        assert_eq!(texts(&compare(&a, &b, true))[2], "  … 1 unchanged line");
        assert_eq!(texts(&compare(&a, &a, false))[0], "no field differs");
        let sealed = VersionView { sealed: true, ..b };
        assert!(texts(&compare(&a, &sealed, false))[0].contains("cannot be compared"));
    }

    #[test]
    fn a_body_diff_shows_its_lines_under_its_heading() {
        let a = v(
            1,
            &[("type", "module"), ("body", "## orders\n- retries: 3\n- owner: team")],
        );
        let b = v(
            2,
            &[("type", "module"), ("body", "## orders\n- retries: 5\n- owner: team")],
        );
        let text = texts(&compare(&a, &b, true));
        assert_eq!(
            text,
            [
                "  … 1 unchanged line",
                "  body:",
                "  … 1 unchanged line",
                "-   - retries: 3",
                "+   - retries: 5",
                "  … 1 unchanged line",
            ]
        );
        assert!(!text.iter().any(|l| l.contains("\\n")), "no literal escapes: {text:?}");
    }
}
