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
//! The store's file wins where both set something.

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
}

/// The user's file: `$XDG_CONFIG_HOME/graphex/config.toml`.
pub fn user_file() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "graphex").map(|d| d.config_dir().join("config.toml"))
}

impl ConsoleConfig {
    /// Reads the user's file and the store's; `no_color` from `NO_COLOR`.
    pub fn load(store_root: Option<&Path>, no_color: bool) -> Result<Self> {
        let mut files = Vec::new();
        if let Some(f) = user_file() {
            files.push(f);
        }
        if let Some(root) = store_root {
            files.push(graphex_engine::store::Layout::new(root).gpp().join("config.toml"));
        }
        let mut texts = Vec::new();
        for f in files {
            match std::fs::read_to_string(&f) {
                Ok(t) => texts.push((f, t)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e).with_context(|| format!("cannot read {}", f.display())),
            }
        }
        Self::from_texts(&texts, no_color)
    }

    /// Builds the settings from file texts, later ones winning.
    pub fn from_texts(texts: &[(PathBuf, String)], no_color: bool) -> Result<Self> {
        let mut mouse = true;
        let mut theme = BTreeMap::new();
        let mut keys = Vec::new();
        for (path, text) in texts {
            let file: File = toml::from_str(text).with_context(|| format!("{}: [graphex.console]", path.display()))?;
            let console = file.graphex.console;
            if let Some(m) = console.mouse {
                mouse = m;
            }
            theme.extend(console.theme);
            keys.push((path.display().to_string(), console.keys));
        }
        Ok(Self {
            keymap: Keymap::load(&keys)?,
            styles: super::theme::styles(&theme, no_color).context("console theme")?,
            mouse,
            sources: texts.iter().map(|(p, _)| p.clone()).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_files_win_and_errors_name_the_file() {
        let user = (
            PathBuf::from("user.toml"),
            "[graphex.console]\nmouse = false\n[graphex.console.keys.queue]\naccept = [\"y\"]\n".to_owned(),
        );
        let store = (
            PathBuf::from("store.toml"),
            "[graphex.projection]\nlow = 60\n[graphex.console]\nmouse = true\n".to_owned(),
        );
        let c = ConsoleConfig::from_texts(&[user.clone(), store], false).unwrap();
        assert!(c.mouse);
        assert_eq!(
            c.keymap.keys_of(super::super::action::Action::Accept),
            vec!["y".to_owned()]
        );
        let c = ConsoleConfig::from_texts(&[user], false).unwrap();
        assert!(!c.mouse);
        let bad = (
            PathBuf::from("bad.toml"),
            "[graphex.console]\nmouse = \"yes\"\n".to_owned(),
        );
        let err = format!("{:#}", ConsoleConfig::from_texts(&[bad], false).err().unwrap());
        assert!(err.contains("bad.toml"), "{err}");
        let unknown = (PathBuf::from("u.toml"), "[graphex.console]\ncolour = 1\n".to_owned());
        let err = format!("{:#}", ConsoleConfig::from_texts(&[unknown], false).err().unwrap());
        assert!(err.contains("colour"), "{err}");
    }
}
