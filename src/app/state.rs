//! The console's state: everything drawn comes from here, and only
//! `update` changes it.

use graphex_engine::Level;
use ratatui_textarea::TextArea;
use zeroize::Zeroizing;

use super::action::Pane;
use super::keymap::Keymap;
use super::panes::graph::Graph;
use super::panes::graph::dialog_state::{CuratorDialog, FacetPicker, HistoryDialog, JumpDialog, PromptThen};
use super::panes::queue::Queue;
use crate::widgets::Tone;

/// The whole console.
pub struct AppState {
    pub keymap: Keymap,
    pub mouse: bool,
    pub pane: Pane,
    /// The store's path, as shown.
    pub store: String,
    /// None until the store is open.
    pub level: Option<Level>,
    /// Work under way that the status bar names ("opening the store").
    pub busy: Option<String>,
    pub pending: usize,
    /// Every status message of this session (the last [`MAX_MESSAGES`]).
    pub messages: Vec<(String, Tone)>,
    /// When each of `messages` was said, "HH:MM:SS" (UTC), in the same order.
    pub message_times: Vec<String>,
    /// Set when the store went back (a rollback): it is read-only, and
    /// the tab bar says so until it is resolved.
    pub rolled_back: Option<String>,
    pub message: Option<(String, Tone)>,
    pub queue: Queue,
    pub graph: Graph,
    pub query: crate::app::panes::query::QueryPane,
    pub projection: crate::app::panes::projection::ProjectionPane,
    /// Dialogs, the top one sees keys first.
    pub popups: Vec<Popup>,
    pub size: (u16, u16),
    pub quit: bool,
    /// Bumped for each preview or validation asked; older replies are dropped.
    pub generation: u64,
    /// The time ages are shown against (set by the loop before drawing).
    pub now_ms: i64,
}

/// What a confirmation leads to.
#[derive(Clone, Debug, PartialEq)]
pub enum Confirmed {
    /// One flagged proposal, accepted once its flags were shown.
    Accept(String),
    AcceptMany(Vec<String>),
    RejectMany(Vec<String>, String),
    Quit,
    DiscardEdit,
    DiscardForm,
    /// A Graph pane write, once confirmed.
    Write(Box<crate::app::panes::graph::curate::Write>),
    /// A contradiction on the queue, resolved once confirmed.
    Resolve(Box<crate::app::panes::queue::contradiction::Resolution>),
}

/// A proposal being edited.
pub struct Editor {
    pub id: String,
    pub short: String,
    pub area: TextArea<'static>,
    pub original: String,
    /// The latest validation: the number of changes, or the problem.
    pub validation: Option<Result<usize, String>>,
    pub generation: u64,
    pub saving: bool,
    pub error: Option<String>,
    pub top: usize,
    /// Back from the external editor: the next validation error moves the
    /// cursor to its line.
    pub to_error: bool,
    /// The last hand-off to the external editor: the text before it and the
    /// text it left. While the text is still the latter, one `ctrl-z`
    /// puts the former back.
    pub handed: Option<(String, String)>,
}

impl Editor {
    pub fn new(id: String, short: String, text: &str) -> Self {
        let area = TextArea::new(text.lines().map(str::to_owned).collect());
        Self {
            id,
            short,
            area,
            original: text.to_owned(),
            validation: None,
            generation: 0,
            saving: false,
            error: None,
            top: 0,
            to_error: false,
            handed: None,
        }
    }

    pub fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    pub fn modified(&self) -> bool {
        self.text().trim_end() != self.original.trim_end()
    }

    /// Overwrites the decrypted text this editor holds, then drops it.
    pub fn wipe(self) {
        use zeroize::Zeroize as _;
        let Editor { area, mut original, .. } = self;
        for mut line in area.into_lines() {
            line.zeroize();
        }
        original.zeroize();
    }
}

/// How many status messages the log keeps.
pub const MAX_MESSAGES: usize = 500;

/// A dialog over the panes.
pub enum Popup {
    Help {
        filter: String,
        selected: usize,
        /// The keys of the view in focus when `?` was pressed (its hint
        /// bar, whole), listed first.
        focus: Vec<(String, String)>,
    },
    /// Every status message of this session, in full, newest last.
    Messages {
        scroll: u16,
    },
    Palette {
        input: String,
        selected: usize,
        /// What the command line typed would do (`graph NAME`: the node).
        preview: Option<super::palette::LinePreview>,
    },
    Unlock {
        human: bool,
        input: Zeroizing<String>,
        error: Option<String>,
        busy: bool,
    },
    Reason {
        ids: Vec<String>,
        input: String,
        error: Option<String>,
    },
    /// A request for changes: the comment, on the whole proposal or on
    /// change `change` (1-based) of its `changes`.
    ChangesComment {
        id: String,
        changes: usize,
        change: Option<usize>,
        input: String,
        error: Option<String>,
    },
    Confirm {
        text: String,
        then: Confirmed,
    },
    /// Why `deprecated` goes when a contradiction is resolved by keeping
    /// `kept` (prefilled; confirmed next).
    KeepReason {
        kept: String,
        deprecated: String,
        input: String,
        error: Option<String>,
    },
    Stale {
        id: String,
        versions: String,
        /// Each stale node's three versions, drawn side by side.
        three: Vec<crate::shared::three_way::ThreeWay>,
        /// The edited text, when the stale accept was of an edit.
        edit: Option<String>,
        /// Its other flags (security lints), said in this one dialog.
        flags: Vec<String>,
    },
    Editor(Box<Editor>),
    /// A near-duplicate merged into the node it duplicates, for review.
    Merge(Box<crate::app::panes::queue::data::MergeView>),
    /// The Graph pane's fuzzy jump.
    Jump(Box<JumpDialog>),
    /// The Graph pane's type or relation picker.
    Facets(FacetPicker),
    /// The file the Graph pane exports to.
    Export {
        input: String,
        error: Option<String>,
    },
    /// The point in time the Graph pane shows.
    AsOf {
        input: String,
        error: Option<String>,
    },
    /// A node's versions and their differences.
    History(Box<HistoryDialog>),
    /// The Graph pane's new / edit node form.
    NodeForm(Box<crate::app::panes::graph::form::NodeForm>),
    /// The format the Query pane copies its results in.
    CopyAs,
    /// The Query pane's history search.
    QueryHistory {
        input: String,
        entries: Option<Result<Vec<String>, String>>,
        selected: usize,
        generation: u64,
    },
    /// The name to save the query under.
    SaveQuery {
        input: String,
        error: Option<String>,
    },
    /// The file the Query pane exports its results to.
    QueryExport {
        input: String,
        error: Option<String>,
    },
    /// The agent id the Projection pane previews for.
    AgentId {
        input: String,
        error: Option<String>,
    },
    /// The Graph pane's curator lists.
    Curator(Box<CuratorDialog>),
    /// The relation of a new link from `from` (to it when `incoming`).
    Relation {
        from: String,
        input: String,
        selected: usize,
        incoming: bool,
    },
    /// A line of text a curation asks for (a reason).
    Prompt {
        title: String,
        text: String,
        input: String,
        error: Option<String>,
        then: PromptThen,
    },
}

impl Popup {
    /// The pane a dialog belongs to (its keys and drawing are there), or
    /// `None` for the shell's own.
    pub fn pane(&self) -> Option<Pane> {
        match self {
            Popup::Jump(_)
            | Popup::Facets(_)
            | Popup::Export { .. }
            | Popup::AsOf { .. }
            | Popup::History(_)
            | Popup::NodeForm(_)
            | Popup::Relation { .. }
            | Popup::Prompt { .. }
            | Popup::Curator(_) => Some(Pane::Graph),
            Popup::CopyAs | Popup::QueryExport { .. } | Popup::QueryHistory { .. } | Popup::SaveQuery { .. } => {
                Some(Pane::Query)
            }
            Popup::AgentId { .. } => Some(Pane::Projection),
            // The proposal dialogs: opened by the queue's decisions.
            Popup::Reason { .. }
            | Popup::ChangesComment { .. }
            | Popup::Stale { .. }
            | Popup::Merge(_)
            | Popup::Editor(_)
            | Popup::KeepReason { .. } => Some(Pane::Queue),
            Popup::Help { .. }
            | Popup::Messages { .. }
            | Popup::Palette { .. }
            | Popup::Unlock { .. }
            | Popup::Confirm { .. } => None,
        }
    }
}

impl Confirmed {
    /// The pane that asked, and so carries the confirmation out; `None`
    /// for the shell's own (quitting).
    pub fn pane(&self) -> Option<Pane> {
        match self {
            Confirmed::Accept(_)
            | Confirmed::AcceptMany(_)
            | Confirmed::RejectMany(..)
            | Confirmed::DiscardEdit
            | Confirmed::Resolve(_) => Some(Pane::Queue),
            Confirmed::Write(_) | Confirmed::DiscardForm => Some(Pane::Graph),
            Confirmed::Quit => None,
        }
    }
}

impl AppState {
    pub fn new(keymap: Keymap, store: String) -> Self {
        Self {
            keymap,
            mouse: true,
            pane: Pane::Queue,
            store,
            level: None,
            busy: Some("opening the store".into()),
            pending: 0,
            messages: Vec::new(),
            message_times: Vec::new(),
            rolled_back: None,
            message: None,
            queue: Queue::default(),
            graph: Graph::default(),
            query: crate::app::panes::query::QueryPane::default(),
            projection: crate::app::panes::projection::ProjectionPane::default(),
            popups: Vec::new(),
            size: (80, 24),
            quit: false,
            generation: 0,
            now_ms: 0,
        }
    }

    /// Whether an edit would be lost by quitting.
    pub fn unsaved_edit(&self) -> bool {
        self.popups
            .iter()
            .any(|p| matches!(p, Popup::Editor(e) if e.modified()))
    }

    pub fn next_generation(&mut self) -> u64 {
        self.generation += 1;
        self.generation
    }

    pub fn info(&mut self, text: impl Into<String>) {
        self.say(text.into(), Tone::Ok);
    }

    pub fn error(&mut self, text: impl Into<String>) {
        self.say(text.into(), Tone::Error);
    }

    /// Shows `text` on the status line and keeps it, in full, in the
    /// message log (`M`, `:messages`): a long message is never lost to the
    /// line's width.
    pub fn say(&mut self, text: String, tone: Tone) {
        if self.messages.len() >= MAX_MESSAGES {
            self.messages.remove(0);
            if !self.message_times.is_empty() {
                self.message_times.remove(0);
            }
        }
        self.messages.push((text.clone(), tone));
        let at = graphex_engine::model::Timestamp::now().to_rfc3339();
        self.message_times.push(at.get(11..19).unwrap_or_default().to_owned());
        self.message = Some((text, tone));
    }

    /// One write at a time: a decision waits until the last one has come
    /// back with the queue as it is now.
    pub fn not_busy(&mut self) -> bool {
        match self.busy.clone() {
            Some(b) => {
                self.error(format!("still {b}; try again when it is done"));
                false
            }
            None => true,
        }
    }

    pub fn needs_master(&mut self) -> bool {
        if self.level.unwrap_or(Level::Locked) < Level::Master {
            self.error(if self.pane == Pane::Queue {
                "proposals are sealed to the master key: press U to unlock"
            } else {
                "changing the graph takes the master level: press U to unlock"
            });
            return false;
        }
        true
    }
}
