//! The shell splitter on any text: it never panics, never loops, names the
//! same programs for the same line, and its simple commands name them too.
#![no_main]

libfuzzer_sys::fuzz_target!(|line: &str| {
    let programs = hookdex_shell::programs(line);
    assert_eq!(programs, hookdex_shell::programs(line));
    let mut named: Vec<String> = hookdex_shell::commands(line)
        .into_iter()
        .map(|c| c.program)
        .collect();
    named.sort();
    named.dedup();
    let mut sorted = programs;
    sorted.sort();
    assert_eq!(named, sorted);
});
