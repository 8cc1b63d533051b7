//! I7: tool commands are linear in what a repository controls and bounded in what they read.
//! Work is counted (files read), never timed.
//!
//! Unix only: it plants FIFOs, `/dev/zero` and symlinked definition folders; on Windows the trust layer's
//! guarantees are held by the unit tests of `edge::files` and `edge::platform` (docs/architecture.md).
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]
#![cfg(unix)]

use std::fs;
use std::path::Path;

use sophia_hook::edge::agents::{DefinitionDir, DefinitionIndex, compute_availability};

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// `eval`'s case file names a `manifest`: a FIFO, `/dev/zero` or a huge file there fails the
/// case file with a clear error at once instead of blocking or reading without end.
#[test]
fn an_eval_manifest_is_read_through_the_bounded_reader() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    mkfifo(&base.join("fifo.json"));
    std::os::unix::fs::symlink("/dev/zero", base.join("zero.json")).unwrap();
    fs::File::create(base.join("huge.json"))
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    // The reader `eval` gives the pure stage (src/commands/eval.rs).
    let read_manifest = |path: &Path| {
        sophia_hook::edge::files::Place::user(path)
            .read_string(sophia_hook::edge::files::caps::CATALOG)
            .map_err(|e| e.to_string())
    };
    for (name, why) in [
        ("fifo.json", "not a regular file"),
        ("zero.json", "not a regular file"),
        ("huge.json", "large"),
    ] {
        let line = format!(r#"{{"id":"m","prompt":"hello","manifest":"{name}"}}"#);
        let err = sophia_hook::eval::parse_cases_in(&line, base, &read_manifest).unwrap_err();
        assert!(
            err.contains("manifest") && err.contains(why),
            "{name}: {err}"
        );
    }
}

/// Availability reads each definition file once, whatever the number of catalog agents: a
/// folder of `n` definitions costs `n` reads for the whole catalog (it cost `n` per agent).
#[test]
fn definition_folders_are_read_once_for_every_agent() {
    let catalog = sophia_hook::stages::agents::default_catalog();
    assert!(catalog.agents.len() > 1);
    for n in [10usize, 100, 1_000] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("agents");
        fs::create_dir_all(&dir).unwrap();
        let target = tmp.path().join("one.md");
        fs::write(&target, "---\nname: x\n---\n").unwrap();
        for i in 0..n {
            std::os::unix::fs::symlink(&target, dir.join(format!("a{i}.md"))).unwrap();
        }
        let real = &catalog.agents[0].id;
        fs::write(dir.join(format!("{real}.md")), "---\nname: real\n---\n").unwrap();
        let dirs = [DefinitionDir {
            host: "claude",
            dir: sophia_hook::edge::files::Place::user(dir.clone()),
            ext: ".md",
            only_synced: false,
        }];
        let index = DefinitionIndex::read(&dirs);
        assert_eq!(index.reads, n + 1, "{n} definitions");
        let (states, _) = compute_availability(&catalog, &dirs);
        assert_eq!(states[real].1.len(), 1, "{n}: {:?}", states[real]);
    }
    // A folder larger than the cap is read up to it.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("agents");
    fs::create_dir_all(&dir).unwrap();
    let max = sophia_hook::edge::agents::MAX_DEFINITIONS_PER_DIR;
    for i in 0..max + 50 {
        fs::write(dir.join(format!("a{i}.md")), "").unwrap();
    }
    let index = DefinitionIndex::read(&[DefinitionDir {
        host: "claude",
        dir: sophia_hook::edge::files::Place::user(dir),
        ext: ".md",
        only_synced: false,
    }]);
    assert_eq!(index.reads, max);
}

/// The case file itself goes through the bounded reader: `eval` on a FIFO, `/dev/zero` or a file
/// over the 16 MiB cap exits 2 with the reason at once (before: a FIFO hung, `/dev/zero` took
/// 1.26 GB in 3 s — issue 18's second independent pass, case 43).
#[test]
fn an_eval_case_file_is_read_through_the_bounded_reader() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path();
    mkfifo(&base.join("fifo.jsonl"));
    std::os::unix::fs::symlink("/dev/zero", base.join("zero.jsonl")).unwrap();
    fs::File::create(base.join("huge.jsonl"))
        .unwrap()
        .set_len(sophia_hook::edge::files::caps::CASES.bytes() + 1)
        .unwrap();
    for (name, why) in [
        ("fifo.jsonl", "not a regular file"),
        ("zero.jsonl", "not a regular file"),
        ("huge.jsonl", "large"),
    ] {
        let path = base.join(name);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sophia-hook"))
            .args(["eval", path.to_str().unwrap()])
            .env("HOME", base)
            .env("SOPHIA_ANALYTICS", "off")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(why), "{name}: {stderr}");
    }
}
