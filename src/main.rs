//! The `sophia-hook` binary: reads the environment and the standard streams, calls the library,
//! returns its exit code. A panic in hook mode is caught here and turned into a silent
//! pass-through (exit 0, nothing on stdout), so a bug never blocks a prompt.

use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

use sophia_hook::cli::Exit;
use sophia_hook::clock::SystemClock;
use sophia_hook::edge::hook::fail_open;
use sophia_hook::edge::settings::Settings;

fn main() -> ExitCode {
    let clock = SystemClock::start();
    let settings = Settings::from_env();
    let debug = settings.debug;
    let args: Vec<_> = std::env::args_os().collect();
    let tool = sophia_hook::commands::hook::is_tool_invocation(&args);
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
            return ExitCode::from(Exit::InternalError.code());
        }
        // The hook's one fail-open path: the host's no-op, the analytics event.
        fail_open(
            &mut io::stdout().lock(),
            &mut io::stderr(),
            &sophia_hook::commands::hook::hook_args(&args),
            &settings,
            "panic",
            &clock,
        );
        ExitCode::from(Exit::Success.code())
    })
}
