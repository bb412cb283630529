//! The payload readers of every harness on any bytes (the strict parse and
//! the lenient second one), and the calls they yield.
#![no_main]

use hookdex_harness::Payload;
use hookdex_model::Target;

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    for target in Target::ALL {
        for event in [None, Some("preToolUse"), Some("PostToolUse")] {
            if let Ok(payload) = Payload::parse(target, bytes, event) {
                for call in payload.calls() {
                    let _ = call.matched_name();
                }
            }
        }
    }
});
