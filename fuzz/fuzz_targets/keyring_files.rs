//! Fuzzes the key files' parsers: keyring.auth, tier-key files, identity files and pins, scrypt headers
//! (`graphex_engine::fuzzing`, whose proptest twins run in `cargo test`).
#![no_main]

use graphex_engine::fuzzing;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fuzzing::keyring_files(data);
});
