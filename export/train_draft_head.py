"""Training recipe for the trained draft heads of SmolLM2-135M-Instruct: CTC drafter, Medusa, EAGLE-style.

    # once (.venv): the hidden-states export of the SAME int4 graph the engine runs, the text, the cache
    python -m export smollm2 --hidden-states --out .cache/heads/smollm2-int4-hs
    python -m export.head_data text  --out .cache/heads --target .cache/heads/smollm2-int4-hs
    python -m export.head_data cache --out .cache/heads --target .cache/heads/smollm2-int4-hs --max-minutes 25
    # each head (.cache/venv-train, torch; one thread each, a wall-time budget)
    python -m export.train_draft_head train --kind ctc --max-minutes 35 --out export/trained/smollm2-ctc-head
    python -m export.train_draft_head train --kind medusa ...; ... --kind eagle ...
    python -m export.train_draft_head parity      # torch modules == the exporter's numpy reference (random weights)

Semantics (export/README.md, "The draft-head contract"): h_t is the target's hidden state at committed position t
(pre final norm), which the target turns into x_{t+1}; the engine has x_{t+1} already; a head predicts x_{t+2}...
Labels are the TARGET's predictions (argmax of the cached int4 logits; soft top-8 for EAGLE), never the text:
argmax[i] predicts x_{i+1}, so depth j (1-based) of position t is argmax[t+j].
- medusa: N residual blocks on norm(h_t), one shared reduced-vocab output matrix; CE per head, weight 0.8^j.
- ctc: N learned slot queries (+ the newest normalised state) attend over the W newest states (+ learned window
  positions) and each other; FFN; reduced-vocab head + blank. CTC loss against argmax[t+1 .. t+L] as draft ids
  (label cut at a stop token or an id outside the draft vocabulary; empty labels skipped).
- eagle: fc([emb(x_{i+1}); norm(h_i)]) -> one decoder layer (causal, rotary over 0..S-1) -> features f_i ~ h_{i+1};
  logits = head(norm(f_i)) ~ the target's distribution at i+1. Loss = SmoothL1(rmsnorm(f_i), rmsnorm(h_{i+1}))
  + ce_weight x soft CE against the target's top-8 restricted to the draft vocabulary (EAGLE-1's recipe; the
  feature is compared after RMS normalisation because the head normalises its hidden input anyway).
  `--ctc-weight w` (default 0, off) adds the CTC drafter's public recipe's auxiliary term: w x CTC over windows of
  CTC_FRAMES consecutive positions of the sequence, whose frames are the head's logits there plus a blank logit
  (out_norm(f_i) . b, b a training-only vector that is not exported: the engine drafts depth by depth and never
  reads a blank), against the target's argmax over the label_len tokens after the window's first position (the
  CTC head's labels, `graph_draft_head.ctc_labels`). The public code weighs it 0.01 next to SmoothL1 1.0 + CE 0.1.
The output matrix of every head starts from the target's own (tied) embedding rows of the draft vocabulary and
its output norm from the target's final norm. `--target-rows` (eagle only) keeps EAGLE-1's choice instead: the
token embedding and the output matrix ARE the target's rows of the draft vocabulary, frozen, and are not stored
with the head (the exporter reads them back from the target; an UNK row = their mean). On Qwen2.5-1.5B that is
what keeps the committed head under 40 MB: 2 x 16,384 x 1,536 rows would be 54 MB at Q8_0 on their own.
The draft vocabulary: the --draft-vocab most frequent target argmax ids of the training split, plus the stop ids
0, 1, 2 and the target's own stop ids.

Offline eval (held-out documents, a fixed sample of positions): per depth, how often the head's first candidate
equals the target's argmax (independent), and how often the whole chain up to that depth does (cumulative =
the acceptance a chain of that length can expect); EAGLE drafts depth by depth feeding its own features and
tokens back, exactly as the engine does; CTC uses greedy collapse (the engine's beam's first candidate).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time

import numpy as np

from . import graph_draft_head as gdh
from .manifest import sha256_file

STOP = (0, 2)
# --ctc-weight (eagle): frames per CTC window (the public recipe's 6 slot frames) and the stride between windows of a
# training sequence: every 3rd start gives 4 windows (24 frames) per 16-pair sequence, and the term still cost 22% of
# the steps on Qwen's 16k vocabulary (docs/HEADS.md "The CTC term for EAGLE"; every start would be 11 windows).
CTC_FRAMES = 6
CTC_STRIDE = 3


def log(msg: str) -> None:
    print(f"[train-head] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------------------
# torch modules (names = the exporter's weight names)

def build_modules():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class RMSNorm(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(dim))

        def forward(self, x):
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + gdh.EPS)).to(x.dtype) * self.weight

    def rotate_half(x):
        a, b = x.chunk(2, dim=-1)
        return torch.cat((-b, a), dim=-1)

    class Block(nn.Module):
        def __init__(self, H, heads, ffn):
            super().__init__()
            self.heads = heads
            self.attn_norm, self.ffn_norm = RMSNorm(H), RMSNorm(H)
            self.q_proj, self.k_proj = nn.Linear(H, H, bias=False), nn.Linear(H, H, bias=False)
            self.v_proj, self.o_proj = nn.Linear(H, H, bias=False), nn.Linear(H, H, bias=False)
            self.gate_proj, self.up_proj = nn.Linear(H, ffn, bias=False), nn.Linear(H, ffn, bias=False)
            self.down_proj = nn.Linear(ffn, H, bias=False)

        def forward(self, x, mem=None, bias=None, rope=None):
            b, sq, H = x.shape
            hd = H // self.heads
            h = self.attn_norm(x)
            m = h if mem is None else torch.cat([mem, h], 1)
            split = lambda t: t.view(b, -1, self.heads, hd).transpose(1, 2)  # noqa: E731
            q, k, v = split(self.q_proj(h)), split(self.k_proj(m)), split(self.v_proj(m))
            if rope is not None:
                cos, sin = rope
                q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=bias.to(q.dtype) if bias is not None else None)
            x = x + self.o_proj(a.transpose(1, 2).reshape(b, sq, H))
            h = self.ffn_norm(x)
            return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))

    class Medusa(nn.Module):
        def __init__(self, H, vd, slots, **_):
            super().__init__()
            self.norm = RMSNorm(H)
            self.heads = nn.ModuleList(nn.Linear(H, H) for _ in range(slots))
            self.lm_head = nn.Linear(H, vd, bias=False)

        def forward(self, h):  # [B, H] -> [B, N, Vd]
            x = self.norm(h)
            r = torch.stack([x + F.silu(m(x)) for m in self.heads], 1)
            return self.lm_head(r)

    class Ctc(nn.Module):
        def __init__(self, H, vd, slots, window, heads, ffn, **_):
            super().__init__()
            self.in_norm = RMSNorm(H)
            self.window_pos = nn.Parameter(torch.zeros(window, H))
            self.slots = nn.Parameter(torch.zeros(slots, H))
            self.block = Block(H, heads, ffn)
            self.out_norm = RMSNorm(H)
            self.lm_head = nn.Linear(H, vd + 1, bias=False)

        def forward(self, h, mask):  # h [B, W, H], mask [B, W] (1 real) -> [B, N, Vd+1]
            kv = self.in_norm(h)
            x = self.slots[None] + kv[:, -1:]
            mem = kv + self.window_pos[None]
            n = self.slots.shape[0]
            bias = torch.cat([(1 - mask.float()) * -1e9, torch.zeros(mask.shape[0], n)], 1)[:, None, None, :]
            x = self.block(x, mem, bias)
            return self.lm_head(self.out_norm(x))

    class Eagle(nn.Module):
        def __init__(self, H, vd, window, heads, ffn, index, **_):
            super().__init__()
            self.embed = nn.Embedding(vd + 1, H)
            self.hidden_norm = RMSNorm(H)
            self.fc = nn.Linear(2 * H, H)
            self.block = Block(H, heads, ffn)
            self.out_norm = RMSNorm(H)
            self.lm_head = nn.Linear(H, vd, bias=False)
            table = np.asarray(index, np.int64).copy()
            table[table < 0] = vd
            self.register_buffer("table", torch.tensor(table), persistent=False)
            cos, sin = gdh.rope_tables(H // heads, window)
            self.register_buffer("cos", torch.tensor(cos, dtype=torch.float32), persistent=False)
            self.register_buffer("sin", torch.tensor(sin, dtype=torch.float32), persistent=False)

        def forward(self, h, ids):  # h [B, S, H], ids [B, S] target ids -> features [B, S, H], logits [B, S, Vd]
            s = ids.shape[1]
            x = self.fc(torch.cat([self.embed(self.table[ids]), self.hidden_norm(h)], -1))
            causal = torch.triu(torch.full((s, s), -1e9), 1)
            x = self.block(x, None, causal, rope=(self.cos[:s], self.sin[:s]))
            return x, self.lm_head(self.out_norm(x))

    return {"medusa": Medusa, "ctc": Ctc, "eagle": Eagle}


def state_dict_names(sd: dict) -> dict:
    """torch names -> exporter names (the ctc/eagle block is a submodule in torch, flat in the exporter)."""
    out = {}
    for k, v in sd.items():
        k = k.replace("block.", "")
        out[k] = v
    return out


def eagle_ctc_term(logits, blank_logits, labels, frames: int = CTC_FRAMES, stride: int = CTC_STRIDE):
    """The auxiliary CTC loss of an EAGLE head (`--ctc-weight`): logits [B, S, Vd] at the sequence's positions,
    blank_logits [B, S], labels(b, j) -> draft ids the frames starting at position j of sequence b must spell
    (empty: skipped). Windows start at j = 0, stride, ... with j + frames <= S. Returns (mean CTC loss, windows
    used); (None, 0) when no window has a label."""
    import torch
    import torch.nn.functional as F
    b, s, vd = logits.shape
    lp = F.log_softmax(torch.cat([logits.float(), blank_logits.float()[..., None]], -1), -1)  # [B, S, Vd+1]
    frames_in, tgt, lens = [], [], []
    for j in range(0, s - frames + 1, stride):
        for r in range(b):
            lb = labels(r, j)
            if lb:
                frames_in.append(lp[r, j:j + frames])
                tgt.extend(lb)
                lens.append(len(lb))
    if not lens:
        return None, 0
    x = torch.stack(frames_in, 1)  # [frames, windows, Vd+1]
    loss = F.ctc_loss(x, torch.tensor(tgt), torch.full((len(lens),), frames, dtype=torch.long), torch.tensor(lens),
                      blank=vd, reduction="mean", zero_infinity=True)
    return loss, len(lens)


def read_init(folder: str, kind: str) -> dict:
    """A committed head to fine-tune (--init): its weights (either storage), draft vocabulary and architecture,
    checked against the run's kind (a clear error otherwise). Read before the cache, so a wrong folder fails in a
    second, not after the cache load (~1 min for Qwen's); `check_init_hidden` checks it against the cache."""
    try:
        man, vocab, weights = gdh.read_folder(folder)
        arch, got = man["architecture"], man["head"]["kind"]
    except (OSError, KeyError, ValueError) as e:
        raise SystemExit(f"--init {folder}: not a trained head folder ({e})")
    if got != kind:
        raise SystemExit(f"--init {folder}: a {got} head, this run trains {kind}")
    return {"folder": folder, "vocab": [int(i) for i in vocab], "weights": weights, "architecture": arch}


def check_init_hidden(start: dict, hidden: int) -> None:
    """The head to fine-tune must have the cache's hidden size."""
    if start["architecture"]["hidden_size"] != hidden:
        raise SystemExit(f"--init {start['folder']}: hidden size {start['architecture']['hidden_size']}, the cache "
                         f"has {hidden}")


def load_into(model, w: dict):
    import torch
    names = {k.replace("block.", ""): k for k in model.state_dict()}
    sd = {names[k]: torch.tensor(v) for k, v in w.items()}
    model.load_state_dict(sd, strict=True)


def parity_random(kind: str, seed: int = 0) -> float:
    """max |torch - numpy reference| (relative to the logit scale) of random weights on random inputs."""
    import torch
    H, V, vd = 48, 300, 120
    cfg = dict(gdh.DEFAULTS[kind], hidden_size=H)
    if kind != "medusa":
        cfg["heads"], cfg["ffn"] = 4, 96
    vocab = sorted(set(range(0, 2 * vd, 2)) | {0, 1})[:vd]
    cfg["index"] = gdh.draft_index(vocab, V)
    rng = np.random.default_rng(seed)
    w = gdh.random_weights(kind, H, vd, cfg["slots"], cfg["window"], cfg.get("ffn", 0), seed)
    w = {k: (v + rng.normal(0, 0.05, v.shape)).astype(np.float32) for k, v in w.items()}
    M = build_modules()[kind](H=H, vd=vd, slots=cfg["slots"], window=cfg["window"], heads=cfg.get("heads"),
                              ffn=cfg.get("ffn"), index=cfg["index"])
    load_into(M, w)
    with torch.no_grad():
        if kind == "medusa":
            h = rng.normal(0, 3, (1, H))
            t = {"logits": M(torch.tensor(h, dtype=torch.float32))[0].numpy()}
            r = gdh.reference(kind, w, cfg, h)
        elif kind == "ctc":
            h = rng.normal(0, 3, (1, cfg["window"], H))
            m = np.ones((1, cfg["window"]))
            m[:, :3], h[:, :3] = 0, 0
            t = {"logits": M(torch.tensor(h, dtype=torch.float32), torch.tensor(m))[0].numpy()}
            r = gdh.reference(kind, w, cfg, h[0], mask=m[0])
        else:
            h = rng.normal(0, 3, (1, 7, H))
            ids = rng.integers(0, V, (1, 7))
            f, lg = M(torch.tensor(h, dtype=torch.float32), torch.tensor(ids))
            t = {"features": f[0].numpy(), "logits": lg[0].numpy()}
            r = gdh.reference(kind, w, cfg, h[0], input_ids=ids[0])
    worst = max(float(np.abs(t[k] - r[k]).max() / max(1.0, np.abs(r[k]).max())) for k in r)
    log(f"parity {kind}: max |torch - reference| (relative) = {worst:.2e}")
    return worst


# ---------------------------------------------------------------------------------------------------------------
# Data

class Cache:
    def __init__(self, d: str):
        with open(os.path.join(d, "index.json")) as f:
            self.index = json.load(f)
        n = self.index["tokens"]
        self.hidden = np.load(os.path.join(d, "hidden.npy"), mmap_mode="r")[:n]
        self.argmax = np.load(os.path.join(d, "argmax.npy"))[:n].astype(np.int64)
        self.tokens = np.load(os.path.join(d, "tokens.npy"))[:n].astype(np.int64)
        self.topk_ids = np.load(os.path.join(d, "topk_ids.npy"))[:n].astype(np.int64)
        self.topk_logits = np.load(os.path.join(d, "topk_logits.npy"))[:n].astype(np.float32)
        self.end = np.zeros(n, np.int64)  # exclusive end of the chunk each position is in
        self.start = np.zeros(n, np.int64)
        self.split = np.zeros(n, bool)  # True = eval
        for c in self.index["chunks"]:
            o, ln = c["offset"], c["length"]
            self.end[o:o + ln] = o + ln
            self.start[o:o + ln] = o
            self.split[o:o + ln] = c["split"] == "eval"
        self.head_rows = np.load(os.path.join(d, "target_head.npy")).astype(np.float32)
        self.final_norm = np.load(os.path.join(d, "target_final_norm.npy")).astype(np.float32)


def positions(cache: Cache, split_eval: bool, margin: int) -> np.ndarray:
    """Positions t of the split with t + margin < chunk end (room for the labels)."""
    idx = np.arange(len(cache.argmax))
    return idx[(cache.split == split_eval) & (idx + margin < cache.end)]


def windows(cache: Cache, ts: np.ndarray, W: int) -> tuple:
    """[B, W] absolute indices of the W newest positions ending at t (oldest first), mask 1 = real."""
    rel = np.arange(-W + 1, 1)
    ix = ts[:, None] + rel[None]
    mask = ix >= cache.start[ts][:, None]
    return np.where(mask, ix, 0), mask.astype(np.int64)


# ---------------------------------------------------------------------------------------------------------------
# Training

def train(a) -> int:
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    start = read_init(a.init, a.kind) if a.init else None
    t_load = time.time()
    cache = Cache(a.cache)
    hidden = torch.from_numpy(np.ascontiguousarray(cache.hidden))  # fp16, in RAM
    n = len(cache.argmax)
    train_mask = ~cache.split
    V = cache.head_rows.shape[0]
    H = cache.hidden.shape[1]
    # always in the draft vocabulary: SmolLM2's special ids 0, 1, 2 and the target's own stop ids (Qwen2.5:
    # <|endoftext|> 151643, <|im_end|> 151645), so a draft can end a turn where the target does
    with open(os.path.join(a.target, "manifest.json")) as f:
        stops = tuple(json.load(f)["tokens"].get("stop_ids") or ())
    always = tuple(sorted(set(gdh.STOP_IDS) | set(stops)))
    if start:
        check_init_hidden(start, H)
        # Fine-tuning keeps the head's own draft vocabulary (its output rows are indexed by it).
        vocab = start["vocab"]
    else:
        vocab = gdh.build_draft_vocab(cache.argmax[train_mask], a.draft_vocab, V, always=always)
    index = gdh.draft_index(vocab, V)
    vd = len(vocab)
    cov = {"coverage": round(gdh.coverage(cache.argmax[~train_mask], vocab, V), 4),
           "coverage_train": round(gdh.coverage(cache.argmax[train_mask], vocab, V), 4),
           "measured_on": "the target's argmax predictions (the tokens a greedy run commits), held-out split; "
                          "coverage_train: the training split the vocabulary was chosen on"}
    log(f"cache {n:,} positions ({train_mask.sum():,} train), H {H}, V {V}; draft vocab {vd}, coverage "
        f"{cov['coverage']:.4f} held out ({cov['coverage_train']:.4f} train); loaded in {time.time() - t_load:.0f}s")
    kind = a.kind
    d = dict(gdh.DEFAULTS[kind])
    for k in ("slots", "window", "heads", "ffn"):
        if start:
            d[k] = start["architecture"].get(k, d.get(k))
            if getattr(a, k, None) and getattr(a, k) != d[k]:
                log(f"--{k} {getattr(a, k)} ignored: fine-tuning keeps the head's own {k} = {d[k]}")
        elif getattr(a, k, None):
            d[k] = getattr(a, k)
    if kind == "medusa":
        d["window"] = 1
    arch = dict(d, hidden_size=H)
    M = build_modules()[kind](H=H, vd=vd, index=index, **d)
    # initialise from the target: output rows, output norm; ctc/eagle small random elsewhere, eagle fc = pass-through
    init = gdh.random_weights(kind, H, vd, d["slots"], d["window"], d.get("ffn", 0), a.seed,
                              cache.head_rows[vocab], cache.final_norm)
    if kind == "eagle":  # embedding and output rows = the target's (the exporter rebuilds them the same way)
        init.update(gdh.target_rows_weights(cache.head_rows, vocab))
    if start:
        init.update(start["weights"])
        log(f"fine-tuning {a.init} ({len(start['weights'])} tensors, its draft vocabulary of {vd})")
    load_into(M, init)
    if a.target_rows:
        for name in gdh.TARGET_ROWS:
            M.get_parameter(name).requires_grad_(False)
        arch["target_rows"] = list(gdh.TARGET_ROWS)
    n_params = sum(p.numel() for p in M.parameters())
    n_trained = sum(p.numel() for p in M.parameters() if p.requires_grad)
    log(f"{kind}: {n_params / 1e6:.2f}M parameters ({n_trained / 1e6:.2f}M trained), {json.dumps(arch)}")
    decay = [p for _, p in M.named_parameters() if p.dim() >= 2 and p.requires_grad]
    no_decay = [p for _, p in M.named_parameters() if p.dim() < 2 and p.requires_grad]
    # --ctc-weight: the blank's output row, trained with the head but not part of it (never exported), starting as
    # the mean output row so a blank is as likely as an average token
    blank = None
    if a.ctc_weight:
        blank = torch.nn.Parameter(M.lm_head.weight.detach().float().mean(0).clone())
        no_decay.append(blank)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=a.lr, betas=(0.9, 0.95))
    N, W, L = d["slots"], d["window"], a.label_len
    margin = {"medusa": N + 1, "ctc": L + 1, "eagle": W + 1}[kind]
    train_pos = positions(cache, False, margin)
    if kind == "eagle":  # sequences of W pairs: start i with i + W < chunk end
        train_pos = train_pos[train_pos + W < cache.end[train_pos]]
    eval_pos = positions(cache, True, 5)
    eval_pos = np.sort(np.random.default_rng(1234).choice(eval_pos, min(a.eval_positions, len(eval_pos)),
                                                          replace=False))
    log(f"{len(train_pos):,} training positions, {len(eval_pos):,} held-out eval positions")
    n_epoch = len(train_pos) if kind != "eagle" else int((~cache.split).sum())
    arg_t = torch.from_numpy(cache.argmax)
    idx_t = torch.from_numpy(index)
    tok_t = torch.from_numpy(cache.tokens)
    budget = a.max_minutes * 60
    t0 = time.time()

    def lr_at(step):
        if step < a.warmup:
            return a.lr * (step + 1) / a.warmup
        frac = max((step - a.warmup) / max(1, a.steps - a.warmup), (time.time() - t0) / budget)
        return a.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))

    def batch_loss(ts):
        ts_t = torch.from_numpy(ts)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.bf16):
            if kind == "medusa":
                logits = M(hidden[ts_t].float())  # [B, N, Vd]
                loss, parts = 0.0, []
                for j in range(N):
                    y = idx_t[arg_t[ts_t + 1 + j]]
                    lj = F.cross_entropy(logits[:, j].float(), y, ignore_index=-1)
                    parts.append(lj.item())
                    loss = loss + (0.8 ** j) * lj
                return loss / sum(0.8 ** j for j in range(N)), parts
            if kind == "ctc":
                ix, mask = windows(cache, ts, W)
                h = hidden[torch.from_numpy(ix)].float() * torch.from_numpy(mask)[..., None]
                labels = [gdh.ctc_labels(cache.argmax[:cache.end[t]], int(t), L, index) for t in ts]
                keep = [i for i, lb in enumerate(labels) if lb]
                logits = M(h[keep], torch.from_numpy(mask[keep]))
                lp = F.log_softmax(logits.float(), -1).transpose(0, 1)  # [N, B, Vd+1]
                tl = torch.tensor([len(labels[i]) for i in keep])
                tgt = torch.cat([torch.tensor(labels[i]) for i in keep])
                loss = F.ctc_loss(lp, tgt, torch.full((len(keep),), N, dtype=torch.long), tl, blank=vd,
                                  reduction="mean", zero_infinity=True)
                return loss, [loss.item()]
            # eagle: sequences i .. i+W-1, pairs (h_i, x_{i+1})
            ix = torch.from_numpy(ts[:, None] + np.arange(W)[None])
            h = hidden[ix].float()
            if a.feature_noise:
                h = h + a.feature_noise * torch.randn_like(h) * h.pow(2).mean(-1, keepdim=True).sqrt()
            feats, logits = M(h, tok_t[ix + 1])
            nxt = hidden[ix + 1].float()
            rms = lambda x: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + gdh.EPS)  # noqa: E731
            l_feat = F.smooth_l1_loss(rms(feats.float()), rms(nxt))
            # soft CE against the target's top-8 at i+1 (in-vocab entries, renormalised)
            tid = torch.from_numpy(cache.topk_ids)[ix + 1]  # [B, W, 8]
            tlog = torch.from_numpy(cache.topk_logits)[ix + 1]
            did = idx_t[tid]
            tlog = torch.where(did >= 0, tlog, torch.full_like(tlog, -1e4))
            p = torch.softmax(tlog, -1) * (did >= 0)
            lp = F.log_softmax(logits.float(), -1)
            l_ce = -(p * torch.gather(lp, -1, did.clamp(min=0))).sum(-1).mean()
            if blank is None:
                return l_feat + a.ce_weight * l_ce, [l_feat.item(), l_ce.item()]
            arg_end = [cache.argmax[:cache.end[t]] for t in ts]
            l_ctc, _ = eagle_ctc_term(logits, M.out_norm(feats).float() @ blank,
                                      lambda r, j: gdh.ctc_labels(arg_end[r], int(ts[r]) + j, L, index))
            l_ctc = l_ctc if l_ctc is not None else torch.zeros(())
            return (l_feat + a.ce_weight * l_ce + a.ctc_weight * l_ctc,
                    [l_feat.item(), l_ce.item(), l_ctc.item()])

    curve = []
    step, seen, stopped = 0, 0, "steps"
    M.train()
    order = rng.permutation(train_pos)
    p = 0
    while step < a.steps:
        if time.time() - t0 > budget:
            stopped = "max_minutes"
            break
        if p + a.batch > len(order):
            order, p = rng.permutation(train_pos), 0
        ts = order[p:p + a.batch]
        p += a.batch
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        loss, parts = batch_loss(ts)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(M.parameters(), 1.0)
        opt.step()
        step += 1
        seen += len(ts) * (W if kind == "eagle" else 1)  # positions with a loss
        if step % a.log_every == 0 or step == 1:
            el = time.time() - t0
            curve.append({"step": step, "loss": round(loss.item(), 4), "parts": [round(x, 4) for x in parts],
                          "seconds": round(el, 1), "epoch": round(seen / n_epoch, 3)})
            log(f"{kind} step {step} loss {loss.item():.4f} {[round(x, 3) for x in parts]} lr {lr_at(step):.2e} "
                f"{seen / el:.0f} pos/s, epoch {seen / n_epoch:.2f}, {el / 60:.1f} min")
        if a.eval_every and step % a.eval_every == 0:
            e = evaluate(M, kind, cache, hidden, eval_pos, index, vocab, d, L)
            log(f"{kind} eval step {step}: {json.dumps(e)}")
            M.train()
    wall = time.time() - t0
    ev = evaluate(M, kind, cache, hidden, eval_pos, index, vocab, d, L)
    log(f"{kind} final eval after {step} steps ({wall / 60:.1f} min): {json.dumps(ev)}")
    save(a, M, kind, arch, vocab, cov, cache, curve, ev, step, seen, wall, stopped, n_params, n_epoch, always)
    return 0


def evaluate(M, kind, cache, hidden, eval_pos, index, vocab, d, L, depths: int = 3) -> dict:
    """Per-depth top-1 agreement with the target's argmax on held-out positions (see the module docstring)."""
    import torch
    M.eval()
    vocab_np = np.asarray(vocab)
    N, W = d["slots"], d["window"]
    preds = np.full((len(eval_pos), depths), -1, np.int64)  # target ids
    with torch.no_grad():
        for s in range(0, len(eval_pos), 256):
            ts = eval_pos[s:s + 256]
            if kind == "medusa":
                lg = M(hidden[torch.from_numpy(ts)].float())
                preds[s:s + len(ts), :min(N, depths)] = vocab_np[lg.argmax(-1).numpy()[:, :depths]]
            elif kind == "ctc":
                ix, mask = windows(cache, ts, W)
                h = hidden[torch.from_numpy(ix)].float() * torch.from_numpy(mask)[..., None]
                fr = M(h, torch.from_numpy(mask)).argmax(-1).numpy()
                for r, row in enumerate(fr):
                    seq = gdh.ctc_collapse(row, blank=len(vocab))[:depths]
                    preds[s + r, :len(seq)] = vocab_np[seq]
            else:
                for r, t in enumerate(ts):
                    lo = max(int(cache.start[t]), int(t) - W + 1)
                    h = hidden[lo:t + 1].float()[None]
                    ids = torch.from_numpy(cache.tokens[lo + 1:t + 2])[None]
                    for k in range(depths):
                        f, lg = M(h[:, -W:], ids[:, -W:])
                        dtok = int(vocab_np[int(lg[0, -1].argmax())])
                        preds[s + r, k] = dtok
                        h = torch.cat([h, f[:, -1:]], 1)
                        ids = torch.cat([ids, torch.tensor([[dtok]])], 1)
    truth = np.stack([cache.argmax[eval_pos + 1 + k] for k in range(depths)], 1)
    valid = np.stack([eval_pos + 1 + k < cache.end[eval_pos] for k in range(depths)], 1)
    hit = (preds == truth) & valid
    cum = np.cumprod(hit, 1).astype(bool)
    out = {"positions": int(len(eval_pos)),
           "depth_top1": [round(float(hit[:, k].sum() / max(1, valid[:, k].sum())), 4) for k in range(depths)],
           "cumulative": [round(float(cum[:, k].sum() / max(1, valid[:, k].sum())), 4) for k in range(depths)],
           "mean_accepted_chain3": round(float(cum.sum(1).mean()), 4),
           "oracle_in_vocab": [round(float((index[truth[:, k]] >= 0)[valid[:, k]].mean()), 4) for k in range(depths)]}
    if kind == "ctc":
        out["note"] = "greedy CTC collapse; depth k counts only when the collapsed draft has >= k tokens"
        out["draft_len_mean"] = round(float((preds >= 0).sum(1).mean()), 3)
    return out


def save(a, M, kind, arch, vocab, cov, cache, curve, ev, step, seen, wall, stopped, n_params, n_train,
         always=(0, 1, 2)):
    import torch
    from safetensors.torch import save_file
    os.makedirs(a.out, exist_ok=True)
    # frozen target rows (--target-rows) are the target's, not the head's: the exporter reads them from the target
    skip = set(arch.get("target_rows") or ())
    sd = {k: v.detach().to(torch.float16).contiguous() for k, v in state_dict_names(M.state_dict()).items()
          if k not in skip}
    save_file(sd, os.path.join(a.out, "model.safetensors"))
    with open(os.path.join(a.out, "draft_vocab.json"), "w") as f:
        json.dump([int(i) for i in vocab], f)
        f.write("\n")
    target = gdh.read_target(a.target)
    idx = cache.index
    man = {
        "model": os.path.basename(os.path.normpath(a.out)), "final": True, "stopped_by": stopped,
        "head": {"kind": kind, "slots": arch["slots"], "window": arch["window"], "draft_vocab_size": len(vocab),
                 "blank_id": len(vocab) if kind == "ctc" else None, "label_len": a.label_len if kind == "ctc" else None},
        "architecture": arch, "parameters": n_params,
        "parameters_trained": sum(p.numel() for p in M.parameters() if p.requires_grad), "target": target,
        "draft_vocab": {"file": "draft_vocab.json", "size": len(vocab),
                        "rule": (f"kept from the head it fine-tunes ({a.init})" if a.init else
                                 f"the {a.draft_vocab} most frequent target argmax ids of the training split + ids "
                                 f"{list(always)} (special/stop); sorted by target id"),
                        **cov},
        "data": {"cache": a.cache, "cache_tokens": idx["tokens"], "tokens_by_source": idx["tokens_by_source"],
                 "cache_target": idx["target"], "cache_wall_seconds": idx["wall_seconds"],
                 "sources": idx["data"]["sources"], "bench_exclusion": idx["data"]["bench_exclusion"],
                 "split": idx["data"]["split"], "training_positions": n_train,
                 "self_distilled_answers": idx["data"].get("self_distilled_answers", 0)},
        "training": {"args": {k: v for k, v in vars(a).items() if k not in ("cmd",)}, "steps_done": step,
                     "positions_seen": seen, "epochs": round(seen / max(1, n_train), 3),
                     "wall_seconds": round(wall, 1), "torch": torch.__version__, "threads": a.threads,
                     "init": ({"from": a.init, "model_sha256": sha256_file(os.path.join(a.init, "model.safetensors"))}
                              if a.init else None)},
        "loss_curve": curve, "eval": ev,
    }
    files = sorted(f for f in os.listdir(a.out) if f != "MANIFEST.json")
    man["sha256"] = {f: sha256_file(os.path.join(a.out, f)) for f in files}
    with open(os.path.join(a.out, "MANIFEST.json"), "w") as f:
        json.dump(man, f, indent=1)
    log(f"saved {a.out}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("train")
    r.add_argument("--kind", choices=gdh.KINDS, required=True)
    r.add_argument("--cache", default=".cache/heads")
    r.add_argument("--target", default="models/smollm2-135m-instruct-int4",
                   help="the target the head is bound to (its manifest + tokenizer; same checkpoint as the cache)")
    r.add_argument("--out", required=True)
    r.add_argument("--draft-vocab", type=int, default=8192)
    r.add_argument("--slots", type=int, default=None)
    r.add_argument("--window", type=int, default=None)
    r.add_argument("--heads", type=int, default=None)
    r.add_argument("--ffn", type=int, default=None)
    r.add_argument("--label-len", type=int, default=3, help="ctc: label length L")
    r.add_argument("--batch", type=int, default=None, help="positions (medusa/ctc) or sequences (eagle) per step")
    r.add_argument("--steps", type=int, default=100000)
    r.add_argument("--lr", type=float, default=5e-4)
    r.add_argument("--warmup", type=int, default=100)
    r.add_argument("--ce-weight", type=float, default=0.5, help="eagle: soft CE weight (feature loss weight 1)")
    r.add_argument("--ctc-weight", type=float, default=0.0,
                   help="eagle: weight of the auxiliary CTC term (the CTC drafter's public recipe: 0.01; 0 = off)")
    r.add_argument("--feature-noise", type=float, default=0.0, help="eagle: relative Gaussian noise on inputs")
    r.add_argument("--target-rows", action="store_true",
                   help="eagle: embedding and output rows = the target's own, frozen, not stored (EAGLE-1)")
    r.add_argument("--max-minutes", type=float, default=90.0)
    r.add_argument("--init", default=None,
                   help="fine-tune this trained head folder (its weights, draft vocabulary and architecture)")
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=False,
                   help="bf16 autocast (only where the CPU has AVX512-BF16: 4x SLOWER than fp32 without it)")
    r.add_argument("--log-every", type=int, default=25)
    r.add_argument("--eval-every", type=int, default=0)
    r.add_argument("--eval-positions", type=int, default=1500)
    sub.add_parser("parity", help="torch modules vs the exporter's numpy reference, random weights")
    a = ap.parse_args(argv)
    if a.cmd == "parity":
        return 0 if max(parity_random(k) for k in gdh.KINDS) < 1e-4 else 1
    if a.target_rows and a.kind != "eagle":
        raise SystemExit("--target-rows is for --kind eagle (its embedding and output rows come from the target)")
    if a.ctc_weight and a.kind != "eagle":
        raise SystemExit("--ctc-weight is for --kind eagle (the CTC head is trained with the CTC loss itself)")
    if a.ctc_weight < 0:
        raise SystemExit(f"--ctc-weight {a.ctc_weight}: must be >= 0")
    if a.batch is None:
        a.batch = {"medusa": 256, "ctc": 128, "eagle": 16}[a.kind]
    random.seed(a.seed)
    return train(a)


if __name__ == "__main__":
    sys.exit(main())
