//! Fuzzy matching of actions for the command palette and of bindings for
//! the help screen.

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::action::{ALL, Action, Pane, Scope};
use super::keymap::Keymap;
use crate::widgets::picker::PickRow;

/// One palette match.
pub struct Match {
    pub action: Action,
    pub row: PickRow,
}

/// The text an action is matched on: its name and description.
fn haystack(a: &super::action::Info) -> String {
    format!("{} — {}", a.name.replace('_', " "), a.help)
}

/// Actions matching `query`, best first; those of other panes are left out
/// when `pane` is given.
pub fn matches(query: &str, pane: Option<Pane>) -> Vec<Match> {
    let m = SkimMatcherV2::default();
    let mut out: Vec<(i64, usize, Match)> = ALL
        .iter()
        .enumerate()
        .filter(|(_, a)| match (a.scope, pane) {
            (Scope::Pane(p), Some(q)) => p == q,
            _ => true,
        })
        .filter_map(|(i, a)| {
            let text = haystack(a);
            let (score, matched) = if query.is_empty() {
                (0, Vec::new())
            } else {
                m.fuzzy_indices(&text, query)?
            };
            Some((
                score,
                i,
                Match {
                    action: a.action,
                    row: PickRow {
                        left: String::new(),
                        text,
                        matched,
                    },
                },
            ))
        })
        .collect();
    out.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    out.into_iter().map(|(_, _, m)| m).collect()
}

/// Help rows: every action with its keys and scope, filtered by `query`.
pub fn help_rows(keymap: &Keymap, query: &str) -> Vec<PickRow> {
    let m = SkimMatcherV2::default();
    ALL.iter()
        .filter_map(|a| {
            let keys = keymap.keys_of(a.action);
            let scope = match a.scope {
                Scope::Global => "everywhere",
                Scope::Pane(p) => p.title(),
            };
            let text = format!("{} ({scope}) — {}", a.help, a.name);
            let keys = if keys.is_empty() {
                ":".to_owned() + a.name
            } else {
                keys.join(", ")
            };
            let matched = if query.is_empty() {
                Vec::new()
            } else {
                let hay = format!("{keys} {text}");
                let (_, idx) = m.fuzzy_indices(&hay, query)?;
                let shift = keys.chars().count() + 1;
                idx.into_iter().filter(|i| *i >= shift).map(|i| i - shift).collect()
            };
            Some(PickRow {
                left: keys,
                text,
                matched,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuzzy_palette_and_help() {
        let best = matches("acc sel", Some(Pane::Queue));
        assert_eq!(best[0].action, Action::AcceptSelection);
        assert!(!best[0].row.matched.is_empty());
        assert_eq!(
            matches("", Some(Pane::Graph))
                .iter()
                .filter(|m| m.action == Action::Accept)
                .count(),
            0
        );
        assert_eq!(matches("zzzzqqq", None).len(), 0);
        let keymap = Keymap::load(&[]).unwrap();
        let all = help_rows(&keymap, "");
        assert_eq!(all.len(), ALL.len(), "help lists every action");
        let undo = help_rows(&keymap, "undo");
        assert!(
            undo.iter()
                .any(|r| r.left == "u" && r.text.contains("Undo the last decision"))
        );
        assert!(undo.len() < all.len());
    }
}
