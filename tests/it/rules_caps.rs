//! Every cap of the skill discovery walk and of the bounded reader, asserted at the limit and
//! one over, each with the warning the docs promise (docs/skills.md "Limits", docs/security.md
//! "Reads"):
//!
//! | what | limit | over it |
//! |---|---|---|
//! | entries of one skill folder looked at | 4,096 | `skills-dir-over-cap:<folder>: 4096` |
//! | skills in an inventory | 1,000 | the rest left out, `skills-cap:1000` |
//! | one `SKILL.md` | 128 KiB | skipped, `skill-skipped:…: larger than the 131072-byte cap` |
//! | bounded read | its cap | `TooLarge`, "larger than the N-byte cap"; a prefix read cuts |
//! | agent catalog, skills index, `.sophia-hook.yaml` | 1 MiB, 4 MiB, 64 KiB | their warnings |
//!
//! Planted bug this catches: the walk's per-folder entry cap and its warning deleted.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use serde_json::Value;

use sophia_hook::edge::files::{Place, ProjectRoot, ReadError, caps};
use sophia_hook::edge::skills::{Homes, MAX_DIR_ENTRIES, MAX_SKILLS, inventory, skill_folders};
use sophia_hook::hosts::Host;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20),
        ..ProptestConfig::default()
    }
}

/// The caps as docs/security.md states them.
#[test]
fn the_caps_are_the_documented_figures() {
    assert_eq!(caps::CONFIG.bytes(), 64 * 1024);
    assert_eq!(caps::SKILL_MD.bytes(), 128 * 1024);
    assert_eq!(caps::AGENTS_MD.bytes(), 256 * 1024);
    assert_eq!(caps::CATALOG.bytes(), 1024 * 1024);
    assert_eq!(caps::STATE.bytes(), 1024 * 1024);
    assert_eq!(caps::INDEX.bytes(), 4 * 1024 * 1024);
    assert_eq!(caps::SETTINGS.bytes(), 4 * 1024 * 1024);
    assert_eq!(MAX_DIR_ENTRIES, 4_096);
    assert_eq!(MAX_SKILLS, 1_000);
}

proptest! {
    #![proptest_config(config(64))]

    /// Any file size around any cap: a bounded read gives the file up to its cap and refuses one
    /// byte more, naming the cap; a prefix read gives the first `cap` bytes and the whole size.
    #[test]
    fn the_bounded_reader_takes_up_to_its_cap_and_refuses_one_byte_more(
        cap in 0u64..4096,
        delta in -3i64..=3,
        byte in prop::sample::select(vec![b'a', b'\n', 0xc3, 0xa8]),
    ) {
        let size = (cap as i64 + delta).max(0) as u64;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let content = vec![byte; size as usize];
        fs::write(&path, &content).unwrap();
        match Place::user(&path).read(sophia_hook::edge::files::Cap::for_tests(cap)) {
            Ok(bytes) => {
                prop_assert!(size <= cap, "{} bytes read under a {}-byte cap", size, cap);
                prop_assert_eq!(bytes, content.clone());
            }
            Err(ReadError::TooLarge { cap: reported }) => {
                prop_assert!(size > cap);
                prop_assert_eq!(reported, cap);
                let e = ReadError::TooLarge { cap };
                prop_assert_eq!(e.to_string(), format!("larger than the {cap}-byte cap"));
            }
            Err(e) => prop_assert!(false, "{e}"),
        }
        let string = Place::user(&path).read_string(sophia_hook::edge::files::Cap::for_tests(cap));
        prop_assert_eq!(string.is_ok() || matches!(string, Err(ReadError::Io(_))), size <= cap);
        let (prefix, total) = Place::user(&path)
            .read_prefix(sophia_hook::edge::files::Cap::for_tests(cap))
            .unwrap();
        prop_assert_eq!(total, size);
        prop_assert_eq!(prefix, content[..size.min(cap) as usize].to_vec());
    }
}

fn skill_md(id: &str) -> String {
    format!("---\nname: {id}\ndescription: Test skill {id} for the cap tests.\n---\n\nBody.\n")
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join(".git")).unwrap();
    fs::create_dir_all(dir.path().join(".claude/skills")).unwrap();
    dir
}

fn claude_inventory(root: &Path) -> sophia_hook::edge::skills::Inventory {
    inventory(skill_folders(
        Host::Claude,
        root,
        &ProjectRoot::open(root).unwrap(),
        &Homes::default(),
    ))
}

/// At 4,096 entries every entry is looked at and nothing warns; one more and the folder warns
/// `skills-dir-over-cap` once (the entries being plain files here, which hold no skill).
#[test]
fn the_walk_looks_at_4096_entries_of_a_folder_and_warns_past_them() {
    let dir = project();
    let folder = dir.path().join(".claude/skills");
    fs::create_dir(folder.join("alpha")).unwrap();
    fs::write(folder.join("alpha/SKILL.md"), skill_md("alpha")).unwrap();
    for i in 0..MAX_DIR_ENTRIES - 1 {
        fs::write(folder.join(format!("f{i:05}")), "").unwrap();
    }
    let warning = format!("skills-dir-over-cap:.claude/skills: {MAX_DIR_ENTRIES}");
    for extra in 0..=2 {
        if extra > 0 {
            fs::write(folder.join(format!("extra{extra}")), "").unwrap();
        }
        let inv = claude_inventory(dir.path());
        let warned = inv.warnings.iter().filter(|w| **w == warning).count();
        if extra == 0 {
            assert_eq!(warned, 0, "{:?}", inv.warnings);
            assert_eq!(inv.len(), 1, "every entry looked at");
        } else {
            assert_eq!(warned, 1, "{extra} over: {:?}", inv.warnings);
        }
        assert!(inv.len() <= 1);
    }
}

/// At 1,000 skills all are kept; one more is left out with `skills-cap:1000`.
#[test]
fn the_inventory_keeps_1000_skills_and_warns_past_them() {
    let dir = project();
    let folder = dir.path().join(".claude/skills");
    let add = |i: usize| {
        let id = format!("s{i:04}");
        fs::create_dir(folder.join(&id)).unwrap();
        fs::write(folder.join(&id).join("SKILL.md"), skill_md(&id)).unwrap();
    };
    for i in 0..MAX_SKILLS {
        add(i);
    }
    for n in [MAX_SKILLS, MAX_SKILLS + 1, MAX_SKILLS + 2] {
        if n > MAX_SKILLS {
            add(n - 1);
        }
        let inv = claude_inventory(dir.path());
        assert_eq!(inv.len(), n.min(MAX_SKILLS));
        let warned: Vec<&String> = inv
            .warnings
            .iter()
            .filter(|w| w.starts_with(&format!("skills-cap:{MAX_SKILLS}")))
            .collect();
        assert_eq!(
            warned.len(),
            usize::from(n > MAX_SKILLS),
            "{n}: {:?}",
            inv.warnings
        );
    }
}

fn explain(root: &Path, prompt: &str) -> Value {
    let run = common::run_in_process(
        &[
            "explain",
            "--host",
            "claude",
            "--prompt",
            prompt,
            "--cwd",
            root.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn all_warnings(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["skills", "agents", "routing"] {
        for w in v[key]["warnings"].as_array().into_iter().flatten() {
            out.push(w.as_str().unwrap_or_default().to_owned());
        }
    }
    for w in v["warnings"].as_array().into_iter().flatten() {
        out.push(w.as_str().unwrap_or_default().to_owned());
    }
    out
}

/// A `SKILL.md` of exactly 128 KiB is read; one byte more is skipped with the cap in the warning.
#[test]
fn a_skill_md_over_128_kib_is_skipped_with_its_warning() {
    for size in [caps::SKILL_MD.bytes(), caps::SKILL_MD.bytes() + 1] {
        let dir = project();
        let skill = dir.path().join(".claude/skills/bigskill");
        fs::create_dir(&skill).unwrap();
        let mut text = skill_md("bigskill");
        text.push_str(&"x".repeat(size as usize - text.len()));
        assert_eq!(text.len() as u64, size);
        fs::write(skill.join("SKILL.md"), &text).unwrap();
        let v = explain(dir.path(), "hello");
        let warnings = all_warnings(&v);
        let skipped = warnings.iter().any(|w| {
            w.starts_with("skill-skipped:.claude/skills/bigskill/SKILL.md")
                && w.ends_with(&format!("larger than the {}-byte cap", caps::SKILL_MD))
        });
        assert_eq!(
            skipped,
            size > caps::SKILL_MD.bytes(),
            "{size}: {warnings:?}"
        );
    }
}

/// The agent catalog over 1 MiB and the project configuration over 64 KiB: ignored, with their
/// warnings, and the hook still answers.
#[test]
fn catalog_and_config_over_their_caps_are_ignored_with_a_warning() {
    let dir = project();
    fs::create_dir_all(dir.path().join(".sophia")).unwrap();
    fs::write(
        dir.path().join(".sophia/agent-catalog.json"),
        " ".repeat(caps::CATALOG.bytes() as usize + 1),
    )
    .unwrap();
    let mut config = String::from("planning: false\n");
    config.push_str(&"#".repeat(caps::CONFIG.bytes() as usize + 1 - config.len()));
    fs::write(dir.path().join(".sophia-hook.yaml"), config).unwrap();
    let v = explain(dir.path(), "!agents find the widget");
    let text = v.to_string();
    assert!(
        text.contains(".sophia-hook.yaml ignored"),
        "config warning missing: {text}"
    );
    assert!(
        all_warnings(&v)
            .iter()
            .any(|w| w.contains("agent-catalog-too-large")),
        "catalog warning missing: {:?}",
        all_warnings(&v)
    );
    assert_eq!(v["routing"]["subagentMode"], "required");
}

/// Nested skill folders (Codex's `.agents/skills`, docs/skills.md: "up to 3 levels"): a skill
/// whose `SKILL.md` sits `level` folders below the skill folder root is found for every level up
/// to 3 and never below it, however the groups are named. Planted bug this catches (the
/// independent audit of issue 20): the walk searching one level deeper than the limit.
#[test]
fn nested_skills_are_found_down_to_three_levels_and_no_deeper() {
    for level in 1..=5usize {
        for groups in [["a", "b", "c", "d"], ["zz", "group", "x1", "deep"]] {
            let dir = tempfile::tempdir().unwrap();
            fs::create_dir(dir.path().join(".git")).unwrap();
            let mut skill = dir.path().join(".agents/skills");
            for g in &groups[..level - 1] {
                skill.push(g);
            }
            skill.push("alpha");
            fs::create_dir_all(&skill).unwrap();
            fs::write(skill.join("SKILL.md"), skill_md("alpha")).unwrap();
            let folders = skill_folders(
                Host::Codex,
                dir.path(),
                &ProjectRoot::open(dir.path()).unwrap(),
                &Homes::default(),
            );
            let inv = inventory(folders);
            assert_eq!(
                inv.len(),
                usize::from(level <= 3),
                "a skill {level} level(s) down ({}): {:?}",
                skill.to_string_lossy(),
                inv.warnings
            );
        }
    }
}

/// One entry of a generated frontmatter list: fits (short, or exactly 80 characters of two-byte
/// letters), or does not (81 characters, a control character inside).
fn list_entry() -> impl Strategy<Value = (String, bool)> {
    prop_oneof![
        4 => "[a-z]{1,12}".prop_map(|s| (s, true)),
        1 => Just(("é".repeat(80), true)),
        1 => Just(("x".repeat(81), false)),
        1 => Just(("bell\u{7}".to_owned(), false)),
        1 => Just(("two\nlines".to_owned(), false)),
    ]
}

proptest! {
    #![proptest_config(config(256))]

    /// docs/skills.md "Limits": keywords and `not_for` keep at most 64 entries, phases 8; an entry
    /// over 80 characters or with a control character is dropped first, so the list kept is the
    /// first 64 (8) of the entries that fit, in their order — lists generated around the bound
    /// with bad entries anywhere, and the `skill-limited` text says before and after. Audit
    /// finding: cutting to 64 before dropping the bad ones left 63 where 64 fit.
    #[test]
    fn over_long_entries_go_before_a_list_is_cut_to_its_bound(
        keywords in prop::collection::vec(list_entry(), 0..140),
        not_for in prop::collection::vec(list_entry(), 0..80),
        phases in prop::collection::vec(list_entry(), 0..14),
    ) {
        use sophia_hook::stages::skills::catalog::{SkillDef, apply_limits};
        let texts = |l: &[(String, bool)]| l.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>();
        let kept = |l: &[(String, bool)], max: usize| {
            l.iter().filter(|(_, fits)| *fits).take(max).map(|(s, _)| s.clone()).collect::<Vec<_>>()
        };
        let mut def = SkillDef {
            id: "s".into(),
            description: "d".into(),
            keywords: texts(&keywords),
            not_for: texts(&not_for),
            phases: texts(&phases),
            scope: Default::default(),
        };
        let note = apply_limits(&mut def);
        prop_assert_eq!(&def.keywords, &kept(&keywords, 64));
        prop_assert_eq!(&def.not_for, &kept(&not_for, 64));
        prop_assert_eq!(&def.phases, &kept(&phases, 8));
        let mut want = Vec::new();
        for (name, before, after) in [
            ("keywords", keywords.len(), def.keywords.len()),
            ("not_for", not_for.len(), def.not_for.len()),
            ("phases", phases.len(), def.phases.len()),
        ] {
            if after < before {
                want.push(format!("{name} {before}->{after}"));
            }
        }
        prop_assert_eq!(note, (!want.is_empty()).then(|| want.join(", ")));
    }
}

/// Words no two skills share (a deterministic generator: `w<skill>x<n>` spelled in letters).
fn word(skill: usize, n: usize) -> String {
    let letters = |mut v: usize| {
        let mut s = String::new();
        loop {
            s.push(char::from(b'a' + (v % 26) as u8));
            v /= 26;
            if v == 0 {
                break s;
            }
        }
    };
    format!("q{}z{}", letters(skill), letters(n))
}

/// A `SKILL.md` at every limit of docs/skills.md: 64 keywords (one a single word) and 64
/// `not_for` entries of 80 characters, 8 phases, a 1,024-character description, a body of distinct words, under 128 KiB.
fn skill_at_the_limits(i: usize) -> String {
    let mut n = 0;
    let mut words = |count: usize, width: usize| {
        let mut out = Vec::new();
        for _ in 0..count {
            let mut entry = String::new();
            while entry.len() < width {
                entry.push_str(&word(i, n));
                entry.push(' ');
                n += 1;
            }
            entry.truncate(width);
            out.push(entry.trim().to_owned());
        }
        out
    };
    // The first keyword is one word of its own, for the prompts that route to this skill.
    let mut keywords = vec![word(i, 99_999)];
    keywords.extend(words(63, 80));
    let keywords = keywords.join(", ");
    let not_for = words(64, 80).join(", ");
    let phases = words(8, 12).join(", ");
    let description = words(1, 1024).join("");
    let body = words(300, 60).join("\n");
    format!(
        "---\nname: limit-{i:03}\ndescription: {description}\nkeywords: [{keywords}]\nnot_for: [{not_for}]\nphases: [{phases}]\n---\n{body}\n"
    )
}

fn explain_in(root: &Path, home: &Path, prompt: &str) -> Value {
    let run = common::run_binary_in(
        &["explain", "--host", "claude", "--prompt", prompt],
        b"",
        home,
        root,
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

/// Caps × writer/reader pairs (issue 29): the skills index and the machine's compiled copy are
/// written by compiling and read back by the hook under one cap, `caps::INDEX`. Skills at every
/// limit compile to far more than it (1,000 of them to 35 MB; `skills index` wrote it, and the
/// hook refused it as `skills-index-too-large` and compiled the sources again on every prompt).
/// Now compiling leaves out the last skills until the index fits, says so, and what it wrote is
/// what the hook routes with: from the index, and, without one, from the compiled copy.
#[test]
fn skills_over_the_index_cap_are_cut_to_fit_and_read_back() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let total = 150;
    for i in 0..total {
        let skill = dir.path().join(format!(".claude/skills/limit-{i:03}"));
        fs::create_dir_all(&skill).unwrap();
        let text = skill_at_the_limits(i);
        assert!(
            text.len() as u64 <= caps::SKILL_MD.bytes(),
            "{}",
            text.len()
        );
        fs::write(skill.join("SKILL.md"), text).unwrap();
    }
    let run = common::run_binary_in(
        &["skills", "index", "--host", "claude"],
        b"",
        home.path(),
        dir.path(),
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let cut = run
        .stderr
        .lines()
        .find_map(|l| l.split("skills-index-cap:").nth(1))
        .unwrap_or_else(|| panic!("no skills-index-cap warning: {}", run.stderr));
    let kept: usize = cut.split('/').next().unwrap().parse().unwrap();
    assert!(0 < kept && kept < total, "{cut}");
    assert!(cut.starts_with(&format!("{kept}/{total}:")), "{cut}");
    let index = fs::read_dir(dir.path().join(".sophia"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "tsv"))
        .unwrap();
    let size = fs::metadata(&index).unwrap().len();
    assert!(caps::INDEX.admits(size), "{size} bytes written");
    // Most of the room is used: the cut leaves out no more than it has to.
    assert!(size > caps::INDEX.bytes() / 10 * 9, "{size} bytes written");
    // The first skill and the last one kept route from the index; the first one left out is gone.
    let prompt = |i: usize| format!("please {} now", word(i, 99_999));
    for (i, routed) in [(0, true), (kept - 1, true), (kept, false)] {
        let v = explain_in(dir.path(), home.path(), &prompt(i));
        assert_eq!(v["skills"]["catalog"], "index", "{v}");
        let warnings = all_warnings(&v);
        assert!(
            warnings.iter().any(|w| w.starts_with("skills-index-cap:")),
            "{warnings:?}"
        );
        assert!(
            !warnings.iter().any(|w| w.contains("too-large")),
            "{warnings:?}"
        );
        let selected: Vec<&str> = v["skills"]["selected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["skillId"].as_str().unwrap())
            .collect();
        assert_eq!(
            selected.contains(&format!("limit-{i:03}").as_str()),
            routed,
            "{i}: {v}"
        );
    }
    // Without the index, the first run compiles and keeps a copy; the next one reads it back.
    fs::remove_file(&index).unwrap();
    let first = explain_in(dir.path(), home.path(), &prompt(0));
    assert_eq!(first["skills"]["catalog"], "scan", "{first}");
    let second = explain_in(dir.path(), home.path(), &prompt(0));
    assert_eq!(second["skills"]["catalog"], "cache", "{second}");
    assert_eq!(
        second["skills"]["selected"][0]["skillId"], "limit-000",
        "{second}"
    );
}
