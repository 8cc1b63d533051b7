//! Skill routing: which specialist skill fits the stripped prompt. This module holds the result
//! types that `explain` shows under `skills`; the catalog and the scorer fill them. Pure: no I/O.

use serde::Serialize;

/// One scored skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillMatch {
    pub skill_id: String,
    pub score: u32,
    pub reasons: Vec<String>,
}

/// `skills` of the decision JSON: at most two selected skills, then the runners-up.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillRouting {
    pub selected: Vec<SkillMatch>,
    pub runners_up: Vec<SkillMatch>,
    pub warnings: Vec<String>,
}

impl SkillRouting {
    pub fn selected_ids(&self) -> impl Iterator<Item = &str> {
        self.selected.iter().map(|s| s.skill_id.as_str())
    }
}
