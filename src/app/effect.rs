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
    Quit,
}

pub(crate) fn request(fx: &mut Vec<Effect>, r: Request) {
    fx.push(Effect::Request(r));
}
