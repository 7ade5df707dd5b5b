//! Actions: the one vocabulary every key, click and palette entry maps to.
//! Each action has a name (used in keymap files and the palette), a
//! one-line description and the pane it belongs to; the hint bar, `?` help
//! and the palette are generated from this table.

use serde::{Deserialize, Serialize};

/// Where an action applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pane {
    Queue,
    Graph,
    Query,
    Projection,
}

impl Pane {
    pub const ALL: [Pane; 4] = [Pane::Queue, Pane::Graph, Pane::Query, Pane::Projection];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Queue => "Queue",
            Pane::Graph => "Graph",
            Pane::Query => "Query",
            Pane::Projection => "Projection",
        }
    }

    /// The keymap section naming this pane.
    pub fn section(self) -> &'static str {
        match self {
            Pane::Queue => "queue",
            Pane::Graph => "graph",
            Pane::Query => "query",
            Pane::Projection => "projection",
        }
    }
}

/// The scope of an action: everywhere, every pane with a list (moving
/// and scrolling), or one pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    Global,
    Lists,
    Pane(Pane),
}

/// Everything the console can be asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    ForceQuit,
    Help,
    Messages,
    Palette,
    NextPane,
    PrevPane,
    ShowQueue,
    ShowGraph,
    ShowQuery,
    ShowProjection,
    Unlock,
    UnlockHuman,
    Lock,
    Refresh,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    CardUp,
    CardDown,
    Accept,
    Reject,
    RequestChanges,
    Edit,
    Skip,
    NextAttention,
    PrevAttention,
    ToggleSelect,
    AcceptSelection,
    RejectSelection,
    KeepLeft,
    KeepRight,
    MarkDisputed,
    Undo,
    Redo,
    ToggleInfo,
    ToggleDiff,
    OpenNode,
    MergeDuplicate,
    Jump,
    Recentre,
    Back,
    Forward,
    Deeper,
    Shallower,
    Direction,
    FilterTypes,
    FilterRelations,
    FilterRings,
    ShowInactive,
    Mark,
    Path,
    ToggleBranch,
    Export,
    AsOf,
    History,
    NewNode,
    EditNode,
    Link,
    Unlink,
    Deprecate,
    Supersede,
    Archive,
    Restore,
    Curator,
    EditQuery,
    CycleView,
    AsTier,
    OpenResult,
    ExportResults,
    CopyResults,
    QueryHistory,
    SaveQuery,
    Project,
    ProjectQuery,
    PreviewImpact,
    ChooseSubject,
    BudgetUp,
    BudgetDown,
    TrustUp,
    TrustDown,
    TrustUpMore,
    TrustDownMore,
    NextTier,
    PrevTier,
    ToggleWhy,
    ToggleTierDiff,
    CycleTierDiff,
    NextChange,
    PrevChange,
    ChangesOnly,
    WhatIf,
    ShowExposure,
    ShowAudit,
    ReviewOpen,
    ReviewFix,
    AuditMark,
    AuditAgent,
    AuditSince,
    AgentId,
}

/// The name, description and scope of an action.
pub struct Info {
    pub action: Action,
    pub name: &'static str,
    /// A short label for the hint bar.
    pub hint: &'static str,
    pub help: &'static str,
    pub scope: Scope,
}

mod table;
pub use table::ALL;

impl Action {
    /// Whether the action decides proposals: never run from another pane
    /// through the palette or help before the card is on screen.
    pub fn decides(self) -> bool {
        matches!(
            self,
            Action::Accept
                | Action::Reject
                | Action::RequestChanges
                | Action::AcceptSelection
                | Action::RejectSelection
                | Action::KeepLeft
                | Action::KeepRight
                | Action::MarkDisputed
        )
    }

    pub fn info(self) -> &'static Info {
        // Every action has a row; the test below holds the table to that.
        ALL.iter().find(|i| i.action == self).unwrap_or(&ALL[ALL.len() - 1])
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn from_name(name: &str) -> Option<Action> {
        ALL.iter().find(|i| i.name == name).map(|i| i.action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_has_one_row_and_its_serde_name() {
        let names: std::collections::HashSet<&str> = ALL.iter().map(|i| i.name).collect();
        assert_eq!(names.len(), ALL.len(), "names are unique");
        for i in ALL {
            assert_eq!(i.action.info().name, i.name);
            assert_eq!(Action::from_name(i.name), Some(i.action));
            let json = serde_json::to_string(&i.action).unwrap();
            assert_eq!(json, format!("\"{}\"", i.name), "serde and table agree");
        }
        assert_eq!(Action::from_name("explode"), None);
    }
}
