//! The Graph pane: the neighbourhood of one node, for browsing and
//! curation. So far its view model (`data`), built on the engine worker;
//! the pane's state, keys and view come next.

pub mod data;
