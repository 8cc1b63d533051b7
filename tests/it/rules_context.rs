//! The context rule of docs/routing.md ("Context mode") as an exhaustive table: sentence form
//! (imperative, polite request, question) × verb class × object class × Italian/English ×
//! `!quick` on/off, with the mode of every cell stated from the spec:
//!
//! - no `!quick`: `full`, `default-full-context`;
//! - `!quick` and an explicit repository task: `full`, `repo-task-detected-overrides:!quick`;
//! - `!quick` otherwise: `light`, `hotword:!quick`.
//!
//! An explicit repository task, per the spec: a file path or the repository's own material
//! (README, the codebase…) in any sentence; an imperative that changes the repository by itself
//! (implement, refactor, "create a branch", "open a PR", "make a commit"); a change verb with a
//! repository or code object; a create verb with a repository object. English verbs do not count
//! in questions; Italian imperatives always do; fenced code is ignored.
//!
//! Planted bug this catches: the question guard dropped before the version-control-action rule
//! (`!quick how do I create a branch in git?` becomes `full`).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use sophia_hook::stages::context::{
    self, ContextMode, REASON_DEFAULT_FULL, REASON_QUICK, REASON_REPO_OVERRIDE,
};
use sophia_hook::stages::routing;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    En,
    It,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Imperative,
    Polite,
    Question,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
    /// Changes the repository by itself: implement, refactor.
    Strong,
    /// Changes existing code with an object: fix, update, remove…
    Change,
    /// Makes something new: write, create.
    Create,
    /// create/open/make + a branch, a PR, a commit.
    Vcs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Object {
    /// The hooks, the tests, the config, the docs, the installer.
    Repo,
    /// A function, the bug, the parser, the module.
    Code,
    /// Nothing of a repository: a poem, a recipe.
    Generic,
    /// A file path or file name.
    Path,
    /// The repository's own material: README, the codebase, this repo.
    RepoName,
    /// A branch, a pull request, a commit (only with `Verb::Vcs`).
    VcsThing,
}

fn forms(lang: Lang) -> &'static [(Form, &'static str)] {
    match lang {
        Lang::En => &[
            (Form::Imperative, ""),
            (Form::Polite, "can you "),
            (Form::Polite, "could you "),
            (Form::Polite, "please "),
            (Form::Question, "how do I "),
            (Form::Question, "how can I "),
            (Form::Question, "what is the best way to "),
            (Form::Question, "why would I "),
            (Form::Question, "should I "),
            (Form::Question, "when should I "),
            (Form::Question, "is it safe to "),
        ],
        // Italian: the verb keeps its imperative spelling (`come si crea…` spells `crea`).
        Lang::It => &[
            (Form::Imperative, ""),
            (Form::Polite, "per favore "),
            (Form::Question, "come si "),
            (Form::Question, "quando si "),
            (Form::Question, "perché si "),
        ],
    }
}

fn verbs(lang: Lang, form: Form) -> &'static [(Verb, &'static str)] {
    match (lang, form) {
        (Lang::En, _) => &[
            (Verb::Strong, "implement"),
            (Verb::Strong, "refactor"),
            (Verb::Change, "fix"),
            (Verb::Change, "update"),
            (Verb::Change, "remove"),
            (Verb::Change, "rename"),
            (Verb::Change, "add"),
            (Verb::Change, "modify"),
            (Verb::Create, "write"),
            (Verb::Create, "create"),
            (Verb::Vcs, "create"),
            (Verb::Vcs, "open"),
            (Verb::Vcs, "make"),
        ],
        // In a question the Italian verb is the third person, which these verbs spell like the
        // imperative.
        (Lang::It, Form::Question) => &[
            (Verb::Strong, "implementa"),
            (Verb::Change, "modifica"),
            (Verb::Change, "aggiorna"),
            (Verb::Change, "elimina"),
            (Verb::Change, "cancella"),
            (Verb::Create, "crea"),
        ],
        (Lang::It, _) => &[
            (Verb::Strong, "implementa"),
            (Verb::Strong, "rifattorizza"),
            (Verb::Change, "correggi"),
            (Verb::Change, "modifica"),
            (Verb::Change, "aggiorna"),
            (Verb::Change, "rimuovi"),
            (Verb::Change, "aggiungi"),
            (Verb::Change, "rinomina"),
            (Verb::Create, "scrivi"),
            (Verb::Create, "crea"),
            (Verb::Vcs, "crea"),
            (Verb::Vcs, "apri"),
            (Verb::Vcs, "fai"),
        ],
    }
}

fn objects(lang: Lang, verb: Verb) -> &'static [(Object, &'static str)] {
    match (lang, verb) {
        (Lang::En, Verb::Vcs) => &[
            (Object::VcsThing, "a branch"),
            (Object::VcsThing, "a new branch"),
            (Object::VcsThing, "a PR"),
            (Object::VcsThing, "a commit"),
        ],
        (Lang::It, Verb::Vcs) => &[
            (Object::VcsThing, "un branch"),
            (Object::VcsThing, "un nuovo branch"),
            (Object::VcsThing, "una PR"),
            (Object::VcsThing, "il commit"),
        ],
        (Lang::En, _) => &[
            (Object::Repo, "the hooks"),
            (Object::Repo, "the tests"),
            (Object::Repo, "the config"),
            (Object::Repo, "the docs"),
            (Object::Repo, "the installer"),
            (Object::Code, "a function"),
            (Object::Code, "the bug"),
            (Object::Code, "the parser"),
            (Object::Code, "this module"),
            (Object::Generic, "a poem"),
            (Object::Generic, "a recipe for pasta"),
            (Object::Path, "src/main.rs"),
            (Object::Path, "AGENTS.md"),
            (Object::RepoName, "the README"),
            (Object::RepoName, "the codebase"),
            (Object::RepoName, "this repo"),
        ],
        (Lang::It, _) => &[
            (Object::Repo, "gli hook"),
            (Object::Repo, "i test"),
            (Object::Repo, "la configurazione"),
            (Object::Repo, "la documentazione"),
            (Object::Code, "una funzione"),
            (Object::Code, "il bug"),
            (Object::Code, "il parser"),
            (Object::Generic, "una poesia"),
            (Object::Generic, "una ricetta"),
            (Object::Path, "src/main.rs"),
            (Object::Path, "AGENTS.md"),
            (Object::RepoName, "il README"),
            (Object::RepoName, "la codebase"),
            (Object::RepoName, "questo repo"),
        ],
    }
}

const TAILS_EN: &[&str] = &["", "?", " in git?", " today"];
const TAILS_IT: &[&str] = &["", "?", " in git?", " adesso"];

/// The spec's rule for one cell: is it an explicit repository task?
fn spec_is_repo_task(lang: Lang, form: Form, verb: Verb, object: Object) -> bool {
    if matches!(object, Object::Path | Object::RepoName) {
        return true;
    }
    if lang == Lang::En && form == Form::Question {
        return false;
    }
    match verb {
        Verb::Strong => true,
        Verb::Vcs => true,
        Verb::Change => matches!(object, Object::Repo | Object::Code),
        Verb::Create => object == Object::Repo,
    }
}

fn expected(quick: bool, repo_task: bool) -> (ContextMode, &'static str) {
    match (quick, repo_task) {
        (false, _) => (ContextMode::Full, REASON_DEFAULT_FULL),
        (true, true) => (ContextMode::Full, REASON_REPO_OVERRIDE),
        (true, false) => (ContextMode::Light, REASON_QUICK),
    }
}

#[test]
fn every_cell_of_the_context_table_follows_the_spec() {
    let mut cells = 0;
    let mut failures = Vec::new();
    for lang in [Lang::En, Lang::It] {
        let tails = if lang == Lang::En { TAILS_EN } else { TAILS_IT };
        for &(form, opening) in forms(lang) {
            for &(verb, verb_text) in verbs(lang, form) {
                for &(object, object_text) in objects(lang, verb) {
                    for tail in tails {
                        let sentence = format!("{opening}{verb_text} {object_text}{tail}");
                        let task = spec_is_repo_task(lang, form, verb, object);
                        for quick in [false, true] {
                            cells += 1;
                            let prompt = if quick {
                                format!("!quick {sentence}")
                            } else {
                                sentence.clone()
                            };
                            let want = expected(quick, task);
                            let r = routing::route(&prompt, false);
                            let got = (r.context_mode, r.context_reason());
                            let direct = context::route(&sentence, quick);
                            if got != want || (direct.mode, direct.reason) != want {
                                failures.push(format!(
                                    "{prompt:?} ({lang:?} {form:?} {verb:?} {object:?}): want {want:?}, got {got:?}"
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(cells > 1500, "the table is exhaustive: {cells} cells");
    assert!(
        failures.is_empty(),
        "{} of {cells} cells break the context rule:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Fenced code is ignored: any task of the table inside a fence, after a plain request for an
/// explanation, leaves `!quick` light.
#[test]
fn a_task_inside_fenced_code_does_not_count() {
    let mut failures = Vec::new();
    for lang in [Lang::En, Lang::It] {
        for &(form, opening) in forms(lang) {
            for &(verb, verb_text) in verbs(lang, form) {
                for &(_, object_text) in objects(lang, verb) {
                    let lead = if lang == Lang::En {
                        "explain this snippet"
                    } else {
                        "spiegami questo esempio"
                    };
                    let prompt =
                        format!("!quick {lead}\n```\n{opening}{verb_text} {object_text}\n```\n");
                    let r = routing::route(&prompt, false);
                    if r.context_mode != ContextMode::Light {
                        failures.push(prompt);
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "fenced tasks counted:\n{}",
        failures.join("\n")
    );
}

/// "An Italian word used as a noun is not a verb": an article before an edit verb's spelling
/// makes it a noun, so with a code object and no other trigger `!quick` stays light; without the
/// article it is the imperative and the cell is a repository task.
#[test]
fn an_italian_edit_verb_after_an_article_is_a_noun() {
    let nouns = ["modifica", "sistema", "aggiorna", "correggi"];
    let articles = ["la", "il", "una", "questa", "nella", "sulla", "l"];
    let objects = ["del parser", "della funzione", "del bug"];
    for verb in nouns {
        for object in objects {
            let imperative = format!("!quick {verb} il codice {object}");
            assert_eq!(
                routing::route(&imperative, false).context_mode,
                ContextMode::Full,
                "{imperative}"
            );
            for article in articles {
                let sep = if article == "l" { "'" } else { " " };
                let prompt = format!("!quick spiegami {article}{sep}{verb} {object}");
                let r = routing::route(&prompt, false);
                assert_eq!(r.context_mode, ContextMode::Light, "{prompt}");
            }
        }
    }
}

/// The issue's exact case.
#[test]
fn an_english_question_about_a_branch_stays_light() {
    let r = routing::route("!quick how do I create a branch in git?", false);
    assert_eq!(r.context_mode, ContextMode::Light);
    assert_eq!(r.context_reason(), REASON_QUICK);
}

/// File paths and names (docs/routing.md): a path or file name in any sentence, a question too,
/// makes a repository task; URLs, e-mail addresses, `node.js`-like names and `a/b` without a
/// known root do not.
#[test]
fn a_path_makes_a_repository_task_and_look_alikes_do_not() {
    let files = [
        "src/main.rs",
        "./x",
        "~/y",
        "C:\\a\\b.txt",
        "main.rs",
        "AGENTS.md",
        "tests/e2e/run",
        "docs/routing.md,",
        "(lib/util.py)",
        "`Cargo.toml`",
        ".codex/hooks.json",
        "package.json?",
    ];
    let not_files = [
        "https://example.com/a/b.rs",
        "www.example.com",
        "node.js",
        "vue.js",
        "a/b",
        "user@example.com",
        "e.g.",
        "and/or",
    ];
    let frames = [
        "!quick what does {} do?",
        "!quick spiegami {} in breve",
        "!quick {}",
        "!quick how is {} used?",
    ];
    for frame in frames {
        for f in files {
            let prompt = frame.replace("{}", f);
            assert_eq!(
                routing::route(&prompt, false).context_mode,
                ContextMode::Full,
                "{prompt}"
            );
        }
        for f in not_files {
            let prompt = frame.replace("{}", f);
            assert_eq!(
                routing::route(&prompt, false).context_mode,
                ContextMode::Light,
                "{prompt}"
            );
        }
    }
}
