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
    Edit,
    Skip,
    ToggleSelect,
    AcceptSelection,
    RejectSelection,
    Undo,
    ToggleInfo,
    ToggleDiff,
    OpenNode,
    Jump,
    Recentre,
    Back,
    Forward,
    Deeper,
    Shallower,
    Direction,
    FilterTypes,
    FilterRelations,
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

const fn info(action: Action, name: &'static str, hint: &'static str, help: &'static str, scope: Scope) -> Info {
    Info {
        action,
        name,
        hint,
        help,
        scope,
    }
}

const G: Scope = Scope::Global;
const Q: Scope = Scope::Pane(Pane::Queue);
const GR: Scope = Scope::Pane(Pane::Graph);
const L: Scope = Scope::Lists;
const QY: Scope = Scope::Pane(Pane::Query);
const PR: Scope = Scope::Pane(Pane::Projection);

/// Every action, in the order help lists them.
pub const ALL: &[Info] = &[
    info(
        Action::Accept,
        "accept",
        "accept",
        "Accept the selected proposal (all its changes, one commit)",
        Q,
    ),
    info(
        Action::Reject,
        "reject",
        "reject",
        "Reject the selected proposal with a reason the agent can read",
        Q,
    ),
    info(
        Action::Edit,
        "edit",
        "edit",
        "Edit the selected proposal, then accept the edit on save",
        Q,
    ),
    info(
        Action::Skip,
        "skip",
        "skip",
        "Skip the selected proposal for now and go to the next",
        Q,
    ),
    info(
        Action::ToggleSelect,
        "toggle_select",
        "select",
        "Select or unselect the proposal for A/R",
        Q,
    ),
    info(
        Action::AcceptSelection,
        "accept_selection",
        "accept sel/session",
        "Accept the selected proposals, or the whole session when none is selected",
        Q,
    ),
    info(
        Action::RejectSelection,
        "reject_selection",
        "reject sel/session",
        "Reject the selected proposals, or the whole session when none is selected",
        Q,
    ),
    info(
        Action::Undo,
        "undo",
        "undo",
        "Undo the last change: a decision or a curation (a new timeline entry)",
        G,
    ),
    info(
        Action::ToggleInfo,
        "toggle_info",
        "info",
        "Show or hide the card's header, rationale and lints",
        Q,
    ),
    info(
        Action::ToggleDiff,
        "toggle_diff",
        "diff",
        "Show or hide the card's changes and diffs",
        Q,
    ),
    info(
        Action::OpenNode,
        "open_node",
        "open node",
        "Open the node the selected proposal touches in the Graph pane",
        Q,
    ),
    info(
        Action::PreviewImpact,
        "preview_impact",
        "preview",
        "What each agent tier receives around the proposal's centre, before and after accepting it",
        Q,
    ),
    info(
        Action::Jump,
        "jump",
        "jump",
        "Jump to a node: fuzzy search over names, then descriptions",
        GR,
    ),
    info(
        Action::Recentre,
        "recentre",
        "recentre",
        "Recentre on the selected neighbour (on a group: open it)",
        GR,
    ),
    info(Action::Back, "back", "back", "Back to the previous centre", GR),
    info(
        Action::Forward,
        "forward",
        "forward",
        "Forward again after going back",
        GR,
    ),
    info(
        Action::Deeper,
        "deeper",
        "depth+",
        "Show one more ring of neighbours",
        GR,
    ),
    info(Action::Shallower, "shallower", "depth-", "Show one ring fewer", GR),
    info(
        Action::Direction,
        "direction",
        "direction",
        "Follow edges both ways, outgoing only, or incoming only",
        GR,
    ),
    info(
        Action::FilterTypes,
        "filter_types",
        "types",
        "Show only some node types (a picker with counts)",
        GR,
    ),
    info(
        Action::FilterRelations,
        "filter_relations",
        "relations",
        "Follow only some relations (a picker with counts)",
        GR,
    ),
    info(
        Action::ShowInactive,
        "show_inactive",
        "inactive",
        "Show deprecated and archived nodes too (dimmed), or active ones only",
        GR,
    ),
    info(
        Action::Mark,
        "mark",
        "mark",
        "Mark the selected node (the centre when none is selected) as a path's start",
        GR,
    ),
    info(
        Action::Path,
        "path",
        "path",
        "Show the shortest path from the mark to the centre",
        GR,
    ),
    info(
        Action::ToggleBranch,
        "toggle_branch",
        "fold",
        "Collapse or expand the selected branch, or open a group",
        GR,
    ),
    info(
        Action::Export,
        "export",
        "export",
        "Export what is on screen to a file: .mmd for Mermaid, .dot for DOT",
        GR,
    ),
    info(
        Action::AsOf,
        "as_of",
        "as of",
        "Show the neighbourhood as it was at a date or timeline entry (empty: now)",
        GR,
    ),
    info(
        Action::History,
        "history",
        "history",
        "The selected node's versions: who, when, which proposal, and word diffs",
        GR,
    ),
    info(
        Action::NewNode,
        "new_node",
        "new",
        "New node: a form checked as you type (master level)",
        GR,
    ),
    info(
        Action::EditNode,
        "edit_node",
        "edit",
        "Edit the selected node; its field diff shows before saving",
        GR,
    ),
    info(
        Action::Link,
        "link",
        "link",
        "Link the selected node to another: pick a relation, then the target",
        GR,
    ),
    info(
        Action::Unlink,
        "unlink",
        "unlink",
        "Remove the edge that reached the selected neighbour",
        GR,
    ),
    info(
        Action::Deprecate,
        "deprecate",
        "deprecate",
        "Deprecate the selected node, with a reason",
        GR,
    ),
    info(
        Action::Supersede,
        "supersede",
        "supersede",
        "Supersede the selected node: pick its successor (the old one is deprecated)",
        GR,
    ),
    info(Action::Archive, "archive", "archive", "Archive the selected node", GR),
    info(
        Action::Restore,
        "restore",
        "restore",
        "Restore the selected deprecated or archived node to active",
        GR,
    ),
    info(
        Action::Curator,
        "curator",
        "curator lists",
        "Curator lists: conventions, glossary, decisions… sortable, with what needs care",
        GR,
    ),
    info(
        Action::EditQuery,
        "edit_query",
        "edit",
        "Back to the query editor (esc leaves it for the results)",
        QY,
    ),
    info(
        Action::OpenResult,
        "open_result",
        "open",
        "Open the selected result's last node in the Graph pane",
        QY,
    ),
    info(
        Action::CycleView,
        "cycle_view",
        "view",
        "Show the results as a table, a tree by first hop, or JSON",
        QY,
    ),
    info(
        Action::AsTier,
        "as_tier",
        "as tier",
        "Match as a tier would: cycles --tier public, agent-readable, agent-restricted, none",
        QY,
    ),
    info(
        Action::ExportResults,
        "export_results",
        "export",
        "Export the results to a new file: .json, .mmd or .dot",
        QY,
    ),
    info(
        Action::CopyResults,
        "copy_results",
        "copy",
        "Copy the results (JSON, Mermaid or DOT) to the clipboard, over ssh and tmux too",
        QY,
    ),
    info(
        Action::QueryHistory,
        "query_history",
        "history",
        "Search the queries run here before (fuzzy; kept sealed per store, master level)",
        QY,
    ),
    info(
        Action::SaveQuery,
        "save_query",
        "save",
        "Save the query under a name, in the store, for the team (:q NAME loads it)",
        QY,
    ),
    info(
        Action::Project,
        "project",
        "project",
        "What each agent tier receives around the selected node (the Projection pane)",
        GR,
    ),
    info(
        Action::ProjectQuery,
        "project_query",
        "project",
        "What each agent tier receives for this query (the Projection pane)",
        QY,
    ),
    info(
        Action::ChooseSubject,
        "choose_subject",
        "node",
        "Choose the node to project (fuzzy search)",
        PR,
    ),
    info(
        Action::BudgetUp,
        "budget_up",
        "budget+",
        "A larger token budget (+250)",
        PR,
    ),
    info(
        Action::BudgetDown,
        "budget_down",
        "budget-",
        "A smaller token budget (-250)",
        PR,
    ),
    info(Action::TrustUp, "trust_up", "trust+", "Trust slider up 0.1", PR),
    info(Action::TrustDown, "trust_down", "trust-", "Trust slider down 0.1", PR),
    info(Action::TrustUpMore, "trust_up_more", "trust++", "Trust slider up 5", PR),
    info(
        Action::TrustDownMore,
        "trust_down_more",
        "trust--",
        "Trust slider down 5",
        PR,
    ),
    info(
        Action::NextTier,
        "next_tier",
        "next tier",
        "The next tier's tab (narrow screens)",
        PR,
    ),
    info(
        Action::PrevTier,
        "prev_tier",
        "prev tier",
        "The previous tier's tab (narrow screens)",
        PR,
    ),
    info(
        Action::ToggleWhy,
        "toggle_why",
        "why",
        "Show why each node is in (distance, score) or out (tier, status, budget), or the text",
        PR,
    ),
    info(
        Action::ToggleTierDiff,
        "toggle_tier_diff",
        "diff",
        "Diff mode: what one tier receives that another does not, line by line",
        PR,
    ),
    info(
        Action::CycleTierDiff,
        "cycle_tier_diff",
        "diff pair",
        "Diff agent-readable/public, agent-restricted/agent-readable, agent-restricted/public",
        PR,
    ),
    info(
        Action::WhatIf,
        "what_if",
        "what if",
        "What if the node moved to another tier: cycle a tier and see which projections change, by how many tokens (nothing is written)",
        PR,
    ),
    info(
        Action::ShowExposure,
        "show_exposure",
        "exposure",
        "Exposure: what each tier holds and adds, and the leak findings (again: back to the previews)",
        PR,
    ),
    info(
        Action::ShowAudit,
        "show_audit",
        "audit",
        "Audit browser: projection and preview records, the chain's state, replay, diff (again: back)",
        PR,
    ),
    info(
        Action::ReviewOpen,
        "review_open",
        "open / replay",
        "Exposure: open the node in the Graph pane; audit: replay the record (with a marked one: diff the two)",
        PR,
    ),
    info(
        Action::ReviewFix,
        "review_fix",
        "fix",
        "Exposure: edit the node (tier, text) through the Graph pane's form and its confirmations",
        PR,
    ),
    info(
        Action::AuditMark,
        "audit_mark",
        "mark",
        "Audit: mark a record to diff another against it",
        PR,
    ),
    info(
        Action::AuditAgent,
        "audit_agent",
        "agent",
        "Audit: only one agent's records (cycles through them, then all)",
        PR,
    ),
    info(
        Action::AuditSince,
        "audit_since",
        "since",
        "Audit: records of the last day, week, month, or all",
        PR,
    ),
    info(
        Action::AgentId,
        "agent_id",
        "agent",
        "The agent id the previews are made and recorded for",
        PR,
    ),
    info(Action::Up, "up", "up", "Previous row", L),
    info(Action::Down, "down", "down", "Next row", L),
    info(Action::PageUp, "page_up", "page up", "Up a page", L),
    info(Action::PageDown, "page_down", "page down", "Down a page", L),
    info(Action::Top, "top", "first", "First row", L),
    info(Action::Bottom, "bottom", "last", "Last row", L),
    info(
        Action::CardUp,
        "card_up",
        "scroll card",
        "Scroll the card or inspector up",
        L,
    ),
    info(
        Action::CardDown,
        "card_down",
        "scroll card",
        "Scroll the card or inspector down",
        L,
    ),
    info(
        Action::Help,
        "help",
        "help",
        "List every key binding (type to search)",
        G,
    ),
    info(
        Action::Palette,
        "palette",
        "commands",
        "Command palette: run any action by name",
        G,
    ),
    info(Action::NextPane, "next_pane", "next pane", "Next pane", G),
    info(Action::PrevPane, "prev_pane", "previous pane", "Previous pane", G),
    info(Action::ShowQueue, "show_queue", "queue", "Go to the proposal queue", G),
    info(Action::ShowGraph, "show_graph", "graph", "Go to the graph pane", G),
    info(Action::ShowQuery, "show_query", "query", "Go to the query pane", G),
    info(
        Action::ShowProjection,
        "show_projection",
        "projection",
        "Go to the projection pane",
        G,
    ),
    info(
        Action::Unlock,
        "unlock",
        "unlock",
        "Unlock the next level (master, then human-only)",
        G,
    ),
    info(
        Action::UnlockHuman,
        "unlock_human",
        "unlock human",
        "Unlock the human-only level",
        G,
    ),
    info(
        Action::Lock,
        "lock",
        "lock",
        "Lock and clear: drop every key, wipe decrypted content from memory and the screen",
        G,
    ),
    info(
        Action::Refresh,
        "refresh",
        "refresh",
        "Reload proposals and the store now",
        G,
    ),
    info(
        Action::Quit,
        "quit",
        "quit",
        "Quit (asks only when an edit is unsaved)",
        G,
    ),
    info(Action::ForceQuit, "force_quit", "quit now", "Quit at once", G),
];

impl Action {
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
