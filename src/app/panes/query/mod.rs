//! The Query pane: a query editor with highlighting, completion and errors
//! in place, and live results (a table of paths, a tree by first hop, the
//! spec's JSON) evaluated on the engine worker as you type.
//!
//! - `work`: what the worker does (evaluate, complete, render, export);
//! - `update`: the editor's and the results' keys, and the worker's answers;
//! - `view`: drawing the pane;
//! - `component`: the pane as the shell routes to it.

pub mod component;
#[cfg(test)]
mod tests;
pub mod update;
pub mod view;
pub mod work;

use ratatui_textarea::TextArea;

use work::{Completion, ErrorView, ResultsView};

/// How the results are shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// One path per row, with each edge's relation and confidence.
    #[default]
    Table,
    /// Paths grouped by their first hop.
    Tree,
    /// The spec's JSON response.
    Json,
}

impl Mode {
    pub fn next(self) -> Self {
        match self {
            Mode::Table => Mode::Tree,
            Mode::Tree => Mode::Json,
            Mode::Json => Mode::Table,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Table => "table",
            Mode::Tree => "tree",
            Mode::Json => "JSON",
        }
    }
}

/// The completion popup: the worker's candidates for the word under the
/// cursor, and the one chosen.
#[derive(Clone, Debug, PartialEq)]
pub struct Popup {
    pub completion: Completion,
    pub selected: usize,
    /// A candidate was chosen with `↑`/`↓` (or the list was asked for with
    /// `tab`): `enter` takes it. Otherwise `enter` runs the query.
    pub chosen: bool,
}

/// The Query pane.
pub struct QueryPane {
    pub editor: TextArea<'static>,
    /// Keys go to the editor (else to the results).
    pub editing: bool,
    /// The evaluation the pane waits for; older answers are dropped.
    pub generation: u64,
    /// The text of the last evaluation asked for.
    pub asked: String,
    pub results: Option<Result<ResultsView, ErrorView>>,
    /// Results of the last query that evaluated, kept while a later text
    /// has an error (so they do not flicker away mid-word).
    pub last_good: Option<ResultsView>,
    pub mode: Mode,
    pub selected: usize,
    pub scroll: u16,
    pub popup: Option<Popup>,
    pub completion_generation: u64,
    /// The help of the flag under the cursor.
    pub signature: Option<String>,
    /// The names of the saved queries (master level).
    pub saved: Vec<String>,
    /// `tab` asked for the candidates now awaited.
    pub tab_asked: bool,
    /// The text and cursor (in characters) before the last completion
    /// taken, while nothing else changed since: `ctrl-z` puts them back.
    pub before_completion: Option<(String, usize)>,
}

impl Default for QueryPane {
    fn default() -> Self {
        Self {
            editor: TextArea::default(),
            editing: true,
            generation: 0,
            asked: String::new(),
            results: None,
            last_good: None,
            mode: Mode::Table,
            selected: 0,
            scroll: 0,
            popup: None,
            completion_generation: 0,
            signature: None,
            saved: Vec::new(),
            tab_asked: false,
            before_completion: None,
        }
    }
}

impl QueryPane {
    /// The query as typed (lines joined by spaces).
    pub fn text(&self) -> String {
        self.editor.lines().join(" ")
    }

    /// The cursor as a byte offset into [`QueryPane::text`].
    pub fn cursor_byte(&self) -> usize {
        let cursor = self.editor.cursor();
        let (row, col) = (cursor.0, cursor.1);
        let lines = self.editor.lines();
        let before: usize = lines.iter().take(row).map(|l| l.len() + 1).sum();
        let line = lines.get(row).map_or("", String::as_str);
        before + line.char_indices().nth(col).map_or(line.len(), |(i, _)| i)
    }

    /// Replaces the whole text, the cursor at its end.
    pub fn set_text(&mut self, text: &str) {
        self.editor = TextArea::new(vec![text.replace('\n', " ")]);
        self.editor.move_cursor(ratatui_textarea::CursorMove::End);
    }

    /// Puts the cursor after `chars` characters of the (one-line) text.
    pub fn set_cursor(&mut self, chars: usize) {
        self.editor.move_cursor(ratatui_textarea::CursorMove::Head);
        for _ in 0..chars {
            self.editor.move_cursor(ratatui_textarea::CursorMove::Forward);
        }
    }

    /// The results shown: the current ones, or the last good ones while
    /// the text has an error.
    pub fn shown(&self) -> Option<&ResultsView> {
        match &self.results {
            Some(Ok(r)) => Some(r),
            _ => self.last_good.as_ref(),
        }
    }

    /// Drops every query text and result (lock).
    pub fn wipe(&mut self) {
        use zeroize::Zeroize as _;
        let old = std::mem::take(self);
        for mut line in old.editor.into_lines() {
            line.zeroize();
        }
        let mut asked = old.asked;
        asked.zeroize();
        self.generation = old.generation;
        self.completion_generation = old.completion_generation;
    }
}
