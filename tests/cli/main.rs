//! Integration tests of the `graphex` binary (one test binary: faster to link).

#![allow(clippy::unwrap_used)]

mod canary;
mod concurrency;
mod config;
mod console;
mod console_graph;
mod console_projection;
mod console_query;
mod console_session;
mod docs_links;
mod doctor;
mod explore;
mod federation;
mod git;
mod git_branches;
mod git_rollback;
mod golden;
mod graph_ops;
mod harness;
mod hostile_text;
mod import_bounds;
mod import_proposal;
mod interchange;
mod layers;
mod lifecycle;
mod mcp;
mod mcp_limits;
mod mcp_raw;
mod mcp_session;
mod mcp_tools;
mod pending_walk;
mod projection;
mod proposals;
mod pty;
mod reads;
mod recovery;
mod review_conversation;
mod rotation;
mod saved_queries;
mod semantics;
mod session_attacks;
mod setup;
mod spellings;
mod unlock_session;
mod writes;
