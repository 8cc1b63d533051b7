//! sophia-hook: deterministic prompt routing for AI coding hosts.
//!
//! The pipeline (docs/architecture.md) is a chain of pure stages — [`payload`], [`hotword`],
//! [`context`], [`subagent`], [`skills`], [`agents`], [`render`], [`analytics`] — joined by
//! [`decision`]. The [`edge`] module's adapters touch stdin, stdout, files and the environment;
//! [`cli`] maps the command line onto the hook run and the tool subcommands ([`commands`], whose
//! bodies are in [`ops`]). Nothing in this crate prints directly: output goes through the writers
//! the binary passes in.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agents;
pub mod analytics;
pub mod bounded;
pub mod charset;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod config;
pub mod context;
pub mod decision;
pub mod edge;
pub mod eval;
pub mod fingerprint;
pub mod hosts;
pub mod hotword;
pub mod install;
pub mod ops;
pub mod packed;
pub mod payload;
pub mod planning;
pub mod plugin;
pub mod render;
pub mod report;
pub mod routing;
pub mod skills;
pub mod stats;
pub mod subagent;
pub mod text;
pub mod yaml;
