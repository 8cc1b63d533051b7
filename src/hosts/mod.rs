//! The hosts: one file per host, each the single owner of that host's contract (event names and
//! payload fields, how the user's text is found, the output shape and its limits, the settings
//! file per scope and its format, timeout units, trust model, matcher rules, skill folders,
//! whether it loads `AGENTS.md`, its agent-runtime format and folder, the versions observed) and
//! of the code of everything only it does.
//!
//! The rest of `src/` asks a host's [`HostSpec`] (`host.spec()`) and names no host. What differs
//! as data is data here; what differs as code is a trait the spec holds as `&'static dyn …`
//! (the output object, [`output`]; the settings file's layout, handler form and SessionStart
//! matcher, [`settings`]; the trust step, [`trust`]; the agent definition format, [`agent_file`];
//! the acknowledgement of project agents, the MCP settings files and the plugin's record, home and
//! listing, here), with the impls two or more hosts share beside the trait and a kind only one
//! host uses in that host's file. Pure: no I/O, and nothing from the rest of the crate (the lowest
//! layer; docs/architecture.md, "Hosts"): the edge reads and parses, the host's code reads the
//! parsed value.

pub mod agent_file;
pub mod antigravity;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod gemini;
pub mod output;
pub mod settings;
pub mod trust;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use settings::{
    Entry, HandlerForm, HandlerLines, Layout, MatcherGroups, MergeError, NoMatcher, Regex,
    Registered, SessionMatcher, Shell,
};

/// The host that runs the hook, given on the command line (`--host`), never sniffed.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Host {
    Codex,
    Claude,
    Gemini,
    /// Google Antigravity (`agy`): experimental. Built from the hooks guide and schema embedded in
    /// the engine, not yet run in a real Antigravity host.
    Antigravity,
    /// GitHub Copilot CLI (`copilot`).
    Copilot,
}

/// Where the hook is registered: the project's settings or the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    Project,
    User,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

/// The hook events sophia-hook answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Event {
    SessionStart,
    UserPromptSubmit,
    /// Claude Code's `PostToolUse` for `ExitPlanMode`: the "Exit plan mode?" dialog approved a
    /// plan, with no prompt, and the implementation continues in the same turn.
    PostToolUse,
}

impl Event {
    pub fn as_str(self) -> &'static str {
        match self {
            Event::SessionStart => "SessionStart",
            Event::UserPromptSubmit => "UserPromptSubmit",
            Event::PostToolUse => "PostToolUse",
        }
    }
}

/// Everything sophia-hook knows about one host's contract. One `const` per host file.
#[derive(Debug)]
pub struct HostSpec {
    /// The `--host` value and the key in settings, availability and model maps.
    pub id: &'static str,
    /// The host's name in messages (`Claude Code`).
    pub display: &'static str,
    /// The host's own home folder (`$CODEX_HOME`), when it has one.
    pub home: Option<HostHome>,
    /// The host versions the contract was read from or observed in (docs/host-protocols.md).
    pub observed_versions: &'static [&'static str],
    /// `Some` for a host not yet run for real: the warning `doctor` and `install` print.
    pub experimental: Option<Experimental>,
    pub events: Events,
    pub payload: PayloadRules,
    pub output: Output,
    pub settings: SettingsFile,
    /// How the host decides to run a repository's hooks, as `doctor` checks it; `None` when
    /// there is nothing to check.
    pub trust: Option<&'static dyn trust::TrustGate>,
    /// The hotword legend's note on where `!` does not reach the hook; `None` when unknown.
    pub tui: Option<Tui>,
    /// The project document the host loads by itself.
    pub agents_md: AgentsMd,
    pub skills: Skills,
    /// Runtime agent definitions (`agents sync`); `None` when the host has none.
    pub agents: Option<AgentRuntime>,
    pub delegation: Delegation,
    /// What `install` prints as the next step, by scope.
    pub install_next: fn(Scope) -> &'static str,
    /// How `install` without `--host` tells that the host is on this machine.
    pub detect: Detect,
    /// How the host loads sophia-hook as a plugin or extension (`plugin build`); `None` when it
    /// has no such system sophia-hook ships for.
    pub plugin: Option<PluginLayout>,
    /// The files the host reads its MCP servers from: where a Sophia MCP server grounds the
    /// embedded skills (`skills::grounding`, `edge::mcp`).
    pub mcp: &'static [McpFile],
    /// How a project sets the environment of the hooks this host runs (observed in the real
    /// host: `tests/e2e/run --env-probe`); `doctor` names what it sets of ours.
    pub project_env: &'static [ProjectEnv],
    /// Where and how the host records what its model did (skills loaded, subagents spawned).
    pub transcript: Transcript,
}

/// A way a project sets the environment of a host's hooks: every variable it sets is input a
/// repository chose (`edge::settings` validates each; `doctor` names them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectEnv {
    /// The `env` object of a project settings file (path under the project root): its keys.
    SettingsEnv(&'static str),
    /// A dotenv file under the project root that the host loads into its own environment,
    /// which its hooks inherit. Never read by sophia-hook (a secret by its name): its presence
    /// is said.
    DotEnv(&'static str),
}

impl ProjectEnv {
    /// The file, relative to the project root.
    pub fn path(self) -> &'static str {
        match self {
            ProjectEnv::SettingsEnv(p) | ProjectEnv::DotEnv(p) => p,
        }
    }

    /// The variables the file sets, from its parsed JSON; `None` for a file whose variables are
    /// not read (a dotenv file: a secret by its name, never opened).
    pub fn variables(self, doc: &serde_json::Value) -> Option<Vec<String>> {
        match self {
            ProjectEnv::SettingsEnv(_) => Some(
                doc.get("env")
                    .and_then(serde_json::Value::as_object)
                    .map(|env| env.keys().cloned().collect())
                    .unwrap_or_default(),
            ),
            ProjectEnv::DotEnv(_) => None,
        }
    }

    /// Whether the file is parsed for its variables ([`ProjectEnv::variables`]).
    pub fn is_parsed(self) -> bool {
        matches!(self, ProjectEnv::SettingsEnv(_))
    }
}

/// One file a host reads MCP servers from.
#[derive(Debug, Clone, Copy)]
pub struct McpFile {
    pub place: PluginPlace,
    /// How the file lists its servers.
    pub servers: &'static dyn McpServers,
}

/// The syntax of a file the edge reads for a host, so that it picks the bounded parser from data
/// and hands the host the parsed document (TOML as the JSON value of its tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// Strict JSON.
    Json,
    /// JSON with `//` and `/* */` comments (a strict JSON file is one too).
    Jsonc,
    Toml,
}

/// A file of the user's that the edge reads and parses for a host's own code (a trust record,
/// the acknowledgements of project agents).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserFile {
    pub path: UserPath,
    pub syntax: Syntax,
}

/// What to keep of a JSON file too large to build whole (`~/.claude.json`, where Claude Code
/// keeps every project's state): the file is skimmed within `bounded::SKIMMED` and only these
/// keys are built, each within `bounded::FILE`. The document the host then reads holds each root
/// key (`null` when missing or unreadable) and the `each` object with, for every entry, the kept
/// keys that were readable (an entry with none is left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonSkim {
    /// The root keys kept.
    pub root: &'static [&'static str],
    /// A root object, and the keys kept of each of its entries.
    pub each: Option<(&'static str, &'static [&'static str])>,
}

/// One server entry of an MCP settings file: its name, then its command and arguments.
pub type McpEntry = (String, Vec<String>);

/// How an MCP settings file lists its servers: each entry a name with a `command` and `args`.
/// The edge reads and parses the file ([`McpServers::syntax`], [`McpServers::skim`]); the host
/// says which entries of the document are enabled servers.
pub trait McpServers: Sync + std::fmt::Debug {
    /// The file's syntax.
    fn syntax(&self) -> Syntax {
        Syntax::Jsonc
    }

    /// For a JSON file too large to build whole, what to keep of it; a file that does not have
    /// that shape is then read whole. `None`: read whole.
    fn skim(&self) -> Option<JsonSkim> {
        None
    }

    /// Each enabled server entry of the parsed document, for a host working in `cwd` inside the
    /// project `root`.
    fn servers(&self, doc: &serde_json::Value, cwd: &Path, root: &Path) -> Vec<McpEntry>;
}

/// JSON (comments allowed), the servers under this root key; an entry with `"disabled": true`
/// or `"enabled": false` is off.
#[derive(Debug)]
pub struct JsonServers(pub &'static str);

impl McpServers for JsonServers {
    fn servers(&self, doc: &serde_json::Value, _cwd: &Path, _root: &Path) -> Vec<McpEntry> {
        json_servers(doc.get(self.0))
    }
}

/// The enabled entries of a JSON object of servers (`mcpServers`): nothing when it is not an
/// object.
pub fn json_servers(servers: Option<&serde_json::Value>) -> Vec<McpEntry> {
    use serde_json::Value;
    let Some(servers) = servers.and_then(Value::as_object) else {
        return Vec::new();
    };
    servers
        .iter()
        .filter(|(_, entry)| {
            entry.get("disabled").and_then(Value::as_bool) != Some(true)
                && entry.get("enabled").and_then(Value::as_bool) != Some(false)
        })
        .map(|(name, entry)| (name.clone(), command_line(entry)))
        .collect()
}

/// A server entry's `command` and then its `args` (what is not a string is left out).
pub fn command_line(entry: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    let mut command: Vec<String> = entry
        .get("command")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .into_iter()
        .collect();
    if let Some(args) = entry.get("args").and_then(Value::as_array) {
        command.extend(args.iter().filter_map(|a| a.as_str().map(str::to_owned)));
    }
    command
}

/// The host's plugin (or extension) folder as `plugin build` writes it: manifest, hooks file,
/// agents, and the native binary at `bin/sophia-hook` (`.exe` for Windows).
#[derive(Debug)]
pub struct PluginLayout {
    /// Where the plugin folder lives and what lists it.
    pub home: &'static dyn PluginHome,
    /// The manifest, relative to the plugin folder (`.claude-plugin/plugin.json`).
    pub manifest: &'static str,
    /// The manifest's `hooks` value, where the host reads the hooks file from the manifest (a
    /// manifest path replaces the default file); `None` where the host loads its default file by
    /// itself (Claude Code refuses a manifest that names it: "Duplicate hooks file detected").
    pub manifest_hooks: Option<&'static str>,
    /// The hooks file, relative to the plugin folder, in the layout of the host's settings
    /// (`settings.layout`), with its events, matchers and timeouts.
    pub hooks: &'static str,
    /// The handler form in that file (Claude Code: a shell line, where it substitutes the plugin
    /// root; its settings use the exec form).
    pub handler: &'static dyn HandlerForm,
    /// How a hook command line names the plugin's folder.
    pub root: PluginRoot,
    /// The folder of the plugin's agent definitions (in the host's `agents` format), relative to
    /// the plugin folder; `None` when the host reads no plugin agents.
    pub agents: Option<&'static str>,
    /// Where the host records that our plugin is installed and enabled: `install` then does not
    /// register the hook in the settings too, and `doctor` reports a double registration.
    pub enabled: &'static dyn PluginEnablement,
    /// The host's own command that removes our plugin (named by `install` and `doctor`).
    pub remove: &'static str,
    /// Where the host records the folder it loads our plugin from, and its own commands that add
    /// the plugin from a folder (`plugin install` runs them; `doctor` and `status` check the
    /// folder the records name).
    pub source: &'static dyn PluginSource,
}

/// Where a host records the folder it loads our plugin from, as its own install commands leave
/// it (observed, `tests/e2e/run plugin`), and those commands. The edge reads the files
/// ([`Self::files`]) and lists the folder ([`Self::listed`]) the host names; the host reads the
/// record in what was read ([`Self::locate`]) and says which commands add the plugin
/// ([`Self::install`]).
pub trait PluginSource: Sync + std::fmt::Debug {
    /// The files to read, in order, for the plugin named `name` (the marketplace's name too).
    fn files(&self, name: &str) -> Vec<RecordFile>;

    /// A folder of the host's whose entries are read as well (Codex's plugin cache, one folder
    /// per installed version); `None` when nothing is listed.
    fn listed(&self, _name: &str) -> Option<RecordFile> {
        None
    }

    /// Where the host loads the plugin `name` (id `id`) from, given what was read of each file
    /// (in the order of [`Self::files`]) and the names in the listed folder (sorted).
    fn locate(&self, name: &str, id: &str, read: &[Read], listed: &[String]) -> Located;

    /// The host's own commands that make it load the plugin from `folder` (the folder the user
    /// adds: the marketplace, or the extension itself), given what it loads now; an empty list
    /// when it loads it from there already. `Err`: what the host records is not ours to replace
    /// (a marketplace added from elsewhere than a folder), said in a sentence.
    fn install(
        &self,
        name: &str,
        id: &str,
        folder: &str,
        now: &PluginNow,
    ) -> Result<Vec<HostCommand>, String>;
}

/// Where a host loads our plugin from, by its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The folder the host loads the plugin from; `Err` when the records name none: why, in a
    /// sentence that follows "the plugin is enabled, but".
    pub folder: Result<FolderAt, String>,
    /// Whether the host reads that folder in place (nothing copied): moving or deleting the
    /// folder the user added disables the hook.
    pub in_place: bool,
    /// What the user added the plugin from, as recorded; `None` when the host kept no record.
    pub source: Option<AddedFrom>,
    /// The records keep the plugin, turned off by the user (`plugin install` never turns it on).
    pub disabled: bool,
}

/// A folder the host loads the plugin from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FolderAt {
    /// An absolute path the host recorded (a marketplace folder, read in place), with the
    /// plugin's folder below it (`/`-separated, empty for itself).
    Recorded(PathBuf, String),
    /// A folder of the host's own (its copy).
    Own(RecordFile),
}

/// What the user added the plugin (or its marketplace) from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddedFrom {
    /// A folder on this machine.
    Folder(PathBuf),
    /// Anything else (a repository, a URL), as the record gives it.
    Other(String),
}

/// What a host loads of our plugin now, for [`PluginSource::install`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginNow {
    /// What its records say.
    pub located: Located,
    /// Whether it records the plugin as enabled.
    pub enabled: bool,
    /// Whether the folder it loads holds this build's files, byte for byte.
    pub current: bool,
}

impl PluginNow {
    /// The folder the records say the plugin (or its marketplace) was added from.
    pub fn added_from(&self) -> Option<&AddedFrom> {
        self.located.source.as_ref()
    }
}

/// One command of a host's own CLI: the program (looked up on PATH), its arguments, extra
/// environment. Never run through a shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostCommand {
    pub program: &'static str,
    pub args: Vec<String>,
    pub env: &'static [(&'static str, &'static str)],
}

impl HostCommand {
    pub fn new(program: &'static str, args: &[&str]) -> HostCommand {
        HostCommand {
            program,
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: &[],
        }
    }
}

/// A local marketplace recorded as `"extraKnownMarketplaces": {"<name>": {"source": {"source":
/// "directory", "path": "<folder>"}}}` in a settings file (Claude Code's, which Copilot CLI
/// writes into its own settings too), or in a file of known marketplaces keyed by name: the
/// host reads the plugin in place from `<folder>/<plugin>` (nothing copied). `marketplace add`
/// then `install` add it.
#[derive(Debug)]
pub struct DirectoryMarketplace {
    /// The host's command (`claude`).
    pub cli: &'static str,
    /// The settings file.
    pub settings: UserPath,
    /// A file of known marketplaces by name (`{"<name>": {"source": {…}}}`), read when the
    /// settings record none.
    pub known: Option<UserPath>,
    /// A file of installed plugins by id (`{"plugins": {"<id>": [{"installPath"}]}}`): where a
    /// plugin of a marketplace that is not a folder is loaded from.
    pub installed: Option<UserPath>,
    /// The plugin's folder inside the marketplace (`plugins/claude`).
    pub plugin: &'static str,
    /// Whether `marketplace add` of another folder under the same name points the marketplace
    /// there (Claude Code 2.1.332); else it refuses until `marketplace remove` (Copilot CLI
    /// 1.0.102, which keeps the plugin enabled across the removal).
    pub add_repoints: bool,
}

impl DirectoryMarketplace {
    fn file_list(&self) -> Vec<UserPath> {
        std::iter::once(self.settings)
            .chain(self.known)
            .chain(self.installed)
            .collect()
    }
}

/// The `source` object of marketplace `name` in a settings document or a known-marketplaces one.
fn marketplace_source<'a>(
    settings: Option<&'a serde_json::Value>,
    known: Option<&'a serde_json::Value>,
    name: &str,
) -> Option<&'a serde_json::Value> {
    settings
        .and_then(|d| d.get("extraKnownMarketplaces")?.get(name)?.get("source"))
        .or_else(|| known.and_then(|d| d.get(name)?.get("source")))
}

/// What a recorded source object names: a folder (`{"source": "directory", "path"}`), or
/// anything else as its JSON text.
fn added_from(source: &serde_json::Value) -> AddedFrom {
    match (
        source.get("source").and_then(serde_json::Value::as_str),
        source.get("path").and_then(serde_json::Value::as_str),
    ) {
        (Some("directory"), Some(path)) => AddedFrom::Folder(PathBuf::from(path)),
        _ => AddedFrom::Other(source.to_string()),
    }
}

impl PluginSource for DirectoryMarketplace {
    fn files(&self, _name: &str) -> Vec<RecordFile> {
        self.file_list()
            .into_iter()
            .map(|p| RecordFile::at(PluginPlace::User(p), Syntax::Json))
            .collect()
    }

    fn locate(&self, name: &str, id: &str, read: &[Read], _listed: &[String]) -> Located {
        let doc = |path: Option<UserPath>| {
            let at = self.file_list().iter().position(|p| Some(*p) == path)?;
            read.get(at)?.doc()
        };
        let disabled = doc(Some(self.settings))
            .and_then(|d| d.get("enabledPlugins")?.get(id)?.as_bool())
            == Some(false);
        let Some(source) = marketplace_source(doc(Some(self.settings)), doc(self.known), name)
        else {
            return Located {
                folder: Err(format!(
                    "no marketplace named {name} is recorded, so the host finds no plugin to load"
                )),
                in_place: false,
                source: None,
                disabled,
            };
        };
        match added_from(source) {
            AddedFrom::Folder(path) => Located {
                folder: Ok(FolderAt::Recorded(path.clone(), self.plugin.to_owned())),
                in_place: true,
                source: Some(AddedFrom::Folder(path)),
                disabled,
            },
            other => Located {
                folder: doc(self.installed)
                    .and_then(|d| d.get("plugins")?.get(id)?.get(0)?.get("installPath")?.as_str())
                    .map(|path| FolderAt::Recorded(PathBuf::from(path), String::new()))
                    .ok_or_else(|| {
                        format!(
                            "its marketplace {name} is not a folder on this machine and no install path is recorded"
                        )
                    }),
                in_place: false,
                source: Some(other),
                disabled,
            },
        }
    }

    fn install(
        &self,
        name: &str,
        id: &str,
        folder: &str,
        now: &PluginNow,
    ) -> Result<Vec<HostCommand>, String> {
        let target = Path::new(folder);
        let mut out = Vec::new();
        match now.added_from() {
            Some(AddedFrom::Other(source)) => {
                return Err(format!(
                    "the marketplace {name} is recorded from {source}, not from a folder: remove it first (`{} plugin marketplace remove {name}`)",
                    self.cli
                ));
            }
            Some(AddedFrom::Folder(path)) if path == target => {
                if now.enabled {
                    return Ok(out);
                }
            }
            Some(AddedFrom::Folder(_)) if !self.add_repoints => {
                out.push(HostCommand::new(
                    self.cli,
                    &["plugin", "marketplace", "remove", name],
                ));
                out.push(HostCommand::new(
                    self.cli,
                    &["plugin", "marketplace", "add", folder],
                ));
            }
            _ => out.push(HostCommand::new(
                self.cli,
                &["plugin", "marketplace", "add", folder],
            )),
        }
        out.push(HostCommand::new(self.cli, &["plugin", "install", id]));
        Ok(out)
    }
}

/// Where a host records our plugin (`sophia-hook@sophia-hook`, `crate::plugin::NAME`) as
/// installed and enabled, as the host's own install command leaves it (observed,
/// `tests/e2e/run plugin`). The edge reads the files the host names ([`Self::files`]) and the
/// host reads the record in what was read ([`Self::enabled`]).
pub trait PluginEnablement: Sync + std::fmt::Debug {
    /// The files to read, in order, for the plugin named `name`.
    fn files(&self, name: &str) -> Vec<RecordFile>;

    /// Which of the files (its index in [`Self::files`]) shows the plugin `name` (id `id`,
    /// `<name>@<marketplace>`) installed and enabled, given what was read of each, in the same
    /// order; `None` when none does.
    fn enabled(&self, name: &str, id: &str, read: &[Read]) -> Option<usize>;
}

/// A file the edge reads for a host's plugin record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordFile {
    pub place: PluginPlace,
    /// A path below `place` (`sophia-hook/gemini-extension.json` in an extensions folder), `/`
    /// separated; empty for the place itself.
    pub below: String,
    /// How the file is parsed; `None` when only whether it can be read counts.
    pub syntax: Option<Syntax>,
}

impl RecordFile {
    /// The file at `place` itself, parsed as `syntax`.
    pub fn at(place: PluginPlace, syntax: Syntax) -> RecordFile {
        RecordFile {
            place,
            below: String::new(),
            syntax: Some(syntax),
        }
    }
}

/// What the edge read of one [`RecordFile`].
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    /// Missing, unreachable (no home) or unreadable.
    Missing,
    /// Read: the parsed document, `None` when it does not parse (or is not parsed).
    Present(Option<serde_json::Value>),
}

impl Read {
    /// The parsed document, when there is one.
    pub fn doc(&self) -> Option<&serde_json::Value> {
        match self {
            Read::Present(doc) => doc.as_ref(),
            Read::Missing => None,
        }
    }
}

/// `"enabledPlugins": {"sophia-hook@sophia-hook": true}` in one of these JSON settings files
/// (Claude Code's own, which Copilot CLI's install command writes into its settings too); the
/// first that says so is the record.
#[derive(Debug)]
pub struct EnabledPlugins(pub &'static [PluginPlace]);

impl PluginEnablement for EnabledPlugins {
    fn files(&self, _name: &str) -> Vec<RecordFile> {
        self.0
            .iter()
            .map(|place| RecordFile::at(*place, Syntax::Json))
            .collect()
    }

    fn enabled(&self, _name: &str, id: &str, read: &[Read]) -> Option<usize> {
        read.iter().position(|r| {
            r.doc()
                .and_then(|doc| doc.get("enabledPlugins")?.get(id)?.as_bool())
                .unwrap_or(false)
        })
    }
}

/// A settings file of the user's, or of the project (relative to its root).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginPlace {
    User(UserPath),
    Project(&'static str),
}

/// What every manifest and marketplace file says of the plugin (`crate::plugin`'s constants).
#[derive(Debug, Clone, Copy)]
pub struct PluginAbout {
    /// The plugin's name, and the marketplace's.
    pub name: &'static str,
    pub version: &'static str,
    pub description: &'static str,
    /// The manifests' author and the marketplaces' owner.
    pub author: &'static str,
}

/// Where a host's plugin folder goes under `plugin build --out`, what lists it, and how it is
/// installed.
pub trait PluginHome: Sync + std::fmt::Debug {
    /// The plugin folder, relative to `--out` (`/`-separated), given the one marketplace folder
    /// every marketplace host installs (`marketplace`).
    fn dir(&self, marketplace: &str) -> String;

    /// The folder the user adds to the host (its install commands take it), relative to
    /// `--out`: the marketplace, or the plugin folder itself where nothing lists it.
    fn added(&self, marketplace: &str) -> String {
        self.dir(marketplace)
    }

    /// The marketplace file that lists the plugin folder, relative to `--out`, and its document;
    /// `None` for a folder that nothing lists.
    fn listing(
        &self,
        marketplace: &str,
        about: &PluginAbout,
    ) -> Option<(String, serde_json::Value)>;

    /// What `plugin build` tells the user to do with a folder of its own, given the folder as
    /// shown and the host's name; `None` for a plugin of the marketplace, which the advice for
    /// the whole marketplace covers.
    fn install_own(&self, dir: &str, host: &str) -> Option<String>;
}

/// A plugin folder inside the one marketplace folder that every such host installs
/// (`marketplace/`), listed by the host's own marketplace file there.
#[derive(Debug)]
pub struct Marketplace {
    /// The plugin folder, relative to the marketplace folder (`plugins/claude`).
    pub plugin: &'static str,
    /// The host's marketplace file, relative to the marketplace folder.
    pub listing: &'static str,
    /// The format of that file.
    pub format: &'static dyn ListingFormat,
}

impl PluginHome for Marketplace {
    fn dir(&self, marketplace: &str) -> String {
        format!("{marketplace}/{}", self.plugin)
    }

    fn added(&self, marketplace: &str) -> String {
        marketplace.to_owned()
    }

    fn listing(
        &self,
        marketplace: &str,
        about: &PluginAbout,
    ) -> Option<(String, serde_json::Value)> {
        let path = format!("./{}", self.plugin);
        Some((
            format!("{marketplace}/{}", self.listing),
            self.format.document(&path, about),
        ))
    }

    fn install_own(&self, _dir: &str, _host: &str) -> Option<String> {
        None
    }
}

/// How a host's marketplace file lists the one plugin folder.
pub trait ListingFormat: Sync + std::fmt::Debug {
    /// The marketplace file naming the plugin folder `path` (`./plugins/<host>`, relative to the
    /// marketplace folder).
    fn document(&self, path: &str, about: &PluginAbout) -> serde_json::Value;
}

/// `"source": "./plugins/<host>"`, with `owner` at the root (Claude Code's format, which Copilot
/// CLI reads too).
#[derive(Debug)]
pub struct RelativePath;

impl ListingFormat for RelativePath {
    fn document(&self, path: &str, about: &PluginAbout) -> serde_json::Value {
        serde_json::json!({
            "name": about.name,
            "owner": {"name": about.author},
            "description": about.description,
            "plugins": [{
                "name": about.name,
                "source": path,
                "description": about.description,
                "version": about.version,
            }],
        })
    }
}

/// The plugin root in a hook command line: the text before `bin`, and the separator, for each
/// shell the host runs. The host substitutes it or sets it in the hook's environment.
#[derive(Debug, Clone, Copy)]
pub struct PluginRoot {
    /// POSIX shell: `${CLAUDE_PLUGIN_ROOT}`, inside double quotes.
    pub posix: &'static str,
    pub posix_sep: &'static str,
    /// PowerShell (`commandWindows`, `powershell`, Gemini CLI's `command` on Windows), inside
    /// double quotes: `$env:PLUGIN_ROOT`.
    pub powershell: &'static str,
    pub powershell_sep: &'static str,
}

/// Signs that a host is installed on this machine (`install` with no `--host`): any of its
/// executables on PATH, or its own folder under the user's home.
#[derive(Debug, Clone, Copy)]
pub struct Detect {
    /// The command names the host is started by (`codex`).
    pub executables: &'static [&'static str],
    /// The folder the host creates on first start (`~/.codex`, or `$CODEX_HOME`).
    pub folder: UserPath,
}

#[derive(Debug)]
pub struct Experimental {
    pub doctor: &'static str,
    pub doctor_fix: &'static str,
}

/// Event names and firing rules.
#[derive(Debug)]
pub struct Events {
    /// The host's name for its session-start event.
    pub session: &'static str,
    /// The host's name for its once-per-prompt event (`BeforeAgent` on Gemini CLI).
    pub prompt: &'static str,
    /// The events sophia-hook registers, in order.
    pub registered: &'static [Event],
    /// Whether the host sends `PostToolUse` for `ExitPlanMode` (and the hook answers it).
    pub post_tool_use: bool,
    /// Whether the prompt event fires per model call rather than once per user turn, so the
    /// hook injects at most once per turn.
    pub prompt_per_model_call: bool,
    /// Whether the session context goes with the first prompt instead of SessionStart.
    pub session_context_on_prompt: bool,
    /// Whether a SessionStart with `source=resume` replays a history that already holds the
    /// bootstrap (so the hook does not add it again).
    pub resume_replays_history: bool,
}

/// How the payload is read.
#[derive(Debug)]
pub struct PayloadRules {
    /// The user's own text in a prompt as the host delivered it.
    pub user_text: fn(&str) -> &str,
    /// A payload as the host sends it (for `doctor`'s live run): event, wire name, cwd, and a
    /// fresh id unique to this run.
    pub sample: fn(Event, &str, &str, &str) -> serde_json::Value,
}

/// The output contract.
#[derive(Debug)]
pub struct Output {
    /// The object the context is printed in.
    pub shape: &'static dyn output::OutputFormat,
    /// Whether a no-op must still print `{}` (the host reads stderr or fails on an empty stdout).
    pub needs_json_noop: bool,
    /// The cap on injected context, in UTF-16 code units: what the JavaScript hosts count
    /// (`String.length`; Claude Code cuts hook context at 10,000 of them), and never fewer than
    /// the characters a host in Rust or Python counts, so one unit serves every host (an
    /// emoji-heavy file counted in characters passed our cap and was cut by the host: issue 48).
    pub context_cap_units: usize,
}

/// A host's own home folder: an environment variable, else a folder under the user's home.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostHome {
    /// `CODEX_HOME`.
    pub var: &'static str,
    /// `.codex` (under `~`).
    pub default: &'static str,
}

/// The hosts' home variables that are set (non-empty), by variable name.
pub type HostHomes = BTreeMap<&'static str, PathBuf>;

/// A path under the user's home, or under the host's own home folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserPath {
    /// `~/<path>`.
    Home(&'static str),
    /// `$<var>/<path>`, default `~/<default>/<path>`.
    HostHome(HostHome, &'static str),
}

/// What a host does when sophia-hook is registered at both the project and the user scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BothScopes {
    /// Only one of them reaches the model: nothing doubles.
    OneRuns,
    /// Both run: every block arrives twice.
    BothRun,
    /// Both run unless the two entries are the same command, which the host runs once (Claude
    /// Code: a project entry naming the bare `sophia-hook` and a user entry naming this machine's
    /// path are two commands).
    BothRunUnlessSameCommand,
}

impl BothScopes {
    /// Whether our hooks run twice, given each scope's command lines (`command` and `args` of
    /// each handler).
    pub fn doubled(self, project: &[String], user: &[String]) -> bool {
        match self {
            BothScopes::OneRuns => false,
            BothScopes::BothRun => true,
            BothScopes::BothRunUnlessSameCommand => {
                let (mut a, mut b) = (project.to_vec(), user.to_vec());
                a.sort();
                b.sort();
                a != b
            }
        }
    }
}

/// Where the hooks are registered and in which format.
#[derive(Debug)]
pub struct SettingsFile {
    /// Relative to the project root.
    pub project: &'static str,
    pub user: UserPath,
    /// Where the document keeps its hooks and how ours sit among the user's.
    pub layout: &'static dyn Layout,
    /// The keys of a handler and how it names the program.
    pub handler: &'static dyn HandlerForm,
    /// Timeout unit: milliseconds when true, seconds when false.
    pub timeout_ms: bool,
    /// How the host matches a SessionStart group: what we write, and what `doctor` reports.
    pub session_matcher: &'static dyn SessionMatcher,
    /// Whether a file sophia-hook creates gets our `description` at its root.
    pub description_on_create: bool,
    /// Root keys the host accepts, when any other makes it reject the file.
    pub allowed_root_keys: Option<&'static [&'static str]>,
    /// Whether each handler carries a `name` and `description` (Gemini CLI shows them).
    pub named_handlers: bool,
    /// Whether a Windows build also writes `commandWindows` (PowerShell).
    pub command_windows: bool,
    /// Whether the host runs `command` itself through PowerShell on Windows (so a Windows build
    /// writes the PowerShell line there, not the POSIX one).
    pub command_is_powershell_on_windows: bool,
    /// What the host does with our hooks at both scopes (so `install` warns and `doctor` fails
    /// when ours would run twice).
    pub both_scopes: BothScopes,
    /// Whether the host reads `//` and `/* */` comments in its settings file (JSONC), so that
    /// `install` and `uninstall` edit such a file keeping every comment instead of refusing it.
    pub comments: bool,
    /// The project's other files the host reads hooks from (relative to the root), beside
    /// `project` and, for a hook file of our own, the other files of its folder: what trusting
    /// the folder also lets run (`doctor`'s and `install`'s trust advice lists their hooks).
    pub other_hook_files: &'static [&'static str],
}

#[derive(Debug)]
pub struct Tui {
    pub name: &'static str,
    /// What a leading `!` does there (for the model's bootstrap).
    pub bang: &'static str,
    /// The same for the user (`install`, `doctor`).
    pub bang_for_user: &'static str,
    /// Where `!quick` works as typed.
    pub plain: &'static str,
    /// Whether a leading space gets `!quick` through to the hook.
    pub space_escapes: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentsMd {
    /// The host reads `AGENTS.md` itself.
    Always,
    /// Only when the project has no file of this name (the host's own document).
    UnlessOwnDoc(&'static str),
    Never,
}

/// The skill folders the host lists, project and user.
#[derive(Debug)]
pub struct Skills {
    /// Folders relative to a project directory, and whether they nest (`a/b/SKILL.md`).
    pub project: &'static [(&'static str, bool)],
    /// Whether the project folders are looked up from the cwd up to the project root (else in
    /// the cwd only).
    pub walk_to_root: bool,
    pub user: &'static [(UserPath, bool)],
}

/// The host's runtime agent definitions.
#[derive(Debug)]
pub struct AgentRuntime {
    /// The project's agents folder.
    pub project_dir: &'static str,
    pub user_dir: UserPath,
    /// How a definition file ends (`.toml`, `.md`).
    pub ext: &'static str,
    /// How a definition file is written.
    pub format: &'static dyn agent_file::DefinitionFormat,
    /// The host's rule for an agent name, with its message.
    pub check_name: fn(&str) -> Result<(), &'static str>,
    /// How the host records the user's acknowledgement of a project agent, for a host that
    /// registers one only once acknowledged; `None`: every project agent counts.
    pub project_ack: Option<&'static dyn ProjectAck>,
}

/// A host that registers a project agent only once the user acknowledged that very file: the
/// edge reads the record ([`ProjectAck::record`]) and each definition file, the host says whether
/// the record acknowledges the file's content.
pub trait ProjectAck: Sync + std::fmt::Debug {
    /// The user's file that records the acknowledgements.
    fn record(&self) -> UserFile;

    /// Whether `record` (parsed) acknowledges agent `id` of the project at `root` with this
    /// `content` of its definition file; `sha256` is the crate's one digest.
    fn acknowledges(
        &self,
        record: &serde_json::Value,
        root: &Path,
        id: &str,
        content: &[u8],
        sha256: fn(&[u8]) -> String,
    ) -> bool;
}

/// The host's tool names for a generated agent.
#[derive(Debug)]
pub struct AgentTools {
    /// An abstract tool name (`read`, `edit`…) to the host's tools.
    pub map: fn(&str) -> &'static [&'static str],
    /// What a read-only role gets, whatever the source lists.
    pub read_only: &'static [&'static str],
    /// `tools: "A, B"` (a comma-separated string) rather than a YAML list.
    pub as_string: bool,
}

/// How the hint tells the main agent to delegate.
#[derive(Debug)]
pub struct Delegation {
    /// The call for a role installed as a spawnable type, given the role id.
    pub configured: fn(&str) -> String,
    /// The built-in delegation when no definition exists, given the role id, whether it is
    /// read-only and its routing role; the sentence goes on "… briefs the child as …".
    pub fallback: fn(&str, bool, &str) -> String,
}

impl UserPath {
    /// The path for this user, given the host home variables that are set. `None` when the
    /// home is needed and unknown.
    pub fn resolve(self, home: Option<&Path>, homes: &HostHomes) -> Option<PathBuf> {
        match self {
            UserPath::Home(p) => home.map(|h| h.join(p)),
            UserPath::HostHome(host_home, p) => match homes.get(host_home.var) {
                Some(dir) => Some(dir.join(p)),
                None => home.map(|h| h.join(host_home.default).join(p)),
            },
        }
    }
}

impl Host {
    pub const ALL: [Host; 5] = [
        Host::Codex,
        Host::Claude,
        Host::Gemini,
        Host::Antigravity,
        Host::Copilot,
    ];

    /// The host assumed when none is given (the first one supported).
    pub const DEFAULT: Host = Host::Codex;

    /// The registry: each host's contract.
    pub fn spec(self) -> &'static HostSpec {
        match self {
            Host::Codex => &codex::SPEC,
            Host::Claude => &claude::SPEC,
            Host::Gemini => &gemini::SPEC,
            Host::Antigravity => &antigravity::SPEC,
            Host::Copilot => &copilot::SPEC,
        }
    }

    pub fn as_str(self) -> &'static str {
        self.spec().id
    }

    /// The host's name in messages.
    pub fn display(self) -> &'static str {
        self.spec().display
    }

    /// The host home variables to read from the environment.
    pub fn home_vars() -> Vec<&'static str> {
        let mut vars: Vec<&'static str> = Host::ALL
            .into_iter()
            .filter_map(|h| h.spec().home.map(|home| home.var))
            .collect();
        vars.dedup();
        vars
    }

    /// The hosts with runtime agent definitions, in the order sync handles them.
    pub fn with_agents() -> Vec<Host> {
        Host::ALL
            .into_iter()
            .filter(|h| h.spec().agents.is_some())
            .collect()
    }

    /// Whether the host reads the project's `AGENTS.md` by itself, given whether the project has
    /// the host's own document ([`Host::own_doc`]).
    pub fn loads_agents_md(self, has_own_doc: bool) -> bool {
        match self.spec().agents_md {
            AgentsMd::Always => true,
            AgentsMd::UnlessOwnDoc(_) => !has_own_doc,
            AgentsMd::Never => false,
        }
    }

    /// The host's own project document (`CLAUDE.md`), whose presence makes it skip `AGENTS.md`.
    pub fn own_doc(self) -> Option<&'static str> {
        match self.spec().agents_md {
            AgentsMd::UnlessOwnDoc(name) => Some(name),
            AgentsMd::Always | AgentsMd::Never => None,
        }
    }

    /// Whether the session context (the bootstrap and, where the host does not load it,
    /// `AGENTS.md`) goes with a prompt instead of SessionStart.
    pub fn session_context_on_prompt(self) -> bool {
        self.spec().events.session_context_on_prompt
    }

    /// The user's own text in a prompt as the host delivered it.
    pub fn user_text(self, prompt: &str) -> &str {
        (self.spec().payload.user_text)(prompt)
    }

    /// The host's cap on injected context, in UTF-16 code units ([`Output::context_cap_units`]).
    pub fn context_cap_units(self) -> usize {
        self.spec().output.context_cap_units
    }

    /// The host's name for an event, as its configuration and output use it.
    pub fn event_name(self, event: Event) -> &'static str {
        match event {
            Event::SessionStart => self.spec().events.session,
            Event::UserPromptSubmit => self.spec().events.prompt,
            Event::PostToolUse => event.as_str(),
        }
    }

    /// Maps a host event name to the event it means and the name to echo back. Each host's own
    /// session and prompt events are accepted, and `SessionStart` and `UserPromptSubmit`
    /// everywhere (echoed as given).
    pub fn parse_event(self, name: &str) -> Option<(Event, &'static str)> {
        let events = &self.spec().events;
        let event = match name {
            "SessionStart" => return Some((Event::SessionStart, "SessionStart")),
            "UserPromptSubmit" => return Some((Event::UserPromptSubmit, "UserPromptSubmit")),
            "PostToolUse" if events.post_tool_use => Event::PostToolUse,
            n if n == events.prompt => Event::UserPromptSubmit,
            n if n == events.session => Event::SessionStart,
            _ => return None,
        };
        Some((event, self.event_name(event)))
    }

    /// Whether the host reads stderr or fails on an empty stdout, so a no-op must print `{}`.
    pub fn needs_json_noop(self) -> bool {
        self.spec().output.needs_json_noop
    }

    /// Whether the prompt event fires per model call rather than once per user turn, so the
    /// hook injects at most once per turn.
    pub fn prompt_event_per_model_call(self, wire_event: &str) -> bool {
        let events = &self.spec().events;
        events.prompt_per_model_call && wire_event == events.prompt
    }
}

/// The payload Codex, Claude Code and Gemini CLI send (snake_case fields).
pub fn snake_case_sample(event: Event, wire: &str, cwd: &str, _run: &str) -> serde_json::Value {
    let mut p = serde_json::json!({"session_id": "sophia-doctor", "cwd": cwd, "hook_event_name": wire, "transcript_path": null});
    match event {
        Event::SessionStart => p["source"] = "startup".into(),
        Event::UserPromptSubmit => p["prompt"] = SAMPLE_PROMPT.into(),
        Event::PostToolUse => p["tool_name"] = EXIT_PLAN_MODE_TOOL.into(),
    }
    p
}

/// The prompt `doctor` sends: it must get context on every host.
pub const SAMPLE_PROMPT: &str = "!quick spiegami questa SQL";

/// Claude Code's plan-approval tool (`PostToolUse` matcher).
pub const EXIT_PLAN_MODE_TOOL: &str = "ExitPlanMode";

/// The prompt as the host delivered it.
pub fn verbatim(prompt: &str) -> &str {
    prompt
}

/// Host agent names that only need to be non-empty.
pub fn non_empty_name(name: &str) -> Result<(), &'static str> {
    if name.trim().is_empty() {
        Err("agent names must not be empty")
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each host's rule for two registrations, over the command lists a project and a user
    /// entry can have: the same commands (in any order), different ones, one scope empty.
    #[test]
    fn both_scopes_double_as_each_rule_says() {
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<String>>();
        let same = (
            s(&["sophia-hook a", "sophia-hook b"]),
            s(&["sophia-hook b", "sophia-hook a"]),
        );
        let differ = (s(&["sophia-hook a"]), s(&["/usr/bin/sophia-hook a"]));
        let one_empty = (s(&["sophia-hook a"]), s(&[]));
        for (rule, want_same, want_differ, want_empty) in [
            (BothScopes::OneRuns, false, false, false),
            (BothScopes::BothRun, true, true, true),
            (BothScopes::BothRunUnlessSameCommand, false, true, true),
        ] {
            assert_eq!(rule.doubled(&same.0, &same.1), want_same, "{rule:?} same");
            assert_eq!(
                rule.doubled(&differ.0, &differ.1),
                want_differ,
                "{rule:?} differ"
            );
            assert_eq!(
                rule.doubled(&one_empty.0, &one_empty.1),
                want_empty,
                "{rule:?} empty"
            );
        }
    }
}

/// How a host records what its model did, in its own transcript (issue 46: did the model follow
/// the hint?): where the file is, how it grows, and how to read a skill load and a subagent spawn
/// out of its structure (never out of text: a user message or a file's content that quotes a tool
/// call is not one). `docs/host-protocols.md` says what was observed of each host.
#[derive(Debug, Clone, Copy)]
pub struct Transcript {
    pub file: TranscriptFile,
    pub layout: TranscriptLayout,
    pub grammar: &'static dyn TranscriptGrammar,
    /// The subagent types the host ships, named as they are in the analytics (any other type a
    /// model spawns is hashed there, like a project's own name).
    pub builtin_agents: &'static [&'static str],
    /// Whether the grammar knows how the host records a spawn: when not, a delegation asked is
    /// never judged `not-spawned` (`unknown`, `host-no-spawn-record`).
    pub sees_spawns: bool,
}

/// Where a host's transcript is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranscriptFile {
    /// The payload's `transcript_path` (`transcriptPath`).
    Payload,
    /// A file under the host's home named by the payload's session id (Copilot CLI, whose
    /// payload names no transcript): `<home>/<before><session id><after>`. The id must be one
    /// plain file name ([`session_component`]).
    InHostHome {
        home: HostHome,
        before: &'static str,
        after: &'static str,
    },
    /// The host gives no transcript the hook can read: the reason, a code.
    None(&'static str),
}

/// How the transcript file grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranscriptLayout {
    /// One JSON object per line, only ever appended to: a position is a byte offset, and only
    /// the part written since is read.
    Lines,
}

/// What a transcript's grammar reports of one record: a skill loaded, a subagent spawned (names
/// as the host recorded them).
pub trait Seen {
    fn skill(&mut self, name: &str);
    fn spawned(&mut self, agent_type: &str);
    /// A JSON text inside a record (a tool call's arguments as a string), parsed within the
    /// budget every file gets; `None` when it is not JSON or over the budget.
    fn json(&self, text: &str) -> Option<serde_json::Value>;
}

/// A host's transcript grammar: which records show a skill load or a subagent spawn.
pub trait TranscriptGrammar: Sync + std::fmt::Debug {
    /// Byte strings one of which a record holds when it can show an action: a line with none is
    /// not parsed (most of a transcript is text and tool results).
    fn markers(&self) -> &'static [&'static str];
    /// Reports what the record (one line of the file, parsed) shows.
    fn record(&self, record: &serde_json::Value, seen: &mut dyn Seen);
}

/// A session id usable as one folder name: 1 to 128 ASCII letters, digits, `-`, `_` and `.`,
/// and not `.` or `..`. Anything else names no file.
pub fn session_component(id: &str) -> Option<&str> {
    let ok = !id.is_empty()
        && id.len() <= 128
        && id != "."
        && id != ".."
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    ok.then_some(id)
}

impl TranscriptFile {
    /// The transcript's path for a payload's `transcript_path` and session id, given the user's
    /// home and the hosts' home variables; `Err` with the reason when there is none.
    pub fn path(
        self,
        transcript_path: Option<&str>,
        session: Option<&str>,
        home: Option<&Path>,
        homes: &HostHomes,
    ) -> Result<PathBuf, &'static str> {
        match self {
            TranscriptFile::None(reason) => Err(reason),
            TranscriptFile::Payload => transcript_path
                .filter(|p| !p.is_empty())
                .map(PathBuf::from)
                .ok_or("transcript-not-given"),
            TranscriptFile::InHostHome {
                home: host_home,
                before,
                after,
            } => {
                let id = session
                    .and_then(session_component)
                    .ok_or("transcript-session-id")?;
                let dir = match homes.get(host_home.var) {
                    Some(dir) => dir.clone(),
                    None => home.ok_or("transcript-no-home")?.join(host_home.default),
                };
                Ok(dir.join(format!("{before}{id}{after}")))
            }
        }
    }
}

/// The string at `path` (object keys) inside `value`.
pub fn str_at<'a>(value: &'a serde_json::Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(value, |v, key| v.get(*key))
        .and_then(serde_json::Value::as_str)
}

/// A skill named by the path of a `SKILL.md` a command reads: the folder holding it, for each
/// word of `command` (split as a POSIX shell would, else on white space) that is such a path.
/// The hosts that load a skill by reading its file through their shell or file tool (Codex).
pub fn skills_read_by(command: &str, seen: &mut dyn Seen) {
    let words = shlex::split(command)
        .unwrap_or_else(|| command.split_whitespace().map(str::to_owned).collect());
    for word in words {
        if let Some(name) = skill_of_path(&word) {
            seen.skill(name);
        }
    }
}

/// The skill folder's name of a path ending in `<name>/SKILL.md` (either separator).
pub fn skill_of_path(path: &str) -> Option<&str> {
    let mut parts = path.rsplit(['/', '\\']);
    (parts.next()? == "SKILL.md")
        .then(|| parts.next())
        .flatten()
        .filter(|name| !name.is_empty() && *name != "." && *name != "..")
}
