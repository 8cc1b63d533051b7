//! The integration tests, one binary (linked once): a module per subject, the shared
//! helpers in `common` (and `trust`, the sandbox of the trust-layer invariants).
//! `cargo test --test it MODULE::` runs one subject; snapshots sit in `snapshots/` beside
//! the cases that take them.

// Tests set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

mod common;
#[cfg(unix)]
mod trust;

mod adversarial;
mod agents;
mod antigravity_contract;
mod binary;
mod budget;
mod charset;
mod ci_gates;
mod cli;
mod codex_contract;
mod copilot_contract;
mod deadline;
mod docs;
mod door_races;
mod env_input;
mod eval_gates;
mod faults;
mod freshness;
mod grounding;
mod host_contracts;
mod install;
mod install_all;
mod inv_foreign_files;
mod inv_global_state;
mod inv_private;
mod inv_quoting;
mod inv_user_scope;
mod layers;
mod linear;
mod loco;
mod mentions;
mod outcomes;
mod plugin;
mod portable;
mod product_table;
mod properties;
mod readme;
mod report;
mod roundtrip_install;
mod rules_agents_sync;
mod rules_analytics;
mod rules_availability;
mod rules_caps;
mod rules_context;
mod rules_doctor;
mod rules_eval;
mod rules_hotword;
mod rules_payload;
mod rules_planning;
mod rules_policy;
mod rules_render;
mod rules_settings;
mod rules_stats;
mod rules_subagent;
mod rules_turns;
mod scale;
mod sealed;
mod secrets;
mod security;
mod snapshots;
mod telemetry;
mod tool;
