//! Scale: a generated project with 1,000 skills (built in a temporary folder, never committed)
//! must still route to the right skill, through the compiled index and through a scan.
//! Timings are measured by the benchmark scripts, not here.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use std::fs;
use std::path::Path;

use sophia_hook::edge::skills::{CatalogSource, Homes, build_index, load};
use sophia_hook::hosts::Host;
use sophia_hook::stages::skills::catalog::{CompiledCatalog, IndexView};
use sophia_hook::stages::skills::confidence::{self, Ranking};
use sophia_hook::stages::skills::default_catalog;
use sophia_hook::stages::skills::router::{Calibration, SkillRouter};

/// Writes `n` skills: skill `k` has the unique keyword `zeta{k}x` and shares generic words with
/// all the others.
fn generate(root: &Path, n: usize) {
    for k in 0..n {
        let dir = root.join("skills").join(format!("gen-skill-{k:04}"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("SKILL.md"),
            format!(
                "---\nname: gen-skill-{k:04}\ndescription: Generated skill number {k} for files, reports and data.\nkeywords: [zeta{k}x, topic{k} widget]\n---\n# gen-skill-{k:04}\n"
            ),
        )
        .unwrap();
    }
}

#[test]
fn thousand_skills_route_correctly_by_index_and_by_scan() {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), 1_000);

    let scanned = load(&sophia_hook::edge::files::ProjectRoot::open(dir.path()).unwrap());
    assert_eq!(scanned.source, CatalogSource::Scan);
    assert_eq!(scanned.catalog.skills.len(), 1_000);

    build_index(
        &sophia_hook::edge::files::ProjectRoot::open(dir.path()).unwrap(),
        Host::Codex,
        &Homes::default(),
        None,
        None,
    )
    .unwrap();
    let indexed = load(&sophia_hook::edge::files::ProjectRoot::open(dir.path()).unwrap());
    assert_eq!(indexed.source, CatalogSource::Index);
    assert_eq!(indexed.catalog, scanned.catalog);

    let router = SkillRouter::new(indexed.catalog);
    for k in [0, 1, 499, 998, 999] {
        let got = router.route(&format!("please use zeta{k}x on the report"));
        let ids: Vec<&str> = got.selected_ids().collect();
        assert_eq!(ids, [format!("gen-skill-{k:04}")], "k={k}");
        let phrase = router.route(&format!("the topic{k} widget is broken"));
        assert_eq!(phrase.selected[0].skill_id, format!("gen-skill-{k:04}"));
    }
    // Words every skill shares carry no signal, so generic prompts select nothing.
    assert!(
        router
            .route("generated files, reports and data")
            .selected
            .is_empty()
    );
    assert!(router.route("ciao, come stai?").selected.is_empty());
}

/// A router over the compiled index read lazily, as the hook uses it.
fn lazy(catalog: &CompiledCatalog) -> SkillRouter {
    let text: &'static str = Box::leak(catalog.to_lines().into_boxed_str());
    SkillRouter::from_index(
        IndexView::open(
            Box::new(text.as_bytes()),
            sophia_hook::stages::skills::catalog::Origin::Machine,
        )
        .unwrap(),
    )
}

/// The lazily read index selects what the whole catalog selects, with the same scores, reasons
/// and runners-up: on every eval prompt of the five public catalogs and of the embedded one,
/// and on the 1,000-skill project.
#[test]
fn the_lazy_index_routes_exactly_like_the_whole_catalog() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let prompts = |file: &str| -> Vec<String> {
        fs::read_to_string(manifest.join("fixtures/eval").join(file))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let case: serde_json::Value = serde_json::from_str(l).unwrap();
                case["prompt"].as_str().unwrap().to_owned()
            })
            .collect()
    };
    let mut cases = vec![(default_catalog(), prompts("routing.jsonl"))];
    for c in [
        "devops",
        "docs-design",
        "eng-process",
        "marketing",
        "scientific-python",
    ] {
        let loaded = load(
            &sophia_hook::edge::files::ProjectRoot::open(
                &manifest.join("fixtures/catalogs").join(c),
            )
            .unwrap(),
        );
        assert_eq!(loaded.source, CatalogSource::Scan, "{c}");
        let mut all = prompts(&format!("catalogs/{c}.dev.jsonl"));
        all.extend(prompts(&format!("catalogs/{c}.holdout.jsonl")));
        cases.push((loaded.catalog, all));
    }
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), 1_000);
    let thousand: Vec<String> = (0..1_000)
        .step_by(37)
        .flat_map(|k| {
            [
                format!("please use zeta{k}x on the report"),
                format!("the topic{k} widget is broken"),
            ]
        })
        .chain(["generated files, reports and data".to_owned()])
        .collect();
    cases.push((
        load(&sophia_hook::edge::files::ProjectRoot::open(dir.path()).unwrap()).catalog,
        thousand,
    ));
    let mut routed = 0;
    for (catalog, prompts) in cases {
        let lazy = lazy(&catalog);
        assert_eq!(lazy.len(), catalog.skills.len());
        let whole = SkillRouter::new(catalog);
        for prompt in &prompts {
            assert_eq!(lazy.route(prompt), whole.route(prompt), "{prompt}");
            // And with BM25F's length normalisation on and off whatever the hook's is: the
            // index header's field lengths are the whole catalog's.
            for (ranking, b) in [(Ranking::Bm25f, confidence::B), (Ranking::Fused, 0.0)] {
                let calibration = Calibration {
                    confidence: Some(confidence::Confidence {
                        ranking,
                        b,
                        ..confidence::HOOK
                    }),
                    ..Calibration::HOOK
                };
                assert_eq!(
                    lazy.route_with(prompt, calibration),
                    whole.route_with(prompt, calibration),
                    "{prompt} b={b}"
                );
            }
            routed += 1;
        }
    }
    assert!(routed > 500, "{routed}");
}

/// `explain` on a project of third-party skills (no keywords): the selected skill's last reason is
/// its learned confidence, rounded, at or above the hook's threshold; a prompt no skill fits
/// names nothing and shows no confidence.
#[test]
fn explain_shows_the_confidence_of_the_selected_skill() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    let home = dir.path().join("home");
    fs::create_dir_all(project.join(".git")).unwrap();
    fs::create_dir_all(&home).unwrap();
    let source = common::fixtures().join("catalogs/devops/skills");
    for entry in fs::read_dir(&source).unwrap() {
        let entry = entry.unwrap();
        let to = project.join("skills").join(entry.file_name());
        fs::create_dir_all(&to).unwrap();
        fs::copy(entry.path().join("SKILL.md"), to.join("SKILL.md")).unwrap();
    }
    let explain = |prompt: &str| -> serde_json::Value {
        let cwd = project.to_string_lossy();
        let run = common::run_binary(
            &["explain", "--prompt", prompt, "--cwd", &cwd],
            b"",
            &home,
            &[("SOPHIA_ANALYTICS", "off")],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        serde_json::from_str(&run.stdout).unwrap()
    };
    let got = explain("set up a terraform module for an S3 bucket with versioning");
    let selected = got["skills"]["selected"].as_array().unwrap();
    assert_eq!(selected.len(), 1, "{got}");
    assert_eq!(selected[0]["skillId"], "terraform-module-library", "{got}");
    let reasons = selected[0]["reasons"].as_array().unwrap();
    let last = reasons.last().unwrap().as_str().unwrap();
    let p: f64 = last.strip_prefix("confidence:").unwrap().parse().unwrap();
    let threshold = sophia_hook::stages::skills::confidence::HOOK.threshold;
    assert!((threshold - 0.005..=1.0).contains(&p), "{got}");
    assert!(reasons.len() > 1, "the router's reasons stay: {got}");
    let none = explain("ciao, come stai?");
    assert!(
        none["skills"]["selected"].as_array().unwrap().is_empty(),
        "{none}"
    );
    assert!(!none.to_string().contains("confidence:"), "{none}");
}
