//! One-line text fields, as every dialog's input edits them (the shell's
//! and the panes' alike), so `ctrl-u` and backspace behave the same
//! everywhere.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key typed into a text field: returns whether the text changed.
pub(crate) fn edit_line(text: &mut String, k: &KeyEvent) -> bool {
    match k.code {
        KeyCode::Char(c) if !k.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
            text.push(c);
            true
        }
        KeyCode::Backspace => text.pop().is_some(),
        KeyCode::Char('u') if k.modifiers.contains(KeyModifiers::CONTROL) => {
            text.clear();
            true
        }
        _ => false,
    }
}
