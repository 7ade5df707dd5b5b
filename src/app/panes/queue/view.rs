//! Drawing the queue pane: the grouped list and the selected card, or what
//! stands in for them (sealed, being read, empty).

use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::layout;
use crate::app::layout::block;
use crate::app::state::AppState;
use crate::widgets::grouped_list::GroupedList;
use crate::widgets::rich_text::RichText;
use crate::widgets::{RichLine, Tone, ToneStyles};

pub(crate) fn queue(buf: &mut ratatui::buffer::Buffer, state: &AppState, styles: &ToneStyles, list: Rect, card: Rect) {
    let q = &state.queue;
    let title = format!(
        "Pending {}{}{}",
        if q.sealed { state.pending } else { q.items.len() },
        match q.contradiction_count() {
            0 => String::new(),
            1 => " · 1 contradiction".to_owned(),
            n => format!(" · {n} contradictions"),
        },
        if q.marked.is_empty() {
            String::new()
        } else {
            format!(" · {} selected", q.marked.len())
        }
    );
    if !q.loaded || q.is_empty() || (q.sealed && q.contradictions.is_empty()) {
        let lines: Vec<RichLine> = if q.sealed {
            vec![
                vec![(format!("{} proposal(s) waiting.", state.pending), Tone::Heading)],
                Vec::new(),
                vec![(
                    "Proposals are sealed to the master key: nobody without it, agents included, can read them.".into(),
                    Tone::Normal,
                )],
                Vec::new(),
                vec![
                    ("Press ".into(), Tone::Normal),
                    ("U".into(), Tone::Key),
                    (" to unlock.".into(), Tone::Normal),
                ],
            ]
        } else if !q.loaded {
            vec![vec![("Reading the queue…".into(), Tone::Dim)]]
        } else {
            vec![
                vec![("No proposals waiting.".into(), Tone::Heading)],
                Vec::new(),
                vec![(
                    "Agents propose with `graphex propose FILE.json` or over MCP; new ones appear here by themselves."
                        .into(),
                    Tone::Normal,
                )],
            ]
        };
        RichText {
            lines: &lines,
            scroll: 0,
            styles,
            block: Some(block(&title, true, styles)),
        }
        .render(list.union(card), buf);
        return;
    }
    let rows = layout::queue_rows(state);
    GroupedList {
        selected: layout::selected_row(state, &rows),
        rows: &rows,
        styles,
        block: Some(block(&title, true, styles)),
    }
    .render(list, buf);
    let title = match (q.current(), q.current_contradiction()) {
        (Some(item), _) => format!("Proposal {}", item.short),
        (None, Some(_)) => "Contradiction".to_owned(),
        (None, None) => return,
    };
    if let Some(lines) = layout::current_card(state) {
        // A card that shrank (a toggle, a shorter preview) shows its end.
        let scroll = q.card_scroll.min(layout::card_max_scroll(state, &lines));
        RichText {
            lines: &lines,
            scroll,
            styles,
            block: Some(block(&title, false, styles)),
        }
        .render(card, buf);
    }
}
