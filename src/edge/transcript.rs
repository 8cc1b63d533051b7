//! The user's text from a host's conversation file, for a prompt event whose payload carries no
//! prompt field (Antigravity's `PreInvocation` on engines that send no `lastUserInput`).
//!
//! The file is host input, named by the payload's `transcriptPath`, and is read only at that path:
//! an absolute path without `..`, a regular file and not a symlink (checked on the path and again
//! on the opened handle), inside the project only through the project's door (a transcript
//! under a workspace folder a repository could have planted), and only its last
//! [`TAIL_BYTES`] are read, through the bounded reader of `edge::files`. Antigravity writes one
//! step per line (JSONL); the user's message is a step of `"type": "USER_INPUT"` whose `content`
//! wraps the text in a `<USER_REQUEST>` block (docs/host-protocols.md says what was observed).

use std::path::{Component, Path};

use serde::Deserialize;

use crate::edge::files::{self, Place, ProjectRoot};
use crate::hosts::{Transcript, TranscriptGrammar, TranscriptLayout};
use crate::stages::outcome::{Actions, Observed};

/// How much of the end of the conversation file is read. A user message longer than this (or a
/// last user message further back than this) is not found, and the turn is not routed.
pub const TAIL_BYTES: u64 = 1024 * 1024;

/// Why no user text was taken from the file: a short code for `SOPHIA_DEBUG=1` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Not an absolute path, or one with `..`.
    NotAbsolute,
    /// A symlink at the path, or on the way inside the project.
    Symlink,
    /// Inside the project's `.git/`, or leading out of the project through it.
    Refused,
    /// No file at the path.
    Missing,
    /// A folder, FIFO, socket or device, or unreadable.
    Unreadable,
    /// Readable, but no user entry in the part read.
    NoUserEntry,
}

impl Skip {
    pub fn code(self) -> &'static str {
        match self {
            Skip::NotAbsolute => "transcript-not-absolute",
            Skip::Symlink => "transcript-symlink",
            Skip::Refused => "transcript-refused",
            Skip::Missing => "transcript-missing",
            Skip::Unreadable => "transcript-unreadable",
            Skip::NoUserEntry => "transcript-no-user-entry",
        }
    }
}

/// The conversation file at `path`, opened for reading at offsets: an absolute path without
/// `..`, not a symlink (on the path, then the same file on the handle), a regular file, inside
/// `project_root` only through the project's door and never in its `.git/`. Any size: only
/// bounded parts are read.
fn open(path: &str, project_root: Option<&ProjectRoot>) -> Result<files::BoundedFile, Skip> {
    let path = Path::new(path);
    if !path.is_absolute() || path.components().any(|c| c == Component::ParentDir) {
        return Err(Skip::NotAbsolute);
    }
    let place = match project_root.map(|root| (root, root.relative(path))) {
        Some((root, Ok(rel))) => root.at(rel),
        Some((_, Err(files::Outside::GitDir))) => return Err(Skip::Refused),
        _ => Place::user(path),
    };
    let link = place.symlink_metadata().map_err(|e| match e.kind() {
        std::io::ErrorKind::PermissionDenied => Skip::Symlink,
        std::io::ErrorKind::NotFound => Skip::Missing,
        _ => Skip::Unreadable,
    })?;
    if link.is_symlink() {
        return Err(Skip::Symlink);
    }
    // Any size: only the tail is read, each read cut at the length found on the handle.
    let file = place
        .open_bounded(files::caps::TAIL_ONLY)
        .map_err(|e| match e {
            files::ReadError::Refused(files::Outside::GitDir) => Skip::Refused,
            files::ReadError::Refused(_) => Skip::Symlink,
            files::ReadError::Missing => Skip::Missing,
            _ => Skip::Unreadable,
        })?;
    if !file.meta().is_ok_and(|m| m.is_same_file(&link)) {
        // Swapped for something else between the check and the open.
        return Err(Skip::Symlink);
    }
    Ok(file)
}

/// The text of the last user entry of the conversation file at `path`. `project_root` is the
/// project the hook runs in (the payload's first workspace folder): a transcript under it is a
/// project file, read only through the project's door.
pub fn last_user_text(path: &str, project_root: Option<&ProjectRoot>) -> Result<String, Skip> {
    let file = open(path, project_root)?;
    let offset = file.len().saturating_sub(TAIL_BYTES);
    let tail = file
        .read_at(offset, TAIL_BYTES as usize)
        .map_err(|_| Skip::Unreadable)?;
    // A cut first line is not a whole entry.
    let tail = match (offset, tail.iter().position(|b| *b == b'\n')) {
        (0, _) => &tail[..],
        (_, Some(i)) => &tail[i + 1..],
        (_, None) => &[][..],
    };
    last_user_entry(tail).ok_or(Skip::NoUserEntry)
}

/// How much of the part of a transcript written since the last hint is read: its last bytes.
/// A longer turn is read from here on, and what needs the whole turn is recorded as unknown
/// (`stages::outcome`).
pub const SINCE_BYTES: u64 = 4 * 1024 * 1024;

/// How far back from the hint's position a line start is looked for (a line the host was still
/// writing when the hint was given is read whole the next time).
const LINE_START_BYTES: u64 = 64 * 1024;

/// Where a host's transcript ends now, and what its model did since `from` (the position of the
/// previous hint, when there is one): the skills it loaded and the subagents it spawned, read by
/// the host's grammar from the last [`SINCE_BYTES`] at most. The file is checked and opened as
/// for [`last_user_text`].
pub fn since(
    path: &str,
    project_root: Option<&ProjectRoot>,
    transcript: &Transcript,
    from: Option<u64>,
) -> Result<(u64, Option<Observed>), Skip> {
    let file = match (open(path, project_root), from) {
        // Not written yet (Claude Code creates it after the first prompt's hook): it ends at 0.
        (Err(Skip::Missing), None) => return Ok((0, None)),
        (file, _) => file?,
    };
    let len = file.len();
    let Some(from) = from else {
        return Ok((len, None));
    };
    Ok((len, Some(read_since(&file, len, from, transcript))))
}

fn read_since(file: &files::BoundedFile, len: u64, from: u64, transcript: &Transcript) -> Observed {
    let TranscriptLayout::Lines = transcript.layout;
    if from > len {
        return Observed::Unknown {
            reason: "transcript-rewound",
        };
    }
    let whole = len - from <= SINCE_BYTES;
    // Whole: from the start of the line the hint's position is in. Else: the last bytes, from the
    // first whole line in them.
    let start = if whole {
        from.saturating_sub(LINE_START_BYTES)
    } else {
        len - SINCE_BYTES
    };
    let Ok(bytes) = file.read_at(start, (len - start) as usize) else {
        return Observed::Unknown {
            reason: "transcript-unreadable",
        };
    };
    let begin = if whole {
        let at = (from - start) as usize;
        match memchr::memrchr(b'\n', &bytes[..at]) {
            Some(i) => i + 1,
            None if start == 0 => 0,
            // No line start within reach: the line the position cuts is skipped.
            None => memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1),
        }
    } else {
        memchr::memchr(b'\n', &bytes).map_or(bytes.len(), |i| i + 1)
    };
    let (actions, complete) = actions_of_lines(&bytes[begin..], transcript.grammar);
    Observed::Read {
        actions,
        whole: whole && complete,
    }
}

/// At most this many records are parsed of one turn (lines holding a marker): past them what was
/// seen counts and the rest is not read, as for a turn over [`SINCE_BYTES`]. A turn of the model's
/// has tens of tool calls; a file of nothing else costs a parse per line (a 5 MB tail of them took
/// 120 ms before this cap, `benches/adversarial.sh`, `r-transcript-1gib-tool-calls`).
pub const MAX_RECORDS: usize = 1000;

/// What the records of JSONL `bytes` show, by `grammar`: only lines holding one of its markers
/// are parsed (bounded, as any file), at most [`MAX_RECORDS`] of them, and a line that does not
/// parse (torn, not JSON, not UTF-8) is skipped. `false` with the actions when records were left
/// unparsed. Pure, for the table tests.
pub fn actions_of_lines(bytes: &[u8], grammar: &dyn TranscriptGrammar) -> (Actions, bool) {
    let finders: Vec<memchr::memmem::Finder<'_>> = grammar
        .markers()
        .iter()
        .map(|m| memchr::memmem::Finder::new(m.as_bytes()))
        .collect();
    let mut actions = Actions::default();
    let mut parsed = 0;
    for line in bytes.split(|b| *b == b'\n') {
        if !finders.iter().any(|f| f.find(line).is_some()) {
            continue;
        }
        if parsed == MAX_RECORDS {
            return (actions, false);
        }
        parsed += 1;
        if let Ok(record) = crate::bounded::json::<serde_json::Value>(line, crate::bounded::FILE) {
            grammar.record(&record, &mut actions);
        }
    }
    (actions, true)
}

/// One step of the conversation file: only the fields we read (others are ignored).
#[derive(Deserialize)]
struct Step {
    #[serde(rename = "type")]
    kind: Option<String>,
    source: Option<String>,
    content: Option<String>,
}

/// The user's text in the last `USER_INPUT` step of JSONL `bytes`. A line that is not a JSON
/// object, not valid UTF-8 (repaired with U+FFFD first), or not such a step is skipped; a step
/// whose `source` says it is not the user's own (anything but `USER_EXPLICIT`) is skipped too.
/// Pure, for the table tests.
pub fn last_user_entry(bytes: &[u8]) -> Option<String> {
    const MARK: &[u8] = b"USER_INPUT";
    bytes.rsplit(|b| *b == b'\n').find_map(|line| {
        // Cheap first: most steps are model output and tool calls.
        if !line.windows(MARK.len()).any(|w| w == MARK) {
            return None;
        }
        let step: Step = match crate::bounded::json(line, crate::bounded::FILE) {
            Ok(step) => step,
            Err(_) => {
                crate::bounded::json_str(&String::from_utf8_lossy(line), crate::bounded::FILE)
                    .ok()?
            }
        };
        if step.kind.as_deref() != Some("USER_INPUT")
            || step.source.as_deref().is_some_and(|s| s != "USER_EXPLICIT")
        {
            return None;
        }
        step.content.map(|c| user_request(&c).to_owned())
    })
}

/// The text inside the first `<USER_REQUEST>…</USER_REQUEST>` block, trimmed; the whole content,
/// trimmed, when there is no closed block.
fn user_request(content: &str) -> &str {
    const OPEN: &str = "<USER_REQUEST>";
    const CLOSE: &str = "</USER_REQUEST>";
    content
        .find(OPEN)
        .map(|i| &content[i + OPEN.len()..])
        .and_then(|rest| rest.find(CLOSE).map(|end| &rest[..end]))
        .unwrap_or(content)
        .trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(v: serde_json::Value) -> String {
        v.to_string()
    }

    #[test]
    fn the_last_user_entry_wins_and_its_request_block_is_unwrapped() {
        let user = |text: &str| {
            line(
                serde_json::json!({"type": "USER_INPUT", "source": "USER_EXPLICIT", "content": format!("<USER_REQUEST>\n{text}\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\nThe current local time is: 2026-12-01.\n</ADDITIONAL_METADATA>")}),
            )
        };
        let model = line(
            serde_json::json!({"type": "PLANNER_RESPONSE", "content": "USER_INPUT is a word here"}),
        );
        let table: Vec<(Vec<String>, Option<&str>)> = vec![
            (vec![user("!quick uno")], Some("!quick uno")),
            (
                vec![user("!quick uno"), model.clone(), user("!agents due")],
                Some("!agents due"),
            ),
            (
                vec![user("!agents due"), model.clone()],
                Some("!agents due"),
            ),
            (vec![model.clone()], None),
            (vec![], None),
            // Not the user's own message.
            (
                vec![
                    user("!quick mine"),
                    line(
                        serde_json::json!({"type": "USER_INPUT", "source": "SYSTEM", "content": "<USER_REQUEST>!agents not mine</USER_REQUEST>"}),
                    ),
                ],
                Some("!quick mine"),
            ),
            // No source: still the user's; no block: the content as it is.
            (
                vec![line(
                    serde_json::json!({"type": "USER_INPUT", "content": "  !quick plain  "}),
                )],
                Some("!quick plain"),
            ),
            // An open block that never closes: the whole content.
            (
                vec![line(
                    serde_json::json!({"type": "USER_INPUT", "content": "<USER_REQUEST>!quick x"}),
                )],
                Some("<USER_REQUEST>!quick x"),
            ),
            // Malformed lines around and after it are skipped.
            (
                vec![
                    user("!quick ok"),
                    "{\"type\":\"USER_INPUT\",\"content\":".into(),
                    "[\"USER_INPUT\"]".into(),
                    "not json USER_INPUT".into(),
                    line(serde_json::json!({"type": "USER_INPUT", "content": 7})),
                ],
                Some("!quick ok"),
            ),
        ];
        for (lines, want) in table {
            let text = lines.join("\n");
            assert_eq!(
                last_user_entry(text.as_bytes()).as_deref(),
                want,
                "{lines:?}"
            );
        }
    }

    #[test]
    fn invalid_utf8_in_a_user_entry_is_repaired_not_fatal() {
        let mut bytes = br#"{"type":"USER_INPUT","content":"<USER_REQUEST>!quick caf"#.to_vec();
        bytes.extend_from_slice(b"\xff\xfe");
        bytes.extend_from_slice(br#"</USER_REQUEST>"}"#);
        assert_eq!(
            last_user_entry(&bytes).as_deref(),
            Some("!quick caf\u{fffd}\u{fffd}")
        );
    }
}
