//! Reading and writing hosts' settings files for `install`, `uninstall` and `doctor`: a file that
//! does not parse is never touched; every write is atomic, keeps the file's mode, never follows a
//! symlink it has not checked, and keeps backups in the user's own state folder.
//!
//! - A symlinked settings file (dotfiles) is written through to its target: for the project
//!   scope the target must resolve inside the project and out of `.git/` (a repository's
//!   `.codex -> ~/.codex` is refused); for the user scope it may be anywhere the user pointed it.
//! - Backups go to `<state>/backups/<host>-<scope>-<hash>/`, the hash of the path and, for the
//!   project scope, of the project folder's identity (a new clone at the same path is another
//!   project): `original.json` (the file before sophia-hook first changed it, never overwritten
//!   while installed, removed by the uninstall that spends it) and `last.json` (the file before
//!   the latest change). Never next to the settings file, which may be in a repository.
//! - Members that sophia-hook does not change are written back byte for byte as they were (so a
//!   number such as `18446744073709551616` or `1e-400` is never rewritten), elements of a changed
//!   array included; only the changed members are re-serialised. A file with comments, for a host
//!   that reads them (Gemini CLI), is edited through a lossless syntax tree instead.
//! - A read-only file is refused; a byte order mark is kept; `installed.json` and
//!   `pre-install.json` beside the backups let uninstall give back the file before install byte
//!   for byte while nothing else changed it.

use crate::bounded::{self, Refused};
use crate::charset::Shown as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::edge::files::{Place, ProjectRoot, ReadError, caps};
use crate::hosts::Host;
use crate::hosts::Scope;

/// The settings file of `host` for `scope`: a project's through its door, the user's by path.
pub fn settings_place(
    host: Host,
    scope: Scope,
    root: &ProjectRoot,
    home: &Path,
    host_homes: &crate::hosts::HostHomes,
) -> Place {
    match scope {
        Scope::Project => root.at(host.spec().settings.project),
        Scope::User => Place::user(crate::install::config_path(
            host,
            scope,
            root.path(),
            home,
            host_homes,
        )),
    }
}

/// Reads a settings file: `Value::Null` when it does not exist, an error when it cannot be read
/// or parsed (strict JSON: comments and trailing commas are refused, as the hosts refuse them).
/// Regular files only, at most `caps::SETTINGS` bytes.
pub fn read(path: &Place) -> anyhow::Result<Value> {
    read_with(path, false)
}

/// [`read`] for `host`'s settings file: where the host reads comments in it (JSONC, Gemini CLI),
/// a file with comments is read too.
pub fn read_for(path: &Place, host: Host) -> anyhow::Result<Value> {
    read_with(path, host.spec().settings.comments)
}

fn read_with(place: &Place, comments: bool) -> anyhow::Result<Value> {
    let path = &place.path();
    let bytes = match place.read(caps::SETTINGS) {
        Ok(bytes) => bytes,
        Err(ReadError::Missing) => return Ok(Value::Null),
        Err(e) => bail!("{} is {e}; it was left untouched", path.shown()),
    };
    let bytes = strip_bom(&bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    let value: Value = match bounded::json_value(bytes, bounded::FILE) {
        Ok(value) => value,
        Err(e @ (Refused::TooComplex(_) | Refused::TooDeep(_))) => bail!(
            "{} {e}, more than a settings file of a host holds; it was left untouched",
            path.shown()
        ),
        Err(_) if comments && let Some(value) = parse_jsonc(bytes) => value,
        Err(e) => bail!(
            "{} is not valid JSON ({e}{}); it was left untouched — fix it, or move it away and run again",
            path.shown(),
            if comments {
                ", nor JSON with comments"
            } else {
                ""
            }
        ),
    };
    if !value.is_object() {
        bail!(
            "{} is not a JSON object; it was left untouched",
            path.shown()
        );
    }
    Ok(value)
}

/// JSON with `//` and `/* */` comments, nothing else beyond strict JSON (no trailing commas,
/// single quotes or bare names: the hosts that read comments refuse those).
fn jsonc_options() -> jsonc_parser::ParseOptions {
    jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// `bytes` as JSON with comments ([`jsonc_options`]), when they are.
fn parse_jsonc(bytes: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(bytes).ok()?;
    bounded::jsonc_value(text, bounded::FILE, &jsonc_options()).ok()
}

/// The text of a JSON-with-comments file (`text`, which holds `before`) edited to hold `after`,
/// through dprint's lossless syntax tree (`jsonc_parser::cst`): members and elements that do not
/// change keep their text and every comment around them; removed ones go; new ones are added.
/// `None` when the edit does not give back exactly `after` (then nothing is written).
fn edit_jsonc(text: &str, before: &Value, after: &Value) -> Option<String> {
    let root = bounded::jsonc_tree(text, bounded::FILE, &jsonc_options()).ok()?;
    let (Value::Object(old), Value::Object(new)) = (before, after) else {
        return None;
    };
    edit_object(&root.object_value()?, old, new);
    let out = root.to_string();
    (parse_jsonc(out.as_bytes()).as_ref() == Some(after)).then_some(out)
}

fn edit_object(
    object: &jsonc_parser::cst::CstObject,
    old: &serde_json::Map<String, Value>,
    new: &serde_json::Map<String, Value>,
) {
    for key in old.keys().filter(|k| !new.contains_key(*k)) {
        if let Some(prop) = object.get(key) {
            prop.remove();
        }
    }
    for (key, value) in new {
        match (old.get(key), object.get(key)) {
            (Some(was), _) if was == value => {}
            (Some(was), Some(prop)) => {
                if !edit_container(prop.value(), was, value) {
                    prop.set_value(cst_input(value));
                }
            }
            _ => {
                object.append(key, cst_input(value));
            }
        }
    }
}

/// Edits the object or array at `node` (holding `old`) to hold `new`; false when they are not
/// both objects or both arrays (the caller replaces the value).
fn edit_container(node: Option<jsonc_parser::cst::CstNode>, old: &Value, new: &Value) -> bool {
    match (node, old, new) {
        (Some(node), Value::Object(o), Value::Object(n)) => match node.as_object() {
            Some(object) => {
                edit_object(&object, o, n);
                true
            }
            None => false,
        },
        (Some(node), Value::Array(o), Value::Array(n)) => match node.as_array() {
            Some(array) => {
                edit_array(&array, o, n);
                true
            }
            None => false,
        },
        _ => false,
    }
}

/// [`edit_object`] for an array, aligned as [`render_array`] aligns one: equal elements stay,
/// an object or array that took the place of one of its kind is edited in place, the rest of the
/// old elements go and the new ones are inserted where they belong.
fn edit_array(array: &jsonc_parser::cst::CstArray, old: &[Value], new: &[Value]) {
    let nodes = array.elements();
    if nodes.len() != old.len() {
        return;
    }
    let container = |v: &Value| matches!(v, Value::Object(_) | Value::Array(_));
    let mut next = 0;
    // For each new element: the old one it keeps (and whether it is equal), or none.
    let mut from: Vec<Option<(usize, bool)>> = Vec::with_capacity(new.len());
    for (i, item) in new.iter().enumerate() {
        let window = next..old.len().min(next + ARRAY_WINDOW);
        if let Some(k) = window.clone().find(|&k| old[k] == *item) {
            next = k + 1;
            from.push(Some((k, true)));
        } else if next < old.len()
            && container(item)
            && std::mem::discriminant(&old[next]) == std::mem::discriminant(item)
            && !new[i + 1..].contains(&old[next])
        {
            next += 1;
            from.push(Some((next - 1, false)));
        } else {
            from.push(None);
        }
    }
    let kept: Vec<usize> = from.iter().flatten().map(|(k, _)| *k).collect();
    for (k, node) in nodes.iter().enumerate() {
        if !kept.contains(&k) {
            node.clone().remove();
        }
    }
    for (item, f) in new.iter().zip(&from) {
        if let Some((k, false)) = f {
            edit_container(Some(nodes[*k].clone()), &old[*k], item);
        }
    }
    for (i, (item, f)) in new.iter().zip(&from).enumerate() {
        if f.is_none() {
            array.insert(i, cst_input(item));
        }
    }
}

/// A JSON value as the syntax tree's input (numbers as their text).
fn cst_input(value: &Value) -> jsonc_parser::cst::CstInputValue {
    use jsonc_parser::cst::CstInputValue;
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_input).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), cst_input(v))).collect())
        }
    }
}

/// The UTF-8 byte order mark some Windows editors put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading UTF-8 byte order mark: the hosts read such a file, so do we (and
/// [`render_over`] puts the mark back).
fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// Refuses to change the settings file at `target` (the file [`write_target`] gives for `path`)
/// when its owner may not write it: a read-only file is the user's way of saying "do not touch",
/// and an atomic rename would replace it all the same. Nothing is written.
pub fn refuse_read_only(path: &Place, target: &Place) -> anyhow::Result<()> {
    if target.is_read_only() {
        let (path, target) = (&path.path(), &target.path());
        let shown = if path == target {
            path.shown().to_string()
        } else {
            format!("{} (through the symlink {})", target.shown(), path.shown())
        };
        bail!(
            "{shown} is read-only (no write permission for its owner); it was left untouched — make it writable (`chmod u+w`) and run again, or edit it by hand"
        );
    }
    Ok(())
}

/// The file to actually write for the settings file at `path`: the path itself, or the target of
/// a symlink there. A project's settings file is written only at its own path: a link that leads
/// anywhere else — out of the project, into `.git/`, onto another file of it (a
/// `.codex/hooks.json -> ../package.json`, a folder link onto `.vscode/`, another host's file, a
/// copy in a subfolder) — would have us merge hooks into a file of the user's
/// (`docs/security.md` `### I4`).
pub fn write_target(path: &Place) -> anyhow::Result<Place> {
    match path {
        Place::Project(root, rel) => {
            let resolved = root.resolve(rel).map_err(|why| {
                anyhow::anyhow!(
                    "refusing to write {}: it is {why} (a repository's settings file may not lead elsewhere); nothing was written",
                    path.path().shown()
                )
            })?;
            if resolved != *rel {
                anyhow::bail!(
                    "refusing to write {}: it leads to {}, which is not the host's settings file (a repository's settings file may not lead elsewhere); nothing was written",
                    path.path().shown(),
                    root.path().join(&resolved).shown()
                );
            }
            Ok(path.clone())
        }
        Place::User(p) => match path.symlink_metadata() {
            Ok(meta) if meta.is_symlink() => {
                dunce::canonicalize(p).map(Place::user).with_context(|| {
                    format!(
                        "{} is a symlink whose target cannot be resolved; nothing was written",
                        p.shown()
                    )
                })
            }
            _ => Ok(path.clone()),
        },
    }
}

/// The folder holding the backups of the settings file at `path`, under the user's state folder
/// (`state_dir`, e.g. `~/.local/state`). A project's is keyed by the path and by the identity of
/// the project folder `root` ([`project_identity`]): a clone removed and cloned again at the same
/// path is another project, so the first clone's saved file never becomes the restore point of
/// the next.
pub fn backup_dir(
    state_dir: &Path,
    host: Host,
    scope: Scope,
    path: &Path,
    root: &ProjectRoot,
) -> PathBuf {
    let mut key = path.to_string_lossy().into_owned();
    if scope == Scope::Project {
        key.push('\0');
        key.push_str(&root.identity());
    }
    let hash = crate::fingerprint::sha256(key.as_bytes());
    let short: String = hash
        .trim_start_matches("sha256:")
        .chars()
        .take(16)
        .collect();
    state_dir.join("sophia-hook/backups").join(format!(
        "{}-{}-{short}",
        host.as_str(),
        scope.as_str()
    ))
}

/// Pretty JSON with a final newline, as the settings files are usually written.
pub fn render(doc: &Value) -> String {
    let mut text = serde_json::to_string_pretty(doc).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

/// The text of `doc` written over the file's `original` bytes: every member whose value did not
/// change keeps its original text exactly; changed objects are rebuilt member by member, and
/// only the members that changed are re-serialised (pretty, two spaces).
/// A byte order mark at the start of the original is kept.
pub fn render_over(original: Option<&[u8]>, doc: &Value) -> String {
    let bom = original.is_some_and(|b| b.starts_with(BOM));
    let raw = original.and_then(|b| std::str::from_utf8(strip_bom(b)).ok());
    let mut text = if bom {
        "\u{feff}".to_owned()
    } else {
        String::new()
    };
    text.push_str(&render_value(doc, raw, 0));
    text.push('\n');
    text
}

fn render_value(value: &Value, raw: Option<&str>, depth: usize) -> String {
    if let Some(raw) = raw
        && bounded::json_value(raw.as_bytes(), bounded::FILE).is_ok_and(|before| before == *value)
    {
        return raw.trim().to_owned();
    }
    let members = raw.and_then(|r| bounded::json_str::<Members>(r, bounded::FILE).ok());
    match (value, members) {
        (Value::Object(map), Some(Members(members))) if !map.is_empty() => {
            let pad = "  ".repeat(depth + 1);
            // Each member's original text by key, the last one winning (as in the parsed
            // value): one lookup per member, not a search of all of them.
            let by_key: std::collections::HashMap<&str, &str> =
                members.iter().map(|(k, r)| (k.as_str(), r.get())).collect();
            let mut out = String::from("{\n");
            for (i, (key, v)) in map.iter().enumerate() {
                #[cfg(test)]
                LOOKUPS.with(|n| n.set(n.get() + 1));
                let raw_v = by_key.get(key.as_str()).copied();
                out.push_str(&pad);
                out.push_str(&serde_json::to_string(key).unwrap_or_default());
                out.push_str(": ");
                out.push_str(&render_value(v, raw_v, depth + 1));
                if i + 1 < map.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&"  ".repeat(depth));
            out.push('}');
            out
        }
        (Value::Array(items), _) if !items.is_empty() => {
            let elements = raw
                .and_then(|r| bounded::json_str::<Vec<Box<RawValue>>>(r, bounded::FILE).ok())
                .unwrap_or_default();
            render_array(items, &elements, depth)
        }
        _ => serde_json::to_string_pretty(value)
            .unwrap_or_else(|_| "null".to_owned())
            .replace('\n', &format!("\n{}", "  ".repeat(depth))),
    }
}

/// How far ahead [`render_array`] looks for an element's original text: far enough for the
/// entries install adds and uninstall removes, and a bounded cost per element however long the
/// array.
const ARRAY_WINDOW: usize = 16;

/// A changed array, one element a line: each element equal to one of the original `elements`
/// (in order, within [`ARRAY_WINDOW`]) keeps that element's text; an element that took the
/// place of an original one of the same kind is rendered over it (a matcher group that lost our
/// handler keeps the user's handler as written); new elements are re-serialised.
fn render_array(items: &[Value], elements: &[Box<RawValue>], depth: usize) -> String {
    let parsed: Vec<Option<Value>> = elements
        .iter()
        .map(|e| bounded::json_value(e.get().as_bytes(), bounded::FILE).ok())
        .collect();
    let pad = "  ".repeat(depth + 1);
    let mut out = String::from("[\n");
    let mut next = 0;
    for (i, item) in items.iter().enumerate() {
        let window = next..elements.len().min(next + ARRAY_WINDOW);
        let same = window.clone().find(|&k| parsed[k].as_ref() == Some(item));
        let raw = match same {
            Some(k) => {
                next = k + 1;
                Some(elements[k].get())
            }
            None if next < elements.len()
                && parsed[next]
                    .as_ref()
                    .is_some_and(|p| std::mem::discriminant(p) == std::mem::discriminant(item))
                && !items[i + 1..]
                    .iter()
                    .any(|later| parsed[next].as_ref() == Some(later)) =>
            {
                next += 1;
                Some(elements[next - 1].get())
            }
            None => None,
        };
        out.push_str(&pad);
        out.push_str(&render_value(item, raw, depth + 1));
        if i + 1 < items.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push_str(&"  ".repeat(depth));
    out.push(']');
    out
}

#[cfg(test)]
thread_local! {
    /// Member comparisons made while rendering, for the test that counts work.
    static LOOKUPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// An object's members in their written order, each value as its original text.
struct Members(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                    out.push(entry);
                }
                Ok(Members(out))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// What writing `doc` to the settings file at `path` (written through `target`, from
/// [`write_target`]) does, byte for byte: the file's bytes now, and the bytes it will hold
/// (`None`: the file is removed). What [`write`] writes and `--dry-run` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub current: Option<Vec<u8>>,
    pub next: Option<Vec<u8>>,
}

/// The [`Plan`] of replacing the settings file at `target` with `doc`, or removing it for `None`.
/// A file that must go but is reached through a symlink is emptied to `{}` instead, so the user's
/// dotfiles link stays valid.
///
/// A file that is JSON with comments (read by [`read_for`] for a host that reads them) is edited
/// keeping every comment ([`edit_jsonc`]); with nothing of the user's left it is kept as `{}` and
/// its comments rather than removed.
pub fn plan(place: &Place, target: &Place, doc: Option<&Value>) -> anyhow::Result<Plan> {
    let path = &place.path();
    let current = match target.read(caps::SETTINGS) {
        Ok(bytes) => Some(bytes),
        Err(ReadError::Missing) => None,
        Err(e) => bail!("{} is {e}; it was left untouched", target.path().shown()),
    };
    if let Some(bytes) = &current {
        let body = strip_bom(bytes);
        // Too complex counts as strict JSON here: the read that follows refuses it by name,
        // and the comment-tolerant parser (which has no budget) never sees it.
        let strict = !matches!(
            bounded::json::<serde::de::IgnoredAny>(body, bounded::FILE),
            Err(Refused::Invalid(_))
        ) || body.iter().all(u8::is_ascii_whitespace);
        if !strict && let Some(before) = parse_jsonc(body) {
            let empty = Value::Object(serde_json::Map::new());
            let text = std::str::from_utf8(body).unwrap_or_default();
            let Some(edited) = edit_jsonc(text, &before, doc.unwrap_or(&empty)) else {
                bail!(
                    "{} has comments, and editing it keeping them did not give the expected result; it was left untouched — remove the comments, or make the change by hand",
                    path.shown()
                );
            };
            let bom = if bytes.starts_with(BOM) { BOM } else { b"" };
            return Ok(Plan {
                next: Some([bom, edited.as_bytes()].concat()),
                current,
            });
        }
    }
    let next = match doc {
        Some(doc) => Some(render_over(current.as_deref(), doc).into_bytes()),
        None if current.is_some() && place.symlink_metadata().is_ok_and(|m| m.is_symlink()) => {
            Some(b"{}\n".to_vec())
        }
        None => None,
    };
    Ok(Plan { current, next })
}

/// A unified diff (`similar`, three lines of context) from the file's bytes now to the bytes
/// `plan` writes, headed with `path` (`/dev/null` on the side where there is no file): applied to
/// today's file, it gives exactly the file `install` then writes. Empty when nothing changes.
pub fn unified_diff(path: &Place, plan: &Plan) -> String {
    fn text(b: &Option<Vec<u8>>) -> Option<std::borrow::Cow<'_, str>> {
        b.as_deref().map(String::from_utf8_lossy)
    }
    let (old, new) = (text(&plan.current), text(&plan.next));
    if old == new {
        return String::new();
    }
    let name = path.path().shown().to_string();
    let header = |side: &Option<std::borrow::Cow<str>>| {
        if side.is_some() {
            name.clone()
        } else {
            "/dev/null".to_owned()
        }
    };
    let (old_name, new_name) = (header(&old), header(&new));
    let (old, new) = (old.unwrap_or_default(), new.unwrap_or_default());
    similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .context_radius(3)
        .header(&old_name, &new_name)
        .to_string()
}

/// Carries out `plan` on the settings file at `target` (from [`write_target`]), after copying
/// its current bytes to `backups` (`original.json` once, `last.json` every time). Atomic and
/// mode-keeping (`write_atomic`).
pub fn write(target: &Place, backups: Option<&Path>, plan: &Plan) -> anyhow::Result<()> {
    let Plan { current, next } = plan;
    // The backups keep the original's mode: a 0600 settings file never becomes readable.
    let mode = target
        .symlink_metadata()
        .ok()
        .filter(crate::edge::files::FileMeta::is_file)
        .map_or(0o600, |m| m.mode);
    let shown = target.path();
    // The first change keeps what was there before: the file (`original.json`), or the fact
    // that there was none (`original.absent`), so the "original" never holds our own entries.
    if let (true, Some(dir)) = (current.is_some() || next.is_some(), backups) {
        let original = dir.join("original.json");
        let absent = dir.join("original.absent");
        let kept = Place::user(&original).exists() || Place::user(&absent).exists();
        let (file, bytes): (&Path, &[u8]) = match &current {
            Some(bytes) => (&original, bytes),
            None => (
                &absent,
                b"the file did not exist before sophia-hook's first change\n",
            ),
        };
        if !kept {
            Place::user(file)
                .write_backup(bytes, caps::SETTINGS, mode)
                .with_context(|| format!("keeping a backup in {}", file.shown()))?;
        }
    }
    if let (Some(bytes), Some(dir)) = (&current, backups) {
        let last = dir.join("last.json");
        Place::user(&last)
            .write_backup(bytes, caps::SETTINGS, mode)
            .with_context(|| format!("keeping a backup in {}", last.shown()))?;
    }
    match (current, next) {
        (_, Some(bytes)) => target
            .write_atomic(bytes, caps::SETTINGS)
            .with_context(|| format!("writing {}", shown.shown())),
        (None, None) => Ok(()),
        (Some(_), None) => target
            .remove_file()
            .with_context(|| format!("removing {}", shown.shown())),
    }
}

/// The bytes install last wrote to the settings file, kept beside the backups: while the file
/// still holds exactly these, nothing but install changed it since [`PRE_INSTALL`].
const INSTALLED: &str = "installed.json";
/// The file as it was before the install that [`INSTALLED`] records (or `pre-install.absent`:
/// there was none): what uninstall puts back, byte for byte, while nothing else changed.
const PRE_INSTALL: &str = "pre-install.json";
const PRE_INSTALL_ABSENT: &str = "pre-install.absent";

/// After install carried out `plan` with these `backups`: the bytes it wrote, and the file before
/// it when the file was not exactly what the previous install wrote (else the earlier "before"
/// still stands: an install over our own entries is not the user's file).
/// The records get `mode`, the settings file's own, as every backup does.
pub fn record_install(backups: &Path, plan: &Plan, mode: u32) -> anyhow::Result<()> {
    let Some(next) = &plan.next else {
        return Ok(());
    };
    let installed = backups.join(INSTALLED);
    let ours_before = match (&plan.current, Place::user(&installed).read(caps::SETTINGS)) {
        (Some(current), Ok(last)) => *current == last,
        _ => false,
    };
    let keep = |file: &Path, bytes: &[u8]| {
        Place::user(file)
            .write_backup(bytes, caps::SETTINGS, mode)
            .with_context(|| format!("keeping a backup in {}", file.shown()))
    };
    if !ours_before {
        let (pre, absent) = (backups.join(PRE_INSTALL), backups.join(PRE_INSTALL_ABSENT));
        for stale in [&pre, &absent] {
            remove_record(stale)?;
        }
        match &plan.current {
            Some(bytes) => keep(&pre, bytes)?,
            None => keep(&absent, b"the file did not exist before this install\n")?,
        }
    }
    keep(&installed, next)
}

/// Removes one of our records in the backups folder, if it is there.
fn remove_record(file: &Path) -> anyhow::Result<()> {
    match Place::user(file).remove_file() {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", file.shown()))
        }
        _ => Ok(()),
    }
}

/// After uninstall: the records of the install are spent.
pub fn forget_install(backups: &Path) -> anyhow::Result<()> {
    // The restore point goes with the install it was kept for; `last.json`, the file before this
    // uninstall, stays.
    for name in [
        INSTALLED,
        PRE_INSTALL,
        PRE_INSTALL_ABSENT,
        "original.json",
        "original.absent",
    ] {
        remove_record(&backups.join(name))?;
    }
    Ok(())
}

/// `plan` (an uninstall's) with the file's bytes from before the install, when the file is still
/// exactly what that install wrote and those bytes hold none of `host`'s entries: uninstall then
/// gives back the user's file as it was, layout and all. Otherwise `plan` as it is (only our
/// entries go).
pub fn restore_pre_install(
    path: &Place,
    backups: Option<&Path>,
    host: Host,
    mut plan: Plan,
) -> Plan {
    let Some(dir) = backups else { return plan };
    let unchanged_since = plan.current.as_ref().is_some_and(|current| {
        Place::user(dir.join(INSTALLED))
            .read(caps::SETTINGS)
            .is_ok_and(|last| last == *current)
    });
    if !unchanged_since {
        return plan;
    }
    match Place::user(dir.join(PRE_INSTALL)).read(caps::SETTINGS) {
        Ok(bytes) => {
            let without_ours = bounded::json_value(&bytes, bounded::FILE)
                .is_ok_and(|doc| crate::install::registered(&doc, host).is_empty());
            if without_ours {
                plan.next = Some(bytes);
            }
        }
        Err(ReadError::Missing) if Place::user(dir.join(PRE_INSTALL_ABSENT)).exists() => {
            plan.next = if path.symlink_metadata().is_ok_and(|m| m.is_symlink()) {
                Some(b"{}\n".to_vec())
            } else {
                None
            };
        }
        Err(_) => {}
    }
    plan
}

/// [`plan`] then [`write`]: `doc` written to the settings file at `path`, or the file removed.
pub fn write_doc(
    path: &Place,
    target: &Place,
    backups: Option<&Path>,
    doc: Option<&Value>,
) -> anyhow::Result<()> {
    write(target, backups, &plan(path, target, doc)?)
}

#[cfg(test)]
mod tests {
    // Tests set up their files and folders directly.
    #![allow(clippy::disallowed_methods)]
    use super::*;
    use std::fs;
    #[cfg(unix)]
    use std::os::unix::fs::{PermissionsExt, symlink};

    #[test]
    #[cfg(unix)]
    fn unparseable_files_are_refused_and_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        fs::write(&path, "{ // comment\n \"a\": 1 }").unwrap();
        let err = read(&Place::user(&path)).unwrap_err().to_string();
        assert!(
            err.contains("not valid JSON") && err.contains("left untouched"),
            "{err}"
        );
        fs::write(&path, "[1]").unwrap();
        assert!(read(&Place::user(&path)).is_err());
        assert_eq!(
            read(&Place::user(dir.path().join("missing.json"))).unwrap(),
            Value::Null
        );
        let zero = dir.path().join("zero.json");
        symlink("/dev/zero", &zero).unwrap();
        assert!(read(&Place::user(&zero)).is_err());
    }

    #[test]
    #[cfg(unix)]
    fn write_keeps_the_original_and_the_last_backup_and_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = dir.path().join("hooks.json");
        fs::write(&path, "{\"old\":true}").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let root = ProjectRoot::open(dir.path()).unwrap();
        let backups = backup_dir(&state, Host::Codex, Scope::User, &path, &root);
        let place = Place::user(&path);
        write_doc(
            &place,
            &place,
            Some(&backups),
            Some(&serde_json::json!({"new": 1})),
        )
        .unwrap();
        write_doc(
            &place,
            &place,
            Some(&backups),
            Some(&serde_json::json!({"new": 2})),
        )
        .unwrap();
        assert_eq!(
            fs::read_to_string(backups.join("original.json")).unwrap(),
            "{\"old\":true}"
        );
        assert_eq!(
            read(&Place::user(backups.join("last.json"))).unwrap(),
            serde_json::json!({"new": 1})
        );
        assert_eq!(
            read(&Place::user(&path)).unwrap(),
            serde_json::json!({"new": 2})
        );
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        write_doc(&place, &place, Some(&backups), None).unwrap();
        assert!(!path.exists());
        assert!(!dir.path().join("hooks.json.sophia-hook.bak").exists());
    }

    /// I7: writing settings back over a file is linear in its members: a settings file of `n`
    /// keys with one member changed costs a bounded number of lookups per member, for growing
    /// `n` (50,000 keys took 8–18 s when each member was looked for among all the others).
    #[test]
    fn rendering_over_a_file_is_linear_in_its_members() {
        for n in [1_000usize, 4_000, 16_000] {
            let mut doc = serde_json::Map::new();
            for i in 0..n {
                doc.insert(format!("k{i}"), Value::from(i));
            }
            let original = serde_json::to_string_pretty(&Value::Object(doc.clone())).unwrap();
            doc.insert("hooks".to_owned(), serde_json::json!({"new": true}));
            LOOKUPS.with(|c| c.set(0));
            let text = render_over(Some(original.as_bytes()), &Value::Object(doc.clone()));
            let lookups = LOOKUPS.with(std::cell::Cell::get);
            assert!(lookups <= 2 * (n + 1), "{n} keys: {lookups} lookups");
            assert_eq!(
                serde_json::from_str::<Value>(&text).unwrap(),
                Value::Object(doc)
            );
        }
    }

    #[test]
    fn unchanged_members_keep_their_text_and_numbers() {
        let original = r#"{"big": 18446744073709551616, "tiny": 1e-400, "f": 1.50,
  "nested": {"keep": [1.0, 2e5], "hooks": {"Stop": [{"t": 1E3}]}},
  "hooks": {"Stop": [{"hooks": [{"command": "n", "timeout": 3.0}]}]}}"#;
        let mut doc: Value = serde_json::from_str(original).unwrap();
        doc["hooks"]["SessionStart"] = serde_json::json!([{"hooks": [{"command": "s"}]}]);
        let text = render_over(Some(original.as_bytes()), &doc);
        for kept in [
            "18446744073709551616",
            "1e-400",
            "1.50",
            r#"{"keep": [1.0, 2e5], "hooks": {"Stop": [{"t": 1E3}]}}"#,
            r#"[{"hooks": [{"command": "n", "timeout": 3.0}]}]"#,
        ] {
            assert!(text.contains(kept), "{kept} in {text}");
        }
        let reparsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(reparsed, doc);
        assert_eq!(render_over(None, &doc), render(&doc));
        // Untouched document: the original text.
        let same: Value = serde_json::from_str(original).unwrap();
        assert_eq!(
            render_over(Some(original.as_bytes()), &same),
            format!("{original}\n")
        );
    }

    /// Inside a changed array, every element the change leaves keeps its text: the user's group
    /// beside the one install appends, the user's handler in a group uninstall took ours out of,
    /// numbers serde_json would write differently (`2.50`, `1E-400`) included.
    #[test]
    fn elements_of_a_changed_array_keep_their_text() {
        let user = r#"{"type": "command", "command": "u", "timeout": 2.50, "n": 1E-400}"#;
        let ours = r#"{"type": "command", "command": "/x/sophia-hook --host codex --event Stop"}"#;
        let cases = [
            // install: a group appended after the user's.
            (
                format!(r#"{{"hooks": {{"Stop": [{{"hooks": [{user}]}}]}}}}"#),
                "append",
            ),
            // uninstall: ours leaves a group it shared with the user's handler.
            (
                format!(
                    r#"{{"hooks": {{"Stop": [{{"matcher": "*", "hooks": [{ours}, {user}]}}]}}}}"#
                ),
                "remove",
            ),
            // uninstall: our group between two of the user's goes.
            (
                format!(
                    r#"{{"hooks": {{"Stop": [{{"hooks": [{user}]}}, {{"hooks": [{ours}]}}, {{"hooks": [{user}], "x": 1.0}}]}}}}"#
                ),
                "drop",
            ),
        ];
        for (original, change) in cases {
            let mut doc: Value = serde_json::from_str(&original).unwrap();
            let stop = doc["hooks"]["Stop"].as_array_mut().unwrap();
            match change {
                "append" => stop.push(serde_json::json!({"hooks": [{"command": "new"}]})),
                "remove" => {
                    stop[0]["hooks"].as_array_mut().unwrap().remove(0);
                }
                _ => {
                    stop.remove(1);
                }
            }
            let text = render_over(Some(original.as_bytes()), &doc);
            assert!(text.contains(user), "{change}: {text}");
            assert_eq!(
                serde_json::from_str::<Value>(&text).unwrap(),
                doc,
                "{change}"
            );
        }
    }

    #[test]
    #[cfg(unix)]
    fn symlinked_settings_are_written_through_within_the_scope_rules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        fs::create_dir_all(root.join(".codex")).unwrap();
        let dotfiles = dir.path().join("dotfiles");
        fs::create_dir_all(&dotfiles).unwrap();
        fs::write(dotfiles.join("hooks.json"), "{}").unwrap();
        // User scope: the user's own link is followed.
        let user = dir.path().join("user-hooks.json");
        symlink(dotfiles.join("hooks.json"), &user).unwrap();
        let user_place = Place::user(&user);
        let target = write_target(&user_place).unwrap();
        assert_eq!(
            target.path(),
            dunce::canonicalize(dotfiles.join("hooks.json")).unwrap()
        );
        write_doc(
            &user_place,
            &target,
            None,
            Some(&serde_json::json!({"a": 1})),
        )
        .unwrap();
        assert!(
            fs::symlink_metadata(&user)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            read(&Place::user(&user)).unwrap(),
            serde_json::json!({"a": 1})
        );
        write_doc(&user_place, &target, None, None).unwrap();
        assert_eq!(read(&Place::user(&user)).unwrap(), serde_json::json!({}));
        // Project scope: a link out of the project is refused.
        let project_file = root.join(".codex/hooks.json");
        symlink(dotfiles.join("hooks.json"), &project_file).unwrap();
        let project = ProjectRoot::open(&root).unwrap();
        let err = write_target(&project.place_of(&project_file)).unwrap_err();
        assert!(err.to_string().contains("refusing"), "{err}");
    }
}
