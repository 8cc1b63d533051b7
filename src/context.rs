//! The context router: decides how much project context the model should load (`light` or
//! `full`), and detects explicit repository tasks in Italian and English.
//!
//! `light` only when `!quick` is present and the stripped prompt is not an explicit repository
//! task; an explicit repository task forces `full` with reason
//! `repo-task-detected-overrides:!quick`; no hotword means `full`. Pure: no I/O.

use serde::Serialize;

use crate::packed::{Table, count_words};
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
static STRONG_VERBS_IT: Table<{ count_words(STRONG_VERBS_IT_TEXT) }> =
    Table::words(STRONG_VERBS_IT_TEXT).sorted();
const STRONG_VERBS_IT_TEXT: &str = "\
    commita committa implementa implementate implementiamo mergia pusha refactora refactorizza
    rifattorizza";
/// English verbs that, alone, ask for a change to the repository (ignored in questions).
static STRONG_VERBS_EN: Table<{ count_words(STRONG_VERBS_EN_TEXT) }> =
    Table::words(STRONG_VERBS_EN_TEXT).sorted();
const STRONG_VERBS_EN_TEXT: &str = "implement refactor";
/// Italian imperatives that ask for a change when they have an object (a create verb needs a
/// repository object, see `CREATE_ONLY_VERBS`).
static EDIT_VERBS_IT: Table<{ count_words(EDIT_VERBS_IT_TEXT) }> =
    Table::words(EDIT_VERBS_IT_TEXT).sorted();
const EDIT_VERBS_IT_TEXT: &str = "\
    aggiorna aggiungi aggiusta applica cambia cancella completa configura correggi crea elimina
    esegui estendi fixa installa integra lancia migra modifica rimuovi rinomina risolvi scrivi
    sistema sposta";
/// English verbs that ask for a change when they have an object (ignored in questions).
static EDIT_VERBS_EN: Table<{ count_words(EDIT_VERBS_EN_TEXT) }> =
    Table::words(EDIT_VERBS_EN_TEXT).sorted();
const EDIT_VERBS_EN_TEXT: &str = "\
    add bump change commit configure create delete edit fix install migrate modify move patch
    remove rename resolve run update write";
/// Verbs that make something new; with a generic code object ("scrivi una funzione che…") they
/// ask for an answer, not a change to this repository, so they need a repository object.
static CREATE_ONLY_VERBS: Table<{ count_words(CREATE_ONLY_VERBS_TEXT) }> =
    Table::words(CREATE_ONLY_VERBS_TEXT).sorted();
const CREATE_ONLY_VERBS_TEXT: &str = "crea create scrivi write";
/// Things of this repository: with any edit verb, a repository task.
static REPO_OBJECTS: Table<{ count_words(REPO_OBJECTS_TEXT) }> =
    Table::words(REPO_OBJECTS_TEXT).sorted();
const REPO_OBJECTS_TEXT: &str = "\
    branch changelog ci commit config configuration configurazione dependencies dependency
    dipendenza dipendenze docs documentation documentazione file files hook hooks installazione
    installer migration migrazione pipeline progetto project readme repo repository test tests
    workflow";
/// Generic code objects: with a verb that changes existing code ("correggi il bug"), a
/// repository task; with a create verb, a generic coding question.
static CODE_OBJECTS: Table<{ count_words(CODE_OBJECTS_TEXT) }> =
    Table::words(CODE_OBJECTS_TEXT).sorted();
const CODE_OBJECTS_TEXT: &str = "\
    bug bugs class classe code codice component componente crate endpoint function functions
    funzione funzioni handler library libreria method metodo module modulo parser script struct";
/// Files and words that name this repository's own material; alone they make a repository task.
static REPO_NAMES: Table<{ count_words(REPO_NAMES_TEXT) }> = Table::words(REPO_NAMES_TEXT).sorted();
const REPO_NAMES_TEXT: &str = "changelog codebase dockerfile makefile readme";
/// Determiners that make `repo`/`repository` mean *this* repository.
static THIS_REPO_DETERMINERS: Table<{ count_words(THIS_REPO_DETERMINERS_TEXT) }> =
    Table::words(THIS_REPO_DETERMINERS_TEXT).sorted();
const THIS_REPO_DETERMINERS_TEXT: &str = "al del in mio my nel nostro our questo sul the this";
/// Articles before an Italian word that make it a noun (`la modifica`, `il sistema`).
static ARTICLES_IT: Table<{ count_words(ARTICLES_IT_TEXT) }> =
    Table::words(ARTICLES_IT_TEXT).sorted();
const ARTICLES_IT_TEXT: &str = "\
    al alla dal dalla del della gli i il l la le lo nel nella quel quella questa questo sul
    sulla un una uno";
/// Words that create a branch, a pull request or a commit with the next noun.
static CREATE_VERBS: Table<{ count_words(CREATE_VERBS_TEXT) }> =
    Table::words(CREATE_VERBS_TEXT).sorted();
const CREATE_VERBS_TEXT: &str = "apri crea create do fai make open";
static VCS_OBJECTS: Table<{ count_words(VCS_OBJECTS_TEXT) }> =
    Table::words(VCS_OBJECTS_TEXT).sorted();
const VCS_OBJECTS_TEXT: &str = "branch commit merge pr pull push rebase";
static FILLERS: Table<{ count_words(FILLERS_TEXT) }> = Table::words(FILLERS_TEXT).sorted();
const FILLERS_TEXT: &str = "a an il la lo new nuova nuovo the un una uno";

/// File extensions that make a token a file name.
static CODE_EXTENSIONS: Table<{ count_words(CODE_EXTENSIONS_TEXT) }> =
    Table::words(CODE_EXTENSIONS_TEXT).sorted();
const CODE_EXTENSIONS_TEXT: &str = "\
    bat c cc cfc cfg cfm cjs cpp cs css csv env go gradle h hpp html ini java js json jsonl jsx
    kt lock log md mjs php properties ps1 py rb rs scss sh sql svelte swift toml ts tsx txt vue
    xml yaml yml";
/// Names with a file-like suffix that are not files.
static NOT_FILES: Table<{ count_words(NOT_FILES_TEXT) }> = Table::words(NOT_FILES_TEXT).sorted();
const NOT_FILES_TEXT: &str = "\
    ado.net asp.net chart.js d3.js e.g express.js i.e nest.js next.js node.js nuxt.js react.js
    socket.io three.js vue.js";
/// First path segments that make `a/b` a path.
static PATH_ROOTS: Table<{ count_words(PATH_ROOTS_TEXT) }> = Table::words(PATH_ROOTS_TEXT).sorted();
const PATH_ROOTS_TEXT: &str = "\
    .agents .ci .claude .codex .gemini .github app benches bin config docs fixtures lib
    packages scripts skills src test tests";

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
        if REPO_NAMES.contains(word) {
            return true;
        }
        if matches!(word, "repo" | "repository")
            && prev.is_some_and(|p| THIS_REPO_DETERMINERS.contains(p))
        {
            return true;
        }
        if STRONG_VERBS_IT.contains(word) {
            return true;
        }
        if !question && STRONG_VERBS_EN.contains(word) {
            return true;
        }
        if !question && is_vcs_action(&words, i) {
            return true;
        }
        let noun_use = prev.is_some_and(|p| ARTICLES_IT.contains(p));
        let verb = (EDIT_VERBS_IT.contains(word) && !noun_use)
            || (!question && EDIT_VERBS_EN.contains(word));
        if verb && CREATE_ONLY_VERBS.contains(word) {
            create_verb = true;
        } else if verb {
            change_verb = true;
        }
        repo_object |= REPO_OBJECTS.contains(word);
        code_object |= CODE_OBJECTS.contains(word);
    }
    (change_verb && (repo_object || code_object)) || (create_verb && repo_object)
}

/// `crea un branch`, `open a PR`, `fai il commit`, or `commit …` as the opening imperative.
fn is_vcs_action(words: &[&str], i: usize) -> bool {
    if i == 0 && matches!(words[0], "commit" | "push" | "merge" | "rebase") && words.len() > 1 {
        return true;
    }
    if !CREATE_VERBS.contains(words[i]) {
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
    if NOT_FILES.contains(&lower) {
        return false;
    }
    let has_extension = lower.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && !stem.ends_with('.')
            && CODE_EXTENSIONS.contains(ext)
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
        || PATH_ROOTS.contains(segments[0])
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

    type Contains<'a> = &'a dyn Fn(&str) -> bool;

    /// Every word of the word tables, read from their text the plain way
    /// (`split_ascii_whitespace`), is found through the packed tables' binary search, and a
    /// word next to it is not (unless it is a word of the table too).
    #[test]
    fn packed_word_tables_round_trip_every_word() {
        let tables: [(&str, Contains); 16] = [
            (STRONG_VERBS_IT_TEXT, &|w| STRONG_VERBS_IT.contains(w)),
            (STRONG_VERBS_EN_TEXT, &|w| STRONG_VERBS_EN.contains(w)),
            (EDIT_VERBS_IT_TEXT, &|w| EDIT_VERBS_IT.contains(w)),
            (EDIT_VERBS_EN_TEXT, &|w| EDIT_VERBS_EN.contains(w)),
            (CREATE_ONLY_VERBS_TEXT, &|w| CREATE_ONLY_VERBS.contains(w)),
            (REPO_OBJECTS_TEXT, &|w| REPO_OBJECTS.contains(w)),
            (CODE_OBJECTS_TEXT, &|w| CODE_OBJECTS.contains(w)),
            (REPO_NAMES_TEXT, &|w| REPO_NAMES.contains(w)),
            (THIS_REPO_DETERMINERS_TEXT, &|w| {
                THIS_REPO_DETERMINERS.contains(w)
            }),
            (ARTICLES_IT_TEXT, &|w| ARTICLES_IT.contains(w)),
            (CREATE_VERBS_TEXT, &|w| CREATE_VERBS.contains(w)),
            (VCS_OBJECTS_TEXT, &|w| VCS_OBJECTS.contains(w)),
            (FILLERS_TEXT, &|w| FILLERS.contains(w)),
            (CODE_EXTENSIONS_TEXT, &|w| CODE_EXTENSIONS.contains(w)),
            (NOT_FILES_TEXT, &|w| NOT_FILES.contains(w)),
            (PATH_ROOTS_TEXT, &|w| PATH_ROOTS.contains(w)),
        ];
        for (text, contains) in tables {
            let words: Vec<&str> = text.split_ascii_whitespace().collect();
            for w in &words {
                assert!(contains(w), "{w}");
                for near in [format!("{w}~"), format!("{w}a"), w[1..].to_owned()] {
                    assert_eq!(contains(&near), words.contains(&near.as_str()), "{near}");
                }
            }
        }
    }

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
