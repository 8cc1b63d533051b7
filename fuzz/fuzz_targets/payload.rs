//! Payload parsing never panics, and whatever it accepts routes without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sophia_hook::stages::payload::Payload;

fuzz_target!(|data: &[u8]| {
    if let Ok(payload) = Payload::parse(data) {
        let prompt = payload.prompt.as_deref().unwrap_or("");
        let routing = sophia_hook::stages::routing::route(prompt, payload.from_subagent());
        assert!(prompt.ends_with(routing.stripped_prompt.as_str()));
    }
});
