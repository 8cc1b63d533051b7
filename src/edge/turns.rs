//! At most one injection per user turn on hosts whose prompt event fires before every model call
//! (Antigravity's `PreInvocation`): a small best-effort state file in the user cache folder
//! remembers which (conversation, turn start, prompt) triples already got their context. Only
//! hashes are kept, of the triple with this machine's own secret (32 random bytes beside the
//! file, made once, private): without it no one can find the prompt by hashing likely sentences
//! (blind pass of issue 29, case 38: an unsalted hash gave it back from a dictionary). Updated
//! under a lock (`Place::update_json`), so concurrent hooks never lose a turn.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::edge::files::Place;
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
    /// `secret` is this machine's ([`secret`]).
    pub fn key(secret: &[u8], conversation: &str, turn_start: Option<u64>, prompt: &str) -> String {
        let start = turn_start.map_or_else(String::new, |n| n.to_string());
        let mut data =
            Vec::with_capacity(secret.len() + conversation.len() + start.len() + prompt.len() + 3);
        data.extend_from_slice(secret);
        data.push(0);
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

/// Bytes of this machine's secret.
const SECRET_BYTES: usize = 32;

/// This machine's secret for the turn keys, `<cache>/sophia-hook/turn-secret` (private, made once
/// from the system's randomness). Best effort: when it cannot be made or read, the key is keyed by
/// nothing secret — a turn may then be injected twice, never lost.
pub fn secret(cache_dir: &Path) -> Vec<u8> {
    let place = Place::user(cache_dir.join("sophia-hook").join("turn-secret"));
    let read = || {
        place
            .read(crate::edge::files::caps::STATE)
            .ok()
            .filter(|b| b.len() == SECRET_BYTES)
    };
    if let Some(secret) = read() {
        return secret;
    }
    let mut fresh = vec![0u8; SECRET_BYTES];
    if getrandom::fill(&mut fresh).is_err() {
        return Vec::new();
    }
    if let Some(dir) = place.parent() {
        let _ = dir.create_dir_all();
    }
    let _ = place.write_atomic(&fresh, crate::edge::files::caps::STATE);
    // Whoever wrote last, every hook from now on reads the same secret.
    read().unwrap_or(fresh)
}

pub fn read(path: &Path) -> TurnLog {
    Place::user(path).read_json_or_default()
}

/// Records the turn in the state file at `path` under its lock; `false` when it was already
/// recorded (do not inject again). A state that cannot be locked or written counts as a first
/// time (fail open: context twice is better than none).
pub fn first_time(path: &Path, key: String, now: DateTime<Utc>) -> bool {
    let mut first = true;
    let _ = Place::user(path).update_json(|log: &mut TurnLog| {
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
        let s = b"secret";
        let key = TurnLog::key(s, "conv", Some(10), "!quick spiegami");
        assert!(log.first_time(key.clone(), now));
        assert!(!log.first_time(key.clone(), now + Duration::minutes(1)));
        assert!(log.first_time(TurnLog::key(s, "conv", Some(10), "altro"), now));
        // The same words typed again in a later turn are a new turn.
        assert!(log.first_time(TurnLog::key(s, "conv", Some(14), "!quick spiegami"), now));
        assert!(log.first_time(TurnLog::key(s, "other", Some(10), "!quick spiegami"), now));
        assert!(log.first_time(key, now + Duration::hours(13)), "expired");
        for i in 0..600 {
            log.first_time(TurnLog::key(s, "c", None, &i.to_string()), now);
        }
        assert!(log.turns.len() <= MAX_ENTRIES);
        assert!(!serde_json::to_string(&log).unwrap().contains("spiegami"));
        // Keyed by the secret: the same turn under another machine's secret is another key.
        assert_ne!(
            TurnLog::key(b"one", "conv", Some(10), "!quick spiegami"),
            TurnLog::key(b"two", "conv", Some(10), "!quick spiegami")
        );
    }

    /// The secret is made once, private, and read back the same by every later hook; the key a
    /// dictionary of prompts would compute without it is never the key kept.
    #[test]
    fn the_secret_is_made_once_and_keys_every_turn() {
        let cache = tempfile::tempdir().unwrap();
        let first = secret(cache.path());
        assert_eq!(first.len(), SECRET_BYTES);
        assert_eq!(secret(cache.path()), first);
        let other = tempfile::tempdir().unwrap();
        assert_ne!(secret(other.path()), first, "each machine has its own");
        let kept = TurnLog::key(&first, "conv", Some(3), "export the payroll");
        assert_ne!(
            kept,
            TurnLog::key(&[], "conv", Some(3), "export the payroll")
        );
        #[cfg(unix)]
        {
            let meta = Place::user(cache.path().join("sophia-hook/turn-secret"))
                .metadata()
                .unwrap();
            assert_eq!(meta.mode, 0o600);
        }
    }
}
