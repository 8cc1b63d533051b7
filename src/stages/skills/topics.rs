//! Object agreement (issue 45, class 1): what a prompt is *about* — the technologies, platforms,
//! products and file formats it names — must agree with what a skill is about before the skill
//! is named. A built-in vocabulary of **families** of alternatives (build tools, clouds,
//! databases, frontend frameworks…), each a list of **groups** (one technology and the words
//! that name it: `aws`, `ec2`, `s3`, `lambda`…). A prompt that names a group of a family, when
//! the skill's own name, description or keywords name another group of that family and none of
//! the prompt's, is about something else: a Gradle question is no request for a Bazel skill, a
//! GKE cluster none for an AKS skill, a SQL query none for a spreadsheet skill.
//!
//! How entries are chosen: each group is a technology as a practitioner names it, and a family
//! holds alternatives one picks between for the same job (two build tools, two clouds), never a
//! particular skill's words. Words that are also everyday English (`make`, `go`, `next`, `word`,
//! `teams`) are left out: a false topic would veto a right skill. The skill's topics are read at
//! compile time from its name, description and keywords (not its body, whose examples mention
//! alternatives in passing) and stored in the index as [`Field::Topic`] terms, so that a word
//! every skill of a catalog shares, which the index leaves out as evidence, still counts here.
//!
//! [`Field::Topic`]: super::catalog::Field::Topic

use crate::text::fold;

/// One technology: its name and the folded words that name it.
type Group = (&'static str, &'static [&'static str]);

/// `(family, [(group, [words])])`. Words are folded (lower case, no accents); a two-word entry is
/// matched as adjacent words.
const FAMILIES: &[(&str, &[Group])] = &[
    (
        "cloud",
        &[
            (
                "aws",
                &[
                    "aws",
                    "ec2",
                    "s3",
                    "eks",
                    "ecs",
                    "fargate",
                    "cloudformation",
                    "dynamodb",
                    "sagemaker",
                    "bedrock",
                    "cloudwatch",
                    "route53",
                    "amazon",
                ],
            ),
            (
                "azure",
                &[
                    "azure",
                    "aks",
                    "cosmosdb",
                    "bicep",
                    "entra",
                    "microsoft azure",
                ],
            ),
            (
                "gcp",
                &[
                    "gcp",
                    "gcloud",
                    "gke",
                    "bigquery",
                    "google cloud",
                    "cloud run",
                    "vertex ai",
                ],
            ),
            ("digitalocean", &["digitalocean"]),
            ("hetzner", &["hetzner"]),
            ("oci", &["oci", "oracle cloud"]),
        ],
    ),
    (
        "hosting",
        &[
            ("vercel", &["vercel"]),
            ("netlify", &["netlify"]),
            ("heroku", &["heroku"]),
            ("cloudflare", &["cloudflare", "wrangler"]),
            ("firebase", &["firebase"]),
        ],
    ),
    (
        "build-tool",
        &[
            ("gradle", &["gradle"]),
            ("maven", &["maven", "mvn", "pom.xml"]),
            ("bazel", &["bazel"]),
            ("cmake", &["cmake"]),
            ("sbt", &["sbt"]),
            ("msbuild", &["msbuild"]),
            ("meson", &["meson"]),
        ],
    ),
    (
        "bundler",
        &[
            ("webpack", &["webpack"]),
            ("vite", &["vite", "vitejs"]),
            ("rollup", &["rollup"]),
            ("esbuild", &["esbuild"]),
            ("parcel", &["parcel"]),
            ("turbopack", &["turbopack"]),
        ],
    ),
    (
        "js-package-manager",
        &[("npm", &["npm"]), ("yarn", &["yarn"]), ("pnpm", &["pnpm"])],
    ),
    (
        "frontend-framework",
        &[
            ("react", &["react", "reactjs", "jsx", "nextjs", "next.js"]),
            (
                "vue",
                &["vue", "vuejs", "vue.js", "nuxt", "nuxtjs", "nuxt.js"],
            ),
            ("svelte", &["svelte", "sveltekit"]),
            ("angular", &["angular", "angularjs"]),
            ("ember", &["ember", "emberjs"]),
            ("solid", &["solidjs"]),
        ],
    ),
    (
        "mobile-framework",
        &[
            ("flutter", &["flutter", "dart"]),
            ("react-native", &["react native", "expo"]),
            ("swiftui", &["swiftui", "uikit"]),
            ("jetpack-compose", &["jetpack compose", "jetpack"]),
            ("xamarin", &["xamarin", "maui"]),
            ("ionic", &["ionic", "capacitor", "cordova"]),
        ],
    ),
    (
        "language",
        &[
            (
                "python",
                &["python", "django", "flask", "fastapi", "pytest", "pip"],
            ),
            ("golang", &["golang"]),
            ("rust", &["rust", "cargo"]),
            ("java", &["java", "jvm", "spring boot", "springboot"]),
            (
                "dotnet",
                &["dotnet", "csharp", "c#", "aspnet", "nuget", "asp net"],
            ),
            ("ruby", &["ruby", "rails", "rubygems"]),
            ("php", &["php", "laravel", "symfony", "composer"]),
            ("elixir", &["elixir", "phoenix"]),
            ("kotlin", &["kotlin"]),
            ("scala", &["scala"]),
            ("swift", &["swift"]),
        ],
    ),
    (
        "database",
        &[
            (
                "postgres",
                &[
                    "postgres",
                    "postgresql",
                    "psql",
                    "pgbouncer",
                    "pg_stat_statements",
                ],
            ),
            ("mysql", &["mysql", "mariadb"]),
            ("sqlite", &["sqlite"]),
            (
                "sqlserver",
                &["sql server", "mssql", "tsql", "t-sql", "sqlserver"],
            ),
            ("oracle-db", &["oracle", "plsql"]),
            ("mongodb", &["mongodb", "mongo", "mongoose"]),
            ("redis", &["redis"]),
            ("cassandra", &["cassandra"]),
            ("clickhouse", &["clickhouse"]),
            ("snowflake", &["snowflake"]),
            ("duckdb", &["duckdb"]),
            ("dynamodb", &["dynamodb"]),
            ("cosmosdb", &["cosmosdb", "cosmos db"]),
            ("elasticsearch", &["elasticsearch", "opensearch"]),
        ],
    ),
    (
        "tabular",
        &[
            ("sql", &["sql"]),
            (
                "spreadsheet",
                &["excel", "xlsx", "xls", "spreadsheet", "spreadsheets"],
            ),
        ],
    ),
    (
        "document-format",
        &[
            ("pdf", &["pdf"]),
            ("docx", &["docx"]),
            ("pptx", &["pptx", "powerpoint", "keynote"]),
            ("xlsx", &["xlsx", "excel"]),
        ],
    ),
    (
        "ci",
        &[
            ("github-actions", &["github actions", "gha"]),
            ("gitlab-ci", &["gitlab", "gitlab-ci"]),
            ("jenkins", &["jenkins", "jenkinsfile"]),
            ("circleci", &["circleci"]),
            ("travis", &["travis"]),
            ("buildkite", &["buildkite"]),
            ("azure-pipelines", &["azure pipelines", "azure devops"]),
        ],
    ),
    (
        "iac",
        &[
            ("terraform", &["terraform", "opentofu", "hcl"]),
            ("pulumi", &["pulumi"]),
            ("cloudformation", &["cloudformation", "cfn", "aws cdk"]),
            ("bicep", &["bicep"]),
            ("ansible", &["ansible"]),
            ("chef", &["chef"]),
            ("puppet", &["puppet"]),
        ],
    ),
    (
        "js-test-runner",
        &[
            ("jest", &["jest"]),
            ("vitest", &["vitest"]),
            ("mocha", &["mocha"]),
            ("jasmine", &["jasmine"]),
        ],
    ),
    (
        "e2e-test",
        &[
            ("cypress", &["cypress"]),
            ("playwright", &["playwright"]),
            ("selenium", &["selenium", "webdriver"]),
            ("puppeteer", &["puppeteer"]),
        ],
    ),
    (
        "observability",
        &[
            ("datadog", &["datadog"]),
            ("newrelic", &["newrelic", "new relic"]),
            ("splunk", &["splunk"]),
            ("dynatrace", &["dynatrace"]),
            ("sentry", &["sentry"]),
            ("prometheus", &["prometheus", "promql"]),
        ],
    ),
    (
        "message-broker",
        &[
            ("kafka", &["kafka"]),
            ("rabbitmq", &["rabbitmq", "amqp"]),
            ("nats", &["nats"]),
            ("sqs", &["sqs"]),
            ("pubsub", &["pubsub", "pub/sub"]),
            ("service-bus", &["service bus", "servicebus"]),
        ],
    ),
    (
        "game-engine",
        &[
            ("threejs", &["threejs", "three.js", "r3f"]),
            ("babylon", &["babylon", "babylonjs", "babylon.js"]),
            ("phaser", &["phaser"]),
            ("unity", &["unity"]),
            ("unreal", &["unreal"]),
            ("godot", &["godot"]),
        ],
    ),
    (
        "data-frame",
        &[
            ("pandas", &["pandas"]),
            ("polars", &["polars"]),
            ("spark", &["spark", "pyspark"]),
            ("dask", &["dask"]),
        ],
    ),
    (
        "ml-framework",
        &[
            ("pytorch", &["pytorch", "torch"]),
            ("tensorflow", &["tensorflow", "keras"]),
            ("jax", &["jax"]),
            ("sklearn", &["sklearn", "scikit-learn"]),
        ],
    ),
    (
        "workflow-orchestrator",
        &[
            ("airflow", &["airflow"]),
            ("dagster", &["dagster"]),
            ("prefect", &["prefect"]),
            ("luigi", &["luigi"]),
        ],
    ),
    (
        "orm",
        &[
            ("prisma", &["prisma"]),
            ("drizzle", &["drizzle"]),
            ("typeorm", &["typeorm"]),
            ("sequelize", &["sequelize"]),
            ("sqlalchemy", &["sqlalchemy"]),
            ("hibernate", &["hibernate"]),
            (
                "entity-framework",
                &["entity framework", "efcore", "ef core"],
            ),
        ],
    ),
    (
        "state-management",
        &[
            ("redux", &["redux"]),
            ("zustand", &["zustand"]),
            ("mobx", &["mobx"]),
            ("pinia", &["pinia"]),
            ("vuex", &["vuex"]),
        ],
    ),
    (
        "chat-platform",
        &[
            ("slack", &["slack"]),
            ("discord", &["discord"]),
            ("telegram", &["telegram"]),
            ("whatsapp", &["whatsapp"]),
        ],
    ),
    (
        "issue-tracker",
        &[
            ("jira", &["jira"]),
            ("mantis", &["mantis", "mantisbt"]),
            ("redmine", &["redmine"]),
            ("youtrack", &["youtrack"]),
            ("asana", &["asana"]),
            ("trello", &["trello"]),
        ],
    ),
    (
        "payments",
        &[
            ("stripe", &["stripe"]),
            ("paypal", &["paypal"]),
            ("adyen", &["adyen"]),
            ("braintree", &["braintree"]),
        ],
    ),
    (
        "web-server",
        &[
            ("nginx", &["nginx"]),
            ("caddy", &["caddy"]),
            ("traefik", &["traefik"]),
            ("haproxy", &["haproxy"]),
            ("envoy", &["envoy"]),
        ],
    ),
    (
        "vcs",
        &[
            ("git", &["git"]),
            ("svn", &["svn", "subversion"]),
            ("mercurial", &["mercurial"]),
        ],
    ),
];

/// The first words of the two-word entries of [`FAMILIES`]: a pair is looked up only after one
/// (a unit test keeps the list equal to the table's).
const PAIR_STARTS: &[&str] = &[
    "asp",
    "aws",
    "azure",
    "cloud",
    "cosmos",
    "ef",
    "entity",
    "github",
    "google",
    "jetpack",
    "microsoft",
    "new",
    "oracle",
    "react",
    "service",
    "spring",
    "sql",
    "vertex",
];

/// What a topic term's stems start with (then its label): no prompt word can match it.
pub const STEM_MARK: &str = "@";

/// The topics a compiled skill's [`Field::Topic`] terms hold (labels this build knows).
///
/// [`Field::Topic`]: super::catalog::Field::Topic
pub fn of_skill(skill: &super::catalog::CompiledSkill) -> Vec<Topic> {
    let mut out: Vec<Topic> = skill
        .terms
        .iter()
        .filter(|t| t.field == super::catalog::Field::Topic)
        .filter_map(|t| Topic::from_label(&t.label))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A topic: a family and one of its groups, as indexes into [`FAMILIES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Topic {
    pub family: u16,
    pub group: u16,
}

impl Topic {
    /// `family/group`, as the index stores it and `explain` shows it.
    pub fn label(self) -> String {
        let (family, groups) = FAMILIES[usize::from(self.family)];
        format!("{family}/{}", groups[usize::from(self.group)].0)
    }

    /// The topic a label names (an index's `Topic` term), `None` for one this build does not know.
    pub fn from_label(label: &str) -> Option<Topic> {
        let (family, group) = label.split_once('/')?;
        let f = FAMILIES.iter().position(|(name, _)| *name == family)?;
        let g = FAMILIES[f].1.iter().position(|(name, _)| *name == group)?;
        Some(Topic {
            family: f as u16,
            group: g as u16,
        })
    }
}

/// The topics `text` names, sorted, each once. Words are runs of letters, digits and the `#`,
/// `.`, `/`, `-` and `_` inside a word (`c#`, `three.js`, `pub/sub`, `gitlab-ci`); each word,
/// each part of a compound word (`build.gradle`: `gradle`) and each pair of adjacent words is
/// looked up.
pub fn topics(text: &str) -> Vec<Topic> {
    topics_in(text, None)
}

/// [`topics`] of the given families only (`None`: all): object agreement asks only about the
/// families a selected skill names, which keeps the hook's cost to a few lookups a word.
pub fn topics_in(text: &str, families: Option<&[u16]>) -> Vec<Topic> {
    let folded = fold(text);
    let words: Vec<&str> = folded
        .split(|c: char| !(c.is_alphanumeric() || "#./-_".contains(c)))
        .map(|w| w.trim_matches(|c: char| ".-_/".contains(c)))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out: Vec<Topic> = Vec::new();
    let mut pair = String::new();
    for (i, w) in words.iter().enumerate() {
        lookup(w, families, &mut out);
        // A file or a compound names its parts too (`build.gradle`, `Cargo.toml`).
        if w.contains(['.', '/', '-', '_']) {
            for part in w.split(['.', '/', '-', '_']).filter(|p| !p.is_empty()) {
                lookup(part, families, &mut out);
            }
        }
        if let Some(next) = words.get(i + 1).filter(|_| PAIR_STARTS.contains(w)) {
            pair.clear();
            pair.push_str(w);
            pair.push(' ');
            pair.push_str(next);
            lookup(&pair, families, &mut out);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn lookup(word: &str, families: Option<&[u16]>, out: &mut Vec<Topic>) {
    for (f, (_, groups)) in FAMILIES.iter().enumerate() {
        if families.is_some_and(|only| !only.contains(&(f as u16))) {
            continue;
        }
        for (g, (_, names)) in groups.iter().enumerate() {
            if names.contains(&word) {
                out.push(Topic {
                    family: f as u16,
                    group: g as u16,
                });
            }
        }
    }
}

/// The family on which `prompt` and `skill` disagree, if any: the prompt names a group of it,
/// the skill names exactly one other group of it. A skill that names two or more groups of a
/// family lists them as what it works with ("tree models, TensorFlow, PyTorch…"): it is about
/// none of them in particular, so that family decides nothing for it.
pub fn disagreement(prompt: &[Topic], skill: &[Topic]) -> Option<&'static str> {
    prompt.iter().find_map(|p| {
        let mut own = skill.iter().filter(|t| t.family == p.family);
        let (Some(only), None) = (own.next(), own.next()) else {
            return None;
        };
        let shared = prompt.iter().any(|q| q == only);
        (!shared).then(|| FAMILIES[usize::from(p.family)].0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(text: &str) -> Vec<String> {
        topics(text).into_iter().map(Topic::label).collect()
    }

    #[test]
    fn words_pairs_and_inner_punctuation() {
        assert_eq!(labels("migrate the Gradle build"), ["build-tool/gradle"]);
        assert_eq!(labels("our GKE cluster on Google Cloud"), ["cloud/gcp"]);
        assert_eq!(
            labels("a SQL Server deadlock"),
            ["database/sqlserver", "tabular/sql"]
        );
        assert_eq!(labels("scene in Three.js"), ["game-engine/threejs"]);
        assert_eq!(labels("il .gitlab-ci.yml"), ["ci/gitlab-ci"]);
        assert_eq!(
            labels("build.gradle and Cargo.toml"),
            ["build-tool/gradle", "language/rust"]
        );
        assert_eq!(labels("gitlab-ci pipeline"), ["ci/gitlab-ci"]);
        assert_eq!(labels("make it go faster next time"), Vec::<String>::new());
    }

    #[test]
    fn pair_starts_are_the_first_words_of_the_two_word_entries() {
        let mut starts: Vec<&str> = FAMILIES
            .iter()
            .flat_map(|(_, groups)| groups.iter())
            .flat_map(|(_, names)| names.iter())
            .filter_map(|n| n.split_once(' ').map(|(first, _)| first))
            .collect();
        starts.sort_unstable();
        starts.dedup();
        assert_eq!(starts, PAIR_STARTS);
    }

    #[test]
    fn topics_in_reads_only_the_families_asked() {
        let text = "port the gradle build to GKE";
        let all = topics(text);
        assert_eq!(all.len(), 2);
        let cloud = all
            .iter()
            .find(|t| t.label() == "cloud/gcp")
            .unwrap()
            .family;
        let only: Vec<String> = topics_in(text, Some(&[cloud]))
            .into_iter()
            .map(Topic::label)
            .collect();
        assert_eq!(only, ["cloud/gcp"]);
        assert!(topics_in(text, Some(&[])).is_empty());
    }

    #[test]
    fn disagreement_needs_a_sibling_and_none_of_the_prompts() {
        let t = |s: &str| topics(s);
        assert_eq!(
            disagreement(
                &t("gradle build fails"),
                &t("Bazel builds and remote cache")
            ),
            Some("build-tool")
        );
        // The skill names no build tool: no disagreement (nothing says it is about another).
        assert_eq!(
            disagreement(&t("gradle build fails"), &t("fix CI failures")),
            None
        );
        // The skill names the prompt's tool among others: agreement.
        assert_eq!(
            disagreement(&t("gradle build fails"), &t("Maven and Gradle builds")),
            None
        );
        // The skill lists two others: it works with several, the family decides nothing.
        assert_eq!(
            disagreement(&t("bazel build fails"), &t("Maven and Gradle builds")),
            None
        );
        assert_eq!(
            disagreement(
                &t("a classifier in sklearn, explained"),
                &t("works with TensorFlow, PyTorch and any model")
            ),
            None
        );
        // The prompt names two, the skill one of them: agreement.
        assert_eq!(
            disagreement(&t("port from maven to gradle"), &t("Gradle builds")),
            None
        );
        assert_eq!(
            disagreement(
                &t("query this table with SQL"),
                &t("Excel spreadsheet formulas")
            ),
            Some("tabular")
        );
        assert_eq!(disagreement(&[], &t("Excel spreadsheet formulas")), None);
    }

    #[test]
    fn every_label_round_trips_and_words_are_folded_and_unique_per_family() {
        for (f, (family, groups)) in FAMILIES.iter().enumerate() {
            let mut seen: Vec<&str> = Vec::new();
            for (g, (group, names)) in groups.iter().enumerate() {
                let topic = Topic {
                    family: f as u16,
                    group: g as u16,
                };
                assert_eq!(Topic::from_label(&topic.label()), Some(topic));
                assert!(!group.contains('/'), "{family}/{group}");
                for name in *names {
                    assert_eq!(fold(name), *name, "{name}");
                    assert!(!seen.contains(name), "{family}: {name} twice");
                    seen.push(name);
                }
            }
        }
        assert_eq!(Topic::from_label("cloud/nowhere"), None);
        assert_eq!(Topic::from_label("nowhere"), None);
    }
}
