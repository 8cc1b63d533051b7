//! The hook's hard deadline: degrade, don't disappear (issue 48, class 6).
//!
//! The time budget (`Settings::time_budget`, `--time-budget-ms`) is checked between the
//! hook's steps; one step can still run long (a machine at load 10, a slow disk, a lock held by
//! another session), and a hook the host kills or waits on prints nothing: the user's `!quick`
//! or `!agents` would be lost with the skill line. So once the payload is parsed, the binary's
//! hook run keeps one answer ready here — first the routing-control block alone (the decision
//! of a degraded run, computed only when needed), then, once decided, the run's own output —
//! and a watchdog thread gives that answer in the run's place at the budget plus [`MARGIN`],
//! records the analytics event (reason `deadline`), and ends the process with exit 0. A panic
//! after the payload is parsed gives the same answer (`main.rs`). Whoever prints first
//! ([`claim`]) is the only one who prints.
//!
//! Only the binary arms it ([`enable`], hook mode): a library caller (the tests, `explain`)
//! runs without a watchdog and [`claim`] always succeeds there.

use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use crate::edge::settings::Settings;
use crate::hosts::Host;
use crate::stages::analytics::AnalyticsEvent;
use crate::stages::decision::{self, Decision, HookRequest, Project};
use crate::stages::payload::Payload;
use crate::stages::render::Printed;

/// Why a run's answer was given by the watchdog: the analytics event's `degraded`.
pub const DEGRADED_DEADLINE: &str = "deadline";

/// How long past the run's time budget the watchdog waits before it answers: the default
/// budget (100 ms) plus this is the hook's 150 ms of work.
pub const MARGIN: Duration = Duration::from_millis(50);

/// The answer the run would give if it stopped now.
enum Answer {
    /// No payload yet: the host's no-op.
    Nothing,
    /// The payload is parsed: the routing-control block of a degraded run.
    Routing(Box<Pending>),
    /// The run has decided: its own output and analytics event.
    Decided(Box<(Decision, Option<Printed>)>),
    /// Printed: by the watchdog or a panic's answer (`true`), or by the run itself.
    Given { elsewhere: bool },
}

/// What the degraded decision is computed from, when it is needed.
struct Pending {
    host: Host,
    /// `--event`, verbatim.
    event: Option<String>,
    /// `--planning`.
    planning: bool,
    /// The hotword prefix to route with: the user's, then the project's once it is read.
    prefix: crate::config::HotwordPrefix,
    payload: Payload,
    now: DateTime<Utc>,
}

static ANSWER: Mutex<Answer> = Mutex::new(Answer::Nothing);

/// Set by [`enable`]: the settings of the process, when its clock started, and how the
/// process ends once the watchdog has answered (exit 0; `main.rs`, where exit codes are made).
static ARMED: OnceLock<Armed> = OnceLock::new();

struct Armed {
    settings: &'static Settings,
    started: Instant,
    exit: fn() -> !,
}

/// Arms the deadline for this process (the binary's hook mode, before it reads the payload);
/// `exit` ends the process with exit 0 once the watchdog has answered.
pub fn enable(settings: &'static Settings, exit: fn() -> !) {
    let _ = ARMED.set(Armed {
        settings,
        started: Instant::now(),
        exit,
    });
}

fn answer() -> std::sync::MutexGuard<'static, Answer> {
    ANSWER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The payload is parsed: from now on the routing-control block is the least the run answers,
/// and the watchdog is started, to fire `budget` + [`MARGIN`] after the payload was read.
/// `event` and `planning` are the command line's (`--event`, `--planning`).
pub fn payload_ready(
    host: Host,
    (event, planning): (Option<&str>, bool),
    payload: &Payload,
    now: DateTime<Utc>,
    budget: Duration,
) {
    let Some(armed) = ARMED.get() else {
        return;
    };
    {
        let mut slot = answer();
        if !matches!(*slot, Answer::Nothing) {
            return;
        }
        *slot = Answer::Routing(Box::new(Pending {
            host,
            event: event.map(str::to_owned),
            planning,
            prefix: crate::config::HotwordPrefix::effective(
                None,
                armed.settings.hotword_prefix.as_ref(),
            ),
            payload: payload.clone(),
            now,
        }));
    }
    let fire_at = Instant::now() + budget.saturating_add(MARGIN);
    // A small stack: the watchdog computes a degraded decision (routing only) and prints it.
    let _ = std::thread::Builder::new()
        .name("sophia-deadline".into())
        .stack_size(256 * 1024)
        .spawn(move || {
            let now = Instant::now();
            if fire_at > now {
                std::thread::sleep(fire_at - now);
            }
            if give(&mut std::io::stdout(), DEGRADED_DEADLINE) {
                (armed.exit)();
            }
        });
}

/// The project's hotword prefix is known (its `.sophia-hook.yaml` read): the routing answer
/// uses it from now on.
pub fn prefix_known(prefix: &crate::config::HotwordPrefix) {
    if ARMED.get().is_none() {
        return;
    }
    if let Answer::Routing(pending) = &mut *answer() {
        pending.prefix = prefix.clone();
    }
}

/// The run has decided: if it is stopped from now on, its own output is the answer.
pub fn decided(decision: &Decision, printed: Option<&Printed>) {
    if ARMED.get().is_none() {
        return;
    }
    let mut slot = answer();
    if matches!(*slot, Answer::Given { .. }) {
        return;
    }
    *slot = Answer::Decided(Box::new((decision.clone(), printed.cloned())));
}

/// Takes the right to print for the run itself: `false` when it printed already. When the
/// watchdog is giving the answer, this never returns: the watchdog ends the process once its
/// line is out, and a run that went on would cut it short. Always `true` unarmed (a library
/// caller runs many hooks in one process).
pub fn claim() -> bool {
    if ARMED.get().is_none() {
        return true;
    }
    let mut slot = answer();
    match *slot {
        Answer::Given { elsewhere: true } => {
            drop(slot);
            loop {
                std::thread::park();
            }
        }
        Answer::Given { elsewhere: false } => false,
        _ => {
            *slot = Answer::Given { elsewhere: false };
            true
        }
    }
}

/// Gives the prepared answer on `stdout` in the run's place (the watchdog; a panic after the
/// payload was parsed) and records its analytics event. `false`, and nothing done, when the
/// deadline is not armed, nobody has parsed a payload yet, or somebody printed already. `why`
/// is the degraded run's reason in analytics ([`DEGRADED_DEADLINE`], or `panic`).
pub fn give(stdout: &mut dyn Write, why: &'static str) -> bool {
    let Some(Armed {
        settings, started, ..
    }) = ARMED.get()
    else {
        return false;
    };
    let taken = {
        let mut slot = answer();
        if matches!(*slot, Answer::Nothing | Answer::Given { .. }) {
            return false;
        }
        std::mem::replace(&mut *slot, Answer::Given { elsewhere: true })
    };
    let duration_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    let (printed, event) = match taken {
        Answer::Nothing | Answer::Given { .. } => return false,
        Answer::Routing(pending) => {
            let Some(decision) = degraded(&pending, settings, why) else {
                return write(stdout, None);
            };
            let printed = decision.printed(false).cloned();
            let event =
                AnalyticsEvent::from_outcome(&decision, printed.as_ref(), pending.now, duration_us);
            (printed, event)
        }
        Answer::Decided(decided) => {
            let (decision, printed) = *decided;
            let event =
                AnalyticsEvent::from_outcome(&decision, printed.as_ref(), Utc::now(), duration_us);
            (printed, event)
        }
    };
    write(stdout, printed.as_ref());
    crate::edge::analytics_log::record(settings, &mut std::io::sink(), &event);
    true
}

fn write(stdout: &mut dyn Write, printed: Option<&Printed>) -> bool {
    if let Some(printed) = printed {
        let _ = stdout.write_all(printed.to_line().as_bytes());
        let _ = stdout.flush();
    }
    true
}

/// The decision of a degraded run on `pending`: routing control only, with the user's hotword
/// prefix (the project's `.sophia-hook.yaml` is not read: it is the work that ran out of time).
/// `None` for an event the host's adapter does not answer.
fn degraded(pending: &Pending, settings: &Settings, why: &'static str) -> Option<Decision> {
    let host = pending.host;
    let (event, wire_event) =
        decision::resolve_event(host, pending.event.as_deref(), &pending.payload)?;
    let request = HookRequest {
        host,
        event,
        wire_event,
        payload: &pending.payload,
        planning_flag: pending.planning || settings.planning,
        now: pending.now,
    };
    let project = Project {
        hotword_prefix: pending.prefix.clone(),
        ..Project::degraded(why)
    };
    Some(decision::decide(&request, &project))
}
