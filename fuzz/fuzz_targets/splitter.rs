//! The shell splitter on any text: it never panics, never loops, and names
//! the same programs for the same line.
#![no_main]

libfuzzer_sys::fuzz_target!(|line: &str| {
    let programs = hookdex_shell::programs(line);
    assert_eq!(programs, hookdex_shell::programs(line));
});
