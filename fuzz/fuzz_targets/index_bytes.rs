//! The index loader on arbitrary bytes: parsed, verified and read through
//! every accessor, an error at worst, never a panic or an unchecked read.
#![no_main]

mod read;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    read::exercise(bytes);
});
