//! Matching of actions for the command palette and of bindings for the
//! help screen, by the engine's one matcher: an action is found by its
//! name, its keys or its description, the best of them (`lock` finds the
//! `L` binding, named `lock`, before the descriptions that mention it).
//! A command line the palette reads (`graph NAME`) shows what it would do
//! while it is typed: [`LinePreview`].

use graphex_engine::lookup::matcher::{Matcher, by_rank};

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
    (
        ":graph NAME",
        "Palette: open NAME in the Graph pane (its match shows as you type)",
    ),
    (":q NAME", "Palette: load the saved query NAME into the Query pane"),
    ("space/enter/bksp", "Type and relation pickers: pick, apply, all"),
    ("ctrl-c", "Anywhere: quit (asks first when an edit is unsaved)"),
];

/// What a command line typed into the palette would do, as the pane that
/// reads it found out while it was typed (`graph ordr srv`: the node it
/// opens); the palette shows it in place of the actions.
#[derive(Clone, Debug, PartialEq)]
pub struct LinePreview {
    /// The request the answer is awaited for.
    pub generation: u64,
    /// The line as the palette shows it.
    pub row: PickRow,
    /// The line `enter` runs instead of the typed one (the best match's),
    /// once known.
    pub run: Option<String>,
}

/// With `q ` typed, the palette lists the saved queries whose names match
/// the rest, instead of actions.
pub fn saved_rows(saved: &[String], input: &str) -> Option<Vec<PickRow>> {
    let rest = input.strip_prefix("q ").or_else(|| (input == "q").then_some(""))?;
    let m = Matcher::new(rest);
    let mut rows: Vec<(i64, PickRow)> = saved
        .iter()
        .filter_map(|name| {
            let hit = m.hit(name)?;
            Some((
                hit.score,
                PickRow {
                    left: "saved".into(),
                    text: name.clone(),
                    matched: hit.indices,
                },
            ))
        })
        .collect();
    rows.sort_by(|a, b| by_rank((a.0, &a.1.text), (b.0, &b.1.text)));
    Some(rows.into_iter().map(|(_, r)| r).collect())
}

/// The best match of `m` among `fields` (a text, and where it starts in
/// the row's text; none when the row does not show it): its score and the
/// row's positions that matched. The first field wins a tie.
fn best(m: &Matcher, fields: &[(&str, Option<usize>)]) -> Option<(i64, Vec<usize>)> {
    let mut found: Option<(i64, Vec<usize>)> = None;
    for (text, at) in fields {
        let Some(hit) = m.hit(text) else { continue };
        if found.as_ref().is_none_or(|(s, _)| hit.score > *s) {
            let shown = at.map_or_else(Vec::new, |at| hit.indices.iter().map(|i| i + at).collect());
            found = Some((hit.score, shown));
        }
    }
    found
}

/// Sorts `(score, order, row)` best first: by score when a query was typed
/// (the given order among equals), else in the given order.
fn rank<T>(rows: &mut [(i64, usize, T)], query: &Matcher) {
    if query.is_empty() {
        rows.sort_by_key(|r| r.1);
    } else {
        rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    }
}

/// A search of actions and keys: `-` and `_` break words as a space does,
/// so `what-if` finds "what if".
fn words(query: &str) -> String {
    query.replace(['-', '_'], " ")
}

/// Every action matching `query`, best first (by its name, then its
/// description). With no query, the actions of `pane` and the global ones
/// come before those of other panes.
pub fn matches(query: &str, pane: Pane) -> Vec<Match> {
    let m = Matcher::new(&words(query));
    let here = |a: &Info| matches!(a.scope, Scope::Global | Scope::Lists) || a.scope == Scope::Pane(pane);
    let mut out: Vec<(i64, usize, Match)> = ALL
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let name = a.name.replace('_', " ");
            let there = match a.scope {
                Scope::Pane(p) if p != pane => format!(" (goes to the {} pane)", p.title()),
                _ => String::new(),
            };
            let text = format!("{name} — {}{there}", a.help);
            let help_at = name.chars().count() + " — ".chars().count();
            let (score, matched) = best(&m, &[(&name, Some(0)), (a.help, Some(help_at))])?;
            let order = if here(a) { i } else { ALL.len() + i };
            let row = PickRow {
                left: String::new(),
                text,
                matched,
            };
            Some((
                score,
                order,
                Match {
                    action: Some(a.action),
                    row,
                },
            ))
        })
        .collect();
    rank(&mut out, &m);
    out.into_iter().map(|(_, _, m)| m).collect()
}

/// Help rows: every action with its keys and scope, then the keys of the
/// dialogs; with a query, those matching it by name, key or description,
/// best first.
pub fn help_rows(keymap: &Keymap, query: &str, pane: Pane, focus: &[(String, String)]) -> Vec<Match> {
    // The keys of the pane in view first, then those that work in it
    // (lists, everywhere), then the other panes'.
    let rank_of = |s: Scope| match s {
        Scope::Pane(p) if p == pane => 0,
        Scope::Lists => 1,
        Scope::Global => 2,
        Scope::Pane(_) => 3,
    };
    // The view in focus first: the actions its hint bar offered, in its
    // order (whole, with their descriptions), and its other keys (a
    // dialog's) as the bar says them.
    let works_here = |a: &Info| matches!(a.scope, Scope::Global | Scope::Lists) || a.scope == Scope::Pane(pane);
    let offered = |a: &Info| {
        focus
            .iter()
            .position(|(k, h)| works_here(a) && *h == a.hint && keymap.keys_of(a.action).first() == Some(k))
    };
    let mut ordered: Vec<&Info> = ALL.iter().collect();
    ordered.sort_by_key(|a| match offered(a) {
        Some(i) => (0, i),
        None => (1 + rank_of(a.scope), 0),
    });
    let m = Matcher::new(&words(query));
    let actions = ordered.into_iter().filter_map(|a| {
        let bound = keymap.keys_of(a.action);
        let scope = match a.scope {
            Scope::Global => "everywhere",
            Scope::Lists => "lists",
            Scope::Pane(p) => p.title(),
        };
        let keys = if bound.is_empty() {
            ":".to_owned() + a.name
        } else {
            bound.join(", ")
        };
        let text = format!("{} ({scope}) — {}", a.help, a.name);
        let name_at = text.chars().count() - a.name.chars().count();
        let mut fields: Vec<(&str, Option<usize>)> = vec![(a.name, Some(name_at))];
        fields.extend(bound.iter().map(|k| (k.as_str(), None)));
        fields.push((a.help, Some(0)));
        let (score, matched) = best(&m, &fields)?;
        Some((score, Some(a.action), keys, text, matched))
    });
    let dialogs = DIALOG_KEYS.iter().filter_map(|(k, t)| {
        let (score, matched) = best(&m, &[(k, None), (t, Some(0))])?;
        Some((score, None, (*k).to_owned(), (*t).to_owned(), matched))
    });
    let here: Vec<(String, String)> = focus
        .iter()
        .filter(|(k, h)| {
            !ALL.iter()
                .any(|a| works_here(a) && a.hint == h.as_str() && keymap.keys_of(a.action).first() == Some(k))
        })
        .map(|(k, label)| (k.clone(), format!("Here: {label}")))
        .collect();
    let focused = here.iter().filter_map(|(k, t)| {
        let (score, matched) = best(&m, &[(k, None), (t, Some(0))])?;
        Some((score, None, k.clone(), t.clone(), matched))
    });
    let mut rows: Vec<(i64, usize, Match)> = focused
        .chain(actions)
        .chain(dialogs)
        .enumerate()
        .map(|(i, (score, action, left, text, matched))| {
            (
                score,
                i,
                Match {
                    action,
                    row: PickRow { left, text, matched },
                },
            )
        })
        .collect();
    rank(&mut rows, &m);
    rows.into_iter().map(|(_, _, m)| m).collect()
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
        let all = help_rows(&keymap, "", Pane::Graph, &[]);
        assert_eq!(
            all.len(),
            ALL.len() + DIALOG_KEYS.len(),
            "help lists every action and dialog key"
        );
        let undo = help_rows(&keymap, "undo", Pane::Queue, &[]);
        assert!(
            undo.iter()
                .any(|r| r.row.left == "u" && r.row.text.contains("Undo the last change"))
        );
        assert!(undo.iter().any(|r| r.action.is_none() && r.row.left.contains("ctrl-z")));
        assert!(undo.len() < all.len());
        // `?` opens on the keys of the pane in view.
        let first = all[0].action.unwrap();
        assert_eq!(first.info().scope, Scope::Pane(Pane::Graph), "{:?}", all[0].row.text);
        let queue = help_rows(&keymap, "", Pane::Queue, &[]);
        assert_eq!(queue[0].action.unwrap().info().scope, Scope::Pane(Pane::Queue));
        // The view in focus first: the keys its hint bar offered, an action
        // whole where one is bound there, else as the bar says it.
        let lock_key = keymap.keys_of(Action::Lock)[0].clone();
        let focus = [
            ("enter".to_owned(), "replay".to_owned()),
            (lock_key, Action::Lock.info().hint.to_owned()),
        ];
        let here = help_rows(&keymap, "", Pane::Projection, &focus);
        assert_eq!(
            (here[0].row.left.as_str(), here[0].row.text.as_str()),
            ("enter", "Here: replay")
        );
        assert_eq!(here[1].action, Some(Action::Lock), "{:?}", here[1].row.text);
        assert_eq!(here.len(), all.len() + 1, "the action once, not twice");
        // `-` and `_` break words: `what-if` finds the what-if action.
        for query in ["what-if", "what_if", "what if"] {
            let found = help_rows(&keymap, query, Pane::Graph, &[]);
            assert!(
                found.iter().take(3).any(|r| r.action == Some(Action::WhatIf)),
                "{query}: {:?}",
                found.iter().take(3).map(|r| &r.row.text).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn a_binding_is_found_by_its_name_and_key_before_descriptions() {
        let keymap = Keymap::load(&[]).unwrap();
        for pane in [Pane::Queue, Pane::Graph, Pane::Query] {
            let lock = help_rows(&keymap, "lock", pane, &[]);
            assert_eq!(lock[0].action, Some(Action::Lock), "{:?}", lock[0].row.text);
            assert_eq!(lock[0].row.left, "L");
            assert!(
                lock.iter().any(|r| r.action == Some(Action::Unlock)),
                "the descriptions that mention it follow"
            );
            assert_eq!(matches("lock", pane)[0].action, Some(Action::Lock));
        }
        // The name matched is highlighted where the row shows it.
        let row = &help_rows(&keymap, "lock", Pane::Queue, &[])[0].row;
        let shown: String = row.matched.iter().filter_map(|i| row.text.chars().nth(*i)).collect();
        assert_eq!(shown.to_lowercase(), "lock", "{row:?}");
        // A key alone finds its binding first.
        assert_eq!(help_rows(&keymap, "f1", Pane::Queue, &[])[0].action, Some(Action::Help));
        // Every word, in any order.
        assert_eq!(matches("sel acc", Pane::Queue)[0].action, Some(Action::AcceptSelection));
    }
}
