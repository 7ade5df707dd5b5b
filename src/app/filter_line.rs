//! The in-list filter the lists share (the rings' `F`, the curator's and
//! the audit browser's `/`): typed text that narrows the rows to those
//! holding it (any case); `enter` keeps it and gives the keys back to the
//! list, `esc` clears it.

use crossterm::event::{KeyCode, KeyEvent};

use super::text_input::edit_line;

#[derive(Debug, Default)]
pub struct FilterLine {
    pub text: String,
    /// Keys go to the filter.
    pub typing: bool,
}

impl FilterLine {
    /// A key while the filter is typed, or `esc` clearing a kept one: true
    /// when it was the filter's (the list then starts again at its top).
    /// Other keys (arrows, ctrl-c) are the list's.
    pub fn key(&mut self, k: &KeyEvent) -> bool {
        if !(self.typing || k.code == KeyCode::Esc && !self.text.is_empty()) {
            return false;
        }
        match k.code {
            KeyCode::Esc => {
                self.text.clear();
                self.typing = false;
                true
            }
            KeyCode::Enter => {
                self.typing = false;
                true
            }
            _ => edit_line(&mut self.text, k),
        }
    }

    /// Whether any of `texts` holds the filter (an empty filter: yes).
    pub fn holds<'a>(&self, texts: impl IntoIterator<Item = &'a str>) -> bool {
        let wanted = self.text.trim().to_lowercase();
        wanted.is_empty() || texts.into_iter().any(|t| t.to_lowercase().contains(&wanted))
    }

    /// The title's part: ` · filter: TEXT` (with a cursor while typed).
    pub fn title(&self) -> String {
        if self.typing || !self.text.is_empty() {
            format!(" · filter: {}{}", self.text, if self.typing { "▏" } else { "" })
        } else {
            String::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::{KeyEvent, KeyModifiers};

    use super::*;

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn typed_kept_and_cleared() {
        let mut f = FilterLine::default();
        assert!(!f.key(&k(KeyCode::Char('x'))), "not typing: the list's key");
        f.typing = true;
        assert!(f.key(&k(KeyCode::Char('P'))) && f.key(&k(KeyCode::Char('a'))));
        assert!(f.holds(["payments-service"]) && !f.holds(["orders"]));
        assert_eq!(f.title(), " · filter: Pa▏");
        assert!(!f.key(&k(KeyCode::Down)), "arrows stay the list's");
        assert!(f.key(&k(KeyCode::Enter)) && !f.typing);
        assert_eq!(f.title(), " · filter: Pa");
        assert!(!f.key(&k(KeyCode::Char('j'))), "kept: keys are the list's again");
        assert!(f.key(&k(KeyCode::Esc)) && f.text.is_empty());
        assert!(!f.key(&k(KeyCode::Esc)), "esc with no filter closes the list");
    }
}
