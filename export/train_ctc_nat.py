"""Training recipe: a CTC non-autoregressive (NAT) English->German translator and its autoregressive baseline.

CTCPMLM-style (docs/METHODS.md section 5): a bidirectional encoder reads the source upsampled by MASK insertion (rate r:
every source token is followed by r-1 <mask> tokens, fractional rates spread the masks evenly, the length is
clipped to the position limit) and predicts, at every position, a target token or <blank>; CTC loss marginalises
over alignments; greedy decoding = argmax, merge repeats, drop blanks. The AR baseline (`--model ar`) is a
Llama-architecture decoder of the same width, depth and vocabulary trained on `<s> source <sep> target </s>` with
the loss on the target side, on the SAME pairs in the SAME order for the SAME number of steps, so the comparison
is fair. It is written as a Hugging Face folder and exported with `python -m export safetensors`, so the engine
runs it through the regular AR path.

    # once: pairs and the shared tokenizer (a byte-level BPE trained on the training split only)
    python -m export.translation_pairs --out .cache/translation-pairs
    python -m export.train_ctc_nat tokenizer --data .cache/translation-pairs --out export/trained/tokenizer-en-de
    # the two models (run them one after the other, or side by side with --threads 1 each)
    python -m export.train_ctc_nat train --model nat --preset cpu-90min --out export/trained/ctc-nat-en-de
    python -m export.train_ctc_nat train --model ar  --preset cpu-90min --out export/trained/ar-en-de

Needs torch (a separate venv: `make train-env`; torch is not part of CI, the tests use the committed weights).
Initialisation is from scratch: SmolLM2's 49k-token vocabulary would make every step ~2x slower (RECIPES.md), and
the pretrained MLM the paper starts from does not exist offline. `--distill-weight W` adds embedding
distillation: the encoder's final hidden state at each position is pulled (cosine) toward the embedding of the
token the best CTC alignment puts there (blank positions excluded); it is off in the preset.

Outputs (committed; a few MB each): model.safetensors (fp16), tokenizer.json, and MANIFEST.json with the data
sources and split, the arguments, steps, pairs seen, the loss curve, dev scores, wall time and sha256 of every file.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time

from .manifest import sha256_file

SPECIALS = ["<pad>", "<s>", "</s>", "<unk>", "<mask>", "<blank>", "<sep>"]
PRESETS = {
    # Sized so one model finishes in well under 90 minutes on 2 CPU cores (measured numbers in the MANIFEST).
    "cpu-90min": dict(layers=4, dim=256, heads=4, ffn=768, steps=5000, batch_pairs=64, lr=1e-3, warmup=300),
    # A smoke run: proves the whole recipe end to end in about a minute.
    "smoke": dict(layers=2, dim=64, heads=2, ffn=128, steps=30, batch_pairs=16, lr=1e-3, warmup=5),
}


def cpu_has_bf16() -> bool:
    """Whether the CPU computes bf16 natively (AVX512-BF16 or AMX). Without it, torch's bf16 autocast is
    emulated: measured on an AMD EPYC (Zen 3, AVX2), a [2560 x 256] x [256 x 768] matmul forward+backward at one
    thread took 824 ms in bf16 against 28 ms in fp32, so the recipe ran 28x slower than in fp32."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = set(next((l for l in f if l.startswith("flags")), "").split())
    except OSError:
        return False
    return bool(flags & {"avx512_bf16", "amx_bf16"})


def log(msg: str) -> None:
    print(f"[train] {msg}", file=sys.stderr, flush=True)


def read_pairs(path: str) -> list:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


# ---------------------------------------------------------------------------------------------------------------
# Upsampling (mirrors engine/strategy/nat/upsample.rs; both are tested on the same cases)

def upsample_length(n_src: int, rate: float, limit: int) -> int:
    """Output length for n_src source tokens: round(rate * n) (halves away from zero, like Rust's f64::round;
    Python's round() would round halves to even), at least n, clipped to the position limit."""
    return max(min(int(math.floor(rate * n_src + 0.5)), limit), min(n_src, limit))


def upsample(src: list, rate: float, limit: int, mask_id: int) -> list:
    """Source ids with <mask> inserted: position j of the output holds source token i when j == floor(i * L / n)
    (L the output length), masks elsewhere, so fractional rates spread the masks evenly. A source longer than
    the limit is truncated (the engine refuses it instead, with an error)."""
    n = min(len(src), limit)
    if n == 0:
        return []
    length = upsample_length(n, rate, limit)
    out = [mask_id] * length
    for i in range(n):
        out[(i * length) // n] = src[i]
    return out


# ---------------------------------------------------------------------------------------------------------------
# Tokenizer

def train_tokenizer(data: str, out: str, vocab_size: int) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    pairs = read_pairs(os.path.join(data, "train.jsonl"))
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIALS, min_frequency=2,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)

    def texts():
        for p in pairs:
            yield p["en"]
            yield p["de"]
    tok.train_from_iterator(texts(), trainer=trainer, length=2 * len(pairs))
    for i, s in enumerate(SPECIALS):
        assert tok.token_to_id(s) == i, (s, tok.token_to_id(s))
    os.makedirs(out, exist_ok=True)
    tok.save(os.path.join(out, "tokenizer.json"))
    n_en = sum(len(tok.encode(p["en"]).ids) for p in pairs[:2000]) / 2000
    n_de = sum(len(tok.encode(p["de"]).ids) for p in pairs[:2000]) / 2000
    meta = {"kind": "byte-level BPE", "vocab_size": tok.get_vocab_size(), "specials": SPECIALS,
            "trained_on": os.path.join(data, "train.jsonl") + " (en + de)", "pairs": len(pairs),
            "mean_tokens_en": round(n_en, 2), "mean_tokens_de": round(n_de, 2),
            "sha256": {"tokenizer.json": sha256_file(os.path.join(out, "tokenizer.json"))}}
    with open(os.path.join(out, "MANIFEST.json"), "w") as f:
        json.dump(meta, f, indent=2)
    log(f"tokenizer: vocab {tok.get_vocab_size()}, mean tokens en {n_en:.1f} de {n_de:.1f} -> {out}")


# ---------------------------------------------------------------------------------------------------------------
# Models (torch is imported lazily so `python -m export` never needs it)

def build_models():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class RMSNorm(nn.Module):
        def __init__(self, dim, eps=1e-6):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(dim))
            self.eps = eps

        def forward(self, x):
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype) * self.weight

    def rotate_half(x):
        a, b = x.chunk(2, dim=-1)
        return torch.cat((-b, a), dim=-1)

    class Block(nn.Module):
        """Pre-norm Llama block; HF names so the AR model saves as a LlamaForCausalLM folder."""

        def __init__(self, dim, heads, ffn):
            super().__init__()
            self.heads, self.hd = heads, dim // heads
            self.input_layernorm = RMSNorm(dim)
            self.q_proj = nn.Linear(dim, dim, bias=False)
            self.k_proj = nn.Linear(dim, dim, bias=False)
            self.v_proj = nn.Linear(dim, dim, bias=False)
            self.o_proj = nn.Linear(dim, dim, bias=False)
            self.post_attention_layernorm = RMSNorm(dim)
            self.gate_proj = nn.Linear(dim, ffn, bias=False)
            self.up_proj = nn.Linear(dim, ffn, bias=False)
            self.down_proj = nn.Linear(ffn, dim, bias=False)

        def forward(self, x, mask=None, causal=False, rope=None):
            b, t, d = x.shape
            h = self.input_layernorm(x)
            q, k, v = (p(h).view(b, t, self.heads, self.hd).transpose(1, 2) for p in (self.q_proj, self.k_proj, self.v_proj))
            if rope is not None:
                cos, sin = rope
                q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
            x = x + self.o_proj(a.transpose(1, 2).reshape(b, t, d))
            h = self.post_attention_layernorm(x)
            return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))

    class CtcNat(nn.Module):
        """Bidirectional encoder; learned positions (the position limit is the table size); tied output head."""

        def __init__(self, vocab, dim, heads, ffn, layers, positions):
            super().__init__()
            self.embed = nn.Embedding(vocab, dim)
            self.pos = nn.Embedding(positions, dim)
            self.layers = nn.ModuleList(Block(dim, heads, ffn) for _ in range(layers))
            self.norm = RMSNorm(dim)
            nn.init.normal_(self.embed.weight, std=0.02)
            nn.init.normal_(self.pos.weight, std=0.02)

        def forward(self, ids, keep):  # keep: [B, T] bool, True for real positions
            x = self.embed(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))[None]
            mask = keep[:, None, None, :]
            for layer in self.layers:
                x = layer(x, mask=mask)
            h = self.norm(x)
            return h @ self.embed.weight.t(), h

    class ArDecoder(nn.Module):
        """LlamaForCausalLM-equivalent (rotate_half rotary, theta 10000, tied embeddings)."""

        def __init__(self, vocab, dim, heads, ffn, layers, positions):
            super().__init__()
            self.embed_tokens = nn.Embedding(vocab, dim)
            self.layers = nn.ModuleList(Block(dim, heads, ffn) for _ in range(layers))
            self.norm = RMSNorm(dim)
            hd = dim // heads
            inv = 1.0 / (10000.0 ** (torch.arange(0, hd, 2).float() / hd))
            f = torch.outer(torch.arange(positions).float(), inv)
            emb = torch.cat((f, f), dim=-1)
            self.register_buffer("cos", emb.cos(), persistent=False)
            self.register_buffer("sin", emb.sin(), persistent=False)
            nn.init.normal_(self.embed_tokens.weight, std=0.02)

        def forward(self, ids):
            t = ids.shape[1]
            rope = (self.cos[:t][None, None].to(torch.get_default_dtype()), self.sin[:t][None, None])
            x = self.embed_tokens(ids)
            for layer in self.layers:
                x = layer(x, causal=True, rope=rope)
            return self.norm(x) @ self.embed_tokens.weight.t()

    return CtcNat, ArDecoder


def ctc_greedy(ids: list, blank: int) -> list:
    out, prev = [], None
    for t in ids:
        if t != prev and t != blank:
            out.append(t)
        prev = t
    return out


# ---------------------------------------------------------------------------------------------------------------
# Training

def target_vocab(data: str, tokenizer: str, out: str) -> dict:
    """Writes out/target_vocab.json: every token id that occurs in a German side of the training split, plus
    <blank>. A CTC model is only ever trained to emit these (every other id is a target of no position), so the
    exporter may restrict the output head to them (`python -m export ctc-nat --output-vocab`)."""
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(os.path.join(tokenizer, "tokenizer.json"))
    path = os.path.join(data, "train.jsonl")
    pairs = read_pairs(path)
    ids = {tok.token_to_id("<blank>")}
    for e in tok.encode_batch([p["de"] for p in pairs]):
        ids.update(e.ids)
    doc = {"what": "token ids of every German side of the training split, plus <blank>",
           "data": os.path.basename(path), "data_sha256": sha256_file(path), "pairs": len(pairs),
           "tokenizer_sha256": sha256_file(os.path.join(tokenizer, "tokenizer.json")),
           "vocab": tok.get_vocab_size(), "count": len(ids), "ids": sorted(ids)}
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "target_vocab.json"), "w") as f:
        json.dump(doc, f)
        f.write("\n")
    log(f"target vocabulary: {len(ids)} of {tok.get_vocab_size()} ids -> {out}/target_vocab.json")
    return doc


def encode_pairs(tok, pairs: list, max_len: int) -> list:
    en = tok.encode_batch([p["en"] for p in pairs])
    de = tok.encode_batch([p["de"] for p in pairs])
    out = []
    for p, e, d in zip(pairs, en, de):
        if 0 < len(e.ids) <= max_len and 0 < len(d.ids) <= max_len:
            out.append((e.ids, d.ids, p))
    return out


def ctc_feasible(src_len: int, tgt: list, rate: float, limit: int) -> bool:
    repeats = sum(1 for a, b in zip(tgt, tgt[1:]) if a == b)
    return len(tgt) + repeats <= upsample_length(src_len, rate, limit)


AR_POSITIONS = 256  # rotary table of the AR baseline: >= padded(1 + 2 * max_tokens + 2)
PAD_MULTIPLE = 16  # batch lengths are rounded up to this: few distinct shapes keep oneDNN's caches and the
# allocator from growing without bound (seen with one shape per length: RSS grew ~0.3 GB/minute)


def padded(n: int) -> int:
    return -(-n // PAD_MULTIPLE) * PAD_MULTIPLE


def make_batches(data: list, batch_pairs: int, rng: random.Random) -> list:
    """Length-bucketed batches (sorted by source length, chunked, shuffled): little padding, same for both models."""
    order = sorted(range(len(data)), key=lambda i: (len(data[i][0]), rng.random()))
    batches = [order[i:i + batch_pairs] for i in range(0, len(order), batch_pairs)]
    rng.shuffle(batches)
    return batches


def train(a) -> int:
    import torch
    import torch.nn.functional as F
    from tokenizers import Tokenizer

    preset = dict(PRESETS[a.preset])
    for k in preset:
        v = getattr(a, k, None)
        if v is not None:
            preset[k] = v
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    if a.bf16 is None:
        a.bf16 = cpu_has_bf16()
    log(f"bf16 autocast {'on' if a.bf16 else 'off'} ({'native bf16 on this CPU' if cpu_has_bf16() else 'no native bf16 on this CPU'})")
    tok = Tokenizer.from_file(os.path.join(a.tokenizer, "tokenizer.json"))
    vocab = tok.get_vocab_size()
    mask_id, blank_id, pad_id = tok.token_to_id("<mask>"), tok.token_to_id("<blank>"), tok.token_to_id("<pad>")
    bos_id, eos_id, sep_id = tok.token_to_id("<s>"), tok.token_to_id("</s>"), tok.token_to_id("<sep>")
    train_pairs = read_pairs(os.path.join(a.data, "train.jsonl"))
    dev_pairs = read_pairs(os.path.join(a.data, "dev.jsonl"))[: a.dev_pairs]
    if padded(2 * a.max_tokens + 3) > AR_POSITIONS:
        raise SystemExit(f"--max-tokens {a.max_tokens} is too long for the AR baseline's {AR_POSITIONS} positions")
    data = encode_pairs(tok, train_pairs, a.max_tokens)
    # The NAT can only learn pairs whose target fits the upsampled source; the AR model trains on the same subset.
    feasible = [x for x in data if ctc_feasible(len(x[0]), x[1], a.rate, a.positions)]
    log(f"{len(train_pairs)} train pairs, {len(data)} within {a.max_tokens} tokens, {len(feasible)} CTC-feasible "
        f"at rate {a.rate}; dev {len(dev_pairs)}")
    data = feasible
    CtcNat, ArDecoder = build_models()
    dims = dict(vocab=vocab, dim=preset["dim"], heads=preset["heads"], ffn=preset["ffn"], layers=preset["layers"])
    if a.model == "nat":
        model = CtcNat(positions=a.positions, **dims)
    else:
        model = ArDecoder(positions=AR_POSITIONS, **dims)
    n_params = sum(p.numel() for p in model.parameters())
    log(f"model {a.model}: {n_params / 1e6:.2f}M parameters, {json.dumps(preset)}")
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=preset["lr"], betas=(0.9, 0.98), eps=1e-8)
    steps, warmup = preset["steps"], preset["warmup"]

    budget_s = a.max_minutes * 60 if a.max_minutes else None

    def lr_at(s):
        """Linear warmup, then cosine to 10% over the budget: steps, or wall time when --max-minutes comes
        first (progress = the further along of the two), so a time-limited run still ends annealed."""
        if s < warmup:
            return preset["lr"] * (s + 1) / warmup
        frac = (s - warmup) / max(1, steps - warmup)
        if budget_s:
            frac = max(frac, (time.time() - t0) / budget_s)
        return preset["lr"] * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))

    def nat_batch(items):
        ups = [upsample(s, a.rate, a.positions, mask_id) for s, _, _ in items]
        t = min(padded(max(map(len, ups))), a.positions)
        ids = torch.full((len(items), t), pad_id, dtype=torch.long)
        for i, u in enumerate(ups):
            ids[i, : len(u)] = torch.tensor(u)
        in_lens = torch.tensor([len(u) for u in ups])
        tgt = [d for _, d, _ in items]
        tl = max(map(len, tgt))
        targets = torch.full((len(items), tl), pad_id, dtype=torch.long)
        for i, d in enumerate(tgt):
            targets[i, : len(d)] = torch.tensor(d)
        return ids, in_lens, targets, torch.tensor([len(d) for d in tgt])

    def nat_loss(items, with_distill):
        ids, in_lens, targets, tgt_lens = nat_batch(items)
        keep = torch.arange(ids.shape[1])[None] < in_lens[:, None]
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.bf16):
            logits, hidden = model(ids, keep)
        lp = F.log_softmax(logits.float(), dim=-1)
        loss = F.ctc_loss(lp.transpose(0, 1), targets, in_lens, tgt_lens, blank=blank_id, reduction="sum",
                          zero_infinity=True) / tgt_lens.sum()
        if with_distill and a.distill_weight > 0:
            # Embedding distillation: the argmax alignment (a cheap stand-in for the Viterbi path) says which
            # positions emit a token; their hidden state is pulled toward that token's (detached) embedding.
            with torch.no_grad():
                path = lp.argmax(-1)
                emit = keep & (path != blank_id)
            if emit.any():
                target_emb = model.embed.weight[path[emit]].detach()
                cos = F.cosine_similarity(hidden[emit].float(), target_emb.float(), dim=-1)
                loss = loss + a.distill_weight * (1 - cos).mean()
        return loss

    def ar_batch(items):
        seqs = [[bos_id] + s + [sep_id] + d + [eos_id] for s, d, _ in items]
        t = padded(max(map(len, seqs)))
        ids = torch.full((len(items), t), pad_id, dtype=torch.long)
        labels = torch.full((len(items), t), -100, dtype=torch.long)
        for i, (seq, (s, d, _)) in enumerate(zip(seqs, items)):
            ids[i, : len(seq)] = torch.tensor(seq)
            start = len(s) + 2  # first target token's position
            labels[i, start - 1: len(seq) - 1] = torch.tensor(seq[start:])  # predict target + </s>
        return ids, labels

    def ar_loss(items):
        ids, labels = ar_batch(items)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.bf16):
            logits = model(ids)
        return F.cross_entropy(logits.float().reshape(-1, vocab), labels.reshape(-1), ignore_index=-100)

    dev = encode_pairs(tok, dev_pairs, a.max_tokens)

    def evaluate():
        model.eval()
        with torch.no_grad():
            losses = []
            for i in range(0, len(dev), 64):
                chunk = dev[i: i + 64]
                losses.append((nat_loss(chunk, False) if a.model == "nat" else ar_loss(chunk)).item())
            out = {"dev_loss": round(sum(losses) / len(losses), 4)}
            if a.model == "nat":
                import sacrebleu
                hyps, refs = [], []
                for i in range(0, len(dev), 64):
                    chunk = dev[i: i + 64]
                    ids, in_lens, _, _ = nat_batch(chunk)
                    keep = torch.arange(ids.shape[1])[None] < in_lens[:, None]
                    logits, _ = model(ids, keep)
                    for row, n, item in zip(logits.argmax(-1).tolist(), in_lens.tolist(), chunk):
                        hyps.append(tok.decode(ctc_greedy(row[:n], blank_id)))
                        refs.append(item[2]["de"])
                out["dev_bleu_greedy"] = round(sacrebleu.corpus_bleu(hyps, [refs]).score, 2)
        model.train()
        return out

    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    curve, evals = [], []
    step, epoch, seen, t0 = 0, 0, 0, time.time()
    deadline = t0 + a.max_minutes * 60 if a.max_minutes else None
    stopped = "steps"
    model.train()
    while step < steps:
        epoch += 1
        for b in make_batches(data, preset["batch_pairs"], rng):
            if step >= steps:
                break
            if deadline and time.time() > deadline:
                stopped = "max_minutes"
                break
            items = [data[i] for i in b]
            for g in opt.param_groups:
                g["lr"] = lr_at(step)
            loss = nat_loss(items, True) if a.model == "nat" else ar_loss(items)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            seen += len(items)
            if step % a.log_every == 0 or step == 1:
                el = time.time() - t0
                curve.append({"step": step, "loss": round(loss.item(), 4), "seconds": round(el, 1)})
                log(f"{a.model} step {step}/{steps} epoch {epoch} loss {loss.item():.3f} lr {lr_at(step):.2e} "
                    f"{seen / el:.1f} pairs/s, rss {_rss_mb():.0f} MB, {el / 60:.1f} min elapsed")
            if step % a.eval_every == 0:
                e = {"step": step, **evaluate()}
                evals.append(e)
                log(f"{a.model} eval {json.dumps(e)}")
                save(a, model, tok, preset, dims, curve, evals, step, seen, epoch, t0, n_params, data, stopped)
        if deadline and time.time() > deadline:
            stopped = "max_minutes"
            break
    if not evals or evals[-1]["step"] != step:
        evals.append({"step": step, **evaluate()})
        log(f"{a.model} eval {json.dumps(evals[-1])}")
    save(a, model, tok, preset, dims, curve, evals, step, seen, epoch, t0, n_params, data, stopped, final=True)
    return 0


def save(a, model, tok, preset, dims, curve, evals, step, seen, epoch, t0, n_params, data, stopped, final=False):
    """Weights (fp16 safetensors) + tokenizer + MANIFEST.json; AR: a LlamaForCausalLM folder."""
    import torch
    from safetensors.torch import save_file
    sd = {k: v.detach().to(torch.float16).contiguous() for k, v in model.state_dict().items()}
    tok_cfg = None
    if a.model == "ar":
        sd = {("model." + k if not k.startswith("lm_head") else k): v for k, v in sd.items()}
        sd = {k.replace(".gate_proj", ".mlp.gate_proj").replace(".up_proj", ".mlp.up_proj")
              .replace(".down_proj", ".mlp.down_proj").replace(".q_proj", ".self_attn.q_proj")
              .replace(".k_proj", ".self_attn.k_proj").replace(".v_proj", ".self_attn.v_proj")
              .replace(".o_proj", ".self_attn.o_proj"): v for k, v in sd.items()}
        cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": dims["vocab"],
               "hidden_size": dims["dim"], "intermediate_size": dims["ffn"], "num_hidden_layers": dims["layers"],
               "num_attention_heads": dims["heads"], "num_key_value_heads": dims["heads"],
               "max_position_embeddings": AR_POSITIONS, "rope_theta": 10000.0, "rms_norm_eps": 1e-6,
               "tie_word_embeddings": True, "bos_token_id": tok.token_to_id("<s>"),
               "eos_token_id": tok.token_to_id("</s>"), "torch_dtype": "float16"}
        with open(os.path.join(a.out, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2)
        # The prompt format lives in the chat template, so `specrt generate` with chat on turns a plain
        # English sentence into the AR model's `<s> source <sep>` prompt.
        tok_cfg = {"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>",
                   "add_bos_token": True,
                   "chat_template": "{{ bos_token }}{{ messages[-1]['content'] | trim }}<sep>"}
        with open(os.path.join(a.out, "tokenizer_config.json"), "w") as f:
            json.dump(tok_cfg, f, indent=2)
    save_file(sd, os.path.join(a.out, "model.safetensors"))
    tok.save(os.path.join(a.out, "tokenizer.json"))
    files = sorted(f for f in os.listdir(a.out) if f != "MANIFEST.json")
    import torch as _t
    manifest = {
        "model": "ctc-nat" if a.model == "nat" else "ar-baseline",
        "task": "translation en->de",
        "final": final, "stopped_by": stopped if final else None,
        "architecture": {**dims, "positions": a.positions if a.model == "nat" else AR_POSITIONS,
                         "parameters": n_params},
        "nat": {"rate": a.rate, "position_limit": a.positions, "mask_token": "<mask>", "blank_token": "<blank>",
                "pad_token": "<pad>"} if a.model == "nat" else None,
        "ar": {"prompt": "<s> source <sep>", "stop": "</s>"} if a.model == "ar" else None,
        "data": {"pairs": os.path.join(a.data, "train.jsonl"), "sources": _sources(a.data),
                 "usable_pairs": len(data), "max_tokens": a.max_tokens,
                 "test_split": "test.jsonl (md5(en) % 50 == 0), never trained on"},
        "training": {"preset": a.preset, **preset, "seed": a.seed, "threads": a.threads, "bf16": a.bf16,
                     "distill_weight": a.distill_weight, "steps_done": step, "pairs_seen": seen, "epochs": epoch,
                     "wall_seconds": round(time.time() - t0, 1), "torch": _t.__version__},
        "loss_curve": curve, "evals": evals,
        "sha256": {f: sha256_file(os.path.join(a.out, f)) for f in files},
    }
    with open(os.path.join(a.out, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def parity(folder: str) -> float:
    """Max |torch - exporter's numpy reference| of the logits of a trained folder (the exporter's reference is
    itself tested against the ONNX graphs), on a padded batch (NAT) or a prompt (AR). Printed and returned."""
    import numpy as np
    import torch
    from safetensors.torch import load_file
    with open(os.path.join(folder, "MANIFEST.json")) as f:
        man = json.load(f)
    arch = man["architecture"]
    CtcNat, ArDecoder = build_models()
    sd = {k: v.float() for k, v in load_file(os.path.join(folder, "model.safetensors")).items()}
    if man["model"] == "ctc-nat":
        from .graph_ctc_nat import dims_of, read_weights, reference_logits
        m = CtcNat(arch["vocab"], arch["dim"], arch["heads"], arch["ffn"], arch["layers"], arch["positions"])
        m.load_state_dict(sd, strict=True)
        ids = np.array([[50, 4, 60, 4, 70, 4, 0, 0], [50, 4, 61, 4, 71, 4, 80, 4]])
        mask = np.array([[1] * 6 + [0, 0], [1] * 8])
        with torch.no_grad():
            t, _ = m(torch.tensor(ids), torch.tensor(mask).bool())
        w, _ = read_weights(folder)
        r = reference_logits(w, dims_of(w, arch["heads"]), ids, mask)
        diff = max(float(np.abs(t.numpy()[0, :6] - r[0, :6]).max()), float(np.abs(t.numpy()[1] - r[1]).max()))
    else:
        from .checkpoint_safetensors import load_safetensors
        from .reference_numpy import ReferenceDecoder
        m = ArDecoder(arch["vocab"], arch["dim"], arch["heads"], arch["ffn"], arch["layers"], arch["positions"])
        m.load_state_dict({k.replace("model.", "", 1).replace("self_attn.", "").replace("mlp.", ""): v
                           for k, v in sd.items()}, strict=True)
        ids = [1, 50, 60, 70, 80, 6, 90, 100]
        with torch.no_grad():
            t = m(torch.tensor([ids]))[0].numpy()
        r = ReferenceDecoder(load_safetensors(folder)).forward(np.array(ids), np.arange(len(ids)), 0)
        diff = float(np.abs(t - (r[0] if isinstance(r, tuple) else r)).max())
    log(f"{folder}: max |torch - exporter reference| = {diff:.2e}")
    return diff


def _rss_mb() -> float:
    """Resident memory of this process, MB (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return 0.0


def _sources(data: str):
    p = os.path.join(data, "SOURCES.json")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f).get("sources")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tokenizer", help="train the shared byte-level BPE on the training split")
    t.add_argument("--data", default=".cache/translation-pairs")
    t.add_argument("--out", default="export/trained/tokenizer-en-de")
    t.add_argument("--vocab-size", type=int, default=8000)
    r = sub.add_parser("train", help="train the CTC NAT (--model nat) or the AR baseline (--model ar)")
    r.add_argument("--model", choices=["nat", "ar"], required=True)
    r.add_argument("--preset", choices=sorted(PRESETS), default="cpu-90min")
    r.add_argument("--data", default=".cache/translation-pairs")
    r.add_argument("--tokenizer", default="export/trained/tokenizer-en-de")
    r.add_argument("--out", required=True)
    r.add_argument("--rate", type=float, default=2.0, help="NAT upsampling rate (masks per source token + 1)")
    r.add_argument("--positions", type=int, default=256, help="NAT position limit (learned position table size)")
    r.add_argument("--max-tokens", type=int, default=96, help="pairs with a longer side are skipped")
    r.add_argument("--threads", type=int, default=2)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=None,
                   help="bf16 autocast (default: only where the CPU has native bf16, see cpu_has_bf16)")
    r.add_argument("--distill-weight", type=float, default=0.0, help="embedding distillation weight (0: off)")
    r.add_argument("--max-minutes", type=float, default=80.0,
                   help="wall-time budget: training stops after this long (and says so) and the learning-rate "
                        "schedule follows whichever of steps and time is further along")
    r.add_argument("--log-every", type=int, default=50)
    r.add_argument("--eval-every", type=int, default=500)
    r.add_argument("--dev-pairs", type=int, default=500)
    for k in ("layers", "dim", "heads", "ffn", "steps", "batch_pairs", "warmup"):
        r.add_argument("--" + k.replace("_", "-"), type=int, default=None, dest=k)
    r.add_argument("--lr", type=float, default=None)
    v = sub.add_parser("target-vocab", help="write target_vocab.json (the ids the training targets use) into a folder")
    v.add_argument("--data", default=".cache/translation-pairs")
    v.add_argument("--tokenizer", default="export/trained/tokenizer-en-de")
    v.add_argument("--out", required=True)
    c = sub.add_parser("parity", help="torch vs the exporter's numpy reference on trained folders")
    c.add_argument("folders", nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "parity":
        worst = max(parity(f) for f in a.folders)
        return 0 if worst < 1e-3 else 1
    if a.cmd == "target-vocab":
        target_vocab(a.data, a.tokenizer, a.out)
        return 0
    if a.cmd == "tokenizer":
        train_tokenizer(a.data, a.out, a.vocab_size)
        return 0
    return train(a)


if __name__ == "__main__":
    sys.exit(main())
