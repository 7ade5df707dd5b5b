//! Fuzzes markdown: infer's document reader and the one-line flattening of graph text into projections
//! (`graphex_engine::fuzzing`, whose proptest twins run in `cargo test`).
#![no_main]

use graphex_engine::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    fuzzing::markdown(text);
});
