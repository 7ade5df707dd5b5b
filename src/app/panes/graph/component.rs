//! The Graph pane as the shell sees it: keys, clicks, replies and drawing
//! routed to the pane's own modules.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};

use super::{curate_ui, curator, dialogs, go_to, update, view};
use crate::app::action::{Action, Pane};
use crate::app::component::{Component, Notice, commands, fixed, keyed};
use crate::app::effect::{Effect, Go};
use crate::app::layout::{Areas, areas};
use crate::app::state::{AppState, Confirmed, Popup};
use crate::app::worker::Reply;
use crate::widgets::ToneStyles;

/// The Graph pane.
pub struct GraphComponent;

impl Component for GraphComponent {
    fn pane(&self) -> Pane {
        Pane::Graph
    }

    fn go(&self, state: &mut AppState, place: Go, fx: &mut Vec<Effect>) {
        match place {
            Go::Node(name) => update::open(state, &name, fx),
            Go::EditNode(name) => {
                update::open(state, &name, fx);
                curate_ui::edit_node(state, fx);
            }
            Go::ChooseToProject => dialogs::open_jump_for(state, dialogs::Purpose::Project),
            Go::Project(_) => {}
        }
    }

    fn key(&self, state: &mut AppState, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
        match state.popups.last() {
            Some(p) if self.owns(p) => {
                dialogs::key(state, k, fx);
                true
            }
            Some(_) => false,
            None => update::filter_key(state, k, fx),
        }
    }

    fn paste(&self, state: &mut AppState, text: &str, fx: &mut Vec<Effect>) {
        dialogs::paste(state, text, fx);
    }

    fn mouse(&self, state: &mut AppState, m: MouseEvent, fx: &mut Vec<Effect>) {
        let down = match m.kind {
            MouseEventKind::ScrollDown => true,
            MouseEventKind::ScrollUp => false,
            _ => return,
        };
        if let Some(top) = state.popups.last() {
            // The wheel moves a list's choice; the other dialogs take keys only.
            if let Popup::Jump(_) | Popup::Facets(_) = top {
                let code = if down { KeyCode::Down } else { KeyCode::Up };
                dialogs::key(state, KeyEvent::new(code, KeyModifiers::NONE), fx);
            }
            return;
        }
        let inspector = view::areas(areas(state.size).main).2;
        let a = match (inspector.contains(Position::new(m.column, m.row)), down) {
            (true, true) => Action::CardDown,
            (true, false) => Action::CardUp,
            (false, true) => Action::Down,
            (false, false) => Action::Up,
        };
        update::graph_action(state, a, fx);
    }

    fn action(&self, state: &mut AppState, a: Action, fx: &mut Vec<Effect>) {
        update::graph_action(state, a, fx);
    }

    fn command(&self, state: &mut AppState, line: &str, fx: &mut Vec<Effect>) -> bool {
        let Some(name) = go_to::graph_command(line) else {
            return false;
        };
        update::open(state, &name, fx);
        true
    }

    fn preview(&self, state: &mut AppState, line: &str, fx: &mut Vec<Effect>) -> bool {
        go_to::preview(state, line, fx)
    }

    fn confirmed(&self, state: &mut AppState, then: Confirmed, fx: &mut Vec<Effect>) {
        match then {
            Confirmed::Write(w) => curate_ui::write(state, *w, fx),
            Confirmed::DiscardForm => {
                if let Some(Popup::NodeForm(_)) = state.popups.last()
                    && let Some(Popup::NodeForm(f)) = state.popups.pop()
                {
                    f.wipe();
                }
                state.info("form discarded; nothing written");
            }
            _ => {}
        }
    }

    fn reply(&self, state: &mut AppState, r: Reply, fx: &mut Vec<Effect>) -> Option<Reply> {
        match r {
            Reply::Shown { generation, result } => {
                update::shown(state, generation, *result);
                // The graph may have changed under the selected neighbour.
                state.graph.inspected = None;
                update::inspect_selected(state, fx);
            }
            Reply::Inspected { generation, result } => update::inspected(state, generation, *result),
            Reply::Jumped { generation, hits } => {
                if !go_to::answered(state, generation, &hits) {
                    update::jumped(state, generation, hits);
                }
            }
            Reply::Path { generation, result } => update::path_found(state, generation, result),
            Reply::History { generation, result } => update::history(state, generation, result),
            Reply::Start(name) => update::start(state, name, fx),
            Reply::Written { text, open } => curate_ui::written(state, text, open, fx),
            Reply::WriteFailed(text) => curate_ui::write_failed(state, text),
            Reply::WriteFlagged { write, flags } => curate_ui::write_flagged(state, write, &flags),
            Reply::NameChecked { generation, result } => curate_ui::name_checked(state, generation, result),
            Reply::Vocabulary {
                generation,
                types,
                relations,
            } => curate_ui::vocabulary(state, generation, types, relations),
            Reply::EditValues { name, result } => curate_ui::edit_values(state, &name, result),
            // The Projection pane asks for exposures too: only the open
            // form's own answer is this pane's.
            Reply::Exposure { generation, result } => {
                if !matches!(state.popups.last(), Some(Popup::NodeForm(f)) if f.generation == generation) {
                    return Some(Reply::Exposure { generation, result });
                }
                curate_ui::exposure(state, generation, result);
            }
            Reply::Curator { generation, result } => curator::listed(state, generation, result),
            other => return Some(other),
        }
        None
    }

    fn notice(&self, state: &mut AppState, n: Notice, fx: &mut Vec<Effect>) {
        match n {
            Notice::Opened(_) | Notice::GraphChanged | Notice::Refresh => update::changed(state, fx),
            Notice::Lock => state.graph.wipe(),
            Notice::Settled => update::entered(state, fx),
        }
    }

    fn draw(&self, buf: &mut Buffer, state: &AppState, styles: &ToneStyles, areas: &Areas) {
        view::graph(buf, state, styles, areas.main);
    }

    fn draw_popup(&self, buf: &mut Buffer, state: &AppState, popup: &Popup, styles: &ToneStyles, main: Rect) {
        view::popup(buf, state, popup, styles, main);
    }

    fn hints(&self, state: &AppState) -> Vec<(String, String)> {
        match state.popups.last() {
            Some(Popup::Jump(j)) if matches!(j.purpose, super::dialog_state::Purpose::SupersededBy { .. }) => fixed(&[
                ("type", "to search"),
                ("↑↓", "choose"),
                ("enter", "take it"),
                ("ctrl-n", "new successor"),
                ("esc", "close"),
            ]),
            Some(Popup::Jump(_)) => fixed(&[
                ("type", "to search"),
                ("↑↓", "choose"),
                ("enter", "run"),
                ("esc", "close"),
            ]),
            Some(Popup::Facets(_)) => fixed(&[
                ("space", "pick"),
                ("enter", "apply"),
                ("backspace", "all"),
                ("esc", "cancel"),
            ]),
            Some(Popup::Export { .. }) => fixed(&[("enter", "export"), ("esc", "cancel")]),
            Some(Popup::AsOf { .. }) => fixed(&[("enter", "show"), ("esc", "cancel")]),
            Some(Popup::NodeForm(f)) if f.review.is_some() => {
                fixed(&[("ctrl-s", "save as reviewed"), ("esc", "back to the form")])
            }
            Some(Popup::NodeForm(_)) => fixed(&[
                ("tab", "next field"),
                ("←→", "choose"),
                ("ctrl-s", "save"),
                ("esc", "cancel"),
            ]),
            Some(Popup::Curator(d)) if d.filter.typing => {
                fixed(&[("type", "to filter"), ("enter", "keep"), ("esc", "clear")])
            }
            Some(Popup::Curator(d)) => fixed(&[
                ("←→", "type"),
                ("s", "sort"),
                ("o", "order"),
                ("/", "filter"),
                ("m", if d.mentions { "entries" } else { "mentions" }),
                ("enter", if d.mentions { "link" } else { "open" }),
                ("esc", "close"),
            ]),
            Some(Popup::Relation { .. }) => fixed(&[
                ("↑↓", "choose"),
                ("tab", "in/out"),
                ("enter", "confirm"),
                ("esc", "cancel"),
            ]),
            Some(Popup::Prompt { .. }) => fixed(&[("enter", "confirm"), ("esc", "cancel")]),
            Some(Popup::History(h)) => fixed(&[
                ("↑↓", "version"),
                ("space", "compare from here"),
                ("n", "next change"),
                ("N", "prev change"),
                (
                    "c",
                    if h.place.changes_only {
                        "every line"
                    } else {
                        "changes only"
                    },
                ),
                ("J/K", "scroll"),
                ("esc", "close"),
            ]),
            _ if state.graph.filter.typing => {
                fixed(&[("type", "to filter the rings"), ("enter", "keep"), ("esc", "clear")])
            }
            _ => {
                let mut hints = commands(state, self.pane());
                // On a group, what space (and enter) does comes first.
                if let Some(super::rows::Item::Group { open, .. }) = super::rows::selected(&state.graph) {
                    let label = if open { "close group" } else { "open group" };
                    hints.splice(0..0, keyed(state, &[(Action::ToggleBranch, label)]));
                }
                hints
            }
        }
    }
}
