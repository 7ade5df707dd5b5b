//! Fuzzes plaintext behind the AEAD, sealed with a fixed test key so it authenticates: zstd, msgpack and the record decoders
//! (`graphex_engine::fuzzing`, whose proptest twins run in `cargo test`).
#![no_main]

use graphex_engine::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fuzzing::after_aead(data);
});
