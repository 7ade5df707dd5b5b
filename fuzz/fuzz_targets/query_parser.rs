//! Fuzzes query the language: lexer, parser, resolution and evaluation over an empty catalog, output formats and error rendering
//! (`graphex_engine::fuzzing`, whose proptest twins run in `cargo test`).
#![no_main]

use graphex_engine::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    fuzzing::query(text);
});
