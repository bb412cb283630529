//! The rule file name and matcher grammar on any name: classified, never a panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|name: &str| {
    let _ = hookdex_compiler::formats::filename::classify(name);
});
