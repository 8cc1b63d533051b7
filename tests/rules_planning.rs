//! The two ways a stored plan moves to execution (docs/agents/README.md, "Planning"), each stated
//! once and checked over every position and every mode:
//!
//! - an approval word among the first four words of the prompt (fillers before it, any case);
//! - the host left the plan mode the plan was made in: only a plan made in plan mode, and only a
//!   prompt whose `permission_mode` is set and is not `plan`.
//!
//! Planted bugs these catch (found by the independent audit of issue 20, `docs/testing.md`): the
//! approval looked for in the first three words; the `from_plan_mode` guard dropped, so a plan
//! asked for in words carries forward to any later prompt in Claude Code's `default` mode.

use chrono::{TimeZone, Utc};
use sophia_hook::agents::default_catalog;
use sophia_hook::planning::{PlannedDelegation, approves_plan, carry_forward};

/// Words that are neither approvals, plan nouns nor execute verbs.
const FILLERS: &[&str] = &["allora", "ecco", "quindi", "dunque", "adesso", "insomma"];
const APPROVALS: &[&str] = &[
    "procedi", "vai", "approvo", "confermo", "iniziamo", "lgtm", "approved", "proceed", "start",
];

#[test]
fn an_approval_counts_among_the_first_four_words_only() {
    let mut checked = 0;
    for approval in APPROVALS {
        for position in 1..=7usize {
            for upper in [false, true] {
                let word = if upper {
                    approval.to_uppercase()
                } else {
                    (*approval).to_owned()
                };
                let mut words: Vec<String> = FILLERS[..position - 1]
                    .iter()
                    .map(|w| (*w).to_owned())
                    .collect();
                words.push(word);
                words.push("con calma".to_owned());
                let prompt = words.join(" ");
                assert_eq!(
                    approves_plan(&prompt),
                    position <= 4,
                    "{prompt:?}: the approval is word {position}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, APPROVALS.len() * 7 * 2);
}

fn planned(from_plan_mode: bool) -> PlannedDelegation {
    PlannedDelegation {
        planned_at: Utc.with_ymd_and_hms(2026, 11, 30, 10, 0, 0).unwrap(),
        from_plan_mode,
        agents: vec!["technical_analyst".to_owned()],
        skills: vec![None],
        reason_codes: vec![],
    }
}

#[test]
fn leaving_plan_mode_carries_only_a_plan_made_in_plan_mode() {
    let catalog = default_catalog();
    let modes = [
        None,
        Some("plan"),
        Some("default"),
        Some("acceptEdits"),
        Some("bypassPermissions"),
    ];
    let prompts = [
        ("procedi", true),
        ("ok go ahead with the plan", true),
        ("spiegami come funziona il modulo ordini", false),
        ("what does this error mean", false),
    ];
    let mut checked = 0;
    for from_plan_mode in [false, true] {
        for mode in modes {
            for (prompt, approves) in prompts {
                let left_plan_mode = from_plan_mode && mode.is_some_and(|m| m != "plan");
                let want = approves || left_plan_mode;
                let got = carry_forward(&planned(from_plan_mode), prompt, mode, false, &catalog);
                assert_eq!(
                    got.is_some(),
                    want,
                    "plan made in plan mode: {from_plan_mode}, now {mode:?}, {prompt:?}"
                );
                // Still planning: never carried.
                assert!(
                    carry_forward(&planned(from_plan_mode), prompt, mode, true, &catalog).is_none()
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * 5 * 4);
}

/// A plan request (docs/agents/README.md, "Planning"): a plan verb at most four words before
/// "piano"/"plan", with no execute verb among them. Checked at every distance 1–7. Planted bug
/// this catches (the second independent audit of issue 20, #6): the window cut to three words.
#[test]
fn a_plan_verb_counts_up_to_four_words_before_the_plan_noun() {
    use sophia_hook::planning::asks_for_plan;
    let mut checked = 0;
    for (verb, noun) in [
        ("prepara", "piano"),
        ("fammi", "piano"),
        ("scrivi", "piano"),
    ] {
        for distance in 1..=7usize {
            let mut words = vec![verb];
            words.extend(&FILLERS[..distance - 1]);
            words.push(noun);
            words.push("migrazione");
            let prompt = words.join(" ");
            assert_eq!(
                asks_for_plan(&prompt),
                distance <= 4,
                "{prompt:?}: the verb is {distance} word(s) before {noun:?}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 3 * 7);
}
