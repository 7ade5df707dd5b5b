//! The keymap: (scope, key) → action, from `assets/keymap.toml` with the
//! user's overrides laid over it. Each override replaces the keys of one
//! action; a key bound twice in the same scope is an error naming both.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::{Action, Pane, Scope};

/// The bundled bindings.
pub const DEFAULT: &str = include_str!("../../assets/keymap.toml");

/// A key with its modifiers; characters carry their case, not SHIFT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeySpec {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl KeySpec {
    pub fn from_event(e: &KeyEvent) -> Self {
        let mut mods = e.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match e.code {
            KeyCode::Char(c) => {
                mods.remove(KeyModifiers::SHIFT);
                // Terminals report ctrl-letters in either case.
                if mods.contains(KeyModifiers::CONTROL) {
                    KeyCode::Char(c.to_ascii_lowercase())
                } else {
                    KeyCode::Char(c)
                }
            }
            KeyCode::BackTab => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            other => other,
        };
        Self { code, mods }
    }

    /// Parses `a`, `A`, `ctrl-p`, `alt-enter`, `pagedown`, `f1`...
    pub fn parse(text: &str) -> Result<Self> {
        let mut mods = KeyModifiers::NONE;
        let mut rest = text;
        loop {
            if let Some(r) = rest.strip_prefix("ctrl-") {
                mods |= KeyModifiers::CONTROL;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("alt-") {
                mods |= KeyModifiers::ALT;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("shift-") {
                mods |= KeyModifiers::SHIFT;
                rest = r;
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => {
                if mods.contains(KeyModifiers::SHIFT) {
                    mods.remove(KeyModifiers::SHIFT);
                    KeyCode::Char(c.to_ascii_uppercase())
                } else if mods.contains(KeyModifiers::CONTROL) {
                    KeyCode::Char(c.to_ascii_lowercase())
                } else {
                    KeyCode::Char(c)
                }
            }
            _ => match rest {
                "enter" => KeyCode::Enter,
                "esc" => KeyCode::Esc,
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "space" => KeyCode::Char(' '),
                "backspace" => KeyCode::Backspace,
                "delete" => KeyCode::Delete,
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "pageup" => KeyCode::PageUp,
                "pagedown" => KeyCode::PageDown,
                f if f.starts_with('f') => match f[1..].parse::<u8>() {
                    Ok(n @ 1..=12) => KeyCode::F(n),
                    _ => bail!("unknown key {text:?}"),
                },
                _ => bail!(
                    "unknown key {text:?} (a character, or ctrl-/alt- plus a key, or one of enter esc tab backtab space backspace delete up down left right home end pageup pagedown f1..f12)"
                ),
            },
        };
        Ok(Self { code, mods })
    }

    /// How help and the hint bar show the key.
    pub fn label(&self) -> String {
        let key = match self.code {
            KeyCode::Char(' ') => "space".to_owned(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Enter => "enter".into(),
            KeyCode::Esc => "esc".into(),
            KeyCode::Tab => "tab".into(),
            KeyCode::BackTab => "shift-tab".into(),
            KeyCode::Backspace => "backspace".into(),
            KeyCode::Delete => "del".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::Home => "home".into(),
            KeyCode::End => "end".into(),
            KeyCode::PageUp => "pgup".into(),
            KeyCode::PageDown => "pgdn".into(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        let mut out = String::new();
        if self.mods.contains(KeyModifiers::CONTROL) {
            out.push_str("ctrl-");
        }
        if self.mods.contains(KeyModifiers::ALT) {
            out.push_str("alt-");
        }
        out.push_str(&key);
        out
    }
}

/// Bindings per scope.
#[derive(Clone, Debug, Default)]
pub struct Keymap {
    bindings: Vec<(Scope, KeySpec, Action)>,
}

/// `[section] action = ["key", ...]` tables, as in `assets/keymap.toml`.
pub type Overrides = BTreeMap<String, BTreeMap<String, Vec<String>>>;

impl Keymap {
    /// The bundled keymap with `overrides` (from the user's files, in order)
    /// laid over it. `origin` names each override in errors.
    pub fn load(overrides: &[(String, Overrides)]) -> Result<Self> {
        let base: Overrides = toml::from_str(DEFAULT)?;
        let mut table: BTreeMap<(Scope, Action), Vec<KeySpec>> = BTreeMap::new();
        Self::lay(&mut table, "the bundled keymap", &base)?;
        for (origin, o) in overrides {
            Self::lay(&mut table, origin, o)?;
        }
        let mut bindings = Vec::new();
        let mut seen: BTreeMap<(Scope, String), Action> = BTreeMap::new();
        for ((scope, action), keys) in table {
            for key in keys {
                if let Some(other) = seen.insert((scope, format!("{key:?}")), action) {
                    bail!(
                        "key {} is bound to both {} and {} in [{}]",
                        key.label(),
                        other.name(),
                        action.name(),
                        scope_name(scope)
                    );
                }
                bindings.push((scope, key, action));
            }
        }
        Ok(Self { bindings })
    }

    fn lay(table: &mut BTreeMap<(Scope, Action), Vec<KeySpec>>, origin: &str, o: &Overrides) -> Result<()> {
        for (section, actions) in o {
            let scope = match section.as_str() {
                "global" => Scope::Global,
                "lists" => Scope::Lists,
                s => match Pane::ALL.iter().find(|p| p.section() == s) {
                    Some(p) => Scope::Pane(*p),
                    None => {
                        bail!(
                            "{origin}: unknown keymap section [{section}] (global, lists, queue, graph, query, projection)"
                        )
                    }
                },
            };
            for (name, keys) in actions {
                let Some(action) = Action::from_name(name) else {
                    bail!("{origin}: unknown action {name:?} in [{section}]; `?` in the console lists them");
                };
                if action.info().scope != scope {
                    bail!(
                        "{origin}: action {name:?} belongs in [{}], not [{section}]",
                        scope_name(action.info().scope)
                    );
                }
                let parsed = keys
                    .iter()
                    .map(|k| KeySpec::parse(k).map_err(|e| anyhow::anyhow!("{origin}: [{section}] {name}: {e}")))
                    .collect::<Result<Vec<_>>>()?;
                table.insert((scope, action), parsed);
            }
        }
        Ok(())
    }

    /// The action for `key` in `pane`: the pane's own bindings first.
    pub fn action(&self, pane: Pane, key: &KeyEvent) -> Option<Action> {
        let k = KeySpec::from_event(key);
        let find = |scope: Scope| {
            self.bindings
                .iter()
                .find(|(s, spec, _)| *s == scope && *spec == k)
                .map(|(_, _, a)| *a)
        };
        find(Scope::Pane(pane))
            .or_else(|| find(Scope::Lists))
            .or_else(|| find(Scope::Global))
    }

    /// The keys bound to `action`, as labels.
    pub fn keys_of(&self, action: Action) -> Vec<String> {
        self.bindings
            .iter()
            .filter(|(_, _, a)| *a == action)
            .map(|(_, k, _)| k.label())
            .collect()
    }
}

fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::Global => "global",
        Scope::Lists => "lists",
        Scope::Pane(p) => p.section(),
    }
}

impl PartialOrd for Scope {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scope {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        scope_name(*self).cmp(scope_name(*other))
    }
}

impl PartialOrd for Action {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Action {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.name().cmp(other.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(c, m)
    }

    #[test]
    fn bundled_keys_resolve_per_pane_then_globally() {
        let k = Keymap::load(&[]).unwrap();
        assert_eq!(
            k.action(Pane::Queue, &key(KeyCode::Char('a'), KeyModifiers::NONE)),
            Some(Action::Accept)
        );
        // Upper case arrives with SHIFT from some terminals and without from others.
        assert_eq!(
            k.action(Pane::Queue, &key(KeyCode::Char('A'), KeyModifiers::SHIFT)),
            Some(Action::AcceptSelection)
        );
        assert_eq!(
            k.action(Pane::Queue, &key(KeyCode::Char('A'), KeyModifiers::NONE)),
            Some(Action::AcceptSelection)
        );
        assert_eq!(
            k.action(Pane::Graph, &key(KeyCode::Char('a'), KeyModifiers::NONE)),
            None
        );
        assert_eq!(
            k.action(Pane::Graph, &key(KeyCode::Char('q'), KeyModifiers::NONE)),
            Some(Action::Quit)
        );
        assert_eq!(
            k.action(Pane::Queue, &key(KeyCode::Char('P'), KeyModifiers::CONTROL)),
            Some(Action::Palette)
        );
        assert_eq!(
            k.action(Pane::Queue, &key(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(Action::PrevPane)
        );
        assert_eq!(k.keys_of(Action::Accept), vec!["a".to_owned()]);
    }

    #[test]
    fn overrides_replace_an_actions_keys_and_errors_name_the_problem() {
        let o: Overrides = toml::from_str("[queue]\naccept = [\"y\", \"ctrl-a\"]\n").unwrap();
        let k = Keymap::load(&[("user".into(), o)]).unwrap();
        assert_eq!(
            k.action(Pane::Queue, &key(KeyCode::Char('a'), KeyModifiers::NONE)),
            None
        );
        assert_eq!(
            k.action(Pane::Queue, &key(KeyCode::Char('y'), KeyModifiers::NONE)),
            Some(Action::Accept)
        );
        assert_eq!(k.keys_of(Action::Accept), vec!["y".to_owned(), "ctrl-a".to_owned()]);

        let err = |text: &str| {
            let o: Overrides = toml::from_str(text).unwrap();
            Keymap::load(&[("my.toml".into(), o)]).unwrap_err().to_string()
        };
        assert!(err("[queue]\nexplode = [\"x\"]").contains("unknown action \"explode\""));
        assert!(err("[queue]\naccept = [\"hyper-x\"]").contains("unknown key"));
        assert!(err("[nowhere]\naccept = [\"x\"]").contains("unknown keymap section"));
        assert!(err("[global]\naccept = [\"x\"]").contains("belongs in [queue]"));
        let clash = err("[queue]\naccept = [\"r\"]");
        assert!(
            clash.contains("bound to both") && clash.contains("accept") && clash.contains("reject"),
            "{clash}"
        );
    }

    #[test]
    fn key_labels_round_trip() {
        for text in ["a", "A", "?", "ctrl-p", "alt-x", "enter", "space", "pagedown", "f5"] {
            let k = KeySpec::parse(text).unwrap();
            assert_eq!(
                KeySpec::parse(&k.label().replace("pgdn", "pagedown").replace("F5", "f5")).unwrap(),
                k,
                "{text}"
            );
        }
    }
}
