//! Fuzzy matching of actions for the command palette and of bindings for
//! the help screen.

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

use super::action::{ALL, Action, Info, Pane, Scope};
use super::keymap::Keymap;
use crate::widgets::picker::PickRow;

/// One palette or help row; `action` is what `enter` runs (none for the
/// keys of a dialog, which help lists too).
pub struct Match {
    pub action: Option<Action>,
    pub row: PickRow,
}

/// Keys that work inside dialogs rather than through the keymap.
const DIALOG_KEYS: &[(&str, &str)] = &[
    ("ctrl-s", "Editor: accept the edited proposal (only when it is valid)"),
    ("esc", "Editor: leave it (asks first when you changed something)"),
    ("ctrl-z, ctrl-y", "Editor: undo, redo"),
    ("page keys, wheel", "Editor: move a page, three lines"),
    ("f", "Stale base: accept anyway"),
    ("e", "Stale base: edit the proposal instead"),
    ("y, enter / n, esc", "Confirm: yes / no"),
    ("enter / esc", "Unlock and reject dialogs: confirm / cancel"),
    ("ctrl-u", "Any text field: clear it"),
    (":graph NAME", "Palette: open the node NAME in the Graph pane"),
    (":q NAME", "Palette: load the saved query NAME into the Query pane"),
    ("space/enter/bksp", "Type and relation pickers: pick, apply, all"),
    ("ctrl-c", "Anywhere: quit (asks first when an edit is unsaved)"),
];

/// The node a palette line `graph NAME` opens (the `:` that opened the
/// palette is not part of the input).
pub fn graph_command(input: &str) -> Option<String> {
    let name = input.trim().strip_prefix("graph ")?.trim();
    (!name.is_empty()).then(|| name.to_owned())
}

/// With `q ` typed, the palette lists the saved queries whose names match
/// the rest (fuzzy), instead of actions.
pub fn saved_rows(saved: &[String], input: &str) -> Option<Vec<PickRow>> {
    let rest = input.strip_prefix("q ").or_else(|| (input == "q").then_some(""))?;
    let m = SkimMatcherV2::default();
    let mut rows: Vec<(i64, PickRow)> = saved
        .iter()
        .filter_map(|name| {
            let (score, matched) = if rest.trim().is_empty() {
                (0, Vec::new())
            } else {
                m.fuzzy_indices(name, rest.trim())?
            };
            Some((
                score,
                PickRow {
                    left: "saved".into(),
                    text: name.clone(),
                    matched,
                },
            ))
        })
        .collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.text.cmp(&b.1.text)));
    Some(rows.into_iter().map(|(_, r)| r).collect())
}

/// The text an action is matched on: its name and description, and the
/// pane it switches to when it is not a pane of its own.
fn haystack(a: &Info, pane: Pane) -> String {
    let there = match a.scope {
        Scope::Pane(p) if p != pane => format!(" (goes to the {} pane)", p.title()),
        _ => String::new(),
    };
    format!("{} — {}{there}", a.name.replace('_', " "), a.help)
}

/// Every action matching `query`, best first. With no query, the actions
/// of `pane` and the global ones come before those of other panes.
pub fn matches(query: &str, pane: Pane) -> Vec<Match> {
    let m = SkimMatcherV2::default();
    let here = |a: &Info| matches!(a.scope, Scope::Global | Scope::Lists) || a.scope == Scope::Pane(pane);
    let mut out: Vec<(bool, i64, usize, Match)> = ALL
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let text = haystack(a, pane);
            let (score, matched) = if query.is_empty() {
                (0, Vec::new())
            } else {
                m.fuzzy_indices(&text, query)?
            };
            let row = PickRow {
                left: String::new(),
                text,
                matched,
            };
            Some((
                !here(a),
                score,
                i,
                Match {
                    action: Some(a.action),
                    row,
                },
            ))
        })
        .collect();
    out.sort_by(|a, b| {
        if query.is_empty() {
            a.0.cmp(&b.0).then(a.2.cmp(&b.2))
        } else {
            b.1.cmp(&a.1).then(a.2.cmp(&b.2))
        }
    });
    out.into_iter().map(|(_, _, _, m)| m).collect()
}

/// Help rows: every action with its keys and scope, then the keys of the
/// dialogs, filtered by `query`.
pub fn help_rows(keymap: &Keymap, query: &str, pane: Pane) -> Vec<Match> {
    // The keys of the pane in view first, then those that work in it
    // (lists, everywhere), then the other panes'.
    let rank = |s: Scope| match s {
        Scope::Pane(p) if p == pane => 0,
        Scope::Lists => 1,
        Scope::Global => 2,
        Scope::Pane(_) => 3,
    };
    let mut ordered: Vec<&Info> = ALL.iter().collect();
    ordered.sort_by_key(|a| rank(a.scope));
    let actions = ordered.into_iter().map(|a| {
        let keys = keymap.keys_of(a.action);
        let scope = match a.scope {
            Scope::Global => "everywhere",
            Scope::Lists => "lists",
            Scope::Pane(p) => p.title(),
        };
        let keys = if keys.is_empty() {
            ":".to_owned() + a.name
        } else {
            keys.join(", ")
        };
        (Some(a.action), keys, format!("{} ({scope}) — {}", a.help, a.name))
    });
    let dialogs = DIALOG_KEYS
        .iter()
        .map(|(k, t)| (None, (*k).to_owned(), (*t).to_owned()));
    let m = SkimMatcherV2::default();
    actions
        .chain(dialogs)
        .filter_map(|(action, keys, text)| {
            let matched = if query.is_empty() {
                Vec::new()
            } else {
                let hay = format!("{keys} {text}");
                let (_, idx) = m.fuzzy_indices(&hay, query)?;
                let shift = keys.chars().count() + 1;
                idx.into_iter().filter(|i| *i >= shift).map(|i| i - shift).collect()
            };
            Some(Match {
                action,
                row: PickRow {
                    left: keys,
                    text,
                    matched,
                },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuzzy_palette_and_help() {
        let best = matches("acc sel", Pane::Queue);
        assert_eq!(best[0].action, Some(Action::AcceptSelection));
        assert!(!best[0].row.matched.is_empty());
        let from_graph = matches("", Pane::Graph);
        assert_eq!(from_graph.len(), ALL.len(), "the palette offers every action");
        let accept = from_graph
            .iter()
            .position(|m| m.action == Some(Action::Accept))
            .unwrap();
        let help = from_graph.iter().position(|m| m.action == Some(Action::Help)).unwrap();
        assert!(help < accept, "what works here comes first");
        assert!(from_graph[accept].row.text.contains("goes to the Queue pane"));
        assert_eq!(matches("zzzzqqq", Pane::Queue).len(), 0);
        let keymap = Keymap::load(&[]).unwrap();
        let all = help_rows(&keymap, "", Pane::Graph);
        assert_eq!(
            all.len(),
            ALL.len() + DIALOG_KEYS.len(),
            "help lists every action and dialog key"
        );
        let undo = help_rows(&keymap, "undo", Pane::Queue);
        assert!(
            undo.iter()
                .any(|r| r.row.left == "u" && r.row.text.contains("Undo the last change"))
        );
        assert!(undo.iter().any(|r| r.action.is_none() && r.row.left.contains("ctrl-z")));
        assert!(undo.len() < all.len());
        // `?` opens on the keys of the pane in view.
        let first = all[0].action.unwrap();
        assert_eq!(first.info().scope, Scope::Pane(Pane::Graph), "{:?}", all[0].row.text);
        let queue = help_rows(&keymap, "", Pane::Queue);
        assert_eq!(queue[0].action.unwrap().info().scope, Scope::Pane(Pane::Queue));
    }
}
