//! The HTML of the report: one page with inline CSS and inline SVG charts, no script, no network
//! (no external font, image or style), readable without JavaScript. Built with maud's `html!`:
//! every `(expr)` splice is escaped, and every string from outside goes in as [`text`], which
//! also escapes `'`. `PreEscaped` holds only constants; an SVG element with no content is
//! [`closed`]. No markup is built with `format!` or by hand here (`tests/it/report.rs` checks
//! it). Pure.

mod markup;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use chrono::{Duration, NaiveDate};
use maud::{DOCTYPE, Markup, PreEscaped, html};

use self::markup::{closed, text};
use super::mix::{AdviceOutcomes, LATENCY_BUCKETS_US, RoutingMix, SkillHints};
use super::{AnalyticsLog, Finding, HostSetup, Level, ReportInput};

/// At most this many bars in the prompts-per-day chart; longer periods group days.
const MAX_DAY_BARS: i64 = 62;
/// Rows of the top lists.
const TOP: usize = 10;

const STYLE: &str = "
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#f6f8fa;--bar:#0969da;--ok:#1a7f37;--info:#59636e;--warn:#9a6700;--fail:#cf222e}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;color:var(--fg);background:#fff}
header{padding:20px 32px 12px;border-bottom:1px solid var(--line);background:var(--bg)}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:28px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:14px;margin:16px 0 6px}
main{padding:0 32px 32px;max-width:1200px}
.meta,.note{color:var(--muted)}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--bg);padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:6px 0 10px;width:100%}
th,td{text-align:left;vertical-align:top;padding:5px 8px;border-bottom:1px solid var(--line)}
th{background:var(--bg);font-weight:600}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
th code{white-space:nowrap}
.badge{display:inline-block;padding:0 7px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;white-space:nowrap}
.badge.ok{background:var(--ok)}.badge.info{background:var(--info)}.badge.warn{background:var(--warn)}.badge.fail{background:var(--fail)}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{flex:1 1 160px;border:1px solid var(--line);border-radius:8px;padding:10px 14px;background:#fff}
.card .v{font-size:22px;font-weight:600;white-space:nowrap}
.card .fp{font:600 16px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.card .k{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:8px 28px}
ul.problems{margin:0;padding-left:18px}
.fix{color:var(--muted)}
.empty{border:1px dashed var(--line);border-radius:8px;padding:14px;color:var(--muted);background:var(--bg)}
svg text{font:11px system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;fill:var(--fg)}
svg .axis{stroke:var(--line)}
svg .bar{fill:var(--bar)}
.seg-followed{fill:var(--ok)}.seg-other{fill:#d4a72c}.seg-ignored{fill:#afb8c1}
svg text.seg-followed-n{fill:#fff;font-weight:600}svg text.seg-other-n,svg text.seg-ignored-n{font-weight:600}
#advice th{white-space:nowrap}
svg .track{fill:var(--bg);stroke:var(--line)}
.legend{color:var(--muted);font-size:12px;margin:2px 0 4px}
.key{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 14px;vertical-align:-1px}
.key:first-child{margin-left:0}
.key.followed{background:var(--ok)}.key.other{background:#d4a72c}.key.ignored{background:#afb8c1}
footer{padding:12px 32px;color:var(--muted);border-top:1px solid var(--line);font-size:12px}
";

/// The space between the skill inventories of the hosts.
const NBSP: &str = "&nbsp;";

/// A number with a fixed count of decimals and a unit (`3.02 ms`, `20.5%`, `0.4`), spliced as text.
struct Fixed(f64, usize, &'static str);

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.*}{}", self.1, self.0, self.2)
    }
}

/// One decimal, no unit: the coordinates of the charts.
fn d1(v: f64) -> Fixed {
    Fixed(v, 1, "")
}

fn badge(level: Level) -> Markup {
    let level = text(level.as_str());
    html! { span class={ "badge " (level) } { (level) } }
}

fn ms(us: u64) -> Fixed {
    Fixed(us as f64 / 1000.0, 2, " ms")
}

fn share(n: u64, total: u64) -> Fixed {
    if total == 0 {
        Fixed(0.0, 0, "%")
    } else {
        Fixed(n as f64 * 100.0 / total as f64, 1, "%")
    }
}

/// The whole page.
pub fn page(input: &ReportInput) -> String {
    html! {
        (DOCTYPE) "\n"
        html lang="en" {
            "\n"
            head {
                "\n"
                meta charset="utf-8"; "\n"
                meta name="viewport" content="width=device-width, initial-scale=1"; "\n"
                // No network, ever: the page may load nothing but itself.
                meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"; "\n"
                title { "sophia-hook report" } "\n"
                style { (PreEscaped(STYLE)) } "\n"
            }
            "\n"
            body {
                "\n"
                (header(input))
                main {
                    "\n"
                    (glance(input))
                    (setup(input))
                    (agents(input))
                    (skills(input))
                    (quality(input))
                    (routing(input))
                    (advice(input))
                }
                "\n"
                footer {
                    "Generated by " code { "sophia-hook report" } ". A read-only view: it changes nothing. Analytics hold modes, hotwords, ids and durations only — never prompt text. Agent semantics are edited only in the canonical source " code { "docs/agents/canonical-subagents.yaml" } "."
                }
                "\n"
            }
            "\n"
        }
        "\n"
    }
    .into_string()
}

fn header(input: &ReportInput) -> Markup {
    let fmt = "%Y-%m-%d %H:%M UTC";
    html! {
        header {
            "\n"
            h1 { "sophia-hook report" } "\n"
            p class="meta" {
                "Generated " (input.generated_at.format(fmt))
                " · period " (input.since.format(fmt)) " → " (input.generated_at.format(fmt))
                " · host: " (text(input.host.as_deref().unwrap_or("all")))
                " · "
                @match &input.log {
                    AnalyticsLog::Off => "analytics off",
                    AnalyticsLog::Missing(p) | AnalyticsLog::Read(p) => {
                        "analytics " code { (text(p)) }
                    }
                }
            }
            "\n"
        }
        "\n"
    }
}

fn card(key: &str, value: Markup, note: Markup) -> Markup {
    html! {
        div class="card" {
            div class="k" { (text(key)) }
            div class="v" { (value) }
            div class="note" { (note) }
        }
        "\n"
    }
}

fn glance(input: &ReportInput) -> Markup {
    let hosts = &input.setup.hosts;
    let installed = hosts.iter().filter(|h| h.installed()).count();
    let healthy = hosts
        .iter()
        .filter(|h| h.installed() && h.level() < Level::Warn)
        .count();
    let m = &input.mix;
    let hot = |h: &str| m.hotwords.get(h).copied().unwrap_or(0);
    let l = m.latency();
    let short: String = input.agents.fingerprint.chars().take(15).collect();
    html! {
        section id="glance" class="cards" {
            "\n"
            (card(
                "hosts installed",
                html! { (installed) " / " (hosts.len()) },
                html! { (healthy) " without a problem" },
            ))
            (card("prompts", html! { (m.prompts) }, html! { (m.runs) " runs in all" }))
            (card(
                "!quick",
                html! { (share(hot("!quick"), m.prompts)) },
                html! { (hot("!quick")) " prompts" },
            ))
            (card(
                "!agents",
                html! { (share(hot("!agents"), m.prompts)) },
                html! { (hot("!agents")) " prompts" },
            ))
            (card(
                "latency p50 / p95 (ms)",
                html! { (d1(l.p50_us as f64 / 1000.0)) " / " (d1(l.p95_us as f64 / 1000.0)) },
                html! { "max " (ms(l.max_us)) },
            ))
            (card(
                "agent catalog",
                html! { span class="fp" { (text(&short)) "…" } },
                html! { (text(&input.agents.source)) },
            ))
        }
        "\n"
    }
}

fn problems(findings: &[&Finding]) -> Markup {
    html! {
        @if findings.is_empty() {
            span class="note" { "none" }
        } @else {
            ul class="problems" {
                @for f in findings {
                    li {
                        (badge(f.level)) " " (text(&f.detail))
                        @if let Some(fix) = &f.fix {
                            " " span class="fix" { "— fix: " (text(fix)) }
                        }
                    }
                }
            }
        }
    }
}

fn host_row(h: &HostSetup) -> Markup {
    let issues: Vec<&Finding> = h
        .findings
        .iter()
        .filter(|f| f.level >= Level::Warn)
        .collect();
    html! {
        tr {
            th scope="row" { (text(&h.host)) }
            td {
                @if h.installed() {
                    (badge(Level::Ok)) " " (text(&h.scopes.join(", ")))
                } @else {
                    span class="badge info" { "no" }
                }
            }
            td {
                @match &h.trust {
                    Some(t) => { (badge(t.level)) " " (text(&t.label)) },
                    None if h.installed() => span class="note" { "no trust step checked" },
                    None => span class="note" { "—" },
                }
            }
            td { (badge(h.level())) }
            td { (problems(&issues)) }
        }
        "\n"
    }
}

fn setup(input: &ReportInput) -> Markup {
    html! {
        section id="setup" {
            "\n"
            h2 { "Setup" } "\n"
            p class="note" {
                "The checks of " code { "sophia-hook doctor" } ", per host and then for every host. The page runs no command: " code { "sophia-hook doctor" } " also runs each registered command on a sample payload."
            }
            "\n"
            table {
                "\n"
                tr { th { "host" } th { "installed (scope)" } th { "trust" } th { "status" } th { "problems" } }
                "\n"
                @for h in &input.setup.hosts {
                    (host_row(h))
                }
            }
            "\n"
            @if !input.setup.general.is_empty() {
                h3 { "Every host" } "\n"
                table {
                    "\n"
                    tr { th { "check" } th { "status" } th { "detail" } }
                    "\n"
                    @for f in &input.setup.general {
                        tr {
                            th scope="row" { (text(&f.area)) }
                            td { (badge(f.level)) }
                            td {
                                (text(&f.detail))
                                @if let (Some(fix), true) = (&f.fix, f.level >= Level::Warn) {
                                    " " span class="fix" { "— fix: " (text(fix)) }
                                }
                            }
                        }
                        "\n"
                    }
                }
                "\n"
            }
        }
        "\n"
    }
}

fn availability_badge(state: &str) -> Markup {
    let level = match state {
        "configured" => "ok",
        "unavailable" => "fail",
        _ => "info",
    };
    html! { span class={ "badge " (level) } { (text(state)) } }
}

fn agents(input: &ReportInput) -> Markup {
    let a = &input.agents;
    html! {
        section id="agents" {
            "\n"
            h2 { "Agents" } "\n"
            p {
                "Catalog fingerprint " code id="fingerprint" { (text(&a.fingerprint)) }
                " · source: " strong { (text(&a.source)) }
                @if let Some(p) = &a.source_path {
                    " (" code { (text(p)) } ")"
                }
            }
            "\n"
            @if a.drift.is_empty() {
                p { "No drift from the canonical source." } "\n"
            } @else {
                p { "Drift:" } "\n"
                ul class="problems" {
                    @for d in &a.drift {
                        li { (badge(Level::Warn)) " " (text(d)) }
                    }
                }
                "\n"
            }
            table {
                "\n"
                tr {
                    th { "role" } th { "phase" } th { "writes" } th { "hook uses" } th { "found now" }
                    @for h in &a.hosts {
                        th { (text(h)) }
                    }
                }
                "\n"
                @for r in &a.roles {
                    tr {
                        th scope="row" { code { (text(&r.id)) } }
                        td { (text(&r.routing_role)) }
                        td { (text(&r.write_policy)) }
                        td { (availability_badge(&r.availability)) }
                        td { (availability_badge(&r.computed)) }
                        @for h in &a.hosts {
                            td {
                                @if let Some(s) = r.host_states.get(h) {
                                    "hook: " (availability_badge(s)) br;
                                }
                                @let mut defs = r.definitions.iter().filter(|d| d.host == *h).peekable();
                                @if defs.peek().is_none() {
                                    span class="note" { "no definition" }
                                }
                                @for (i, d) in defs.enumerate() {
                                    @if i > 0 {
                                        br;
                                    }
                                    (availability_badge(if d.enabled { "configured" } else { "unavailable" }))
                                    " " code { (text(&d.path)) }
                                }
                            }
                        }
                    }
                    "\n"
                }
            }
            "\n"
            p class="note" {
                em { "hook uses" } ": the state in the catalog the hook reads, with the availability manifest overlaid; " em { "found now" } ": computed from the runtime definitions on disk (" code { "sophia-hook availability --write" } " records it); per host: the state the hook uses on that host, and where the runtime definition lives."
            }
            "\n"
        }
        "\n"
    }
}

fn skills(input: &ReportInput) -> Markup {
    let named = &input.mix.skills;
    let hosts: Vec<&str> = input.skills.iter().map(|s| s.host.as_str()).collect();
    // Each inventory skill by its id, counted under the name the log gives it (a project
    // skill's is a hash, `analytics::skill_label`); then what the log names that no host lists.
    let mut labels: BTreeMap<&str, &str> = BTreeMap::new();
    for inv in &input.skills {
        for (id, _, label) in &inv.skills {
            labels.insert(id.as_str(), label.as_str());
        }
    }
    let known: BTreeSet<&str> = labels.values().copied().collect();
    let unknown: Vec<(&str, u64)> = RoutingMix::top(named, usize::MAX)
        .into_iter()
        .filter(|(id, _)| !known.contains(id))
        .take(TOP)
        .collect();
    let mut rows: Vec<(&str, u64)> = labels
        .iter()
        .map(|(id, label)| (*id, named.get(*label).copied().unwrap_or(0)))
        .chain(unknown.iter().copied())
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    html! {
        section id="skills" {
            "\n"
            h2 { "Skills" } "\n"
            p class="note" {
                "Each host's inventory, with the folder a skill came from, and how often the hook named it in the period."
            }
            "\n"
            @for inv in &input.skills {
                span class="badge info" { (text(&inv.host)) }
                " " (inv.skills.len()) " skills (" (text(&inv.source)) ") " (PreEscaped(NBSP)) " "
            }
            "\n"
            table {
                "\n"
                tr {
                    th { "skill" } th class="n" { "named" }
                    @for h in &hosts {
                        th { (text(h)) }
                    }
                }
                "\n"
                @for (id, n) in &rows {
                    tr {
                        th scope="row" { code { (text(id)) } }
                        td class="n" { (n) }
                        @for inv in &input.skills {
                            @match inv.skills.iter().find(|(s, _, _)| s == id) {
                                Some((_, folder, _)) => td { code { (text(folder)) } },
                                None => td { span class="note" { "—" } },
                            }
                        }
                    }
                    "\n"
                }
            }
            "\n"
            @if !unknown.is_empty() {
                p class="note" {
                    "Skills named in the period that no host lists now were renamed or removed since."
                }
                "\n"
            }
        }
        "\n"
    }
}

/// A ratio as the page shows it: a percentage with its counts, or `n/a`.
fn ratio_cell(r: &crate::eval::Ratio) -> Markup {
    html! {
        @match r.value {
            Some(v) => {
                (Fixed(v * 100.0, 1, "%")) " " span class="note" { "(" (r.hits) "/" (r.total) ")" }
            },
            None => span class="note" { "n/a" },
        }
    }
}

/// `report --eval`: named precision, recall (named) and ranking top-1 of the hook and of BM25F,
/// and the curve of named precision against recall as the threshold moves.
fn quality(input: &ReportInput) -> Markup {
    let Some(q) = &input.quality else {
        return html! {};
    };
    let row = |label: &str, m: &crate::eval::SkillMetrics| {
        html! {
            tr {
                th scope="row" { (text(label)) }
                td class="n" { (ratio_cell(&m.named_precision)) }
                td class="n" { (ratio_cell(&m.named_recall)) }
                td class="n" { (ratio_cell(&m.ranking_top1)) }
            }
            "\n"
        }
    };
    html! {
        section id="quality" {
            "\n"
            h2 { "Routing quality" } "\n"
            p class="note" {
                "The project's skills routed over the labelled prompts of " code { (text(&q.cases)) }
                " as the hook routes them. Named precision: when a skill is named, is it right. Recall (named): how often the right one is named (an abstention is a miss). Ranking top-1: the ranking's first candidate, named or not. BM25F over the same "
                code { "SKILL.md" }
                " files is the baseline; its recall at the hook's precision takes the threshold on its top score that does best on these very prompts."
            }
            "\n"
            table {
                "\n"
                tr {
                    th {}
                    th class="n" { "named precision" }
                    th class="n" { "recall (named)" }
                    th class="n" { "ranking top-1" }
                }
                "\n"
                (row("sophia-hook", &q.skills))
                @if let Some(b) = &q.bm25 {
                    (row("BM25F (names its top skill)", b))
                    @if let Some(p) = q.skills.named_precision.value {
                        tr {
                            th scope="row" { "BM25F at the hook's named precision" }
                            td class="n" {}
                            td class="n" {
                                (ratio_cell(&crate::eval::recall_at_precision(&b.curve, p, b.named_recall.total)))
                            }
                            td class="n" {}
                        }
                        "\n"
                    }
                }
            }
            "\n"
            (curve_chart(&q.skills.curve, q.bm25.as_ref().map(|b| b.curve.as_slice())))
        }
        "\n"
    }
}

/// Named precision (up) against recall (named) (across): the hook's curve as its confidence
/// threshold moves (its own threshold filled), BM25F's as the threshold on its top score moves.
fn curve_chart(
    hook: &[crate::eval::CurvePoint],
    bm25: Option<&[crate::eval::CurvePoint]>,
) -> Markup {
    let (w, h, pad) = (520.0, 300.0, 40.0);
    let x = |r: f64| pad + r * (w - 2.0 * pad);
    let y = |p: f64| h - pad - p * (h - 2.0 * pad);
    let points = |curve: &[crate::eval::CurvePoint]| -> Vec<(f64, f64, f64, bool)> {
        curve
            .iter()
            .filter_map(|c| {
                Some((
                    c.named_recall.value?,
                    c.named_precision.value?,
                    c.threshold,
                    c.hook,
                ))
            })
            .collect()
    };
    let title = "named precision against recall (named)";
    let line = |pts: &[(f64, f64, f64, bool)], id: &str, colour: &str| {
        closed(html! {
            polyline id=(id)
                points={
                    @for (i, p) in pts.iter().enumerate() {
                        @if i > 0 { " " }
                        (d1(x(p.0))) "," (d1(y(p.1)))
                    }
                }
                fill="none" stroke=(colour) stroke-width="2";
        })
    };
    let hook = points(hook);
    html! {
        svg id="quality-curve" role="img" aria-label=(title) viewBox={ "0 0 " (w) " " (h) } width="100%" style={ "max-width:" (w) "px" } {
            title { (title) }
            (closed(html! {
                rect class="axis" fill="none" x=(pad) y=(pad) width=(w - 2.0 * pad) height=(h - 2.0 * pad);
            }))
            @for v in [0.2, 0.4, 0.6, 0.8] {
                (closed(html! {
                    line class="axis" x1=(pad) x2=(d1(w - pad)) y1=(d1(y(v))) y2=(d1(y(v)));
                }))
                text x=(d1(pad - 4.0)) y=(d1(y(v) + 4.0)) text-anchor="end" { (d1(v)) }
                text x=(d1(x(v))) y=(d1(h - pad + 14.0)) text-anchor="middle" { (d1(v)) }
            }
            text x=(d1(w / 2.0)) y=(d1(h - 6.0)) text-anchor="middle" { "recall (named)" }
            text x="12" y=(d1(h / 2.0)) text-anchor="middle" transform={ "rotate(-90 12 " (d1(h / 2.0)) ")" } { "named precision" }
            @if let Some(b) = bm25 {
                (line(&points(b), "curve-bm25f", "#cf222e"))
            }
            (line(&hook, "curve-hook", "#0969da"))
            @for (r, p, t, own) in &hook {
                circle cx=(d1(x(*r))) cy=(d1(y(*p))) r=(if *own { 4.5 } else { 2.5 }) fill=(if *own { "#0969da" } else { "#fff" }) stroke="#0969da" {
                    title {
                        "threshold " (Fixed(*t, 3, "")) ": named precision " (d1(p * 100.0)) "%, recall (named) " (d1(r * 100.0)) "%"
                    }
                }
            }
            text x=(d1(x(0.04))) y=(d1(y(0.1))) fill="#0969da" { "sophia-hook (filled: its threshold)" }
            text x=(d1(x(0.04))) y=(d1(y(0.03))) fill="#cf222e" { "BM25F" }
        }
    }
}

/// A vertical bar chart, with the value over each bar and every `label_every`-th label below.
fn column_chart(id: &str, title: &str, bars: &[(String, u64)], label_every: usize) -> Markup {
    let (w, h, top, bottom, left) = (1000.0, 220.0, 18.0, 28.0, 8.0);
    let max = bars.iter().map(|b| b.1).max().unwrap_or(0).max(1) as f64;
    let slot = (w - left * 2.0) / bars.len().max(1) as f64;
    let bar_w = (slot * 0.7).max(1.0);
    let base = h - bottom;
    html! {
        svg id=(text(id)) role="img" aria-label=(text(title)) viewBox={ "0 0 " (w) " " (h) } width="100%" preserveAspectRatio="xMidYMid meet" {
            title { (text(title)) }
            (closed(html! { line class="axis" x1=(left) y1=(base) x2=(w - left) y2=(base); }))
            @for (i, (label, v)) in bars.iter().enumerate() {
                @let x = left + slot * i as f64 + (slot - bar_w) / 2.0;
                @let bh = (*v as f64 / max) * (base - top);
                @let cx = x + bar_w / 2.0;
                rect class="bar" x=(d1(x)) y=(d1(base - bh)) width=(d1(bar_w)) height=(d1(bh)) {
                    title { (text(label)) ": " (v) }
                }
                @if *v > 0 && bars.len() <= 40 {
                    text x=(d1(cx)) y=(d1(base - bh - 4.0)) text-anchor="middle" { (v) }
                }
                @if i % label_every.max(1) == 0 {
                    text x=(d1(cx)) y=(d1(base + 16.0)) text-anchor="middle" { (text(label)) }
                }
            }
        }
    }
}

/// Horizontal bars for a count per key, with the share of `total`.
fn bar_list(title: &str, items: &[(&str, u64)], total: u64) -> Markup {
    let (w, row, label_w, num_w) = (360.0, 20.0, 150.0, 80.0);
    let h = row * items.len() as f64;
    let max = items.iter().map(|i| i.1).max().unwrap_or(1).max(1) as f64;
    html! {
        div {
            h3 { (text(title)) }
            @if items.is_empty() {
                p class="note" { "none in this period" }
            } @else {
                svg role="img" aria-label=(text(title)) viewBox={ "0 0 " (w) " " (h) } width="100%" {
                    title { (text(title)) }
                    @for (i, (key, n)) in items.iter().enumerate() {
                        @let y = row * i as f64;
                        @let bw = (*n as f64 / max) * (w - label_w - num_w);
                        @let label: String = if key.chars().count() > 26 {
                            key.chars().take(25).chain(['…']).collect()
                        } else {
                            (*key).to_owned()
                        };
                        text x="0" y=(d1(y + 14.0)) { (text(&label)) }
                        rect class="bar" x=(label_w) y=(d1(y + 4.0)) width=(d1(bw)) height=(d1(row - 7.0)) {
                            title { (text(key)) ": " (n) }
                        }
                        text x=(d1(label_w + bw + 5.0)) y=(d1(y + 14.0)) { (n) " · " (share(*n, total)) }
                    }
                }
            }
        }
    }
}

/// The days of the period, grouped so that there are at most [`MAX_DAY_BARS`] bars.
fn day_bars(input: &ReportInput) -> (Vec<(String, u64)>, i64) {
    let first = input.since.date_naive();
    let last = input.generated_at.date_naive();
    let days = (last - first).num_days().max(0) + 1;
    let group = (days + MAX_DAY_BARS - 1) / MAX_DAY_BARS;
    let per_day = &input.mix.prompts_per_day;
    let mut bars = Vec::new();
    let mut start = first;
    while start <= last {
        let end: NaiveDate = (start + Duration::days(group - 1)).min(last);
        let n: u64 = per_day.range(start..=end).map(|(_, n)| n).sum();
        bars.push((start.format("%m-%d").to_string(), n));
        start = end + Duration::days(1);
    }
    (bars, group)
}

fn routing(input: &ReportInput) -> Markup {
    html! {
        section id="routing" {
            "\n"
            h2 { "Routing mix" } "\n"
            (routing_body(input))
        }
        "\n"
    }
}

/// The routing section under its heading, each part followed by a line break.
fn routing_body(input: &ReportInput) -> Markup {
    let m = &input.mix;
    match &input.log {
        AnalyticsLog::Off => {
            return html! {
                p class="empty" {
                    "Analytics are off (" code { "SOPHIA_ANALYTICS=off" } ", the project's " code { ".sophia-hook.yaml" } ", or no home folder), so there is no routing mix to show."
                }
                "\n"
            };
        }
        AnalyticsLog::Missing(path) => {
            return html! {
                p class="empty" {
                    "No analytics log yet at " code { (text(path)) } ": the hook writes one line per run once it is installed and a prompt goes through."
                }
                "\n"
            };
        }
        AnalyticsLog::Read(_) => {}
    }
    let read = html! {
        p class="note" {
            (m.lines) " lines read: " (m.runs) " runs in the period, "
            @if m.hint_outcome_lines > 0 {
                (m.hint_outcome_lines) " hint-outcome lines, "
            }
            (m.outside_period) " outside it, " (m.other_hosts) " of other hosts, " (m.corrupt_lines) " corrupt lines skipped."
        }
        "\n"
    };
    if m.runs == 0 {
        return html! {
            (read)
            p class="empty" { "No hook runs in this period." } "\n"
        };
    }
    let (bars, group) = day_bars(input);
    let title = if group == 1 {
        "Prompts per day".to_owned()
    } else {
        ["Prompts per ", &group.to_string(), " days"].concat()
    };
    fn all(map: &BTreeMap<String, u64>) -> Vec<(&str, u64)> {
        RoutingMix::top(map, TOP)
    }
    let mut hot = all(&m.hotwords);
    hot.push(("(none)", m.prompts.saturating_sub(m.prompts_with_hotword)));
    let reasons = |map: &BTreeMap<String, u64>| {
        html! {
            @if map.is_empty() {
                span class="note" { "—" }
            }
            @for (i, (k, n)) in map.iter().enumerate() {
                @if i > 0 { ", " }
                code { (text(k)) } " " (n)
            }
        }
    };
    let degraded: u64 = m.degraded.values().sum();
    let failed: u64 = m.failed_open.values().sum();
    let l = m.latency();
    let latency_bars: Vec<(String, u64)> = LATENCY_BUCKETS_US
        .iter()
        .zip(&l.histogram)
        .map(|((_, label), n)| ((*label).to_owned(), *n))
        .collect();
    html! {
        (read)
        h3 { (text(&title)) } "\n"
        (column_chart("prompts-per-day", &title, &bars, bars.len().div_ceil(16)))
        "\n"
        div class="grid" {
            "\n"
            (bar_list("contextMode", &all(&m.context_modes), m.prompts))
            (bar_list("subagentMode", &all(&m.subagent_modes), m.prompts))
            (bar_list("hotwords (share of prompts)", &hot, m.prompts))
            (bar_list("runs per host", &all(&m.runs_per_host), m.runs))
            (bar_list("top skills named", &all(&m.skills), m.prompts))
            (bar_list("top agents recommended", &all(&m.agents), m.prompts))
        }
        "\n"
        h3 { "Runs that need a look" } "\n"
        table {
            "\n"
            tr { th { "what" } th class="n" { "runs" } th class="n" { "share" } th { "by reason" } }
            "\n"
            tr {
                th scope="row" { "carry-forward applied" }
                td class="n" { (m.carry_forward) }
                td class="n" { (share(m.carry_forward, m.prompts)) }
                td { span class="note" { "prompts that re-applied a delegation planned earlier in the session" } }
            }
            "\n"
            tr {
                th scope="row" { "degraded" }
                td class="n" { (degraded) }
                td class="n" { (share(degraded, m.runs)) }
                td { (reasons(&m.degraded)) }
            }
            "\n"
            tr {
                th scope="row" { "failed open" }
                td class="n" { (failed) }
                td class="n" { (share(failed, m.runs)) }
                td { (reasons(&m.failed_open)) }
            }
            "\n"
        }
        "\n"
        h3 { "Latency" } "\n"
        p {
            "p50 " strong { (ms(l.p50_us)) } " · p95 " strong { (ms(l.p95_us)) } " · max " (ms(l.max_us)) " over " (m.runs) " runs (from process start to the decision)."
        }
        "\n"
        (column_chart("latency-histogram", "Runs by duration", &latency_bars, 1))
        "\n"
    }
}

/// A rate as the page shows it: a percentage, or `—` when there is nothing to divide by.
fn rate_cell(rate: Option<f64>) -> Markup {
    html! {
        @match rate {
            Some(r) => (Fixed(r * 100.0, 1, "%")),
            None => span class="note" { "—" },
        }
    }
}

/// Counts per code, largest first, as `code n, code n`.
fn code_counts(map: &BTreeMap<String, u64>) -> Markup {
    html! {
        @if map.is_empty() {
            span class="note" { "—" }
        }
        @for (i, (k, n)) in RoutingMix::top(map, usize::MAX).into_iter().enumerate() {
            @if i > 0 { ", " }
            code { (text(k)) } " " (n)
        }
    }
}

/// The segments of one stacked bar of `width` from `x0`: class, label, count, start and width,
/// for the outcomes with a count.
fn segments(
    s: &SkillHints,
    x0: f64,
    width: f64,
) -> Vec<(&'static str, &'static str, u64, f64, f64)> {
    let named = s.named().max(1) as f64;
    let mut x = x0;
    let mut out = Vec::new();
    for (class, label, n) in [
        ("seg-followed", "followed", s.followed),
        ("seg-other", "other", s.other),
        ("seg-ignored", "ignored", s.ignored),
    ] {
        if n > 0 {
            let w = n as f64 / named * width;
            out.push((class, label, n, x, w));
            x += w;
        }
    }
    out
}

/// One stacked bar per host: of the skill hints with an outcome, the share followed, other
/// (another skill loaded) and ignored (none loaded), with the followed rate.
fn skill_hint_bars(rows: &[(&str, SkillHints)]) -> Markup {
    let (w, row, label_w, note_w) = (1000.0, 30.0, 130.0, 250.0);
    let bar_w = w - label_w - note_w;
    let h = row * rows.len() as f64;
    let title = "skill hints per host: followed, other, ignored";
    html! {
        svg id="advice-skill-bars" role="img" aria-label=(title) viewBox={ "0 0 " (w) " " (h) } width="100%" {
            title { (title) }
            @for (i, (host, s)) in rows.iter().enumerate() {
                @let y = row * i as f64;
                @let named = s.named();
                text x="0" y=(d1(y + 19.0)) { (text(host)) }
                (closed(html! {
                    rect class="track" x=(label_w) y=(d1(y + 6.0)) width=(bar_w) height=(d1(row - 12.0)) rx="3";
                }))
                @for (class, label, n, x, sw) in segments(s, label_w, bar_w) {
                    rect class=(class) x=(d1(x)) y=(d1(y + 6.0)) width=(d1(sw)) height=(d1(row - 12.0)) {
                        title { (text(host)) ": " (label) " " (n) " of " (named) " (" (share(n, named)) ")" }
                    }
                    @if sw >= 28.0 {
                        text x=(d1(x + sw / 2.0)) y=(d1(y + 19.0)) text-anchor="middle" class={ (class) "-n" } { (n) }
                    }
                }
                text x=(d1(label_w + bar_w + 10.0)) y=(d1(y + 19.0)) {
                    @match s.followed_rate() {
                        Some(r) => { tspan font-weight="600" { (Fixed(r * 100.0, 1, "%")) } " followed · " (named) " named" },
                        None => "no skill hint with an outcome",
                    }
                }
            }
        }
    }
}

fn advice(input: &ReportInput) -> Markup {
    html! {
        section id="advice" {
            "\n"
            h2 { "Was the advice followed?" } "\n"
            (advice_body(input))
        }
        "\n"
    }
}

/// The advice section under its heading: what the model did after the hook named a skill or
/// recommended a delegation, from the hint-outcome lines.
fn advice_body(input: &ReportInput) -> Markup {
    let m = &input.mix;
    if !matches!(input.log, AnalyticsLog::Read(_)) {
        return html! {
            p class="empty" { "No analytics log to read, so nothing to show here." } "\n"
        };
    }
    if m.hint_outcome_lines == 0 {
        return html! {
            p class="empty" {
                "No hint-outcome lines in this period. At the next prompt the hook reads the host's transcript and records whether the model loaded the skill it named, or spawned a subagent after it recommended a delegation."
            }
            "\n"
        };
    }
    let all: AdviceOutcomes = m.advice_overall();
    let hints = all.skill_hints();
    let unnamed: u64 = all.unnamed.values().sum();
    let unknown: u64 = all.unknown.values().sum();
    let bars: Vec<(&str, SkillHints)> = m
        .advice
        .iter()
        .filter(|(_, a)| !a.skills.is_empty())
        .map(|(h, a)| (h.as_str(), a.skill_hints()))
        .collect();
    let mut skills: Vec<(&str, SkillHints)> =
        all.skills.iter().map(|(k, s)| (k.as_str(), *s)).collect();
    skills.sort_by(|a, b| b.1.named().cmp(&a.1.named()).then_with(|| a.0.cmp(b.0)));
    let more = skills.len().saturating_sub(2 * TOP);
    skills.truncate(2 * TOP);
    let delegating: Vec<(&str, &AdviceOutcomes)> = m
        .advice
        .iter()
        .filter(|(_, a)| a.delegations > 0)
        .map(|(h, a)| (h.as_str(), a))
        .collect();
    let unknowing: Vec<(&str, &AdviceOutcomes)> = m
        .advice
        .iter()
        .filter(|(_, a)| !a.unknown.is_empty())
        .map(|(h, a)| (h.as_str(), a))
        .collect();
    html! {
        p class="note" {
            "At the next prompt the hook reads the host's transcript: after a skill hint, was the skill it named loaded (" em { "followed" } "), another one (" em { "other" } ") or none (" em { "ignored" } "); after a delegation hint, was a subagent spawned. "
            (m.hint_outcome_lines) " hint-outcome lines in the period (not runs)."
        }
        "\n"
        div class="cards" {
            "\n"
            (card(
                "skill hints followed",
                rate_cell(hints.followed_rate()),
                html! { (hints.followed) " of " (hints.named()) " named" },
            ))
            (card(
                "delegations spawned",
                rate_cell(all.spawned_rate()),
                html! { (all.delegations_spawned) " of " (all.delegations) " asked" },
            ))
            (card(
                "loaded but not named",
                html! { (unnamed) },
                html! { "skills loaded the hook did not name" },
            ))
            (card(
                "outcome unknown",
                html! { (unknown) },
                html! { "the transcript could not tell" },
            ))
        }
        "\n"
        h3 { "Skill hints per host" } "\n"
        @if bars.is_empty() {
            p class="note" { "No skill hint with an outcome in this period." } "\n"
        } @else {
            p class="legend" {
                span class="key followed" {} "followed: the skill named was loaded"
                span class="key other" {} "other: another skill was loaded"
                span class="key ignored" {} "ignored: no skill was loaded"
            }
            "\n"
            (skill_hint_bars(&bars))
            "\n"
        }
        h3 { "Per skill named" } "\n"
        @if skills.is_empty() {
            p class="note" { "No skill hint with an outcome in this period." } "\n"
        } @else {
            table id="advice-skills" {
                "\n"
                tr { th { "skill" } th class="n" { "named" } th class="n" { "followed" } th class="n" { "other" } th class="n" { "ignored" } th class="n" { "followed rate" } }
                "\n"
                @for (id, s) in &skills {
                    tr {
                        th scope="row" { code { (text(id)) } }
                        td class="n" { (s.named()) }
                        td class="n" { (s.followed) }
                        td class="n" { (s.other) }
                        td class="n" { (s.ignored) }
                        td class="n" { (rate_cell(s.followed_rate())) }
                    }
                    "\n"
                }
            }
            "\n"
        }
        @if more > 0 {
            p class="note" { (more) " more skills named: " code { "sophia-hook stats --json" } " lists them all." } "\n"
        }
        div class="grid" {
            "\n"
            (bar_list("Loaded instead of the skill named", &RoutingMix::top(&all.instead, TOP), all.instead.values().sum()))
            (bar_list("Loaded but not named (what routing missed)", &RoutingMix::top(&all.unnamed, TOP), unnamed))
        }
        "\n"
        h3 { "Delegation hints" } "\n"
        @if delegating.is_empty() {
            p class="note" { "No delegation hint with an outcome in this period." } "\n"
        } @else {
            table id="advice-delegations" {
                "\n"
                tr { th { "host" } th class="n" { "asked" } th class="n" { "spawned" } th class="n" { "not spawned" } th class="n" { "spawned rate" } th { "subagents spawned, by type" } }
                "\n"
                @for (host, a) in &delegating {
                    tr {
                        th scope="row" { (text(host)) }
                        td class="n" { (a.delegations) }
                        td class="n" { (a.delegations_spawned) }
                        td class="n" { (a.not_spawned()) }
                        td class="n" { (rate_cell(a.spawned_rate())) }
                        td { (code_counts(&a.spawned)) }
                    }
                    "\n"
                }
            }
            "\n"
            p class="note" {
                em { "asked" } ": delegation hints whose outcome the transcript showed; " em { "spawned" } ": at least one subagent spawned after it (a delegation that spawned two types counts once, and each type once)."
            }
            "\n"
        }
        h3 { "Outcome unknown" } "\n"
        @if unknowing.is_empty() {
            p class="note" { "Every outcome was read from a transcript." } "\n"
        } @else {
            table id="advice-unknown" {
                "\n"
                tr { th { "host" } th class="n" { "lines" } th { "by reason" } }
                "\n"
                @for (host, a) in &unknowing {
                    tr {
                        th scope="row" { (text(host)) }
                        td class="n" { (a.unknown.values().sum::<u64>()) }
                        td { (code_counts(&a.unknown)) }
                    }
                    "\n"
                }
            }
            "\n"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_periods_group_days_and_keep_every_prompt() {
        use crate::report::mix::MixBuilder;
        use crate::report::{AgentsView, Setup};
        let at = |t: &str| chrono::DateTime::parse_from_rfc3339(t).unwrap().to_utc();
        let (since, now) = (at("2026-01-01T00:00:00Z"), at("2026-11-30T12:00:00Z"));
        let mut mix = MixBuilder::new(since, now, None);
        for day in ["2026-01-01", "2026-01-06", "2026-06-15", "2026-11-30"] {
            let line = format!(
                r#"{{"ts":"{day}T10:00:00Z","host":"codex","outcome":"injected","contextMode":"full","durationUs":1}}"#
            );
            mix.push(line.as_bytes());
        }
        let input = ReportInput {
            generated_at: now,
            since,
            host: None,
            log: AnalyticsLog::Read("log".into()),
            mix: mix.finish(),
            setup: Setup::default(),
            agents: AgentsView {
                fingerprint: "sha256:x".into(),
                source: "embedded".into(),
                source_path: None,
                hosts: vec![],
                roles: vec![],
                drift: vec![],
            },
            skills: vec![],
            quality: None,
        };
        let (bars, group) = day_bars(&input);
        assert_eq!(group, 6, "334 days in bars of 6");
        assert!(bars.len() as i64 <= MAX_DAY_BARS);
        assert_eq!(bars.iter().map(|b| b.1).sum::<u64>(), 4);
        assert_eq!(
            bars[0],
            ("01-01".to_owned(), 2),
            "01-06 is in the first bar"
        );
        assert_eq!(bars[1], ("01-07".to_owned(), 0));
        assert!(page(&input).contains("Prompts per 6 days"));
    }

    #[test]
    fn charts_scale_to_the_largest_bar() {
        let svg = column_chart("c", "t", &[("a".into(), 2), ("b".into(), 4)], 1).into_string();
        assert!(
            svg.contains("height=\"87.0\"") && svg.contains("height=\"174.0\""),
            "{svg}"
        );
        let empty = column_chart("c", "t", &[], 1).into_string();
        assert!(empty.starts_with("<svg") && empty.ends_with("</svg>"));
        assert!(
            bar_list("t", &[], 0)
                .into_string()
                .contains("none in this period")
        );
    }
}
