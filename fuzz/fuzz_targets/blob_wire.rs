//! Fuzzes stored bytes before any authentication: node blobs, index rows, snapshots
//! (`graphex_engine::fuzzing`, whose proptest twins run in `cargo test`).
#![no_main]

use graphex_engine::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fuzzing::blob_wire(data);
});
