//! The theme: colours for each tone, overridable in `[graphex.console.theme]`, and
//! plain (modifiers only) when `NO_COLOR` is set.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use ratatui::style::{Color, Modifier, Style};

use crate::widgets::ToneStyles;

/// The colour names a theme may use.
const NAMES: &[(&str, Color)] = &[
    ("black", Color::Black),
    ("red", Color::Red),
    ("green", Color::Green),
    ("yellow", Color::Yellow),
    ("blue", Color::Blue),
    ("magenta", Color::Magenta),
    ("cyan", Color::Cyan),
    ("gray", Color::Gray),
    ("darkgray", Color::DarkGray),
    ("lightred", Color::LightRed),
    ("lightgreen", Color::LightGreen),
    ("lightyellow", Color::LightYellow),
    ("lightblue", Color::LightBlue),
    ("lightmagenta", Color::LightMagenta),
    ("lightcyan", Color::LightCyan),
    ("white", Color::White),
    ("reset", Color::Reset),
];

/// The slots `[graphex.console.theme]` may set.
pub const SLOTS: &[&str] = &[
    "accent", "dim", "added", "removed", "warn", "error", "ok", "key", "string", "number", "keyword", "field",
    "selected", "marked",
];

fn color(slot: &str, text: &str) -> Result<Color> {
    if let Some(hex) = text.strip_prefix('#')
        && hex.len() == 6
        && let Ok(v) = u32::from_str_radix(hex, 16)
    {
        let [_, r, g, b] = v.to_be_bytes();
        return Ok(Color::Rgb(r, g, b));
    }
    match NAMES.iter().find(|(n, _)| *n == text) {
        Some((_, c)) => Ok(*c),
        None => bail!(
            "[graphex.console.theme] {slot} = {text:?}: not a colour (use #rrggbb or one of {})",
            NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Builds the styles: defaults, then `overrides`; without colour when
/// `no_color`.
pub fn styles(overrides: &BTreeMap<String, String>, no_color: bool) -> Result<ToneStyles> {
    let mut c: BTreeMap<&str, Color> = [
        ("accent", Color::Cyan),
        ("dim", Color::DarkGray),
        ("added", Color::Green),
        ("removed", Color::Red),
        ("warn", Color::Yellow),
        ("error", Color::LightRed),
        ("ok", Color::Green),
        ("key", Color::Cyan),
        ("string", Color::Green),
        ("number", Color::Magenta),
        ("keyword", Color::Yellow),
        ("field", Color::Blue),
        ("selected", Color::DarkGray),
        ("marked", Color::Blue),
    ]
    .into_iter()
    .collect();
    for (slot, value) in overrides {
        let Some(key) = SLOTS.iter().find(|s| **s == slot.as_str()) else {
            bail!(
                "[graphex.console.theme]: unknown slot {slot:?} (one of {})",
                SLOTS.join(", ")
            );
        };
        c.insert(key, color(slot, value)?);
    }
    let fg = |slot: &str| {
        if no_color {
            Style::default()
        } else {
            Style::default().fg(c[slot])
        }
    };
    let bold = Modifier::BOLD;
    Ok(ToneStyles {
        normal: Style::default(),
        dim: if no_color {
            Style::default().add_modifier(Modifier::DIM)
        } else {
            fg("dim")
        },
        heading: Style::default().add_modifier(bold),
        accent: fg("accent").add_modifier(bold),
        added: fg("added"),
        removed: fg("removed"),
        // Without colour, changed words still stand out.
        added_strong: fg("added").add_modifier(bold | Modifier::UNDERLINED),
        removed_strong: fg("removed").add_modifier(bold | Modifier::CROSSED_OUT),
        warn: fg("warn").add_modifier(bold),
        error: fg("error").add_modifier(bold),
        ok: fg("ok"),
        key: fg("key").add_modifier(bold),
        string: fg("string"),
        number: fg("number"),
        keyword: fg("keyword"),
        punct: Style::default(),
        field: fg("field"),
        selected: if no_color {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default().bg(c["selected"]).add_modifier(bold)
        },
        marked: fg("marked").add_modifier(bold),
        border: fg("dim"),
        border_focused: fg("accent"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_and_no_color() {
        let mut o = BTreeMap::new();
        o.insert("accent".to_owned(), "#ff8800".to_owned());
        let s = styles(&o, false).unwrap();
        assert_eq!(s.accent.fg, Some(Color::Rgb(0xff, 0x88, 0x00)));
        let plain = styles(&o, true).unwrap();
        assert_eq!(plain.accent.fg, None);
        assert_eq!(plain.added_strong.fg, None);
        assert!(plain.added_strong.add_modifier.contains(Modifier::UNDERLINED));
        assert!(plain.selected.add_modifier.contains(Modifier::REVERSED));
        o.insert("accent".to_owned(), "orange".to_owned());
        assert!(styles(&o, false).unwrap_err().to_string().contains("not a colour"));
        let mut bad = BTreeMap::new();
        bad.insert("sparkle".to_owned(), "red".to_owned());
        assert!(
            styles(&bad, false)
                .unwrap_err()
                .to_string()
                .contains("unknown slot \"sparkle\"")
        );
    }
}
