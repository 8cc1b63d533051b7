//! Grounded embedded skills: the embedded catalog (the Sophia MCP skills) is written for the
//! Sophia MCP servers (`sophiadeveloper/mcp-servers`), so one of its skills is named only where
//! the server it is written for exists for the host — configured in one of the host's MCP
//! settings files, or checked out in the project (the `mcp-servers` repository itself). Elsewhere
//! the embedded catalog stays silent: "use skill X" for a skill the host cannot use is a wrong
//! hint. The user can turn it always on or off (`SOPHIA_EMBEDDED_SKILLS`, `embedded_skills` in
//! `config.yaml`); a project can only turn it off. Pure: the edge finds the servers
//! (`edge::mcp`), [`crate::stages::decision::decide`] withholds what is not grounded.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The catalog source name of the embedded catalog (`skills.catalog` in `explain`).
pub const EMBEDDED_SOURCE: &str = "embedded";

/// Whether the embedded skills may be named.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EmbeddedSkills {
    /// Only the skills whose Sophia MCP server is configured for the host or checked out here.
    #[default]
    Auto,
    /// Always (a machine set up some other way; `eval`, which measures the catalog itself).
    On,
    /// Never.
    Off,
}

impl EmbeddedSkills {
    pub fn parse(value: &str) -> Option<EmbeddedSkills> {
        match value.trim().to_ascii_lowercase().as_str() {
            "auto" => Some(EmbeddedSkills::Auto),
            "on" | "1" | "true" | "yes" => Some(EmbeddedSkills::On),
            "off" | "0" | "false" | "no" => Some(EmbeddedSkills::Off),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            EmbeddedSkills::Auto => "auto",
            EmbeddedSkills::On => "on",
            EmbeddedSkills::Off => "off",
        }
    }
}

/// One Sophia MCP server: the key `genera_mcp_json.sh` gives it in a host's `mcpServers`, and
/// its folder in the repository (what its command's arguments point into).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Server {
    pub name: &'static str,
    pub dir: &'static str,
}

/// The Sophia MCP servers, as `sophiadeveloper/mcp-servers` configures them.
pub const SERVERS: [Server; 8] = [
    Server {
        name: "cf-mcp-server",
        dir: "cf-node",
    },
    Server {
        name: "docs-mcp-server",
        dir: "docs-node",
    },
    Server {
        name: "git-mcp-server",
        dir: "git-node",
    },
    Server {
        name: "linter-mcp-server",
        dir: "linter-node",
    },
    Server {
        name: "mantis-mcp-server",
        dir: "mantis-node",
    },
    Server {
        name: "office-mcp-server",
        dir: "office-node",
    },
    Server {
        name: "playwright-mcp-server",
        dir: "playwright-node",
    },
    Server {
        name: "sql-mcp-server",
        dir: "sql-node",
    },
];

const ALL: &[&str] = &[
    "cf-mcp-server",
    "docs-mcp-server",
    "git-mcp-server",
    "linter-mcp-server",
    "mantis-mcp-server",
    "office-mcp-server",
    "playwright-mcp-server",
    "sql-mcp-server",
];

/// Each embedded skill and the servers it is written for (any one grounds it), from the skills'
/// own decision matrix in `mcp-servers`. The coordinating skills (orchestrator, analyst) and
/// `skill-creator` are part of that setup as a whole: any Sophia server grounds them.
const WRITTEN_FOR: &[(&str, &[&str])] = &[
    ("mcp-browser-automation", &["playwright-mcp-server"]),
    ("mcp-coldfusion-developer", &["cf-mcp-server"]),
    ("mcp-database-expert", &["sql-mcp-server"]),
    ("mcp-docs-navigator", &["docs-mcp-server"]),
    (
        "mcp-git-mantis-workflow",
        &["git-mcp-server", "mantis-mcp-server"],
    ),
    ("mcp-master-orchestrator", ALL),
    ("mcp-office-expert", &["office-mcp-server"]),
    ("mcp-technical-analyst", ALL),
    ("skill-creator", ALL),
];

/// The servers an embedded skill is written for; empty for an id the embedded catalog does not
/// have (never grounded).
pub fn written_for(skill: &str) -> &'static [&'static str] {
    WRITTEN_FOR
        .iter()
        .find(|(id, _)| *id == skill)
        .map_or(&[], |(_, servers)| servers)
}

/// Every embedded skill id this module knows (a test holds it equal to the embedded catalog).
pub fn known_skills() -> impl Iterator<Item = &'static str> {
    WRITTEN_FOR.iter().map(|(id, _)| *id)
}

/// Which Sophia server a host's MCP entry is: its key is the server's name or folder
/// (`sql-mcp-server`, `sql-node`), or its command or an argument is a path through the server's
/// folder (`…/mcp-servers/sql-node/index.js`), whatever the key.
pub fn server_of_entry<'a>(
    key: &str,
    command: impl IntoIterator<Item = &'a str>,
) -> Option<&'static str> {
    let key = key.trim().to_ascii_lowercase();
    if let Some(s) = SERVERS.iter().find(|s| key == s.name || key == s.dir) {
        return Some(s.name);
    }
    command.into_iter().find_map(|part| {
        part.split(['/', '\\'])
            .find_map(|piece| SERVERS.iter().find(|s| piece == s.dir))
            .map(|s| s.name)
    })
}

/// Where the setting came from, for `explain` and `doctor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModeFrom {
    /// Nobody set it: `auto`.
    Default,
    /// `SOPHIA_EMBEDDED_SKILLS`.
    Environment,
    /// `embedded_skills` in the user's `config.yaml`.
    UserConfig,
    /// `embedded_skills: off` in the project's `.sophia-hook.yaml`.
    ProjectConfig,
    /// `eval`, which measures the catalog, not this machine.
    Eval,
}

/// What grounds the embedded skills for one run: the mode, where it came from, and (in `auto`)
/// each Sophia server found with where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Grounding {
    pub mode: EmbeddedSkills,
    pub mode_from: ModeFrom,
    /// Server name → where it was found (`~/.claude.json`, `checkout:sql-node`).
    pub servers: BTreeMap<&'static str, String>,
}

impl Grounding {
    pub fn new(mode: EmbeddedSkills, mode_from: ModeFrom) -> Grounding {
        Grounding {
            mode,
            mode_from,
            servers: BTreeMap::new(),
        }
    }

    /// Why `skill` may be named (`on`, `sql-mcp-server:~/.claude.json`), or `None` when it may
    /// not.
    pub fn grounds(&self, skill: &str) -> Option<String> {
        match self.mode {
            EmbeddedSkills::Off => None,
            EmbeddedSkills::On => Some("on".to_owned()),
            EmbeddedSkills::Auto => written_for(skill).iter().find_map(|server| {
                self.servers
                    .get(server)
                    .map(|place| format!("{server}:{place}"))
            }),
        }
    }

    /// Why a withheld skill was not named, as a reason code.
    pub fn withheld_reason(&self, skill: &str) -> String {
        match self.mode {
            EmbeddedSkills::Off => "embedded-skills-off".to_owned(),
            _ => format!("no-server:{}", written_for(skill).join("|")),
        }
    }

    /// One line for `doctor` and the debug log.
    pub fn summary(&self) -> String {
        let from = match self.mode_from {
            ModeFrom::Default => "the default",
            ModeFrom::Environment => "SOPHIA_EMBEDDED_SKILLS",
            ModeFrom::UserConfig => "embedded_skills in config.yaml",
            ModeFrom::ProjectConfig => "embedded_skills in .sophia-hook.yaml",
            ModeFrom::Eval => "eval",
        };
        match self.mode {
            EmbeddedSkills::On => format!("on ({from}): every embedded skill may be named"),
            EmbeddedSkills::Off => format!("off ({from}): no embedded skill is named"),
            EmbeddedSkills::Auto => {
                let named: Vec<&str> = known_skills()
                    .filter(|s| self.grounds(s).is_some())
                    .collect();
                if named.is_empty() {
                    format!(
                        "auto ({from}): no Sophia MCP server is configured for this host or \
                         checked out here, so no embedded skill is named"
                    )
                } else {
                    let found: Vec<String> = self
                        .servers
                        .iter()
                        .map(|(s, place)| format!("{s} in {place}"))
                        .collect();
                    format!(
                        "auto ({from}): {} — named: {}",
                        found.join(", "),
                        named.join(", ")
                    )
                }
            }
        }
    }
}

/// The embedded-skill part of a skill routing, for `explain`: the grounding and what it withheld.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundingReport {
    #[serde(flatten)]
    pub grounding: Grounding,
    /// Skills the scorer chose that were not named, each with why (`no-server:sql-mcp-server`).
    pub withheld: Vec<String>,
}

/// Withholds every embedded skill `grounding` does not ground from `routing` (selected and
/// runners-up), and records it. `None` grounds nothing: a path that did not look is silent, never
/// wrong.
pub fn apply(routing: &mut super::SkillRouting, grounding: Option<&Grounding>) {
    let grounding = grounding
        .cloned()
        .unwrap_or_else(|| Grounding::new(EmbeddedSkills::Off, ModeFrom::Default));
    let mut withheld = Vec::new();
    let first = |r: &super::SkillRouting| {
        r.selected
            .first()
            .or(r.runners_up.first())
            .map(|m| m.skill_id.clone())
    };
    let first_before = first(routing);
    for list in [&mut routing.selected, &mut routing.runners_up] {
        list.retain(|m| match grounding.grounds(&m.skill_id) {
            Some(_) => true,
            None => {
                withheld.push(format!(
                    "{}={}",
                    m.skill_id,
                    grounding.withheld_reason(&m.skill_id)
                ));
                false
            }
        });
    }
    // The confidence was of the ranking's first candidate: withheld, it belongs to no skill left.
    if first(routing) != first_before {
        routing.first_confidence = None;
    }
    routing.grounding = Some(GroundingReport {
        grounding,
        withheld,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ranking's first candidate withheld: its confidence goes with it (eval's curve would
    /// otherwise read it as the confidence of the next skill); kept, the confidence stays.
    #[test]
    fn a_withheld_first_candidate_takes_its_confidence_with_it() {
        let routing = |first_confidence| super::super::SkillRouting {
            runners_up: vec![super::super::SkillMatch {
                skill_id: "mcp-database-expert".into(),
                score: 3,
                reasons: vec![],
                source: None,
            }],
            first_confidence,
            ..Default::default()
        };
        for (mode, kept) in [(EmbeddedSkills::Off, false), (EmbeddedSkills::On, true)] {
            let mut r = routing(Some(0.5));
            apply(&mut r, Some(&Grounding::new(mode, ModeFrom::Default)));
            assert_eq!(r.runners_up.len(), usize::from(kept));
            assert_eq!(r.first_confidence, kept.then_some(0.5), "{mode:?}");
        }
    }

    #[test]
    fn every_embedded_skill_is_written_for_a_known_server() {
        let embedded: Vec<String> = super::super::default_catalog()
            .skills
            .into_iter()
            .map(|s| s.id)
            .collect();
        let known: Vec<&str> = known_skills().collect();
        assert_eq!(embedded, known);
        for skill in known_skills() {
            assert!(!written_for(skill).is_empty(), "{skill}");
            for server in written_for(skill) {
                assert!(
                    SERVERS.iter().any(|s| s.name == *server),
                    "{skill}: {server}"
                );
            }
        }
        // `ALL` spells out the servers' names for the const table: the same list, in order.
        assert_eq!(ALL, SERVERS.map(|s| s.name));
    }

    #[test]
    fn an_entry_is_a_server_by_key_or_by_the_folder_its_command_runs() {
        let table: &[(&str, &[&str], Option<&str>)] = &[
            ("sql-mcp-server", &["node"], Some("sql-mcp-server")),
            ("SQL-Node", &[], Some("sql-mcp-server")),
            (
                "db",
                &["node", "/opt/mcp-servers/sql-node/index.js"],
                Some("sql-mcp-server"),
            ),
            (
                "db",
                &["C:\\mcp-servers\\sql-node\\index.js"],
                Some("sql-mcp-server"),
            ),
            (
                "linter-node",
                &["node", "x/dist/index.js"],
                Some("linter-mcp-server"),
            ),
            (
                "postgres",
                &["npx", "@modelcontextprotocol/server-postgres"],
                None,
            ),
            ("sql", &["node", "/opt/not-sql-node/index.js"], None),
            ("mcp-database-expert", &[], None),
        ];
        for (key, command, want) in table {
            assert_eq!(
                server_of_entry(key, command.iter().copied()),
                *want,
                "{key} {command:?}"
            );
        }
    }

    #[test]
    fn auto_names_a_skill_only_with_a_server_it_is_written_for() {
        for skill in known_skills() {
            for server in SERVERS {
                let mut g = Grounding::new(EmbeddedSkills::Auto, ModeFrom::Default);
                g.servers.insert(server.name, "~/.claude.json".into());
                let written = written_for(skill).contains(&server.name);
                assert_eq!(
                    g.grounds(skill).is_some(),
                    written,
                    "{skill} with {}",
                    server.name
                );
            }
            let none = Grounding::new(EmbeddedSkills::Auto, ModeFrom::Default);
            assert_eq!(none.grounds(skill), None);
            let off = Grounding {
                mode: EmbeddedSkills::Off,
                ..none.clone()
            };
            assert_eq!(off.grounds(skill), None);
            let on = Grounding {
                mode: EmbeddedSkills::On,
                ..none
            };
            assert!(on.grounds(skill).is_some());
        }
        assert_eq!(
            Grounding::new(EmbeddedSkills::On, ModeFrom::Eval).grounds("other"),
            Some("on".into())
        );
    }
}
