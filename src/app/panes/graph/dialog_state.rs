//! The state of the Graph pane's dialogs (the jump, the pickers, a node's
//! history, the curator lists, the text prompt), apart from their keys and
//! drawing: the console's state holds these, so they import nothing of it.

use std::collections::BTreeSet;

use graphex_engine::curate::SortBy;

use super::history::HistoryView;
use super::work::JumpHit;
use crate::widgets::picker::PickRow;

/// What choosing a node in the jump does.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Purpose {
    /// Opens it in the pane.
    #[default]
    Open,
    /// Links `from` to it (it to `from` when `incoming`).
    LinkTo {
        from: String,
        relation: String,
        incoming: bool,
    },
    /// Makes it the successor of `old`.
    SupersededBy { old: String },
    /// Projects around it in the Projection pane.
    Project,
}

impl Purpose {
    pub fn title(&self) -> String {
        match self {
            Purpose::Open => "Jump to a node".into(),
            Purpose::LinkTo {
                from,
                relation,
                incoming: false,
            } => format!("Link {from} {relation} … (choose the target)"),
            Purpose::LinkTo {
                from,
                relation,
                incoming: true,
            } => format!("Link … {relation} {from} (choose the source)"),
            Purpose::SupersededBy { old } => format!("What supersedes {old}? (choose the successor)"),
            Purpose::Project => "Project around which node?".into(),
        }
    }
}

/// The jump: what is typed and the worker's hits for it.
#[derive(Debug, Default)]
pub struct JumpDialog {
    pub purpose: Purpose,
    pub input: String,
    pub hits: Vec<JumpHit>,
    pub selected: usize,
    /// The search the hits are awaited for.
    pub generation: u64,
    pub searching: bool,
}

/// A node's history: the versions, the one selected, and the version it is
/// compared from (the one before it, unless another was picked).
#[derive(Debug, Default)]
pub struct HistoryDialog {
    pub name: String,
    pub generation: u64,
    pub view: Option<Result<HistoryView, String>>,
    pub selected: usize,
    pub base: Option<usize>,
    /// Where the differences are shown from, and whether folded.
    pub place: crate::widgets::line_diff::DiffPlace,
}

impl HistoryDialog {
    /// The versions compared: (from, to), indexes into the versions.
    pub fn compared(&self) -> Option<(usize, usize)> {
        let n = self.view.as_ref()?.as_ref().ok()?.versions.len();
        if n == 0 {
            return None;
        }
        let to = self.selected.min(n - 1);
        let from = match self.base {
            Some(b) if b != to => b.min(n - 1),
            _ => to.saturating_sub(1),
        };
        Some((from, to))
    }

    /// The two versions compared, through the console's one diff.
    pub fn diff(&self, changes_only: bool) -> Option<crate::widgets::line_diff::Diff> {
        let (from, to) = self.compared().filter(|(f, t)| f != t)?;
        let v = self.view.as_ref()?.as_ref().ok()?;
        Some(super::history::compare(
            &v.versions[from],
            &v.versions[to],
            changes_only,
        ))
    }
}

/// Which filter a picker sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FacetKind {
    Types,
    Relations,
}

impl FacetKind {
    pub fn title(self) -> &'static str {
        match self {
            FacetKind::Types => "Show node types (space picks, enter applies, backspace: all)",
            FacetKind::Relations => "Follow relations (space picks, enter applies, backspace: all)",
        }
    }
}

/// A picker of types or relations with their counts in the neighbourhood.
#[derive(Debug)]
pub struct FacetPicker {
    pub kind: FacetKind,
    pub rows: Vec<(String, usize)>,
    pub chosen: BTreeSet<String>,
    pub selected: usize,
}

impl FacetPicker {
    /// Rows as the picker draws them: `[x] name   count`.
    pub fn pick_rows(&self) -> Vec<PickRow> {
        self.rows
            .iter()
            .map(|(name, count)| PickRow {
                left: if self.chosen.contains(name) { "[x]" } else { "[ ]" }.to_owned(),
                text: format!("{name}  ({count})"),
                matched: Vec::new(),
            })
            .collect()
    }
}

/// What a text prompt leads to.
#[derive(Clone, Debug, PartialEq)]
pub enum PromptThen {
    Deprecate {
        name: String,
    },
    Supersede {
        old: String,
        new: String,
    },
    /// The reason of a supersede by a successor not written yet (the
    /// form stays open behind): both are written in one commit.
    SupersedeNew {
        old: String,
        node: Box<graphex_engine::model::NewNode>,
    },
}

/// The sorts the curator lists go through.
pub const SORTS: [SortBy; 4] = [SortBy::Name, SortBy::LastChange, SortBy::Scope, SortBy::Links];

/// One row of the table.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EntryView {
    pub name: String,
    pub node_type: String,
    pub status: String,
    pub last_change_ms: i64,
    pub scope: Option<String>,
    pub links: usize,
    /// What needs care, in words.
    pub flags: Vec<String>,
}

/// A list as the dialog draws it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ListView {
    pub rows: Vec<EntryView>,
    /// (term, the node mentioning it without a link).
    pub mentions: Vec<(String, String)>,
}

/// The dialog.
#[derive(Debug, Default)]
pub struct CuratorDialog {
    pub kind: usize,
    pub sort: usize,
    pub descending: bool,
    pub generation: u64,
    pub list: Option<Result<ListView, String>>,
    pub selected: usize,
    /// Showing the mention suggestions instead of the entries.
    pub mentions: bool,
    /// The in-list filter (`/`): only rows whose name, scope or flags (or
    /// a mention's term or node) hold it.
    pub filter: crate::app::filter_line::FilterLine,
}

impl ListView {
    /// The rows and mentions that hold `filter`.
    pub fn filtered(&self, filter: &crate::app::filter_line::FilterLine) -> ListView {
        let row_texts = |r: &EntryView| {
            let mut texts = vec![r.name.clone()];
            texts.extend(r.scope.clone());
            texts.extend(r.flags.iter().cloned());
            texts
        };
        ListView {
            rows: self
                .rows
                .iter()
                .filter(|r| filter.holds(row_texts(r).iter().map(String::as_str)))
                .cloned()
                .collect(),
            mentions: self
                .mentions
                .iter()
                .filter(|(term, by)| filter.holds([term.as_str(), by.as_str()]))
                .cloned()
                .collect(),
        }
    }
}

impl CuratorDialog {
    /// The list as shown: filtered.
    pub(crate) fn visible(&self) -> Option<Result<ListView, String>> {
        match &self.list {
            Some(Ok(l)) => Some(Ok(l.filtered(&self.filter))),
            other => other.clone(),
        }
    }

    pub fn sort_by(&self) -> SortBy {
        SORTS[self.sort % SORTS.len()]
    }

    pub(crate) fn len(&self) -> usize {
        match &self.visible() {
            Some(Ok(l)) if self.mentions => l.mentions.len(),
            Some(Ok(l)) => l.rows.len(),
            _ => 0,
        }
    }
}
