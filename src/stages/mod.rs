//! The pipeline stages of one hook run, in the order a prompt goes through them
//! (docs/architecture.md, "The pipeline"): [`payload`] (the host's payload, parsed tolerantly),
//! [`hotword`], [`context`] and [`subagent`] (composed by [`routing`]), [`planning`] (planning
//! mode and the carry-forward of a planned delegation), [`skills`], [`agents`], [`render`] and
//! [`analytics`], joined by [`decision`]. Pure: they import nothing from the edge, the tool
//! commands or the command line (`tests/it/layers.rs`); the edge loads what they need and applies
//! what they decide.

pub mod agents;
pub mod analytics;
pub mod context;
pub mod decision;
pub mod hotword;
pub mod outcome;
pub mod payload;
pub mod planning;
pub mod render;
pub mod routing;
pub mod skills;
pub mod subagent;
pub mod telemetry;
