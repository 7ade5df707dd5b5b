//! Console settings: `~/.config/graphex/config.toml` (XDG), then the store's
//! own `.gpp/config.toml`, each with an optional `[graphex.console]`
//! section (other sections of the files are left alone):
//!
//! ```toml
//! [graphex.console]
//! mouse = true
//! [graphex.console.theme]
//! accent = "#ff8800"
//! [graphex.console.keys.queue]
//! accept = ["a", "y"]
//! ```
//! Keys and colours come only from the user's own file (and the built-in
//! defaults): the store's file is in the repository, where an agent may
//! write, and a keymap or theme from there could make one key accept a
//! proposal or hide the lint badges. The store's file may set `mouse`
//! (the user's own setting wins); anything else in its `[graphex.console]`
//! is ignored with a note, never an error that stops the console.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::Deserialize;

use super::keymap::{Keymap, Overrides};
use crate::widgets::ToneStyles;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Section {
    mouse: Option<bool>,
    #[serde(default)]
    theme: BTreeMap<String, String>,
    #[serde(default)]
    keys: Overrides,
}

/// `[graphex]`: the console reads only its own part.
#[derive(Debug, Default, Deserialize)]
struct Graphex {
    #[serde(default)]
    console: Section,
}

#[derive(Debug, Default, Deserialize)]
struct File {
    #[serde(default)]
    graphex: Graphex,
}

/// Everything the console reads from configuration.
pub struct ConsoleConfig {
    pub keymap: Keymap,
    pub styles: ToneStyles,
    pub mouse: bool,
    /// The files read, for the help screen.
    pub sources: Vec<PathBuf>,
    /// What was ignored in the store's file, for the status line and the log.
    pub notes: Vec<String>,
}

/// The user's file: `$XDG_CONFIG_HOME/graphex/config.toml`.
pub fn user_file() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "graphex").map(|d| d.config_dir().join("config.toml"))
}

/// A file's path and text.
pub type Text = (PathBuf, String);

fn read(path: PathBuf) -> Result<Option<Text>> {
    match std::fs::read_to_string(&path) {
        Ok(t) => Ok(Some((path, t))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

impl ConsoleConfig {
    /// Reads the user's file and the store's; `no_color` from `NO_COLOR`.
    pub fn load(store_root: Option<&Path>, no_color: bool) -> Result<Self> {
        let user = user_file().map(read).transpose()?.flatten();
        let store = match store_root {
            // Unreadable is only a note: the store's file never stops the console.
            Some(root) => {
                let path = graphex_engine::store::Layout::new(root).gpp().join("config.toml");
                match read(path) {
                    Ok(t) => t,
                    Err(e) => {
                        return Ok(Self::from_texts(user.as_ref(), None, no_color)?.noted(format!("{e:#}")));
                    }
                }
            }
            None => None,
        };
        Self::from_texts(user.as_ref(), store.as_ref(), no_color)
    }

    fn noted(mut self, note: String) -> Self {
        self.notes.push(note);
        self
    }

    /// Builds the settings from the user's file (whose errors stop the
    /// console: the user wrote it) and the store's (read for `mouse` only).
    pub fn from_texts(user: Option<&Text>, store: Option<&Text>, no_color: bool) -> Result<Self> {
        let mut notes = Vec::new();
        let mut mouse = store.and_then(|s| store_mouse(s, &mut notes));
        let mut theme = BTreeMap::new();
        let mut keys = Vec::new();
        if let Some((path, text)) = user {
            let file: File = toml::from_str(text).with_context(|| format!("{}: [graphex.console]", path.display()))?;
            let console = file.graphex.console;
            mouse = console.mouse.or(mouse);
            theme = console.theme;
            keys.push((path.display().to_string(), console.keys));
        }
        Ok(Self {
            keymap: Keymap::load(&keys)?,
            styles: super::theme::styles(&theme, no_color).context("console theme")?,
            mouse: mouse.unwrap_or(true),
            sources: user.into_iter().chain(store).map(|(p, _)| p.clone()).collect(),
            notes,
        })
    }
}

/// The store's `mouse`, if it sets one; everything else in its
/// `[graphex.console]` (keys, theme, typos, a broken file) becomes a note.
fn store_mouse((path, text): &Text, notes: &mut Vec<String>) -> Option<bool> {
    let doc: toml::Table = match text.parse() {
        Ok(d) => d,
        Err(_) => {
            notes.push(format!(
                "{}: not valid TOML; its console settings are ignored",
                path.display()
            ));
            return None;
        }
    };
    let console = doc.get("graphex").and_then(|g| g.get("console"))?;
    let Some(table) = console.as_table() else {
        notes.push(format!("{}: [graphex.console] is not a table; ignored", path.display()));
        return None;
    };
    let mut mouse = None;
    for (name, value) in table {
        match (name.as_str(), value) {
            ("mouse", toml::Value::Boolean(b)) => mouse = Some(*b),
            ("keys" | "theme", _) => notes.push(format!(
                "{}: [graphex.console.{name}] ignored: keys and colours come only from your own config{}",
                path.display(),
                user_file().map(|f| format!(" ({})", f.display())).unwrap_or_default()
            )),
            _ => notes.push(format!("{}: [graphex.console] {name} ignored", path.display())),
        }
    }
    mouse
}

#[cfg(test)]
mod tests {
    use super::super::action::Action;
    use super::*;

    fn text(name: &str, body: &str) -> Text {
        (PathBuf::from(name), body.to_owned())
    }

    #[test]
    fn user_file_sets_keys_and_errors_name_the_file() {
        let user = text(
            "user.toml",
            "[graphex.console]\nmouse = false\n[graphex.console.keys.queue]\naccept = [\"y\"]\n",
        );
        let store = text(
            "store.toml",
            "[graphex.projection]\nlow = 60\n[graphex.console]\nmouse = true\n",
        );
        let c = ConsoleConfig::from_texts(Some(&user), Some(&store), false).unwrap();
        assert!(!c.mouse, "the user's own setting wins");
        assert_eq!(c.keymap.keys_of(Action::Accept), vec!["y".to_owned()]);
        let c = ConsoleConfig::from_texts(None, Some(&store), false).unwrap();
        assert!(c.mouse && c.notes.is_empty(), "{:?}", c.notes);
        let bad = text("bad.toml", "[graphex.console]\nmouse = \"yes\"\n");
        let err = format!(
            "{:#}",
            ConsoleConfig::from_texts(Some(&bad), None, false).err().unwrap()
        );
        assert!(err.contains("bad.toml"), "{err}");
        let unknown = text("u.toml", "[graphex.console]\ncolour = 1\n");
        let err = format!(
            "{:#}",
            ConsoleConfig::from_texts(Some(&unknown), None, false).err().unwrap()
        );
        assert!(err.contains("colour"), "{err}");
    }

    /// Attack: an agent writes `.gpp/config.toml` so that `j` (move down)
    /// accepts a proposal and warnings are drawn black on black.
    #[test]
    fn store_file_cannot_rebind_keys_or_recolour() {
        let defaults = ConsoleConfig::from_texts(None, None, false).unwrap();
        let store = text(
            "store.toml",
            "[graphex.console.keys.queue]\naccept = [\"j\", \"down\"]\n[graphex.console.theme]\nwarn = \"black\"\n",
        );
        let c = ConsoleConfig::from_texts(None, Some(&store), false).unwrap();
        assert_eq!(
            c.keymap.keys_of(Action::Accept),
            defaults.keymap.keys_of(Action::Accept)
        );
        assert_eq!(c.styles.warn, defaults.styles.warn);
        let notes = c.notes.join("\n");
        assert!(notes.contains("[graphex.console.keys] ignored"), "{notes}");
        assert!(notes.contains("[graphex.console.theme] ignored"), "{notes}");
        // The user's own choices stand beside an ignored store section.
        let user = text("user.toml", "[graphex.console.theme]\nwarn = \"#ff0000\"\n");
        let c = ConsoleConfig::from_texts(Some(&user), Some(&store), false).unwrap();
        assert_eq!(c.styles.warn.fg, Some(ratatui::style::Color::Rgb(255, 0, 0)));
        assert_eq!(
            c.keymap.keys_of(Action::Accept),
            defaults.keymap.keys_of(Action::Accept)
        );
    }

    /// Attack: a broken entry in the store's file used to stop the console.
    #[test]
    fn broken_store_file_is_a_note_not_an_error() {
        for body in [
            "[graphex.console.keys.nowhere]\nfly = [\"q\"]\n",
            "[graphex.console.theme]\nwarn = \"ultraviolet\"\n",
            "[graphex.console]\nmouse = \"yes\"\ncolour = 1\n",
            "[graphex]\nconsole = 3\n",
            "not toml [",
        ] {
            let store = text("store.toml", body);
            let c = ConsoleConfig::from_texts(None, Some(&store), false).unwrap();
            assert!(c.mouse);
            assert!(
                !c.notes.is_empty() && c.notes[0].contains("store.toml"),
                "{body}: {:?}",
                c.notes
            );
        }
    }
}
