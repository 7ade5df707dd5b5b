//! The vocabulary between the loop, the shell and the panes: what reaches
//! `update` and what it asks the loop to do. A leaf, so panes can speak it
//! without importing the shell's `update`.

use crossterm::event::{KeyEvent, MouseEvent};

use super::action::Action;
use super::worker::{Reply, Request};

/// What reaches `update`.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Paste(String),
    Resize(u16, u16),
    Action(Action),
    Reply(Reply),
    /// The text the external editor left (`Effect::ExternalEdit`), or why
    /// there is none.
    Edited(Result<String, String>),
}

/// What `update` asks the loop to do.
#[derive(Debug)]
pub enum Effect {
    Request(Request),
    /// Clear the whole terminal before the next draw (after a lock).
    ClearScreen,
    /// Put this text on the clipboard (OSC 52: the terminal does it, over
    /// ssh and tmux too).
    Clipboard(String),
    /// Hand `text` to the user's editor as the file `name`: the loop leaves
    /// the screen, runs it, comes back and answers with `Msg::Edited`.
    ExternalEdit {
        name: String,
        text: String,
    },
    Quit,
    /// Another pane's place: a pane never calls another pane, it asks, and
    /// the shell routes (`update::route`) before the loop sees the effects.
    Go(Go),
}

/// A place in another pane a pane asks the shell to open.
#[derive(Debug, Clone, PartialEq)]
pub enum Go {
    /// Node `name` in the Graph pane.
    Node(String),
    /// Node `name` in the Graph pane, with its edit form open.
    EditNode(String),
    /// `subject` in the Projection pane.
    Project(crate::app::subject::Subject),
    /// The Graph pane's jump, to choose a node to project.
    ChooseToProject,
}

impl Go {
    /// The pane that opens it.
    pub fn pane(&self) -> super::action::Pane {
        use super::action::Pane;
        match self {
            Go::Node(_) | Go::EditNode(_) | Go::ChooseToProject => Pane::Graph,
            Go::Project(_) => Pane::Projection,
        }
    }
}

pub(crate) fn request(fx: &mut Vec<Effect>, r: Request) {
    fx.push(Effect::Request(r));
}

/// Asks the shell to open `place` in another pane.
pub(crate) fn go(fx: &mut Vec<Effect>, place: Go) {
    fx.push(Effect::Go(place));
}
