//! The I/O edge: everything that touches stdin, stdout, stderr, the environment and the file
//! system. The pure stages never do; this module reads what they need and writes what they made.

pub mod agents;
pub mod analytics_log;
pub mod config;
pub mod deadline;
pub mod documents;
pub mod files;
pub mod hook;
pub mod hostconfig;
pub mod mcp;
pub mod platform;
pub mod plugins;
pub mod program;
pub mod project;
pub mod settings;
pub mod skills;
pub mod telemetry;
pub mod transcript;
pub mod turns;
