//! The explicit-mention lock (issue 45, `docs/skills.md`, "Explicit mentions"), on the real
//! binary: a table over every host × every form a host or its user writes × the scope the skill
//! is in × a same-named skill elsewhere (in the other scope, or only in a folder the host does
//! not read). The prompt's words favour another skill of the catalog, so a name that follows the
//! words instead of the mention fails.

use crate::common;

use std::fs;
use std::path::Path;

use serde_json::Value;
use sophia_hook::hosts::Host;

/// A folder a host does not read, per host (docs/skills.md, "How the folders were verified").
const NOT_READ: &[(&str, &str)] = &[
    ("codex", ".claude/skills"),
    ("claude", ".agents/skills"),
    ("gemini", ".claude/skills"),
    ("copilot", ".gemini/skills"),
    ("antigravity", ".claude/skills"),
];

/// The forms, with the prompt each gives for `name` (the rest of the prompt is about
/// spreadsheets, which `sheet-formulas` describes).
type Form = (&'static str, fn(&str) -> String);

const FORMS: &[Form] = &[
    ("codex $name", |n| {
        format!("${n} fix the formulas of the pivot tables in budget.xlsx")
    }),
    ("slash /name", |n| {
        format!("/{n} fix the formulas of the pivot tables in budget.xlsx")
    }),
    ("use the name skill", |n| {
        format!("use the {n} skill to fix the formulas of the pivot tables in budget.xlsx")
    }),
    ("con la skill name", |n| {
        format!("con la skill {n} sistemami le formule delle tabelle pivot in budget.xlsx")
    }),
    ("backticked name", |n| {
        format!("fix the formulas of the pivot tables in budget.xlsx with `{n}`")
    }),
];

fn skill(root: &Path, folder: &str, id: &str, description: &str) {
    let dir = root.join(folder).join(id);
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {id}\ndescription: {description}\n---\n# {id}\n"),
    )
    .unwrap();
}

/// Hook stdout and the explain decision for `prompt` on `host`.
fn ask(host: Host, home: &Path, project: &Path, prompt: &str) -> (String, Value) {
    let env = [("SOPHIA_ANALYTICS", "off")];
    let body = common::prompt_payload(host, project, prompt);
    let hook = common::run_binary_in(&["--host", host.as_str()], &body, home, project, &env);
    assert_eq!(hook.code, 0, "{}", hook.stderr);
    let explain = common::run_binary_in(
        &["explain", "--host", host.as_str()],
        &body,
        home,
        project,
        &env,
    );
    assert_eq!(explain.code, 0, "{}", explain.stderr);
    (hook.stdout, serde_json::from_str(&explain.stdout).unwrap())
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Elsewhere {
    /// Only the one skill.
    Nothing,
    /// A skill of the same name in the other scope too (project shadows user).
    OtherScope,
    /// The named skill only in a folder this host does not read: nothing to lock.
    Unread,
}

#[test]
fn a_named_skill_is_named_for_every_host_form_scope_and_namesake() {
    let mut cases = 0;
    for (host_name, project_folder, user_folder) in common::SKILL_FOLDERS {
        let host = *Host::ALL.iter().find(|h| h.as_str() == *host_name).unwrap();
        let unread = NOT_READ.iter().find(|(h, _)| h == host_name).unwrap().1;
        for (form, prompt_for) in FORMS {
            for user_scope in [false, true] {
                for elsewhere in [Elsewhere::Nothing, Elsewhere::OtherScope, Elsewhere::Unread] {
                    let (_dir, home, project) = common::home_and_project();
                    let (root, folder, other_root, other_folder) = if user_scope {
                        (&home, *user_folder, &project, *project_folder)
                    } else {
                        (&project, *project_folder, &home, *user_folder)
                    };
                    // The skill the words fit, always readable.
                    skill(
                        root,
                        folder,
                        "sheet-formulas",
                        "Spreadsheet formulas, pivot tables and xlsx workbooks in Excel.",
                    );
                    let named_desc = "Merge, split and fill PDF forms.";
                    match elsewhere {
                        Elsewhere::Nothing => skill(root, folder, "pdf-tools", named_desc),
                        Elsewhere::OtherScope => {
                            skill(root, folder, "pdf-tools", named_desc);
                            skill(other_root, other_folder, "pdf-tools", named_desc);
                        }
                        Elsewhere::Unread => skill(&project, unread, "pdf-tools", named_desc),
                    }
                    let prompt = prompt_for("pdf-tools");
                    let (stdout, decision) = ask(host, &home, &project, &prompt);
                    let selected = &decision["skills"]["selected"];
                    let what =
                        format!("{host_name} / {form} / user scope {user_scope} / {elsewhere:?}");
                    cases += 1;
                    if elsewhere == Elsewhere::Unread {
                        assert!(
                            !stdout.contains("skill=pdf-tools"),
                            "{what}: a skill the host does not list was named\n{stdout}"
                        );
                        continue;
                    }
                    assert_eq!(selected[0]["skillId"], "pdf-tools", "{what}: {decision}");
                    assert_eq!(selected.as_array().unwrap().len(), 1, "{what}: {selected}");
                    assert_eq!(
                        selected[0]["reasons"][0], "explicit-mention:pdf-tools",
                        "{what}"
                    );
                    // The skill of the higher-precedence scope: the project's when both hold it.
                    let source = selected[0]["source"].as_str().unwrap();
                    let want = if user_scope && elsewhere != Elsewhere::OtherScope {
                        "user:"
                    } else {
                        "project:"
                    };
                    assert!(source.starts_with(want), "{what}: {source}");
                    // What the model is shown.
                    assert!(stdout.contains("skill=pdf-tools"), "{what}\n{stdout}");
                }
            }
        }
    }
    assert_eq!(cases, common::SKILL_FOLDERS.len() * FORMS.len() * 2 * 3);
}

#[test]
fn a_negated_mention_is_never_named_and_an_unknown_name_changes_nothing() {
    let (_dir, home, project) = common::home_and_project();
    skill(
        &project,
        ".agents/skills",
        "sheet-formulas",
        "Spreadsheet formulas, pivot tables and xlsx workbooks in Excel.",
    );
    skill(
        &project,
        ".agents/skills",
        "pdf-tools",
        "Merge, split and fill PDF forms.",
    );
    let words = "fix the formulas of the pivot tables in budget.xlsx";
    let (_, plain) = ask(Host::Codex, &home, &project, words);
    assert_eq!(plain["skills"]["selected"][0]["skillId"], "sheet-formulas");
    let (stdout, negated) = ask(
        Host::Codex,
        &home,
        &project,
        &format!("{words}, without the sheet-formulas skill"),
    );
    assert!(
        negated["skills"]["selected"].as_array().unwrap().is_empty(),
        "{negated}"
    );
    assert!(!stdout.contains("skill=sheet-formulas"), "{stdout}");
    let (_, unknown) = ask(
        Host::Codex,
        &home,
        &project,
        &format!("$no-such-skill {words}"),
    );
    assert_eq!(unknown["skills"]["selected"], plain["skills"]["selected"]);
}
