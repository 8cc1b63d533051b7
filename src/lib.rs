//! sophia-hook: deterministic prompt routing for AI coding hosts.
//!
//! The pipeline (docs/architecture.md) is a chain of pure [`stages`], from the host's payload to
//! the host's output and the analytics event, joined by [`stages::decision`]. The [`edge`]
//! module's adapters touch stdin, stdout, files and the environment; [`cli`] maps the command line
//! onto the hook run and the tool subcommands ([`commands`], whose bodies are in [`ops`]); each
//! host's own contract is in [`hosts`]. Nothing in this crate prints directly: output goes
//! through the writers the binary passes in.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod bounded;
pub mod charset;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod config;
pub mod edge;
pub mod eval;
pub mod fingerprint;
pub mod hosts;
pub mod install;
pub mod ops;
pub mod packed;
pub mod pattern;
pub mod plugin;
pub mod report;
pub mod stages;
pub mod stats;
pub mod text;
pub mod yaml;
