//! Once per user turn (docs/hosts.md, Antigravity): the turn log against a model of its rule,
//! over generated sequences of turns and clock steps.
//!
//! The rules: a turn is (conversation, turn start, text); its first sighting injects, a second
//! sighting within 12 hours does not; an entry 12 hours old or more is forgotten; at most 256
//! turns are remembered, the oldest forgotten first; the log holds hashes, never the text.
//!
//! Planted bugs this catches (each seen failing): the newest entry evicted instead of the oldest,
//! the expiry at 12 hours kept one step too long, the turn start left out of the key.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, TimeZone, Utc};
use proptest::prelude::*;

use sophia_hook::edge::turns::TurnLog;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(23),
        ..ProptestConfig::default()
    }
}

/// The model: turn → when it was recorded.
#[derive(Default)]
struct Model {
    turns: BTreeMap<(u8, Option<u8>, u8), DateTime<Utc>>,
}

impl Model {
    fn first_time(&mut self, turn: (u8, Option<u8>, u8), now: DateTime<Utc>) -> bool {
        self.turns.retain(|_, t| now - *t < Duration::hours(12));
        if self.turns.contains_key(&turn) {
            return false;
        }
        while self.turns.len() >= 256 {
            let oldest = *self.turns.iter().min_by_key(|(_, t)| **t).unwrap().0;
            self.turns.remove(&oldest);
        }
        self.turns.insert(turn, now);
        true
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn the_turn_log_injects_once_per_turn_within_its_bounds(
        steps in prop::collection::vec(
            (
                (0u8..3, prop::option::of(0u8..3), 0u8..4),
                prop::sample::select(vec![1i64, 2, 60, 3600, 6 * 3600, 12 * 3600 - 1, 12 * 3600]),
            ),
            1..60,
        ),
        fill in 0usize..300,
    ) {
        let mut now = Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap();
        let mut log = TurnLog::default();
        let mut model = Model::default();
        // Fill the log with distinct turns first, one second apart, to reach the bound.
        for i in 0..fill {
            let key = TurnLog::key(b"secret", "filler", Some(i as u64), "x");
            prop_assert!(log.first_time(key, now));
            model.turns.insert((200, Some((i % 250) as u8), (i / 250) as u8), now);
            now += Duration::seconds(1);
        }
        // The model keeps the fillers under stand-in keys that no step uses.
        for ((conv, start, text), advance) in steps {
            now += Duration::seconds(advance);
            let key = TurnLog::key(
                b"secret",
                ["conv-a", "conv-b", "conv-c"][conv as usize],
                start.map(u64::from),
                ["!quick spiegami", "altro", "!quick spiegami ", "x"][text as usize],
            );
            let want = model.first_time((conv, start, text), now);
            prop_assert_eq!(log.first_time(key, now), want, "at {}", now);
            prop_assert_eq!(log.turns.len(), model.turns.len());
            prop_assert!(log.turns.len() <= 256);
        }
        let text = serde_json::to_string(&log).unwrap();
        prop_assert!(!text.contains("spiegami") && !text.contains("conv-"));
    }
}
