//! The unlock session (`graphex unlock`): one process per user and store
//! that holds the keys and the verified graph, and serves a fixed set of
//! typed operations (`ops`) to the terminal that unlocked it (`terminal`),
//! as ssh-agent signs for ssh without handing out the key. Its clients check
//! that it holds the store's key before they ask anything (`wire`). The
//! command line asks it first and runs on its own when there is none.

pub mod client;
pub mod ops;
pub mod paths;
pub mod peer;
pub mod server;
pub mod start;
pub mod terminal;
pub mod wire;
