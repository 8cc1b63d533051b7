//! The context router: decides how much project context the model should load (`light` or
//! `full`), and detects explicit repository tasks in Italian and English.
//!
//! `light` only when `!quick` is present and the stripped prompt is not an explicit repository
//! task; an explicit repository task forces `full` with reason
//! `repo-task-detected-overrides:!quick`; no hotword means `full`. Pure: no I/O.

use serde::Serialize;

use crate::text::{fold, is_question_lead, mask_fenced};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextMode {
    Light,
    Full,
}

impl ContextMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ContextMode::Light => "light",
            ContextMode::Full => "full",
        }
    }
}

pub const REASON_QUICK: &str = "hotword:!quick";
pub const REASON_REPO_OVERRIDE: &str = "repo-task-detected-overrides:!quick";
pub const REASON_DEFAULT_FULL: &str = "default-full-context";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextDecision {
    pub mode: ContextMode,
    pub reason: &'static str,
}

/// Routes context for a prompt whose hotwords are already stripped.
pub fn route(stripped: &str, quick: bool) -> ContextDecision {
    match (quick, quick && is_repo_task(stripped)) {
        (false, _) => ContextDecision {
            mode: ContextMode::Full,
            reason: REASON_DEFAULT_FULL,
        },
        (true, true) => ContextDecision {
            mode: ContextMode::Full,
            reason: REASON_REPO_OVERRIDE,
        },
        (true, false) => ContextDecision {
            mode: ContextMode::Light,
            reason: REASON_QUICK,
        },
    }
}

/// Italian imperatives that, alone, ask for a change to the repository.
const STRONG_VERBS_IT: &[&str] = &[
    "implementa",
    "implementate",
    "implementiamo",
    "rifattorizza",
    "refactora",
    "refactorizza",
    "committa",
    "commita",
    "pusha",
    "mergia",
];
/// English verbs that, alone, ask for a change to the repository (ignored in questions).
const STRONG_VERBS_EN: &[&str] = &["implement", "refactor"];
/// Italian imperatives that ask for a change when they have an object (a create verb needs a
/// repository object, see `CREATE_ONLY_VERBS`).
const EDIT_VERBS_IT: &[&str] = &[
    "correggi",
    "sistema",
    "modifica",
    "aggiorna",
    "aggiungi",
    "rimuovi",
    "elimina",
    "cancella",
    "rinomina",
    "scrivi",
    "crea",
    "sposta",
    "integra",
    "applica",
    "esegui",
    "lancia",
    "cambia",
    "fixa",
    "aggiusta",
    "risolvi",
    "completa",
    "estendi",
    "migra",
    "installa",
    "configura",
];
/// English verbs that ask for a change when they have an object (ignored in questions).
const EDIT_VERBS_EN: &[&str] = &[
    "fix",
    "modify",
    "change",
    "update",
    "add",
    "remove",
    "delete",
    "rename",
    "write",
    "create",
    "move",
    "edit",
    "patch",
    "bump",
    "run",
    "migrate",
    "resolve",
    "install",
    "configure",
    "commit",
];
/// Verbs that make something new; with a generic code object ("scrivi una funzione che…") they
/// ask for an answer, not a change to this repository, so they need a repository object.
const CREATE_ONLY_VERBS: &[&str] = &["scrivi", "crea", "write", "create"];
/// Things of this repository: with any edit verb, a repository task.
const REPO_OBJECTS: &[&str] = &[
    "hook",
    "hooks",
    "installer",
    "installazione",
    "test",
    "tests",
    "file",
    "files",
    "config",
    "configurazione",
    "configuration",
    "branch",
    "commit",
    "repo",
    "repository",
    "progetto",
    "project",
    "dipendenza",
    "dipendenze",
    "dependency",
    "dependencies",
    "ci",
    "pipeline",
    "workflow",
    "docs",
    "documentazione",
    "documentation",
    "changelog",
    "migrazione",
    "migration",
    "readme",
];
/// Generic code objects: with a verb that changes existing code ("correggi il bug"), a
/// repository task; with a create verb, a generic coding question.
const CODE_OBJECTS: &[&str] = &[
    "codice",
    "code",
    "funzione",
    "funzioni",
    "function",
    "functions",
    "metodo",
    "method",
    "modulo",
    "module",
    "classe",
    "class",
    "script",
    "bug",
    "bugs",
    "libreria",
    "library",
    "crate",
    "endpoint",
    "componente",
    "component",
    "struct",
    "handler",
    "parser",
];
/// Files and words that name this repository's own material; alone they make a repository task.
const REPO_NAMES: &[&str] = &["readme", "makefile", "dockerfile", "codebase", "changelog"];
/// Determiners that make `repo`/`repository` mean *this* repository.
const THIS_REPO_DETERMINERS: &[&str] = &[
    "questo", "this", "the", "nel", "del", "our", "nostro", "al", "my", "mio", "sul", "in",
];
/// Articles before an Italian word that make it a noun (`la modifica`, `il sistema`).
const ARTICLES_IT: &[&str] = &[
    "il", "lo", "la", "i", "gli", "le", "un", "uno", "una", "del", "della", "nel", "nella", "al",
    "alla", "questo", "questa", "quel", "quella", "sul", "sulla", "dal", "dalla", "l",
];
/// Words that create a branch, a pull request or a commit with the next noun.
const CREATE_VERBS: &[&str] = &["crea", "create", "apri", "open", "fai", "make", "do"];
const VCS_OBJECTS: &[&str] = &["branch", "pr", "commit", "push", "merge", "rebase", "pull"];
const FILLERS: &[&str] = &[
    "un", "una", "uno", "a", "an", "il", "the", "nuovo", "nuova", "new", "la", "lo",
];

/// File extensions that make a token a file name.
const CODE_EXTENSIONS: &[&str] = &[
    "rs",
    "py",
    "js",
    "mjs",
    "cjs",
    "ts",
    "tsx",
    "jsx",
    "go",
    "java",
    "kt",
    "c",
    "h",
    "cc",
    "cpp",
    "hpp",
    "cs",
    "rb",
    "php",
    "cfm",
    "cfc",
    "sql",
    "json",
    "jsonl",
    "yaml",
    "yml",
    "toml",
    "md",
    "sh",
    "ps1",
    "bat",
    "html",
    "css",
    "scss",
    "xml",
    "ini",
    "cfg",
    "lock",
    "vue",
    "svelte",
    "swift",
    "gradle",
    "properties",
    "env",
    "txt",
    "csv",
    "log",
];
/// Names with a file-like suffix that are not files.
const NOT_FILES: &[&str] = &[
    "node.js",
    "vue.js",
    "next.js",
    "react.js",
    "express.js",
    "three.js",
    "d3.js",
    "chart.js",
    "nuxt.js",
    "nest.js",
    "asp.net",
    "ado.net",
    "socket.io",
    "e.g",
    "i.e",
];
/// First path segments that make `a/b` a path.
const PATH_ROOTS: &[&str] = &[
    "src", "tests", "test", "docs", "lib", "app", "bin", "scripts", "fixtures", "benches",
    ".codex", ".claude", ".gemini", ".agents", ".github", ".ci", "skills", "config", "packages",
];

/// True when the prompt is an explicit task on the repository: it names a file path or one of
/// the repository's own files, uses an imperative that changes code (implement, refactor, commit,
/// create a branch), or pairs an edit verb (fix, modify, update, add…) with a code object (the
/// hooks, the installer, tests, a function…). English verbs do not count in questions
/// ("how does a commit work?"); Italian imperatives always do.
pub fn is_repo_task(stripped: &str) -> bool {
    let unfenced = mask_fenced(stripped);
    if unfenced.split_whitespace().any(is_path_like) {
        return true;
    }
    let folded = fold(&unfenced);
    let words: Vec<&str> = crate::text::words(&folded).collect();
    let question = is_question_lead(&words);
    let mut change_verb = false;
    let mut create_verb = false;
    let mut repo_object = false;
    let mut code_object = false;
    for (i, word) in words.iter().copied().enumerate() {
        let prev = i.checked_sub(1).map(|p| words[p]);
        if REPO_NAMES.contains(&word) {
            return true;
        }
        if matches!(word, "repo" | "repository")
            && prev.is_some_and(|p| THIS_REPO_DETERMINERS.contains(&p))
        {
            return true;
        }
        if STRONG_VERBS_IT.contains(&word) {
            return true;
        }
        if !question && STRONG_VERBS_EN.contains(&word) {
            return true;
        }
        if !question && is_vcs_action(&words, i) {
            return true;
        }
        let noun_use = prev.is_some_and(|p| ARTICLES_IT.contains(&p));
        let verb = (EDIT_VERBS_IT.contains(&word) && !noun_use)
            || (!question && EDIT_VERBS_EN.contains(&word));
        if verb && CREATE_ONLY_VERBS.contains(&word) {
            create_verb = true;
        } else if verb {
            change_verb = true;
        }
        repo_object |= REPO_OBJECTS.contains(&word);
        code_object |= CODE_OBJECTS.contains(&word);
    }
    (change_verb && (repo_object || code_object)) || (create_verb && repo_object)
}

/// `crea un branch`, `open a PR`, `fai il commit`, or `commit …` as the opening imperative.
fn is_vcs_action(words: &[&str], i: usize) -> bool {
    if i == 0 && matches!(words[0], "commit" | "push" | "merge" | "rebase") && words.len() > 1 {
        return true;
    }
    if !CREATE_VERBS.contains(&words[i]) {
        return false;
    }
    words[i + 1..]
        .iter()
        .find(|w| !FILLERS.contains(w))
        .is_some_and(|w| VCS_OBJECTS.contains(w) || *w == "pull")
}

/// A token that names a file: `src/main.rs`, `./x`, `~/y`, `C:\a\b.txt`, `main.rs`, `AGENTS.md`.
fn is_path_like(token: &str) -> bool {
    let token = token.trim_matches(|c: char| {
        matches!(
            c,
            ',' | ';' | ':' | '(' | ')' | '"' | '\'' | '`' | '?' | '!' | '«' | '»' | '[' | ']'
        )
    });
    let token = token.strip_suffix('.').unwrap_or(token);
    if token.len() < 3 || token.contains("://") || token.starts_with("www.") || token.contains('@')
    {
        return false;
    }
    let lower = token.to_ascii_lowercase();
    if NOT_FILES.contains(&lower.as_str()) {
        return false;
    }
    let has_extension = lower.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && !stem.ends_with('.')
            && CODE_EXTENSIONS.contains(&ext)
            && stem
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
    });
    if has_extension
        && lower
            .chars()
            .all(|c| c.is_alphanumeric() || "._-/\\~".contains(c))
    {
        return true;
    }
    let sep = if lower.contains('/') { '/' } else { '\\' };
    if !lower.contains(sep) {
        return false;
    }
    let segments: Vec<&str> = lower.split(sep).collect();
    lower.starts_with("./")
        || lower.starts_with("../")
        || lower.starts_with("~/")
        || (lower.starts_with('/') && segments.len() > 2)
        || segments.len() > 3
        || PATH_ROOTS.contains(&segments[0])
        || is_drive_path(&lower, sep)
}

/// `C:\a\b.txt`, `d:/x`: a drive letter, a colon, a separator and more.
fn is_drive_path(lower: &str, sep: char) -> bool {
    let mut chars = lower.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.next() == Some(':')
        && chars.next() == Some(sep)
        && chars.next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routing_table() {
        let table = [
            ("spiegami SQL", true, ContextMode::Light, REASON_QUICK),
            (
                "sintetizza questi log",
                true,
                ContextMode::Light,
                REASON_QUICK,
            ),
            (
                "implementa modifica agli hook",
                true,
                ContextMode::Full,
                REASON_REPO_OVERRIDE,
            ),
            (
                "spiegami questa SQL",
                false,
                ContextMode::Full,
                REASON_DEFAULT_FULL,
            ),
            (
                "implementa modifica agli hook",
                false,
                ContextMode::Full,
                REASON_DEFAULT_FULL,
            ),
        ];
        for (stripped, quick, mode, reason) in table {
            let got = route(stripped, quick);
            assert_eq!(
                (got.mode, got.reason),
                (mode, reason),
                "{stripped:?} quick={quick}"
            );
        }
    }

    #[test]
    fn repository_tasks_are_detected() {
        for prompt in [
            "implementa modifica agli hook",
            "correggi il bug nel parser",
            "aggiorna il README",
            "modifica src/hotword.rs per accettare tab",
            "fix the failing tests",
            "refactor the installer",
            "commit these changes",
            "fai il commit delle modifiche",
            "crea un branch per la feature",
            "create a new branch for this",
            "update AGENTS.md with the new rules",
            "aggiungi un test per il caso vuoto",
            "rinomina la funzione parse_payload",
            "cosa fa main.rs?",
            "guarda ./scripts/install.sh",
            "esegui i test",
            "scrivi un test per il parser",
            "fix the bug in the login handler",
            "aggiorna gli hook di questo repo",
            "open a PR with the fix",
            "rifattorizza il modulo",
            "controlla C:\\Users\\dev\\repo\\src\\main.rs",
            // A short Windows path, as docs/routing.md lists it (was light).
            "what does C:\\a\\b.txt do?",
            "apri D:\\progetto\\note.txt",
        ] {
            assert!(
                is_repo_task(prompt),
                "expected a repository task: {prompt:?}"
            );
        }
    }

    #[test]
    fn quick_questions_are_not_repository_tasks() {
        for prompt in [
            "spiegami SQL",
            "spiegami questa SQL",
            "sintetizza questi log",
            "correggi questa frase in inglese",
            "what is a git commit?",
            "how do I fix a merge conflict in general?",
            "come funziona node.js",
            "differenza tra TCP/IP e UDP",
            "traduci in inglese: buongiorno a tutti",
            "cos'è un test unitario?",
            "spiega il sistema solare",
            "riassumi https://example.com/docs/page.html",
            "scrivi una poesia sul mare",
            "scrivi una funzione python che inverte una stringa",
            "crea uno script bash che conta le righe",
            "modifica la query per filtrare per data",
            "e.g. dammi un esempio di JOIN",
            "what does the 'i.e.' abbreviation mean",
        ] {
            assert!(
                !is_repo_task(prompt),
                "expected no repository task: {prompt:?}"
            );
        }
    }

    #[test]
    fn version_control_actions() {
        let w = |s: &'static str| s.split(' ').collect::<Vec<&str>>();
        for (words, at, expected) in [
            ("push the fix", 0, true),
            ("rebase onto main", 0, true),
            ("merge it", 0, true),
            ("push", 0, false),
            ("commit x", 1, false),
            ("crea un branch", 0, true),
            ("open a pull request", 0, true),
            ("fai il commit", 0, true),
            ("crea un file", 0, false),
            ("crea", 0, false),
            ("leggi il branch", 0, false),
        ] {
            assert_eq!(is_vcs_action(&w(words), at), expected, "{words:?} at {at}");
        }
    }

    #[test]
    fn path_like_tokens() {
        for (token, expected) in [
            ("src/main.rs", true),
            ("main.rs", true),
            ("AGENTS.md", true),
            ("me@host.rs", false),
            ("www.main.rs", false),
            ("https://x.io/main.rs", false),
            ("a", false),
            ("notes.xyz", false),
            ("a_.rs", true),
            ("a-.rs", true),
            ("../x", true),
            ("~/notes", true),
            ("/etc/hosts", true),
            ("/etc", false),
            ("a/b/c", false),
            ("a/b/c/d", true),
            ("TCP/IP", false),
            ("./a", true),
            ("./", false),
            ("~/", false),
        ] {
            assert_eq!(is_path_like(token), expected, "{token}");
        }
    }

    #[test]
    fn fenced_code_does_not_count() {
        assert!(!is_repo_task(
            "spiegami questo:\n```\nfix src/main.rs\n```\n"
        ));
    }
}
