//! Tones: what a piece of text means (added, removed, a warning...), not how
//! it looks. View models carry tones; a [`ToneStyles`] table, built from the
//! theme, turns them into styles when a widget renders.

use ratatui::style::Style;

/// What a span of text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tone {
    Normal,
    Dim,
    Heading,
    Accent,
    Added,
    Removed,
    /// The changed words inside an added line.
    AddedStrong,
    /// The changed words inside a removed line.
    RemovedStrong,
    Warn,
    Error,
    Ok,
    Key,
    /// Syntax: strings, numbers, keywords, punctuation, object keys.
    Str,
    Number,
    Keyword,
    Punct,
    Field,
}

/// A line of toned spans.
pub type RichLine = Vec<(String, Tone)>;

/// A style per tone.
#[derive(Clone, Debug, Default)]
pub struct ToneStyles {
    pub normal: Style,
    pub dim: Style,
    pub heading: Style,
    pub accent: Style,
    pub added: Style,
    pub removed: Style,
    pub added_strong: Style,
    pub removed_strong: Style,
    pub warn: Style,
    pub error: Style,
    pub ok: Style,
    pub key: Style,
    pub string: Style,
    pub number: Style,
    pub keyword: Style,
    pub punct: Style,
    pub field: Style,
    /// The selected row or the cursor.
    pub selected: Style,
    /// Marked (space-selected) rows.
    pub marked: Style,
    pub border: Style,
    pub border_focused: Style,
}

impl ToneStyles {
    pub fn of(&self, t: Tone) -> Style {
        match t {
            Tone::Normal => self.normal,
            Tone::Dim => self.dim,
            Tone::Heading => self.heading,
            Tone::Accent => self.accent,
            Tone::Added => self.added,
            Tone::Removed => self.removed,
            Tone::AddedStrong => self.added_strong,
            Tone::RemovedStrong => self.removed_strong,
            Tone::Warn => self.warn,
            Tone::Error => self.error,
            Tone::Ok => self.ok,
            Tone::Key => self.key,
            Tone::Str => self.string,
            Tone::Number => self.number,
            Tone::Keyword => self.keyword,
            Tone::Punct => self.punct,
            Tone::Field => self.field,
        }
    }

    /// A ratatui line from toned spans.
    pub fn line(&self, spans: &[(String, Tone)]) -> ratatui::text::Line<'static> {
        ratatui::text::Line::from(
            spans
                .iter()
                .map(|(s, t)| ratatui::text::Span::styled(s.clone(), self.of(*t)))
                .collect::<Vec<_>>(),
        )
    }
}

/// A rendered buffer's text, a line per row, for widget tests.
#[cfg(test)]
pub fn buffer_text(buf: &ratatui::buffer::Buffer) -> String {
    let area = buf.area;
    (area.top()..area.bottom())
        .map(|y| {
            (area.left()..area.right())
                .map(|x| buf[(x, y)].symbol().to_owned())
                .collect::<String>()
                + "\n"
        })
        .collect()
}

/// Distinct, plain styles for widget tests.
#[cfg(test)]
pub fn test_styles() -> ToneStyles {
    use ratatui::style::{Color, Modifier};
    ToneStyles {
        dim: Style::new().fg(Color::DarkGray),
        heading: Style::new().add_modifier(Modifier::BOLD),
        accent: Style::new().fg(Color::Cyan),
        key: Style::new().fg(Color::Yellow),
        selected: Style::new().add_modifier(Modifier::REVERSED),
        marked: Style::new().fg(Color::Magenta),
        ..ToneStyles::default()
    }
}
