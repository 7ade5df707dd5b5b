//! Graphex Console: the terminal console, the scriptable CLI and the MCP server, over the `graphex-engine` crate. Tests drive it as a library.

pub mod app;
pub mod cli;
pub mod mcp;
pub mod shared;
pub mod widgets;
