//! The Graph pane: the neighbourhood of one node, for browsing and
//! curation.
//!
//! - `data`: the view model (inspector, rings, facets), built on the worker;
//! - `work`: what the engine worker does for the pane (neighbourhoods,
//!   the fuzzy jump, paths, exports);
//! - `rows`: the rings as list rows, with folded branches and open groups;
//! - `update`: the pane's keys, turned into state changes and requests;
//! - `dialogs`: the jump and the type / relation pickers;
//! - `go_to`: `:graph NAME` in the palette, with the node it opens;
//! - `dialog_state`: what the pane's dialogs hold, for the console's state;
//! - `view`: drawing the pane;
//! - `component`: the pane as the shell routes to it.

#[cfg(test)]
mod browse_tests;
pub mod component;
pub mod curate;
#[cfg(test)]
mod curate_tests;
pub mod curate_ui;
pub mod curator;
pub mod data;
pub mod dialog_state;
pub mod dialogs;
pub mod form;
pub mod form_view;
pub mod go_to;
pub mod history;
pub mod rows;
#[cfg(test)]
mod tests;
pub mod update;
pub mod view;
pub mod work;

use std::collections::BTreeSet;

use graphex_engine::as_of::AsOf;
use graphex_engine::traverse::Direction;

use data::{Neighbourhood, PathView};

/// The deepest ring the pane walks to.
pub const MAX_DEPTH: u32 = 6;

/// What the pane shows: a centre and how its neighbourhood is walked. Back
/// and forward restore all of it, filters included.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Place {
    pub centre: String,
    pub depth: u32,
    pub direction: Direction,
    /// Types reported (empty: all).
    pub types: BTreeSet<String>,
    /// Relations followed (empty: all).
    pub relations: BTreeSet<String>,
    /// Deprecated and archived nodes shown (dimmed) as well as active ones.
    pub inactive: bool,
    /// The graph as it was at this point, not as it is.
    pub as_of: Option<AsOf>,
}

impl Place {
    pub fn new(centre: String) -> Self {
        Self {
            centre,
            depth: 2,
            direction: Direction::Both,
            types: BTreeSet::new(),
            relations: BTreeSet::new(),
            inactive: false,
            as_of: None,
        }
    }

    /// The same walk around another centre.
    pub fn around(&self, centre: String) -> Self {
        Self { centre, ..self.clone() }
    }
}

/// The Graph pane.
#[derive(Default)]
pub struct Graph {
    pub place: Option<Place>,
    /// Earlier places, the last one most recent.
    pub back: Vec<Place>,
    pub forward: Vec<Place>,
    /// The neighbourhood of `place`, once the worker has built it.
    pub shown: Option<Result<Neighbourhood, String>>,
    /// The request the pane waits for; older answers are dropped.
    pub generation: u64,
    /// Index of the selected row (see `rows`).
    pub selected: usize,
    /// Nodes whose branch is folded away, and groups opened.
    pub folded: BTreeSet<String>,
    pub opened: BTreeSet<(u32, String, String)>,
    pub inspector_scroll: u16,
    /// The start of a path, and the path found to the centre.
    pub mark: Option<String>,
    pub path: Option<Result<PathView, String>>,
    pub path_generation: u64,
    /// Types and relations in use, with counts, for the forms' pickers.
    pub vocabulary: Option<(curate::Counts, curate::Counts)>,
    pub vocabulary_generation: u64,
    /// The pane has asked where to start (once per unlock level).
    pub started: bool,
    /// The selected neighbour as the inspector shows it (the centre's is
    /// in `shown`), and the request it waits for.
    pub inspected: Option<Result<data::Inspector, String>>,
    pub inspect_generation: u64,
    /// The place whose ring groups were last opened (or not) by fit.
    pub groups_decided: Option<Place>,
    /// The in-list filter of the rings (`F`): only names holding it are rows.
    pub filter: crate::app::filter_line::FilterLine,
    /// How each place left was seen (cursor, folds, open groups), so back
    /// and forward return to it as it was.
    pub seen: Vec<(Place, SeenView)>,
}

/// A place as it was left.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeenView {
    pub selected: usize,
    pub folded: BTreeSet<String>,
    pub opened: BTreeSet<(u32, String, String)>,
}

/// How many places' views are remembered.
const SEEN_KEPT: usize = 64;

impl Graph {
    /// Notes how the current place is seen before the pane leaves it.
    pub fn remember(&mut self) {
        let Some(place) = self.place.clone() else { return };
        self.seen.retain(|(p, _)| *p != place);
        self.seen.push((
            place,
            SeenView {
                selected: self.selected,
                folded: self.folded.clone(),
                opened: self.opened.clone(),
            },
        ));
        if self.seen.len() > SEEN_KEPT {
            self.seen.remove(0);
        }
    }

    /// How the current place was seen when it was left, if it was.
    pub fn seen_before(&self) -> Option<SeenView> {
        let place = self.place.as_ref()?;
        self.seen.iter().rev().find(|(p, _)| p == place).map(|(_, v)| v.clone())
    }
}

impl Graph {
    /// Drops every decrypted name and text (lock, or a level change): the
    /// pane is empty until a node is opened again.
    pub fn wipe(&mut self) {
        *self = Graph {
            generation: self.generation,
            path_generation: self.path_generation,
            vocabulary_generation: self.vocabulary_generation,
            inspect_generation: self.inspect_generation,
            ..Graph::default()
        };
    }
}
