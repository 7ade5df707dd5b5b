//! Traversals over the in-memory adjacency: neighbours by ring, shortest
//! paths (kgraph's `connect`), subgraphs by depth. Like queries, they see only
//! what the session can read.

mod filter;
mod neighbors;
mod path;
mod subgraph;
mod weighted;

pub use filter::{Direction, Filter};
pub use neighbors::{Reached, Ring, neighbors};
pub use path::{PathStep, shortest_path, shortest_path_within};
pub use subgraph::{Subgraph, subgraph};
pub use weighted::{hop_cost, strongest_path};

#[cfg(test)]
mod tests;
