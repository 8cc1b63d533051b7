//! At most one injection per user turn on hosts whose prompt event fires before every model call
//! (Antigravity's `PreInvocation`): a small best-effort state file in the user cache folder
//! remembers which (conversation, turn start, prompt) triples already got their context. Only
//! hashes are kept. Updated under a lock (`edge::files::update_json`), so concurrent hooks never
//! lose a turn.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::edge::files::{read_json_or_default, update_json};
use crate::fingerprint::sha256;

/// Entries older than this are forgotten.
const TTL_HOURS: i64 = 12;
/// At most this many turns are remembered.
const MAX_ENTRIES: usize = 256;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnLog {
    pub turns: BTreeMap<String, DateTime<Utc>>,
}

impl TurnLog {
    /// The key of a user turn: a hash of the conversation id, the step count at which the turn
    /// started (Antigravity's `initialNumSteps`, the same for every model call of one turn and
    /// different for the next turn, even with the same text) and the user's text.
    pub fn key(conversation: &str, turn_start: Option<u64>, prompt: &str) -> String {
        let start = turn_start.map_or_else(String::new, |n| n.to_string());
        let mut data = Vec::with_capacity(conversation.len() + start.len() + prompt.len() + 2);
        for part in [conversation, &start, prompt] {
            data.extend_from_slice(part.as_bytes());
            data.push(0);
        }
        sha256(&data)[7..39].to_owned()
    }

    /// Records the turn; returns `false` when it was already recorded (do not inject again).
    pub fn first_time(&mut self, key: String, now: DateTime<Utc>) -> bool {
        self.turns
            .retain(|_, t| now - *t < Duration::hours(TTL_HOURS));
        if self.turns.contains_key(&key) {
            return false;
        }
        while self.turns.len() >= MAX_ENTRIES {
            let oldest = self
                .turns
                .iter()
                .min_by_key(|(_, t)| **t)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.turns.remove(&k),
                None => break,
            };
        }
        self.turns.insert(key, now);
        true
    }
}

pub fn path(cache_dir: &Path) -> PathBuf {
    cache_dir.join("sophia-hook").join("injected-turns.json")
}

pub fn read(path: &Path) -> TurnLog {
    read_json_or_default(path)
}

/// Records the turn in the state file at `path` under its lock; `false` when it was already
/// recorded (do not inject again). A state that cannot be locked or written counts as a first
/// time (fail open: context twice is better than none).
pub fn first_time(path: &Path, key: String, now: DateTime<Utc>) -> bool {
    let mut first = true;
    let _ = update_json(path, |log: &mut TurnLog| {
        first = log.first_time(key, now);
        first
    });
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_per_turn_with_expiry_and_a_bound() {
        let now = DateTime::parse_from_rfc3339("2026-11-29T12:00:00Z")
            .unwrap()
            .to_utc();
        let mut log = TurnLog::default();
        let key = TurnLog::key("conv", Some(10), "!quick spiegami");
        assert!(log.first_time(key.clone(), now));
        assert!(!log.first_time(key.clone(), now + Duration::minutes(1)));
        assert!(log.first_time(TurnLog::key("conv", Some(10), "altro"), now));
        // The same words typed again in a later turn are a new turn.
        assert!(log.first_time(TurnLog::key("conv", Some(14), "!quick spiegami"), now));
        assert!(log.first_time(TurnLog::key("other", Some(10), "!quick spiegami"), now));
        assert!(log.first_time(key, now + Duration::hours(13)), "expired");
        for i in 0..600 {
            log.first_time(TurnLog::key("c", None, &i.to_string()), now);
        }
        assert!(log.turns.len() <= MAX_ENTRIES);
        assert!(!serde_json::to_string(&log).unwrap().contains("spiegami"));
    }
}
