//! The `sophia-hook` binary: reads the environment and the standard streams, calls the library,
//! returns its exit code. A panic in hook mode is caught here and turned into a silent
//! pass-through (exit 0, nothing on stdout), so a bug never blocks a prompt.

use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

use sophia_hook::analytics::AnalyticsEvent;
use sophia_hook::clock::{Clock, SystemClock};
use sophia_hook::edge::hook::record;
use sophia_hook::edge::settings::Settings;

fn main() -> ExitCode {
    let clock = SystemClock::start();
    let settings = Settings::from_env();
    let debug = settings.debug;
    let args: Vec<_> = std::env::args_os().collect();
    let tool = sophia_hook::cli::is_tool_invocation(&args);
    if !tool {
        // In hook mode the default panic message could quote input: say one line instead.
        panic::set_hook(Box::new(move |_| {
            if debug {
                // `eprintln!` panics when stderr is gone; a panic here would abort.
                let _ = writeln!(
                    io::stderr(),
                    "[sophia-hook] pass-through reason=internal-error"
                );
            }
        }));
    }
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        let code = sophia_hook::cli::run(
            args.clone(),
            &mut io::stdin().lock(),
            &mut io::stdout().lock(),
            &mut io::stderr().lock(),
            &settings,
            &clock,
        );
        ExitCode::from(code)
    }));
    result.unwrap_or_else(|_| {
        if tool {
            let _ = writeln!(
                io::stderr(),
                "sophia-hook: internal error (a bug); please report it"
            );
            return ExitCode::from(101);
        }
        // Hosts that need a JSON object even for a no-op get one.
        let hook = sophia_hook::cli::hook_args(&args);
        let host = hook.host();
        // Written without `print!`, which panics (exit 101) when stdout is a closed pipe.
        if let Some(noop) = sophia_hook::render::Printed::noop(host) {
            let mut stdout = io::stdout().lock();
            let _ = stdout.write_all(noop.to_line().as_bytes());
            let _ = stdout.flush();
        }
        let elapsed = clock.elapsed().as_micros().try_into().unwrap_or(u64::MAX);
        let wire_event = hook
            .event
            .as_deref()
            .and_then(|name| host.parse_event(name))
            .map(|(_, wire)| wire);
        let event =
            AnalyticsEvent::failed_open(host.as_str(), wire_event, "panic", clock.now(), elapsed);
        record(&settings, &mut io::stderr(), &event);
        ExitCode::SUCCESS
    })
}
