//! The one way a test puts a program on disk that something then runs.
//!
//! A file the test process holds open for writing cannot be executed ("text file busy",
//! `ETXTBSY`), and that includes a copy of the descriptor in a child another test thread has
//! just forked and not yet `exec`ed. So no executable is ever written by this process: the
//! binary under test is hard-linked (no writer at all) or copied by `cp`, and a script is written
//! by `sh` from a pipe. Either way the only writer is a child that has exited before we return.
//! `tests/it/layers.rs` fails when a test writes or copies an executable any other way.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};

/// The binary under test at `to`, a path of its own (what `current_exe` reports there).
pub fn place_binary(to: &Path) {
    let bin = Path::new(env!("CARGO_BIN_EXE_sophia-hook"));
    if std::fs::hard_link(bin, to).is_ok() {
        return;
    }
    #[cfg(unix)]
    {
        let status = Command::new("cp").arg(bin).arg(to).status().unwrap();
        assert!(
            status.success(),
            "cp {} {}",
            bin.to_string_lossy(),
            to.to_string_lossy()
        );
    }
    #[cfg(not(unix))]
    {
        // No "text file busy" on Windows: handles are not inherited unless asked for.
        std::fs::copy(bin, to).unwrap();
    }
}

/// A shell script with `text` at `path`, mode 0755.
#[cfg(unix)]
pub fn write_script(path: &Path, text: &str) {
    use std::io::Write;
    let mut child = Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "writing {}", path.to_string_lossy());
}
