//! The unlock session (`graphex unlock`): one process per user and store
//! that holds the keys and the verified graph, and runs read commands for
//! the command line, as ssh-agent signs for ssh without handing out the key.
//! The command line asks it first and runs on its own when there is none.

pub mod client;
pub mod paths;
pub mod peer;
pub mod server;
pub mod start;
pub mod wire;
