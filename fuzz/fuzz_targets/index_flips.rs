//! The index loader on a valid index with bits flipped: the input is a list
//! of (offset, xor) pairs applied to an index compiled once from a small
//! tree, so the fuzzer starts from structure instead of noise.
#![no_main]

use std::sync::OnceLock;

mod read;

fn valid_index() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let conditions = dir.path().join("home/conditions");
        std::fs::create_dir_all(&conditions).unwrap();
        for name in [
            "pre-bash.kubectl-guard.sh",
            "post-any-audit.async.sh",
            "pre-write+edit-x.py",
            "pre-mcp__github-y.sh",
        ] {
            std::fs::write(conditions.join(name), "#!/bin/sh\n").unwrap();
        }
        let root = dir.path().to_path_buf();
        let view =
            hookdex_compiler::View::from_vars(hookdex_model::Target::Claude, &root, |name| {
                match name {
                    "HOME" => Some(root.join("home").into()),
                    "HOOKDEX_HOME" => Some(root.join("home").into()),
                    "HOOKDEX_CACHE_DIR" => Some(root.join("cache").into()),
                    "HOOKDEX_MANAGED_DIR" => Some(root.join("managed").into()),
                    _ => None,
                }
            });
        let bytes = hookdex_compiler::compile(&view).bytes;
        bytes
    })
}

libfuzzer_sys::fuzz_target!(|flips: &[u8]| {
    let mut bytes = valid_index().to_vec();
    for pair in flips.chunks_exact(5) {
        let at = u32::from_le_bytes([pair[0], pair[1], pair[2], pair[3]]) as usize % bytes.len();
        bytes[at] ^= pair[4];
    }
    read::exercise(&bytes);
});
