//! Fuzzes a proposal file's bytes through the strict decoder and validation
//! (`graphex_engine::fuzzing`, whose proptest twins run in `cargo test`).
#![no_main]

use graphex_engine::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fuzzing::proposal_json(data);
});
