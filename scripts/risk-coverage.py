#!/usr/bin/env python3
"""Risk and coverage of skill routing over every third-party catalog (docs/skills.md).

Runs `sophia-hook eval --json` on each labelled set of fixtures/eval/catalogs (the sixteen the
protocol fits on: blind sets 1 and 2, and blind set 3, which joined with issue 33), and prints a
markdown table per catalog and pooled: the hook's named precision, recall (named) and ranking
top-1, and BM25F's ranking top-1 and its best recall (named) at the hook's named precision or
above, its threshold on its top score chosen on the very cases it is scored on (per catalog; for
the pooled rows one threshold over the pooled cases), which can only flatter it.

Usage: scripts/risk-coverage.py [path/to/sophia-hook] [--svg FILE]
(default binary: target/release/sophia-hook). With --svg it also draws the pooled curves of named
precision against recall (named), the hook's as its confidence threshold moves and BM25F's as the
threshold on its top score moves, for blind set 3 and for all sixteen (docs/skills.md).
"""
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
ARGS = sys.argv[1:]
SVG = None
if "--svg" in ARGS:
    at = ARGS.index("--svg")
    SVG = ARGS[at + 1]
    del ARGS[at : at + 2]
BIN = ARGS[0] if ARGS else str(ROOT / "target/release/sophia-hook")
EVALS, ROOTS = ROOT / "fixtures/eval/catalogs", ROOT / "fixtures/catalogs"
# The catalogs of blind set 3, measured once unseen before they joined the protocol and kept
# apart in the table: the first table of its README (one row per catalog, its name in
# backticks), so the set is written in one place.
SET3_README = EVALS / "BLIND-SET-3.md"


def set3():
    """The first cell of every row of the README's first table (`| catalog |` header), each a
    catalog name in backticks; the separator and the bold total row are skipped, any other row
    is an error, so a table that changes shape fails here instead of grouping wrongly."""
    names, in_table = [], False
    for line in SET3_README.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not in_table:
            in_table = line.startswith("| catalog |")
            continue
        if not line.startswith("|"):
            break
        first = line.strip("|").split("|")[0].strip()
        if set(first) <= set("-: ") or first.startswith("**"):
            continue
        m = re.fullmatch(r"`([a-z0-9-]+)`", first)
        if not m:
            sys.exit(f"{SET3_README}: a row of the catalog table whose first cell is not a `name`: {line}")
        names.append(m.group(1))
    if not names or any(not (ROOTS / n).is_dir() for n in names) or len(set(names)) != len(names):
        sys.exit(f"{SET3_README}: no catalog table, a catalog not in {ROOTS}, or one twice: {names}")
    return set(names)


SET3 = set3()


def counts_at(curve, t):
    """(right names, names, cases with a skill) of a BM25F curve at threshold t."""
    total = curve[0]["namedRecall"]["total"] if curve else 0
    above = [p for p in curve if p["threshold"] >= t]
    if not above:
        return 0, 0, total
    p = min(above, key=lambda p: p["threshold"])
    return p["namedPrecision"]["hits"], p["namedPrecision"]["total"], total


def best_recall(curves, precision):
    """BM25F's best pooled right names over one threshold for all `curves` whose pooled named
    precision is at least `precision`."""
    thresholds = sorted({p["threshold"] for c in curves for p in c})
    best = 0
    for t in thresholds:
        right = names = 0
        for c in curves:
            r, n, _ = counts_at(c, t)
            right += r
            names += n
        if names and right / names >= precision:
            best = max(best, right)
    return best


def fmt(hits, total):
    return f"{hits / total:.3f} ({hits}/{total})" if total else "n/a"


def main():
    rows = []
    for root in sorted((p for p in ROOTS.iterdir() if p.is_dir()), key=lambda p: (p.name in SET3, p.name)):
        group = "set 3" if root.name in SET3 else "sets 1-2"
        files = [EVALS / f"{root.name}{s}" for s in (".jsonl", ".dev.jsonl", ".holdout.jsonl")]
        for f in files:
            if not f.is_file():
                continue
            out = subprocess.run(
                [BIN, "eval", str(f), "--root", str(root), "--json"],
                capture_output=True, text=True, check=False,
            ).stdout
            j = json.loads(out)
            rows.append((group, f.name.removesuffix(".jsonl"), j["skills"], j["skillsBm25Baseline"]))
    print("| set | hook named precision | hook recall (named) | hook ranking top-1 | BM25F ranking top-1 | BM25F recall at the hook's precision |")
    print("|---|---|---|---|---|---|")

    def line(label, sk, bms, bold=False):
        np_h = sum(s["namedPrecision"]["hits"] for s in sk)
        np_t = sum(s["namedPrecision"]["total"] for s in sk)
        rc_t = sum(s["namedRecall"]["total"] for s in sk)
        rk_h = sum(s["rankingTop1"]["hits"] for s in sk)
        rk_t = sum(s["rankingTop1"]["total"] for s in sk)
        b_h = sum(b["rankingTop1"]["hits"] for b in bms)
        b_t = sum(b["rankingTop1"]["total"] for b in bms)
        at = best_recall([b["curve"] for b in bms], np_h / np_t if np_t else 1.0)
        cells = [fmt(np_h, np_t), fmt(np_h, rc_t), fmt(rk_h, rk_t), fmt(b_h, b_t), fmt(at, rc_t)]
        if bold:
            cells = [f"**{c}**" for c in cells]
            label = f"**{label}**"
        print(f"| {label} | " + " | ".join(cells) + " |")

    for group, name, sk, bm in rows:
        line(f"{group}: {name}", [sk], [bm])
    for group in ("sets 1-2", "set 3"):
        g = [r for r in rows if r[0] == group]
        line(f"pooled {group}", [r[2] for r in g], [r[3] for r in g], bold=True)
    line("pooled, all sixteen", [r[2] for r in rows], [r[3] for r in rows], bold=True)
    if SVG:
        set3 = [r for r in rows if r[0] == "set 3"]
        pathlib.Path(SVG).write_text(svg([("blind set 3", set3), ("all sixteen", rows)]))


def hook_curve(sk):
    """Pooled (recall, precision, threshold, hook) of the hook's curves (the same thresholds)."""
    out = []
    for i, p in enumerate(sk[0]["curve"]):
        right = sum(s["curve"][i]["namedPrecision"]["hits"] for s in sk)
        names = sum(s["curve"][i]["namedPrecision"]["total"] for s in sk)
        cases = sum(s["curve"][i]["namedRecall"]["total"] for s in sk)
        if names:
            out.append((right / cases, right / names, p["threshold"], p["hook"]))
    return out


def bm25_curve(bms):
    """Pooled (recall, precision) of BM25F at one threshold for all, every threshold."""
    curves = [b["curve"] for b in bms]
    cases = sum(b["namedRecall"]["total"] for b in bms)
    out = []
    for t in sorted({p["threshold"] for c in curves for p in c}):
        right = names = 0
        for c in curves:
            r, n, _ = counts_at(c, t)
            right += r
            names += n
        if names:
            out.append((right / cases, right / names))
    return out


def svg(panels):
    """Named precision (y) against recall (named) (x), one panel per group of catalogs."""
    w, h, pad = 360, 300, 40
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * len(panels)}" height="{h}" '
        'font-family="sans-serif" font-size="11">',
        f'<rect width="{w * len(panels)}" height="{h}" fill="white"/>',
    ]
    for k, (title, rows) in enumerate(panels):
        x0 = k * w
        sx = lambda r: x0 + pad + r * (w - 2 * pad)
        sy = lambda p: h - pad - p * (h - 2 * pad)
        parts.append(f'<text x="{x0 + w / 2}" y="16" text-anchor="middle">{title}</text>')
        parts.append(
            f'<rect x="{sx(0)}" y="{sy(1)}" width="{w - 2 * pad}" height="{h - 2 * pad}" '
            'fill="none" stroke="#999"/>'
        )
        for v in (0.2, 0.4, 0.6, 0.8):
            parts.append(f'<text x="{sx(v)}" y="{h - pad + 14}" text-anchor="middle">{v:.1f}</text>')
            parts.append(f'<text x="{sx(0) - 4}" y="{sy(v) + 4}" text-anchor="end">{v:.1f}</text>')
            parts.append(f'<line x1="{sx(0)}" x2="{sx(1)}" y1="{sy(v)}" y2="{sy(v)}" stroke="#eee"/>')
        parts.append(f'<text x="{x0 + w / 2}" y="{h - 6}" text-anchor="middle">recall (named)</text>')
        parts.append(
            f'<text x="{x0 + 12}" y="{h / 2}" text-anchor="middle" '
            f'transform="rotate(-90 {x0 + 12} {h / 2})">named precision</text>'
        )
        b = bm25_curve([r[3] for r in rows])
        pts = " ".join(f"{sx(r):.1f},{sy(p):.1f}" for r, p in b)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="#d62728" stroke-width="1.5"/>')
        hc = hook_curve([r[2] for r in rows])
        pts = " ".join(f"{sx(r):.1f},{sy(p):.1f}" for r, p, _, _ in hc)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
        for r, p, t, hook in hc:
            fill = "#1f77b4" if hook else "white"
            parts.append(
                f'<circle cx="{sx(r):.1f}" cy="{sy(p):.1f}" r="{4 if hook else 2.5}" '
                f'fill="{fill}" stroke="#1f77b4"><title>threshold {t:.2f}</title></circle>'
            )
        parts.append(f'<text x="{sx(0.05)}" y="{sy(0.12)}" fill="#1f77b4">hook (confidence threshold; filled: its own)</text>')
        parts.append(f'<text x="{sx(0.05)}" y="{sy(0.05)}" fill="#d62728">BM25F (threshold on its top score)</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    main()
