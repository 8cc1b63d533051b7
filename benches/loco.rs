//! The leave-one-catalog-out experiments, out of the test suite: `cargo bench --bench loco --
//! [backbone] [learned] [index_bm25f] [embed] [ranking_weight] [features]` (none: all six). The
//! protocol itself and its gates are `tests/it/loco.rs`, loaded here for its catalogs, figures
//! and choice (its tests are not run here, hence the dead code and the imports only they use).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg_attr(windows, allow(dead_code))]

#[cfg(not(windows))]
#[allow(dead_code, unused_imports)]
#[path = "../tests/it/loco.rs"]
mod loco;

#[cfg(not(windows))]
#[path = "loco/experiments.rs"]
mod experiments;

fn main() {
    // `cargo bench` adds `--bench`; every other argument names an experiment.
    let names: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    #[cfg(not(windows))]
    experiments::run(&names);
    #[cfg(windows)]
    let _ = names;
}
