"""Per-sentence lexical output shortlist for the CTC NAT (issue 14: NAT latency): a table from each source token to
the target tokens it tends to translate into, made from the training pairs, so a pass scores only the head rows a
sentence can plausibly need instead of all ~6,600.

    python -m export nat-shortlist export/trained/ctc-nat-en-de-small --pairs .cache/translation-pairs \\
        --top-k 24 --frequent 256 --out models/ctc-nat-en-de-small-q8_0-shortlist/shortlist.json
    python -m export.nat_shortlist study --model /tmp/nat-small-fp32 --pairs .cache/translation-pairs  # the table

The table (JSON, written by `build_table`, read by engine/nat/shortlist.rs):
    {"format": "specrt-nat-shortlist", "version": 1, "vocab": V, "top_k": K, "frequent": F, "score": "...",
     "always": [sorted ids: the F most frequent target tokens, <blank> and the specials],
     "rows": {"<source id>": [up to K target ids, best first], ...}, ...provenance}
A sentence's shortlist is `always` plus the rows of its source ids (a batch: the union over its sentences), sorted.

Score: p(t|s) = c(s, t) / c(s) from sentence-level co-occurrence (c(s, t): training pairs whose English side has s
and whose German side has t; each counted once per pair), over the target tokens outside `always` only, so the K
slots go to content words rather than to the frequent function words `always` already holds. Ties break on the
lower id, so the table is a pure function of the pairs and the tokenizer.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from .manifest import sha256_file

FORMAT = "specrt-nat-shortlist"
VERSION = 1
SPECIALS = ("<pad>", "<s>", "</s>", "<unk>", "<mask>", "<blank>")


def cooccurrence(src: list, tgt: list, vocab: int) -> tuple:
    """(c(s, t) as a dense int32 [V, V] matrix, c(s) [V], c(t) [V]) from tokenized pairs, each token counted once per
    pair. Dense because V = 8,000 (256 MB) is small, and numpy's bincount in chunks needs no scipy."""
    counts = np.zeros(vocab * vocab, np.int64)
    cs, ct = np.zeros(vocab, np.int64), np.zeros(vocab, np.int64)
    keys = []
    pending = 0
    for s, t in zip(src, tgt):
        s_u, t_u = np.unique(np.asarray(s, np.int64)), np.unique(np.asarray(t, np.int64))
        cs[s_u] += 1
        ct[t_u] += 1
        keys.append((s_u[:, None] * vocab + t_u[None, :]).ravel())
        pending += keys[-1].size
        if pending > 20_000_000:
            counts += np.bincount(np.concatenate(keys), minlength=vocab * vocab)
            keys, pending = [], 0
    if keys:
        counts += np.bincount(np.concatenate(keys), minlength=vocab * vocab)
    return counts.reshape(vocab, vocab).astype(np.int32), cs, ct


def build_table(src: list, tgt: list, vocab: int, top_k: int, frequent: int, specials: list,
                min_count: int = 1, counts: tuple | None = None) -> dict:
    """The shortlist table (module docstring) from tokenized pairs (`src[i]`, `tgt[i]`: lists of ids). specials:
    ids always in the shortlist (<blank> at least). Rows list only targets seen with the source at least
    `min_count` times; a source token never seen gets no row (its sentence still has `always`). counts: the
    `cooccurrence` of the same pairs, when already computed (the study tries many K and F)."""
    if top_k < 0 or frequent < 0:
        raise ValueError("top_k and frequent must be >= 0")
    c, cs, ct = counts if counts is not None else cooccurrence(src, tgt, vocab)
    # The F most frequent target tokens (by pairs containing them), ties to the lower id.
    order = np.lexsort((np.arange(vocab), -ct))
    freq = [int(i) for i in order[:frequent] if ct[i] > 0]
    always = sorted(set(freq) | {int(i) for i in specials})
    rows = {}
    if top_k > 0:
        excluded = np.zeros(vocab, bool)
        excluded[always] = True
        for s in np.nonzero(cs)[0]:
            row = c[s].astype(np.float64) / cs[s]
            row[excluded | (c[s] < min_count)] = -1.0
            # top K by score, ties to the lower id (lexsort: last key is primary)
            cand = np.nonzero(row > 0)[0]
            if cand.size == 0:
                continue
            best = cand[np.lexsort((cand, -row[cand]))][:top_k]
            rows[str(int(s))] = [int(t) for t in best]
    return {"format": FORMAT, "version": VERSION, "vocab": int(vocab), "top_k": int(top_k), "frequent": int(frequent),
            "score": "p(t|s) = c(s,t)/c(s), sentence-level co-occurrence, targets outside `always`",
            "min_count": int(min_count), "always": always, "rows": rows}


def shortlist(table: dict, src_ids) -> list:
    """The sorted shortlist of one sentence (or a batch: pass the union of its source ids)."""
    out = set(table["always"])
    rows = table["rows"]
    for s in set(int(i) for i in src_ids):
        out.update(rows.get(str(s), ()))
    return sorted(out)


def tokenize_pairs(tokenizer_path: str, pairs_path: str) -> tuple:
    """(English ids, German ids, pairs) of a jsonl split, tokenized like training does (export/train_ctc_nat.py)."""
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(tokenizer_path)
    with open(pairs_path, encoding="utf-8") as f:
        pairs = [json.loads(line) for line in f]
    en = [e.ids for e in tok.encode_batch([p["en"] for p in pairs])]
    de = [e.ids for e in tok.encode_batch([p["de"] for p in pairs])]
    return en, de, pairs, tok


def specials_of(tok) -> list:
    """The ids of the tokenizer's special tokens (always in a shortlist: <blank> above all)."""
    return [i for i in (tok.token_to_id(s) for s in SPECIALS) if i is not None]


def make(model_dir: str, pairs_dir: str, top_k: int, frequent: int, out: str) -> dict:
    """`python -m export nat-shortlist`: the table from `pairs_dir/train.jsonl` with the tokenizer of `model_dir`
    (a recipe folder or an export), written to `out` with its provenance."""
    t0 = time.time()
    tok_path = os.path.join(model_dir, "tokenizer.json")
    train = os.path.join(pairs_dir, "train.jsonl")
    en, de, _, tok = tokenize_pairs(tok_path, train)
    table = build_table(en, de, tok.get_vocab_size(), top_k, frequent, specials_of(tok))
    table["made_from"] = {"pairs": os.path.basename(train), "pairs_sha256": sha256_file(train), "pairs_count": len(en),
                          "tokenizer_sha256": sha256_file(tok_path),
                          "command": f"python -m export nat-shortlist MODEL --pairs PAIRS --top-k {top_k} "
                                     f"--frequent {frequent} --out FILE"}
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(table, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"[shortlist] {len(table['rows'])} rows, {len(table['always'])} always, {os.path.getsize(out):,} bytes "
          f"-> {out} in {time.time() - t0:.1f}s", file=sys.stderr)
    return table


def make_random(tokenizer_path: str, top_k: int, frequent: int, seed: int, out: str) -> dict:
    """A table over a tokenizer's vocabulary with random rows (tests: the tiny random-weight fixtures have no
    training pairs): `frequent` random ids plus the specials always, and `top_k` random ids for every source id."""
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(tokenizer_path)
    vocab = tok.get_vocab_size()
    rng = np.random.default_rng(seed)
    always = sorted(set(int(i) for i in rng.choice(vocab, size=min(frequent, vocab), replace=False))
                    | set(specials_of(tok)))
    rows = {str(s): [int(i) for i in rng.choice(vocab, size=min(top_k, vocab), replace=False)] for s in range(vocab)}
    table = {"format": FORMAT, "version": VERSION, "vocab": vocab, "top_k": top_k, "frequent": frequent,
             "score": f"random (seed {seed}; tests only)", "min_count": 0, "always": always, "rows": rows}
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(table, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    return table


# ---------------------------------------------------------------------------------------------------------------
# The offline study (docs/BENCHMARKS.md section 5): coverage and BLEU of greedy CTC decoding restricted to the
# shortlist, from the float32 export's logits (`python -m export ctc-nat ... --out DIR`, precision fp32).

def _upsample(src: list, rate: float, limit: int, mask_id: int) -> list:
    from .train_ctc_nat import upsample
    return upsample(src, rate, limit, mask_id)


def study(model: str, pairs_dir: str, grid: list, limit: int | None = None) -> list:
    """Rows of the study table: per (K, F) the mean shortlist size per sentence and per 16-sentence batch, the
    coverage of the reference tokens and of the full model's greedy output, and BLEU of restricted decoding."""
    import onnxruntime as ort
    import sacrebleu
    from .train_ctc_nat import ctc_greedy
    man = json.load(open(os.path.join(model, "manifest.json")))
    ctc = man["ctc"]
    out_ids = np.asarray(ctc.get("output_ids") or list(range(man["dims"]["vocab_size"])), np.int64)
    col_of = {int(t): j for j, t in enumerate(out_ids)}
    sess = ort.InferenceSession(os.path.join(model, "model.onnx"), providers=["CPUExecutionProvider"])
    en_tr, de_tr, _, tok = tokenize_pairs(os.path.join(model, "tokenizer.json"), os.path.join(pairs_dir, "train.jsonl"))
    en, de, pairs, _ = tokenize_pairs(os.path.join(model, "tokenizer.json"), os.path.join(pairs_dir, "test.jsonl"))
    if limit:
        en, de, pairs = en[:limit], de[:limit], pairs[:limit]
    refs = [p["de"] for p in pairs]
    rate, plimit = ctc["upsample"]["rate"], ctc["upsample"]["position_limit"]
    logits = []
    for s in en:
        up = _upsample(s, rate, plimit, ctc["mask_id"])
        ids = np.asarray([up], np.int64)
        logits.append(sess.run(["logits"], {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0][0])

    def decode(lg, cols):
        best = cols[np.argmax(lg[:, cols], axis=1)] if cols is not None else np.argmax(lg, axis=1)
        return tok.decode(ctc_greedy([int(out_ids[c]) for c in best], ctc["blank_id"]), skip_special_tokens=True)

    full_hyp = [decode(lg, None) for lg in logits]
    full_tok = [set(int(out_ids[c]) for c in np.argmax(lg, 1)) for lg in logits]
    full_bleu = sacrebleu.corpus_bleu(full_hyp, [refs]).score
    rows = [{"K": "-", "F": "-", "size": float(len(out_ids)), "batch16": float(len(out_ids)), "ref_cov": 1.0,
             "argmax_cov": 1.0, "bleu": full_bleu, "changed": 0}]
    counts = cooccurrence(en_tr, de_tr, tok.get_vocab_size())
    for k, f in grid:
        table = build_table(en_tr, de_tr, tok.get_vocab_size(), k, f, specials_of(tok), counts=counts)
        sizes, hyps, rc, rn, ac, an, b16 = [], [], 0, 0, 0, 0, []
        lists = [shortlist(table, s) for s in en]
        for s, d, lg, ft, sl in zip(en, de, logits, full_tok, lists):
            cols = np.asarray(sorted(col_of[t] for t in sl if t in col_of), np.int64)
            sizes.append(len(cols))
            sset = set(sl)
            rc += sum(t in sset for t in d)
            rn += len(d)
            ac += sum(t in sset for t in ft)
            an += len(ft)
            hyps.append(decode(lg, cols))
        # batches of 16 sentences of similar length, as the engine's batched runs group them
        order = sorted(range(len(en)), key=lambda i: len(en[i]))
        for i in range(0, len(order), 16):
            u = set()
            for j in order[i:i + 16]:
                u.update(en[j])
            b16.append(len(shortlist(table, u)))
        rows.append({"K": k, "F": f, "size": float(np.mean(sizes)), "batch16": float(np.mean(b16)),
                     "ref_cov": rc / rn, "argmax_cov": ac / an,
                     "bleu": sacrebleu.corpus_bleu(hyps, [refs]).score,
                     "changed": sum(a != b for a, b in zip(hyps, full_hyp))})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m export.nat_shortlist")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("study", help="the (K, F) table: shortlist size, coverage, restricted-greedy BLEU")
    p.add_argument("--model", required=True, help="an fp32 CTC NAT export (its logits are read with onnxruntime)")
    p.add_argument("--pairs", default=".cache/translation-pairs")
    p.add_argument("--grid", default="4:64,8:64,8:128,16:128,8:256,16:256,24:256,32:256,32:512,64:512,64:1024",
                   help="K:F pairs (the default is the table of docs/BENCHMARKS.md section 5)")
    p.add_argument("--limit", type=int, default=None)
    a = ap.parse_args(argv)
    grid = [tuple(int(x) for x in kf.split(":")) for kf in a.grid.split(",")]
    rows = study(a.model, a.pairs, grid, a.limit)
    print("| K | F | shortlist / sentence | / 16-sentence batch | reference-token coverage | full-argmax coverage "
          "| BLEU | outputs changed |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['K']} | {r['F']} | {r['size']:.0f} | {r['batch16']:.0f} | {100 * r['ref_cov']:.1f}% | "
              f"{100 * r['argmax_cov']:.2f}% | {r['bleu']:.2f} | {r['changed']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
