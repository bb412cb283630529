//! Reads everything an index offers, as the hook, `list` and `explain` do.

use hookdex_index::{Index, IndexFile, Query};
use hookdex_model::{Step, ToolName};

pub fn exercise(bytes: &[u8]) {
    // Owned, 8-aligned as the DFAs need, like an index held in memory.
    let file = IndexFile::from_bytes(std::path::Path::new("fuzz.hdx"), bytes);
    let Ok(index) = file.index() else { return };
    let _ = index.verify_all();
    walk(&index);
}

fn walk(index: &Index<'_>) {
    let _ = index.meta();
    for i in 0..index.layer_count().min(64) {
        let _ = index.layer(i);
    }
    for id in 0..(index.rule_count() as u32).min(256) {
        if let Ok(rule) = index.rule(id) {
            let _ = index.alternatives(&rule);
        }
        let _ = index.standing(id);
    }
    for i in 0..index.invalid_count().min(64) {
        let _ = index.invalid(i);
    }
    let programs = vec!["kubectl".to_string(), "git".to_string()];
    for step in [Step::Pre, Step::Post] {
        for tool in ["bash", "write", "mcp__github__create_issue"] {
            let tool = ToolName::new(tool);
            let _ = index.candidates(&Query {
                step,
                tool: &tool,
                programs: &programs,
                any_program: false,
            });
        }
    }
}
