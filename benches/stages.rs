//! In-process benchmarks of each pipeline stage (divan): hotword parse, context routing, skill
//! scoring at 10/100/1,000 skills, the agent policy, rendering, and the whole decision — each over
//! prompt lengths, so growth with prompt length and catalog size can be read off the table
//! (`cargo bench --bench stages`; results in docs/performance.md).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use divan::{Bencher, black_box};

use sophia_hook::hosts::{Event, Host};
use sophia_hook::stages::agents::default_catalog;
use sophia_hook::stages::agents::policy::resolve_subagent_routing;
use sophia_hook::stages::context;
use sophia_hook::stages::decision::{HookRequest, Project, decide};
use sophia_hook::stages::hotword;
use sophia_hook::stages::payload::Payload;
use sophia_hook::stages::render;
use sophia_hook::stages::routing;
use sophia_hook::stages::skills::catalog::{Scope, SkillDef, compile};
use sophia_hook::stages::skills::default_catalog as default_skills;
use sophia_hook::stages::skills::router::SkillRouter;
use sophia_hook::stages::subagent::SubagentMode;

fn main() {
    divan::main();
}

const BASE: &str = "!quick !agents analizza il ticket Mantis 123, i commit collegati e la query sulla tabella ordini per ricostruire la causa. ";

/// A prompt of about `len` bytes: the base sentence, then pasted log lines.
fn prompt(len: usize) -> String {
    let mut p = String::from(BASE);
    while p.len() < len {
        p.push_str(
            "2026-11-29 10:00:01 ERROR OrderService timeout after 30000 ms on /api/orders/4521\n",
        );
    }
    p.truncate(len.max(BASE.len()));
    p
}

const LENGTHS: &[usize] = &[100, 1_000, 10_000, 100_000, 1_000_000];

fn generated_router(n: usize) -> SkillRouter {
    let defs: Vec<SkillDef> = (0..n)
        .map(|k| SkillDef {
            id: format!("gen-skill-{k:04}"),
            description: format!(
                "Generated skill number {k} for files, reports and data about topic{k}."
            ),
            keywords: vec![
                format!("zeta{k}x"),
                format!("topic{k} widget"),
                format!("alpha{k}"),
            ],
            not_for: vec![],
            phases: vec![],
            scope: Scope::Specialist,
        })
        .collect();
    SkillRouter::new(compile(&defs, "bench".into(), Vec::new()))
}

#[divan::bench(args = LENGTHS)]
fn hotword_parse(bencher: Bencher, len: usize) {
    let p = prompt(len);
    bencher.bench(|| hotword::parse(black_box(&p)).detected.len());
}

#[divan::bench(args = LENGTHS)]
fn context_routing(bencher: Bencher, len: usize) {
    let p = prompt(len);
    bencher.bench(|| context::route(black_box(&p), true).mode);
}

#[divan::bench(args = LENGTHS)]
fn full_routing(bencher: Bencher, len: usize) {
    let p = prompt(len);
    bencher.bench(|| routing::route(black_box(&p), false).subagent_mode);
}

#[divan::bench(args = [10, 100, 1_000])]
fn skill_scoring(bencher: Bencher, skills: usize) {
    let router = generated_router(skills);
    let p = prompt(1_000);
    bencher.bench(|| router.route(black_box(&p)).selected.len());
}

#[divan::bench(args = LENGTHS)]
fn skill_scoring_default_catalog(bencher: Bencher, len: usize) {
    let router = SkillRouter::new(default_skills());
    let p = prompt(len);
    bencher.bench(|| router.route(black_box(&p)).selected.len());
}

#[divan::bench(args = [10, 100, 1_000])]
fn skill_router_build(bencher: Bencher, skills: usize) {
    let defs_router = generated_router(skills);
    drop(defs_router);
    bencher.bench(|| generated_router(black_box(skills)).len());
}

#[divan::bench]
fn default_catalogs_load() -> usize {
    SkillRouter::new(default_skills()).len() + default_catalog().agents.len()
}

#[divan::bench(args = LENGTHS)]
fn agent_policy(bencher: Bencher, len: usize) {
    let catalog = default_catalog();
    let router = SkillRouter::new(default_skills());
    let p = prompt(len);
    let skills = router.route(&p);
    bencher.bench(|| {
        resolve_subagent_routing(
            black_box(&p),
            SubagentMode::Required,
            &skills,
            &catalog,
            false,
        )
        .recommended_agents
        .len()
    });
}

#[divan::bench]
fn rendering(bencher: Bencher) {
    let catalog = default_catalog();
    let router = SkillRouter::new(default_skills());
    let p = prompt(200);
    let r = routing::route(&p, false);
    let skills = router.route(&r.stripped_prompt);
    let agents = resolve_subagent_routing(
        &r.stripped_prompt,
        r.subagent_mode,
        &skills,
        &catalog,
        false,
    );
    bencher.bench(|| {
        let hints: Vec<String> = render::routing_block(&r)
            .into_iter()
            .chain(render::specialist_block(Host::Codex, &skills, &agents))
            .collect();
        render::printed(Host::Codex, "UserPromptSubmit", &hints).map(|o| o.to_line().len())
    });
}

#[divan::bench(args = LENGTHS)]
fn whole_decision(bencher: Bencher, len: usize) {
    let payload = Payload {
        hook_event_name: Some("UserPromptSubmit".into()),
        prompt: Some(prompt(len)),
        ..Payload::default()
    };
    let project = Project {
        skills: Some(SkillRouter::new(default_skills())),
        agents: Some(default_catalog()),
        ..Project::default()
    };
    let request = HookRequest {
        host: Host::Codex,
        event: Event::UserPromptSubmit,
        wire_event: "UserPromptSubmit",
        payload: &payload,
        planning_flag: false,
        now: chrono::DateTime::UNIX_EPOCH,
    };
    bencher.bench(|| decide(black_box(&request), &project).hints.len());
}
