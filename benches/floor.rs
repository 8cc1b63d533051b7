//! The latency floor for `benches/hook-latency.sh`: a minimal native binary that reads stdin to
//! EOF and prints `{}` — what any native command hook costs before it does any work. Built only
//! with `--features bench-floor`, never installed.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use std::io::{Read, Write};

fn main() {
    let mut input = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut input);
    let _ = std::io::stdout().lock().write_all(b"{}\n");
}
