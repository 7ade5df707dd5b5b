//! Fuzzes the query language: lexer, parser, and (when it parses) resolution
//! and evaluation against an empty catalog, plus error rendering.
#![no_main]

use graphex_engine::query;
use graphex_engine::store::Catalog;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let catalog = Catalog::default();
    match query::run(&catalog, text) {
        Ok(out) => {
            let _ = out.to_text();
            let _ = out.to_dot();
        }
        Err(e) => {
            let rendered = e.render(text);
            assert!(!rendered.is_empty());
        }
    }
});
