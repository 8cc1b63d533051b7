//! Snapshot tests over `fixtures/prompts/<host>/*.json`: one payload file per scenario, with the
//! exact stdout of hook mode and the `explain` decision. The host is the fixture's folder name.
// Tests and benches set up and read their files directly; the door (clippy.toml) is for the crate.
#![allow(clippy::disallowed_methods)]

use crate::common;

use common::{materialise_project, run_in_process};

#[test]
fn prompt_fixtures() {
    insta::glob!("../../fixtures/prompts", "*/*.json", |path| {
        let host = path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let payload = materialise_project(&std::fs::read(path).unwrap(), tmp.path());

        let hook = run_in_process(&["--host", host], &payload);
        assert_eq!(hook.code, 0);
        assert_eq!(
            hook.stderr, "",
            "hook mode is silent on stderr without SOPHIA_DEBUG"
        );

        let explain = run_in_process(&["explain", "--host", host], &payload);
        let decision: serde_json::Value = match explain.code {
            0 => serde_json::from_str(&explain.stdout).unwrap(),
            _ => serde_json::json!({ "explainError": explain.stderr }),
        };
        // explain's `output` is exactly what hook mode printed.
        if explain.code == 0 {
            let printed: serde_json::Value = match hook.stdout.as_str() {
                "" => serde_json::Value::Null,
                line => serde_json::from_str(line).unwrap(),
            };
            assert_eq!(decision["output"], printed);
        }
        insta::assert_snapshot!("stdout", hook.stdout);
        insta::with_settings!({ sort_maps => true }, {
            insta::assert_json_snapshot!("explain", decision);
        });
    });
}
