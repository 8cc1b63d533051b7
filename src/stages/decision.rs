//! The whole decision for one hook run, in the shape `explain` prints (docs/architecture.md): the
//! pipeline from a parsed payload to hint blocks and host output. Pure: the edge loads the
//! project material beforehand and writes the output afterwards.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::hosts::{Event, Host};
use crate::stages::agents::catalog::AgentCatalog;
use crate::stages::agents::policy::resolve_subagent_routing;
use crate::stages::agents::{AgentRouting, default_catalog};
use crate::stages::payload::Payload;
use crate::stages::planning::{self, PlannedDelegation};
use crate::stages::render::{self, Printed, ProjectDoc};
use crate::stages::routing::{self, Routing};
use crate::stages::skills::SkillRouting;
use crate::stages::skills::router::SkillRouter;
use crate::stages::subagent::SubagentMode;
use crate::stages::{analytics, outcome};

/// What the hook was asked: which host, which event, and the payload.
#[derive(Debug, Clone)]
pub struct HookRequest<'a> {
    pub host: Host,
    pub event: Event,
    /// The host's name for the firing event, echoed in the output (`BeforeAgent` on Gemini).
    pub wire_event: &'static str,
    pub payload: &'a Payload,
    /// Planning mode reported outside the payload (`--planning`, `SOPHIA_PLANNING=1`).
    pub planning_flag: bool,
    /// The run's instant, from the clock the edge was given: the time a planned delegation is
    /// recorded with.
    pub now: DateTime<Utc>,
}

/// Project material the edge loaded for this run.
#[derive(Default)]
pub struct Project {
    /// `AGENTS.md`, loaded only when the host does not read it itself (see
    /// `Host::loads_agents_md`); the edge makes that choice.
    pub agents_md: Option<ProjectDoc>,
    /// The skill router over the project's catalog (or the embedded defaults); `None` when the
    /// event routes no prompt.
    pub skills: Option<SkillRouter>,
    /// Where the skill catalog came from (`embedded`, `index`, `scan`).
    pub skill_source: Option<&'static str>,
    /// Catalog load warnings (stale index, skipped files).
    pub skill_warnings: Vec<String>,
    /// What grounds the embedded skills here, looked up only when the catalog is the embedded
    /// one; `None` grounds none of them (`skills::grounding::apply`).
    pub skill_grounding: Option<crate::stages::skills::grounding::Grounding>,
    /// The effective agent catalog (availability overlaid); `None` means the embedded default.
    pub agents: Option<AgentCatalog>,
    /// Agent catalog and manifest warnings.
    pub agent_warnings: Vec<String>,
    /// The agent types the host can spawn here (its runtime definitions); `None` when not
    /// looked up, which leaves availability as the catalog and manifest say.
    pub host_agents: Option<std::collections::BTreeSet<String>>,
    /// The project's planning switch (`planning: true` in `.sophia-hook.yaml`).
    pub planning: bool,
    /// A delegation planned earlier in this session, if any.
    pub planned: Option<PlannedDelegation>,
    /// The session context is due with this prompt (hosts where it rides with a prompt,
    /// [`Host::session_context_on_prompt`]: the conversation does not carry it yet).
    pub session_context_due: bool,
    /// The effective second hotword prefix (`.sophia-hook.yaml`, else the user's `config.yaml`,
    /// else `+`).
    pub hotword_prefix: crate::config::HotwordPrefix,
    /// The project's analytics configuration (`.sophia-hook.yaml`).
    pub analytics: crate::config::AnalyticsConfig,
    /// Whose files the catalogs above were read from.
    pub provenance: Provenance,
    /// Degraded run (the time budget was exceeded): routing control only, no skills or agents.
    pub degraded: Option<&'static str>,
    /// The skill folders could not be walked to the end (`skills-walk-cap`, `time-budget`): the
    /// run goes on with the cached or embedded skill catalog, and says so like a degraded run.
    pub skills_degraded: Option<&'static str>,
    /// The session's previous hint and what the host's transcript shows since (issue 46);
    /// `None` when not looked up (not a user's prompt, or a degraded run).
    pub trail: Option<outcome::Trail>,
}

impl Project {
    /// The project of a degraded run: nothing loaded, routing control only.
    pub fn degraded(reason: &'static str) -> Project {
        Project {
            degraded: Some(reason),
            ..Project::default()
        }
    }
}

/// The decision JSON.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// The firing event, as the host names it.
    pub event: &'static str,
    #[serde(skip)]
    pub kind: Event,
    pub host: Host,
    /// `null` for events without a prompt (SessionStart).
    pub routing: Option<Routing>,
    pub skills: SkillRouting,
    pub agents: AgentRouting,
    pub planning: bool,
    pub hints: Vec<String>,
    /// Exactly what hook mode prints, or `null` when it prints nothing.
    pub output: Option<Printed>,
    /// Why the run was degraded: to the minimal safe output (`time-budget`), or to the cached or
    /// embedded skill catalog (`skills-walk-cap`), if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degraded: Option<&'static str>,
    /// Whose files the skill and agent catalogs were read from: how the analytics line may name
    /// their ids (`analytics::skill_label`, `analytics::agent_label`).
    #[serde(skip)]
    pub provenance: Provenance,
    /// What the edge does besides printing: the rest of the outcome, as data (the edge applies it
    /// and changes nothing of the decision).
    #[serde(skip)]
    pub effects: Effects,
    /// Whether the model followed the session's previous hint (and this one's, when its outcome
    /// cannot be known): the analytics lines' content (`stages::outcome`).
    #[serde(skip)]
    pub hint_outcomes: Vec<outcome::Judged>,
}

/// The outcome of a run beyond its output, decided here and applied by the edge
/// (`edge::hook::apply`): which state it writes, and when it prints something else. `explain
/// --effects` shows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Effects {
    /// On a prompt event that fires before every model call (Antigravity's PreInvocation), the
    /// context goes out once per user turn: the edge records the turn in the turn log and prints
    /// [`OncePerTurn::otherwise`] when the turn was already answered.
    pub once_per_turn: Option<OncePerTurn>,
    /// The session's planned delegation to record or to consume (`docs/routing.md`, "Carried
    /// forward"); the edge writes it under the state's lock.
    pub carry_forward: Option<CarryForwardUpdate>,
    /// The session's hint record to write for the next prompt, or to forget (issue 46).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<outcome::HintUpdate>,
    /// The session's key in the hint state, for [`Effects::hint`] (`outcome::Trail::session`).
    #[serde(skip)]
    pub hint_session: Option<String>,
}

/// What a turn that was already answered prints instead of the decision's output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OncePerTurn {
    /// `null`: nothing at all.
    #[serde(rename = "ifAnsweredBefore")]
    pub otherwise: Option<Printed>,
}

/// A change to the carry-forward state of the run's session.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CarryForwardUpdate {
    /// A planning turn's delegation, kept for the turn that executes the plan.
    Record(PlannedDelegation),
    /// The entry was carried forward this turn: it is removed.
    Consume,
}

impl Decision {
    /// What the run prints: the output, unless the turn was answered before and the outcome says
    /// to answer it once ([`Effects::once_per_turn`]).
    pub fn printed(&self, answered_before: bool) -> Option<&Printed> {
        match &self.effects.once_per_turn {
            Some(once) if answered_before => once.otherwise.as_ref(),
            _ => self.output.as_ref(),
        }
    }
}

/// Whether this run's catalogs came from files a repository can write, so that the ids in them
/// (and every label those files carry, such as a skill record's `user:` source) are the
/// repository's words.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Provenance {
    /// The skill catalog is the project's index file (`.sophia/skills-index*.tsv`).
    pub skills_from_project_file: bool,
    /// The agent catalog is the project's (its canonical source or generated catalog).
    pub agents_from_project: bool,
}

/// Chooses the event: the command line wins, then the payload's `hook_event_name`; with neither,
/// a payload with a prompt is the host's prompt event. A named event the host's adapter does not
/// answer gives `None`. Returns the event and the host's name for it.
pub fn resolve_event(
    host: Host,
    flag: Option<&str>,
    payload: &Payload,
) -> Option<(Event, &'static str)> {
    let implied = |event| Some((event, host.event_name(event)));
    match (flag, payload.hook_event_name.as_deref()) {
        (Some(name), _) | (None, Some(name)) => host.parse_event(name),
        (None, None) if payload.prompt.is_some() => implied(Event::UserPromptSubmit),
        (None, None) if payload.source.is_some() => implied(Event::SessionStart),
        (None, None) => None,
    }
}

/// True when a SessionStart resumes a conversation whose history still holds the earlier
/// bootstrap, so a second one would be a duplicate: Codex (`codex exec resume`, `codex resume`)
/// replays the whole thread with its developer messages on `source=resume`. After `compact` the
/// history is a summary and `clear` empties it, so those get the bootstrap again; other hosts
/// are not known to keep hook context across a resume, so they get it too.
pub fn repeats_history(host: Host, payload: &Payload) -> bool {
    host.spec().events.resume_replays_history && payload.source.as_deref() == Some("resume")
}

/// Runs the pure pipeline.
pub fn decide(request: &HookRequest<'_>, project: &Project) -> Decision {
    let permission_mode = request.payload.permission_mode.as_deref();
    let plan_mode = permission_mode == Some("plan");
    let mut planning = request.planning_flag || project.planning || plan_mode;
    let mut hints = Vec::with_capacity(render::MAX_BLOCKS);
    let mut skills = SkillRouting::default();
    let mut agents = AgentRouting::off();
    let routing = match request.event {
        Event::SessionStart if repeats_history(request.host, request.payload) => None,
        // Delivered with the first prompt instead (Host::session_context_on_prompt).
        Event::SessionStart if request.host.session_context_on_prompt() => None,
        Event::SessionStart => {
            hints.push(render::bootstrap(request.host, &project.hotword_prefix));
            if let Some(doc) = &project.agents_md {
                hints.push(render::project_doc_block(request.host, doc));
            }
            None
        }
        Event::PostToolUse => {
            // Only the plan-approval dialog, and only for the user's own session.
            planning = false;
            let approved = request.payload.tool_name.as_deref()
                == Some(planning::EXIT_PLAN_MODE_TOOL)
                && !request.payload.from_subagent();
            if let (true, Some(planned)) = (approved, &project.planned) {
                let default;
                let catalog = match &project.agents {
                    Some(catalog) => catalog,
                    None => {
                        default = default_catalog();
                        &default
                    }
                };
                agents.carry_forward =
                    Some(planning::carry_forward_on_plan_approval(planned, catalog));
                hints.extend(render::specialist_block(request.host, &skills, &agents));
            }
            None
        }
        Event::UserPromptSubmit if request.payload.is_host_notification() => {
            // Not the user's message: no routing, no hint.
            planning = false;
            None
        }
        Event::UserPromptSubmit => {
            if project.session_context_due {
                let mut block = render::bootstrap(request.host, &project.hotword_prefix);
                if let Some(doc) = &project.agents_md {
                    block.push_str("\n\n");
                    block.push_str(&render::project_doc_block(request.host, doc));
                }
                hints.push(block);
            }
            let prompt = request
                .host
                .user_text(request.payload.prompt.as_deref().unwrap_or(""));
            let routing = routing::route_with_prefix(
                prompt,
                request.payload.from_subagent(),
                project.hotword_prefix.as_deref(),
            );
            hints.extend(render::routing_block(&routing));
            if project.degraded.is_some() {
                // Minimal safe output: the routing-control block only.
                agents = AgentRouting::empty(routing.subagent_mode);
                return finish(
                    request,
                    Some(routing),
                    skills,
                    agents,
                    planning,
                    hints,
                    project,
                );
            }
            let window = crate::text::routing_window(&routing.stripped_prompt);
            if let Some(router) = &project.skills {
                skills = router.route(window);
            }
            skills.catalog = project.skill_source.map(str::to_owned);
            skills.warnings = project.skill_warnings.clone();
            if project.skill_source == Some(crate::stages::skills::grounding::EMBEDDED_SOURCE) {
                // The one place an embedded skill is let through: only where it is grounded.
                crate::stages::skills::grounding::apply(
                    &mut skills,
                    project.skill_grounding.as_ref(),
                );
            }
            if planning::approves_plan(window) && !planning::asks_for_plan(window) {
                // An approval moves to execution even with the planning switch on; only a host
                // still in plan mode keeps it a planning turn (and the entry waits).
                planning = plan_mode;
            }
            planning |= planning::asks_for_plan(window);
            // The agent catalog is only needed when delegation is on or a plan may carry forward.
            let needs_catalog =
                routing.subagent_mode != SubagentMode::Off || project.planned.is_some();
            // The catalog narrowed to what this host can spawn; the embedded default is copied
            // from static data only when needed.
            let effective = needs_catalog.then(|| {
                let mut catalog = project.agents.clone().unwrap_or_else(default_catalog);
                if let Some(defined) = &project.host_agents {
                    crate::stages::agents::availability::apply_host_definitions(
                        &mut catalog,
                        defined,
                    );
                }
                catalog
            });
            let catalog = effective.as_ref();
            agents = match catalog {
                Some(catalog) => resolve_subagent_routing(
                    window,
                    routing.subagent_mode,
                    &skills,
                    catalog,
                    planning,
                ),
                None => AgentRouting::off(),
            };
            agents.warnings = project.agent_warnings.clone();
            if let (Some(planned), Some(catalog)) = (&project.planned, catalog) {
                agents.carry_forward =
                    planning::carry_forward(planned, window, permission_mode, planning, catalog);
            }
            hints.extend(render::specialist_block(request.host, &skills, &agents));
            Some(routing)
        }
    };
    finish(request, routing, skills, agents, planning, hints, project)
}

fn finish(
    request: &HookRequest<'_>,
    routing: Option<Routing>,
    skills: SkillRouting,
    agents: AgentRouting,
    planning: bool,
    hints: Vec<String>,
    project: &Project,
) -> Decision {
    // The session context riding with a prompt is one block more.
    debug_assert!(hints.len() <= render::MAX_BLOCKS + usize::from(project.session_context_due));
    let mut output = render::printed(request.host, request.wire_event, &hints);
    if output.is_none() && request.payload.is_host_notification() {
        // An explicit no-op: Claude Code logs an empty answer as plain-text hook output.
        output = Some(Printed::NoOp(render::EmptyObject {}));
    }
    // A prompt event that fires before every model call answers only the turn's first call
    // (`invocationNum` 0), and that call only once per turn.
    // A later call prints the no-op and shows no hint block (it injects nothing), and it neither
    // records nor consumes the session's plan: the turn's first call did, with the project read;
    // a later call reads no project, so a plan it made would be the embedded catalog's, not the
    // project's, and would overwrite the first call's.
    let per_call = request.host.prompt_event_per_model_call(request.wire_event);
    let later_call = later_model_call(request.host, request.wire_event, request.payload);
    let mut hints = hints;
    if later_call {
        output = Printed::noop(request.host);
        hints.clear();
    }
    let once_per_turn =
        (per_call && output.as_ref().is_some_and(Printed::has_context)).then(|| OncePerTurn {
            otherwise: Printed::noop(request.host),
        });
    let (hint_outcomes, hint) = match (&project.trail, &routing) {
        (Some(trail), Some(routing)) if !later_call => {
            hints_followed(request, project, trail, routing, &skills, &agents)
        }
        _ => (Vec::new(), None),
    };
    let effects = Effects {
        once_per_turn,
        carry_forward: if later_call {
            None
        } else {
            carry_forward_update(request, &agents)
        },
        hint_session: hint
            .as_ref()
            .and(project.trail.as_ref())
            .map(|t| t.session.clone()),
        hint,
    };
    Decision {
        event: request.wire_event,
        kind: request.event,
        host: request.host,
        routing,
        skills,
        agents,
        planning,
        hints,
        output,
        degraded: project.degraded.or(project.skills_degraded),
        provenance: project.provenance,
        effects,
        hint_outcomes,
    }
}

/// Judges the session's previous hint by what the transcript shows since, and says what to keep
/// of this prompt's hint for the next one (`stages::outcome`). A hint whose outcome can never be
/// read (the host gives no transcript, or it cannot be read now) is recorded as unknown at once:
/// every skill named and every delegation asked gets one judgement, on the next prompt or now.
fn hints_followed(
    request: &HookRequest<'_>,
    project: &Project,
    trail: &outcome::Trail,
    routing: &Routing,
    skills: &SkillRouting,
    agents: &AgentRouting,
) -> (Vec<outcome::Judged>, Option<outcome::HintUpdate>) {
    let from_project = project.provenance.skills_from_project_file;
    let named: Vec<outcome::NamedSkill> = skills
        .selected
        .iter()
        .map(|s| outcome::NamedSkill {
            id: s.skill_id.clone(),
            label: analytics::skill_label(&s.skill_id, s.source.as_deref(), from_project),
        })
        .collect();
    let roles: Vec<String> = agents
        .recommended_agents
        .iter()
        .map(|a| analytics::agent_label(&a.agent_id, project.provenance.agents_from_project))
        .collect();
    let delegation =
        (routing.subagent_mode != crate::stages::subagent::SubagentMode::Off).then_some(roles);
    let mut judged = Vec::new();
    if let Some(previous) = &trail.previous {
        let observed = match (&trail.transcript, &trail.observed) {
            (Some(Ok((key, _))), _) if *key != previous.transcript => outcome::Observed::Unknown {
                reason: "transcript-changed",
            },
            (Some(Ok(_)), Some(observed)) => observed.clone(),
            (Some(Err(reason)), _) => outcome::Observed::Unknown { reason },
            _ => outcome::Observed::Unknown {
                reason: "transcript-unreadable",
            },
        };
        let loaded_label = |name: &str| loaded_skill_label(project, previous, name);
        let transcript = request.host.spec().transcript;
        let builtin = transcript.builtin_agents;
        let spawned_label = |agent_type: &str| {
            if builtin.contains(&agent_type) || crate::stages::agents::is_embedded_id(agent_type) {
                agent_type.to_owned()
            } else {
                analytics::hashed("unlisted", agent_type)
            }
        };
        judged = outcome::judge(
            previous,
            &observed,
            transcript.sees_spawns,
            &loaded_label,
            &spawned_label,
        );
    }
    let update = match &trail.transcript {
        Some(Ok((key, position))) => Some(outcome::HintUpdate::Record(outcome::HintRecord {
            at: request.now,
            transcript: key.clone(),
            position: *position,
            skills: named,
            delegation,
        })),
        Some(Err(reason)) => {
            if !named.is_empty() || delegation.is_some() {
                judged.push(outcome::Judged::unknown(reason));
            }
            trail.previous.as_ref().map(|_| outcome::HintUpdate::Forget)
        }
        None => None,
    };
    (judged, update)
}

/// How the analytics name a skill the model loaded: the label the hint gave it, else as the
/// catalog's skill of that id is named (`analytics::skill_label`), else hashed as `unlisted:`
/// (a name the model wrote, in no catalog here).
fn loaded_skill_label(project: &Project, previous: &outcome::HintRecord, name: &str) -> String {
    if let Some(named) = previous
        .skills
        .iter()
        .find(|n| outcome::same_skill(name, &n.id))
    {
        return named.label.clone();
    }
    let bare = name.rsplit(':').next().unwrap_or(name);
    let from_project = project.provenance.skills_from_project_file;
    match project.skills.as_ref().and_then(|r| r.skill(bare)) {
        Some(skill) => analytics::skill_label(
            &skill.id,
            (!skill.source.is_empty()).then_some(skill.source.as_str()),
            from_project,
        ),
        None if project
            .skills
            .as_ref()
            .is_some_and(|r| r.ids().iter().any(|id| id == bare)) =>
        {
            analytics::skill_label(bare, None, true)
        }
        None => analytics::hashed("unlisted", name),
    }
}

/// Whether the run is a later model call of its turn, on a prompt event that fires before every
/// model call (Antigravity's PreInvocation with `invocationNum` above 0): the turn's first call
/// answered it, so it reads no project and injects nothing. The one statement of the rule: the
/// edge skips the load by it, [`decide`] prints the no-op by it.
pub fn later_model_call(host: Host, wire_event: &str, payload: &Payload) -> bool {
    host.prompt_event_per_model_call(wire_event) && payload.later_model_call()
}

/// Records a planning turn's delegation for the session, or consumes the entry once it has been
/// carried forward. A subagent's prompt carries its parent's session id: it never records or
/// consumes the parent's planned delegation; a payload without a session has nothing to key it.
fn carry_forward_update(
    request: &HookRequest<'_>,
    agents: &AgentRouting,
) -> Option<CarryForwardUpdate> {
    if request.payload.session_id.is_none() || request.payload.not_from_user() {
        return None;
    }
    let from_plan_mode = request.payload.permission_mode.as_deref() == Some("plan");
    match planning::planned_from(agents, from_plan_mode, request.now) {
        Some(planned) => Some(CarryForwardUpdate::Record(planned)),
        None if agents.carry_forward.is_some() => Some(CarryForwardUpdate::Consume),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HotwordPrefix;

    fn payload(json: &str) -> Payload {
        Payload::parse(json.as_bytes()).unwrap()
    }

    #[test]
    fn event_resolution() {
        let ups = payload(r#"{"hook_event_name":"UserPromptSubmit","prompt":"x"}"#);
        let bare = payload(r#"{"prompt":"x"}"#);
        let start = payload(r#"{"source":"startup"}"#);
        let tool = payload(r#"{"hook_event_name":"PreToolUse"}"#);
        let empty = payload(r#"{}"#);
        let ev = |e: Event| Some((e, Host::Codex.event_name(e)));
        let resolve_event = |flag, p: &Payload| resolve_event(Host::Codex, flag, p);
        assert_eq!(resolve_event(None, &ups), ev(Event::UserPromptSubmit));
        assert_eq!(
            resolve_event(Some("SessionStart"), &ups),
            ev(Event::SessionStart)
        );
        assert_eq!(resolve_event(None, &bare), ev(Event::UserPromptSubmit));
        assert_eq!(resolve_event(None, &start), ev(Event::SessionStart));
        assert_eq!(
            super::resolve_event(Host::Gemini, None, &bare),
            Some((Event::UserPromptSubmit, "BeforeAgent"))
        );
        assert_eq!(resolve_event(None, &tool), None);
        assert_eq!(resolve_event(Some("Bogus"), &ups), None);
        assert_eq!(resolve_event(None, &empty), None);
    }

    #[test]
    fn a_loaded_agents_md_is_labelled_for_the_host() {
        // The edge loads AGENTS.md only when the host does not (Host::loads_agents_md); the
        // decision adds what it was given, with the host's reason.
        let p = payload(r#"{"hook_event_name":"SessionStart"}"#);
        let project = Project {
            agents_md: Some(ProjectDoc {
                name: "AGENTS.md",
                text: "rule one".into(),
                truncated_from: None,
            }),
            ..Project::default()
        };
        let session_start = |host| HookRequest {
            host,
            event: Event::SessionStart,
            wire_event: "SessionStart",
            payload: &p,
            planning_flag: false,
            now: chrono::DateTime::UNIX_EPOCH,
        };
        let decision = decide(&session_start(Host::Claude), &project);
        assert_eq!(
            decision.hints,
            [
                render::bootstrap(Host::Claude, &HotwordPrefix::default()),
                "Project AGENTS.md (Claude Code loads CLAUDE.md in this project, not this file; the project's own text, each line quoted with `>`):\n> rule one".to_owned()
            ]
        );
        // Gemini CLI: nothing at SessionStart; the session context rides with the first prompt
        // whose conversation lacks it, before the routing blocks, as one block.
        let gemini = decide(&session_start(Host::Gemini), &project);
        assert!(gemini.hints.is_empty());
        assert_eq!(gemini.output.map(|o| o.to_line()).as_deref(), Some("{}\n"));
        let prompt = payload(r#"{"hook_event_name":"BeforeAgent","prompt":"!quick spiegami"}"#);
        let request = HookRequest {
            host: Host::Gemini,
            event: Event::UserPromptSubmit,
            wire_event: "BeforeAgent",
            payload: &prompt,
            planning_flag: false,
            now: chrono::DateTime::UNIX_EPOCH,
        };
        let due = Project {
            session_context_due: true,
            agents_md: project.agents_md.clone(),
            ..Project::default()
        };
        let decision = decide(&request, &due);
        assert_eq!(
            decision.hints[0],
            format!(
                "{}\n\nProject AGENTS.md (Gemini CLI does not load it by itself; the project's own text, each line quoted with `>`):\n> rule one",
                render::bootstrap(Host::Gemini, &HotwordPrefix::default())
            )
        );
        assert!(decision.hints[1].starts_with("Sophia routing control: contextMode=light"));
        let carried = decide(&request, &project);
        assert!(carried.hints[0].starts_with("Sophia routing control:"));
        assert!(
            !carried
                .hints
                .iter()
                .any(|h| h.contains("Sophia routing bootstrap"))
        );
    }

    #[test]
    fn codex_resume_does_not_repeat_the_bootstrap() {
        let run = |host, source: &str| {
            let p = payload(&format!(
                r#"{{"hook_event_name":"SessionStart","source":"{source}"}}"#
            ));
            let request = HookRequest {
                host,
                event: Event::SessionStart,
                wire_event: "SessionStart",
                payload: &p,
                planning_flag: false,
                now: chrono::DateTime::UNIX_EPOCH,
            };
            decide(&request, &Project::default()).hints.len()
        };
        assert_eq!(run(Host::Codex, "resume"), 0, "the history still holds it");
        for source in ["startup", "clear", "compact"] {
            assert_eq!(run(Host::Codex, source), 1, "{source}");
        }
        assert_eq!(run(Host::Claude, "resume"), 1);
    }

    #[test]
    fn planning_from_permission_mode_or_flag() {
        let plan = payload(
            r#"{"hook_event_name":"UserPromptSubmit","permission_mode":"plan","prompt":"x"}"#,
        );
        let default = payload(r#"{"hook_event_name":"UserPromptSubmit","prompt":"x"}"#);
        let run = |p: &Payload, flag| {
            decide(
                &HookRequest {
                    host: Host::Claude,
                    event: Event::UserPromptSubmit,
                    wire_event: "UserPromptSubmit",
                    payload: p,
                    planning_flag: flag,
                    now: chrono::DateTime::UNIX_EPOCH,
                },
                &Project::default(),
            )
            .planning
        };
        assert!(run(&plan, false));
        assert!(run(&default, true));
        assert!(!run(&default, false));
    }

    /// The whole outcome comes from `decide` (issue 30), over every host × the session-start and
    /// prompt events × a session or none × the user's prompt or a subagent's × no invocation
    /// number, the first call and a later one: a later call of a per-call event prints the no-op,
    /// shows no hint and leaves the session's plan alone;
    /// once per turn exactly when a per-call event's output carries context, with the no-op as
    /// the other answer; a carry-forward update only for the user's own session, recorded on a
    /// planning turn that recommends agents.
    #[test]
    fn the_effects_are_part_of_the_decision() {
        let fresh = Project {
            agents: Some(default_catalog()),
            ..Project::default()
        };
        let planned = Project {
            planned: Some(PlannedDelegation {
                planned_at: chrono::DateTime::UNIX_EPOCH,
                from_plan_mode: false,
                agents: vec!["implementer".into()],
                skills: vec![None],
                reason_codes: Vec::new(),
            }),
            agents: Some(default_catalog()),
            ..Project::default()
        };
        let prompts = [
            "!agents analizza il ticket Mantis 123 e ricostruisci la causa",
            "ok, go ahead and implement the plan",
        ];
        let (mut once_seen, mut recorded, mut consumed) = (0, 0, 0);
        for host in Host::ALL {
            for event in [Event::SessionStart, Event::UserPromptSubmit] {
                for (session, subagent, invocation, project, prompt) in
                    itertools_product(&[&fresh, &planned], &prompts)
                {
                    let wire = host.event_name(event);
                    let mut map = serde_json::Map::new();
                    map.insert("hook_event_name".into(), wire.into());
                    map.insert("prompt".into(), prompt.into());
                    map.insert("lastUserInput".into(), prompt.into());
                    if session {
                        map.insert("session_id".into(), "s1".into());
                    }
                    if subagent {
                        map.insert("agent_id".into(), "a1".into());
                    }
                    if let Some(n) = invocation {
                        map.insert("invocationNum".into(), n.into());
                    }
                    let payload = Payload::from_map(&map);
                    let request = HookRequest {
                        host,
                        event,
                        wire_event: wire,
                        payload: &payload,
                        planning_flag: true,
                        now: chrono::DateTime::UNIX_EPOCH,
                    };
                    let d = decide(&request, project);
                    // Antigravity's PreInvocation is the one prompt event that fires before
                    // every model call (docs/host-protocols.md).
                    let per_call = host == Host::Antigravity && event == Event::UserPromptSubmit;
                    let later = per_call && invocation.is_some_and(|n| n > 0);
                    let case = format!("{host:?} {wire} {session} {subagent} {invocation:?}");
                    if later {
                        assert_eq!(d.output, Printed::noop(host), "{case}");
                        assert!(d.hints.is_empty(), "{case}");
                        assert_eq!(d.effects.carry_forward, None, "{case}");
                    }
                    let context = d.output.as_ref().is_some_and(Printed::has_context);
                    assert_eq!(
                        d.effects.once_per_turn,
                        (per_call && context).then(|| OncePerTurn {
                            otherwise: Printed::noop(host)
                        }),
                        "{case}"
                    );
                    assert_eq!(d.printed(false), d.output.as_ref(), "{case}");
                    if d.effects.once_per_turn.is_some() {
                        once_seen += 1;
                        assert_eq!(d.printed(true), Printed::noop(host).as_ref(), "{case}");
                    }
                    let plans = d.agents.carry_forward_to_implementation
                        && !d.agents.recommended_agents.is_empty();
                    match &d.effects.carry_forward {
                        None => assert!(later || !(session && !subagent && plans), "{case}"),
                        Some(CarryForwardUpdate::Record(p)) => {
                            assert!(session && !subagent && plans, "{case}");
                            let ids: Vec<&str> = d
                                .agents
                                .recommended_agents
                                .iter()
                                .map(|r| r.agent_id.as_str())
                                .collect();
                            assert_eq!((p.planned_at, p.from_plan_mode), (request.now, false));
                            assert_eq!(p.agents, ids, "{case}");
                            recorded += 1;
                        }
                        Some(CarryForwardUpdate::Consume) => {
                            assert!(session && !subagent && !plans, "{case}");
                            assert!(d.agents.carry_forward.is_some(), "{case}");
                            consumed += 1;
                        }
                    }
                    if d.agents.carry_forward.is_some() && !plans {
                        // What was carried forward is consumed, for the user's session only.
                        assert_eq!(
                            d.effects.carry_forward.is_some(),
                            session && !subagent && !later,
                            "{case}"
                        );
                    }
                }
            }
        }
        // No part is vacuous: each effect is decided somewhere in the table.
        assert!(
            once_seen > 0 && recorded > 0 && consumed > 0,
            "{once_seen} {recorded} {consumed}"
        );
    }

    type Cell<'a> = (bool, bool, Option<u64>, &'a Project, &'a str);

    fn itertools_product<'a>(projects: &[&'a Project], prompts: &[&'a str]) -> Vec<Cell<'a>> {
        let mut out = Vec::new();
        for session in [false, true] {
            for subagent in [false, true] {
                for invocation in [None, Some(0), Some(2)] {
                    for project in projects {
                        for prompt in prompts {
                            out.push((session, subagent, invocation, *project, *prompt));
                        }
                    }
                }
            }
        }
        out
    }
}
