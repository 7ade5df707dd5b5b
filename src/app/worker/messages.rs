//! The messages between the UI and the engine worker: what the UI asks
//! (`Request`) and what the worker answers (`Reply`).

use std::path::PathBuf;

use graphex_engine::Level;
use graphex_engine::age_secret::SecretString;
use serde::{Deserialize, Serialize};

use crate::app::panes::graph::Place;
use crate::app::panes::graph::curate::Write;
use crate::app::panes::graph::curator::ListView;
use crate::app::panes::graph::data::{Neighbourhood, PathView};
use crate::app::panes::graph::form::Values;
use crate::app::panes::graph::history::HistoryView;
use crate::app::panes::graph::work::JumpHit;
use crate::app::panes::projection::review::{AuditView, ExposureView, ReplayView};
use crate::app::panes::projection::work::{PreviewView, Spec};
use crate::app::panes::query::work::{Completion, ErrorView, Format as QueryFormat, ResultsView};
use crate::app::panes::queue::data::{ImpactView, ItemLints, QueueSnapshot};

/// What the UI asks of the engine.
#[derive(Debug, Serialize, Deserialize)]
pub enum Request {
    /// Open the store with the credentials given at start.
    Open,
    LoadQueue,
    Impact {
        generation: u64,
        id: String,
    },
    Validate {
        generation: u64,
        text: String,
    },
    Accept {
        id: String,
        force: bool,
    },
    AcceptMany {
        ids: Vec<String>,
    },
    Reject {
        ids: Vec<String>,
        reason: String,
    },
    RequestChanges {
        id: String,
        comment: String,
        change: Option<usize>,
    },
    AcceptEdit {
        id: String,
        text: String,
        force: bool,
    },
    /// Read the store at git revision `rev` (the base of a range), for the
    /// Projection pane to compare with now; `label` names the range.
    OpenRange {
        rev: String,
        label: String,
    },
    /// A near-duplicate's `add_node` rewritten as an update of the node it
    /// duplicates, for review (nothing is written).
    MergeDraft {
        id: String,
    },
    Undo,
    /// Resolves a contradiction on the queue (keep one, or mark both
    /// disputed): curation writes, one commit per node.
    Resolve(Box<crate::app::panes::queue::contradiction::Resolution>),
    /// Makes the last decision undone in this session again.
    Redo,
    /// The neighbourhood of a place in the Graph pane.
    Show {
        generation: u64,
        place: Place,
    },
    /// One node of the neighbourhood for the inspector, read as `place`
    /// reads (now, or as of its point): `place.centre` is the node.
    Inspect {
        generation: u64,
        place: Place,
    },
    /// The fuzzy jump's hits for what is typed.
    Jump {
        generation: u64,
        query: String,
    },
    Path {
        generation: u64,
        from: String,
        to: String,
        place: Place,
    },
    /// The versions of a node, for the Graph pane's history.
    History {
        generation: u64,
        name: String,
    },
    /// Writes what the Graph pane shows to a new file.
    Export {
        place: Place,
        file: PathBuf,
    },
    /// A curation write from the Graph pane (one commit).
    Write(Box<Write>),
    /// Whether a new node's name is free.
    CheckName {
        generation: u64,
        name: String,
    },
    /// The types and relations in use, for the forms' pickers.
    Vocabulary {
        generation: u64,
    },
    /// Where the Graph pane starts: the best connected node.
    Start,
    /// The Query pane's results for a text.
    RunQuery {
        generation: u64,
        text: String,
    },
    /// Completions for the word at byte `cursor` of a query.
    Complete {
        generation: u64,
        text: String,
        cursor: usize,
    },
    /// Adds an executed query to the history.
    RecordQuery {
        text: String,
    },
    /// The history, newest first.
    QueryHistory {
        generation: u64,
    },
    /// The names of the saved queries.
    SavedQueries,
    LoadSaved {
        name: String,
    },
    SaveQuery {
        name: String,
        text: String,
    },
    /// The exposure report.
    ExposureReport {
        generation: u64,
    },
    /// The audit log, filtered.
    AuditList {
        generation: u64,
        agent: Option<String>,
        since: Option<graphex_engine::model::Timestamp>,
    },
    /// Records rebuilt from their projection hashes.
    AuditReplay {
        generation: u64,
        hashes: Vec<String>,
    },
    /// Every agent tier's projection of a subject (recorded as previews).
    Preview {
        generation: u64,
        spec: Spec,
    },
    /// Writes a query's results to a new file.
    ExportQuery {
        text: String,
        file: PathBuf,
    },
    /// A query's results in a format, for the clipboard.
    CopyQuery {
        text: String,
        format: QueryFormat,
    },
    /// A curator list.
    Curator {
        generation: u64,
        kind: String,
        sort: graphex_engine::curate::SortBy,
        descending: bool,
        now: graphex_engine::model::Timestamp,
    },
    /// A node's current values, for the edit form.
    EditValues {
        name: String,
    },
    /// What moving a node to a tier would change in agent projections.
    Exposure {
        generation: u64,
        name: String,
        tier: graphex_engine::Tier,
    },
    Unlock {
        human: bool,
        #[serde(with = "crate::shared::secret_text")]
        passphrase: SecretString,
    },
    Lock,
    /// The console is closing: finish the decisions already asked for,
    /// skip the reads, stop.
    Shutdown,
}

impl Request {
    /// The request's name in the log.
    pub fn kind(&self) -> &'static str {
        match self {
            Request::Open => "open",
            Request::LoadQueue => "load-queue",
            Request::Impact { .. } => "impact",
            Request::Validate { .. } => "validate",
            Request::Accept { .. } => "accept",
            Request::AcceptMany { .. } => "accept-many",
            Request::Reject { .. } => "reject",
            Request::RequestChanges { .. } => "request changes",
            Request::AcceptEdit { .. } => "accept-edit",
            Request::MergeDraft { .. } => "merge-draft",
            Request::Undo => "undo",
            Request::Resolve(_) => "resolve",
            Request::Show { .. } => "show",
            Request::Redo => "redo",
            Request::Inspect { .. } => "inspect",
            Request::Jump { .. } => "jump",
            Request::Path { .. } => "path",
            Request::History { .. } => "history",
            Request::Write(_) => "write",
            Request::CheckName { .. } => "check-name",
            Request::Vocabulary { .. } => "vocabulary",
            Request::EditValues { .. } => "edit-values",
            Request::Exposure { .. } => "exposure",
            Request::Curator { .. } => "curator",
            Request::Start => "start",
            Request::RunQuery { .. } => "run-query",
            Request::Preview { .. } => "preview",
            Request::OpenRange { .. } => "open-range",
            Request::ExposureReport { .. } => "exposure-report",
            Request::AuditList { .. } => "audit-list",
            Request::AuditReplay { .. } => "audit-replay",
            Request::RecordQuery { .. } => "record-query",
            Request::QueryHistory { .. } => "query-history",
            Request::SavedQueries => "saved-queries",
            Request::LoadSaved { .. } => "load-saved",
            Request::SaveQuery { .. } => "save-query",
            Request::Complete { .. } => "complete",
            Request::ExportQuery { .. } => "export-query",
            Request::CopyQuery { .. } => "copy-query",
            Request::Export { .. } => "export",
            Request::Unlock { .. } => "unlock",
            Request::Lock => "lock",
            Request::Shutdown => "shutdown",
        }
    }

    /// Whether this request changes the store (such requests are never
    /// dropped, merged or left unfinished).
    pub fn decides(&self) -> bool {
        matches!(
            self,
            Request::Accept { .. }
                | Request::AcceptMany { .. }
                | Request::Reject { .. }
                | Request::AcceptEdit { .. }
                | Request::Undo
                | Request::Resolve(_)
                | Request::Redo
                | Request::Write(_)
                | Request::SaveQuery { .. }
                | Request::RecordQuery { .. }
        )
    }
}

/// What the engine answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Reply {
    Opened {
        level: Level,
        root: String,
    },
    /// The store could not be opened at all.
    OpenFailed(String),
    /// The store opened read-only: it went back (the text says how and
    /// what resolves it). Sent after `Opened`.
    RolledBack(String),
    Queue(QueueSnapshot),
    /// Lints of queued proposals, by id, once checked.
    Lints(Vec<(String, ItemLints)>),
    /// Below the master level proposals stay sealed: only their number.
    Sealed {
        pending: usize,
        /// The open contradictions this level reads (shown read-only).
        contradictions: Vec<crate::app::panes::queue::contradiction::ContradictionItem>,
        /// How many are open in all (more than listed on a large graph).
        #[serde(default)]
        contradictions_total: usize,
    },
    Impact {
        generation: u64,
        id: String,
        result: Result<Vec<ImpactView>, String>,
    },
    Validated {
        generation: u64,
        result: Result<usize, String>,
    },
    /// A decision was made; the message says which.
    Done(String),
    /// A request failed; nothing changed.
    Failed(String),
    /// Accept refused: the proposal's base is stale. `versions` shows base,
    /// current and proposed.
    Stale {
        id: String,
        versions: String,
        /// Each stale node's three versions, side by side.
        three: Vec<crate::shared::three_way::ThreeWay>,
        edit: bool,
    },
    /// The merge of a near-duplicate, ready for review.
    MergeDraft(Box<crate::app::panes::queue::data::MergeView>),
    EditSaved(String),
    EditFailed(String),
    Unlocked(Level),
    UnlockFailed(String),
    Shown {
        generation: u64,
        result: Box<Result<Neighbourhood, String>>,
    },
    Inspected {
        generation: u64,
        result: Box<Result<crate::app::panes::graph::data::Inspector, String>>,
    },
    Jumped {
        generation: u64,
        hits: Vec<JumpHit>,
    },
    Path {
        generation: u64,
        result: Result<PathView, String>,
    },
    History {
        generation: u64,
        result: Result<HistoryView, String>,
    },
    /// A curation write was made; `open` is the node to show after it.
    Written {
        text: String,
        open: Option<String>,
    },
    /// A curation write was refused; nothing changed.
    WriteFailed(String),
    /// Not written: its text names more secret nodes (each finding); the
    /// write comes back to be confirmed.
    WriteFlagged {
        write: Box<crate::app::panes::graph::curate::Write>,
        flags: Vec<String>,
    },
    Curator {
        generation: u64,
        result: Result<ListView, String>,
    },
    Start(Option<String>),
    QueryResult {
        generation: u64,
        result: Box<Result<ResultsView, ErrorView>>,
    },
    Completed {
        generation: u64,
        completion: Completion,
    },
    /// Text for the clipboard.
    Clipboard(String),
    QueryHistory {
        generation: u64,
        result: Result<Vec<String>, String>,
    },
    SavedList(Vec<String>),
    /// A saved query's name and text.
    SavedLoaded(Result<(String, String), String>),
    ExposureReport {
        generation: u64,
        result: Result<ExposureView, String>,
    },
    AuditList {
        generation: u64,
        result: Result<AuditView, String>,
    },
    Replayed {
        generation: u64,
        result: Result<Vec<ReplayView>, String>,
    },
    Previewed {
        generation: u64,
        result: Box<Result<PreviewView, String>>,
    },
    /// A revision range's base is open: the range, and the nodes changed
    /// since it (by name), or why it is not.
    RangeOpened {
        label: String,
        result: Result<Vec<String>, String>,
    },
    NameChecked {
        generation: u64,
        result: Result<(), String>,
    },
    Vocabulary {
        generation: u64,
        types: Vec<(String, usize)>,
        relations: Vec<(String, usize)>,
    },
    EditValues {
        name: String,
        result: Result<Box<Values>, String>,
    },
    Exposure {
        generation: u64,
        result: Result<Vec<String>, String>,
    },
    /// The graph changed (a decision here, or another process's write):
    /// what the Graph pane shows is asked for again.
    GraphChanged,
}
