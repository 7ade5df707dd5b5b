//! The Projection pane: what each agent tier would receive for a node or a
//! query, side by side on a wide terminal (tabs on a narrow one), with a
//! token meter per tier, why each node is in or out, a diff between two
//! tiers, and the trust slider with the store's thresholds.
//!
//! - `work`: the worker's previews (recorded in the audit log);
//! - `update`: the pane's keys and the worker's answers;
//! - `view`: drawing the pane; `tier_diff`: the diff of two texts and
//!   moving through its changes;
//! - `review`, `review_ui`, `exposure`: the reviewer's views (exposure,
//!   audit) beside the previews;
//! - `component`: the pane as the shell routes to it.

pub mod audit_filter;
pub mod component;
pub mod exposure;
#[cfg(test)]
mod exposure_tests;
pub mod range;
pub mod review;
pub mod review_ui;
#[cfg(test)]
mod tests;
pub mod tier_diff;
#[cfg(test)]
mod tier_diff_tests;
pub mod update;
pub mod view;
pub mod work;

use work::{PreviewView, Spec};

/// The tier pairs diff mode compares: (A, B), what B receives beyond A.
pub const PAIRS: [(usize, usize); 3] = [(0, 1), (1, 2), (0, 2)];

/// The budget a preview starts with (as `graphex project`).
pub const BUDGET: usize = 8000;

/// The projections a hypothetical tier would change, in words, once the
/// worker has answered.
pub type WhatIfAnswer = Option<Result<Vec<String>, String>>;

/// The Projection pane.
pub struct ProjectionPane {
    pub spec: Option<Spec>,
    /// The trust score on the slider, and the tier it maps to is marked.
    pub trust: f64,
    pub generation: u64,
    pub shown: Option<Result<PreviewView, String>>,
    /// The tier shown on a narrow screen.
    pub tab: usize,
    /// Show each node's verdict instead of the text.
    pub why: bool,
    /// Diff mode: an index into [`PAIRS`].
    pub diff: Option<usize>,
    /// The diff shows its changes only, each unchanged run folded.
    pub changes_only: bool,
    /// Screen rows; in diff mode, diff lines.
    pub scroll: u16,
    /// What-if: the tier the subject node hypothetically moves to, and the
    /// projections that would change.
    pub what_if: Option<(graphex_engine::model::Tier, WhatIfAnswer)>,
    pub what_if_generation: u64,
    /// The reviewer's views beside the previews.
    pub review: review_ui::Review,
    /// The graph changed while the pane was hidden: its texts are computed
    /// (and recorded) when it is next shown, never for nobody.
    pub stale: bool,
    /// A revision range the pane compares with (`graphex diff --console`):
    /// asked for when the store opens, again after an unlock.
    pub range: Option<RangeAsked>,
}

/// A revision range: its base revision, its name, and whether the worker
/// holds its base open.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeAsked {
    pub rev: String,
    pub label: String,
    pub open: bool,
}

impl Default for ProjectionPane {
    fn default() -> Self {
        Self {
            spec: None,
            trust: 80.0,
            generation: 0,
            shown: None,
            tab: 1,
            why: false,
            diff: None,
            changes_only: false,
            range: None,
            scroll: 0,
            what_if: None,
            what_if_generation: 0,
            review: review_ui::Review::default(),
            stale: false,
        }
    }
}

impl ProjectionPane {
    /// Drops every projected text (lock).
    pub fn wipe(&mut self) {
        // The range stays asked for; its base went with the keys.
        let range = self.range.take().map(|r| RangeAsked { open: false, ..r });
        *self = Self {
            generation: self.generation,
            what_if_generation: self.what_if_generation,
            range,
            ..Self::default()
        };
    }
}
