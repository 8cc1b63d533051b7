//! `sophia-hook explain`: the whole routing decision as JSON, and with `--effects` the rest of
//! the outcome the hook applies (what a turn already answered prints instead, the session's
//! planned delegation recorded or consumed).

use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::{Context, bail};

use crate::clock::Clock;
use crate::edge::hook::{HookArgs, MAX_PAYLOAD_BYTES, load_and_decide};
use crate::edge::settings::Settings;
use crate::hosts::Event;
use crate::stages::payload::Payload;

#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub hook: super::hook::HookFlags,
    /// The prompt text; without it the payload is read from stdin.
    #[arg(long)]
    pub prompt: Option<String>,
    /// The working directory to resolve the project from (default: the payload's `cwd`, else
    /// the current directory).
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    /// Also show the outcome beyond the output, as `effects`: `oncePerTurn` (on a host whose
    /// prompt event fires before every model call: what the hook prints when the turn was
    /// already answered, `ifAnsweredBefore`) and `carryForward` (the planned delegation the
    /// session records, or `consume`). Nothing is written.
    #[arg(long)]
    pub effects: bool,
    /// Also show, as `outcome`, what the hook would record of the session's previous hint
    /// (issue 46): the analytics lines (`lines`: followed, other, ignored, unnamed, spawned,
    /// not-spawned, unknown with its reason), read from the payload's transcript since the
    /// position the session's hint record keeps, and the record this prompt would leave
    /// (`record`). Nothing is written.
    #[arg(long)]
    pub outcome: bool,
}

pub fn explain(
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    explain: &ExplainArgs,
    settings: &Settings,
    clock: &dyn Clock,
) -> super::Outcome {
    let args: &HookArgs = &explain.hook.hook_args();
    let (prompt, cwd) = (explain.prompt.clone(), explain.cwd.clone());
    if let Some(cwd) = &cwd {
        super::existing_dir("--cwd", cwd)?;
    }
    if prompt.is_none() && settings.stdin_is_terminal {
        bail!("stdin is a terminal: pass --prompt TEXT, or pipe a hook payload in");
    }
    let mut payload = match prompt {
        Some(prompt) => Payload {
            hook_event_name: Some(args.host().event_name(Event::UserPromptSubmit).to_owned()),
            prompt: Some(prompt),
            ..Payload::default()
        },
        None => {
            let mut bytes = Vec::new();
            stdin
                .take(MAX_PAYLOAD_BYTES + 1)
                .read_to_end(&mut bytes)
                .context("reading the payload from stdin")?;
            if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
                bail!("the payload is larger than {MAX_PAYLOAD_BYTES} bytes");
            }
            Payload::parse(&bytes)
                .context("parsing the payload on stdin (or pass --prompt TEXT)")?
        }
    };
    if let Some(cwd) = cwd {
        payload.cwd = Some(cwd.to_string_lossy().into_owned());
    }
    // The hook's own path: the same load and decision, with the clock it is given, no budget,
    // and the skill catalog checked in full.
    let (decision, _) = load_and_decide(
        &mut payload,
        args,
        settings,
        clock.now(),
        &|| false,
        crate::edge::skills::Freshness::Full,
        None,
    )
    .map_err(|_| {
        anyhow::anyhow!(
            "no event sophia-hook answers (got {:?}); use --event SessionStart or --event UserPromptSubmit",
            args.event
                .as_deref()
                .or(payload.hook_event_name.as_deref())
                .unwrap_or("none")
        )
    })?;
    let mut value = serde_json::to_value(&decision).context("serialising the decision")?;
    if explain.effects
        && let Some(map) = value.as_object_mut()
    {
        map.insert(
            "effects".into(),
            serde_json::to_value(&decision.effects).context("serialising the effects")?,
        );
    }
    if explain.outcome
        && let Some(map) = value.as_object_mut()
    {
        map.insert(
            "outcome".into(),
            serde_json::json!({
                "lines": decision.hint_outcomes,
                "record": decision.effects.hint,
            }),
        );
    }
    let mut json = serde_json::to_string_pretty(&value).context("serialising the decision")?;
    json.push('\n');
    stdout
        .write_all(json.as_bytes())
        .context("writing the decision")?;
    Ok(super::Verdict::Pass)
}
