//! The `sophia-hook` binary: reads the environment and the standard streams, calls the library,
//! returns its exit code. A panic in hook mode is caught here and turned into a pass-through
//! (exit 0): the user's routing line when the payload was parsed (`edge::deadline`), else the
//! host's no-op or nothing, so a bug never blocks a prompt.

use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

use sophia_hook::cli::Exit;
use sophia_hook::clock::SystemClock;
use sophia_hook::edge::hook::fail_open;
use sophia_hook::edge::settings::Settings;

fn main() -> ExitCode {
    let clock = SystemClock::start();
    // For the whole process: the hook's deadline watchdog (`edge::deadline`) reads it too.
    let settings: &'static Settings = Box::leak(Box::new(Settings::from_env()));
    let debug = settings.debug;
    let args: Vec<_> = std::env::args_os().collect();
    let tool = sophia_hook::commands::hook::is_tool_invocation(&args);
    if !tool {
        sophia_hook::edge::deadline::enable(settings, || {
            let code = i32::from(Exit::Success.code());
            std::process::exit(code)
        });
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
            // Not locked for the whole run: the deadline's watchdog may have to print.
            &mut io::stdout(),
            &mut io::stderr().lock(),
            settings,
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
            return ExitCode::from(Exit::InternalError.code());
        }
        // A panic once the payload was parsed: the answer the deadline keeps ready (the
        // routing line at least, `edge::deadline`). Before that, the hook's one fail-open
        // path: the host's no-op, the analytics event.
        if !sophia_hook::edge::deadline::give(&mut io::stdout(), "panic") {
            fail_open(
                &mut io::stdout().lock(),
                &mut io::stderr(),
                &sophia_hook::commands::hook::hook_args(&args),
                settings,
                "panic",
                &clock,
            );
        }
        ExitCode::from(Exit::Success.code())
    })
}
