//! The tool commands' bodies: the whole of one command's work (cargo's `ops/`, beside
//! `commands/`, which parses its arguments and calls in here). They read and write the world
//! through the adapters in `edge/` and never import `commands/` or `cli.rs`; no adapter imports
//! them (`tests/it/layers.rs`).

pub mod agents_sync;
pub mod doctor;
pub mod eval;
pub mod plugin_install;
pub mod report;
