"""A deterministic random-weight Llama with a real byte-level BPE tokenizer, for fast engine tests.

Token ids: 0 `<|endoftext|>`, 1 `<|im_start|>`, 2 `<|im_end|>`, then the 256 byte tokens (GPT-2 byte-level
alphabet, in byte order), then merges learned on a small built-in English text until `vocab` is reached.
The LM head is untied by default: with a tied head a random model mostly predicts its input token again,
which makes greedy output degenerate.
"""
from __future__ import annotations

import re
from collections import Counter

import numpy as np

from .checkpoint import Checkpoint, DecoderConfig, LayerWeights
from .tokenizer_build import byte_level_bpe_json

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHATML_TEMPLATE = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + "
    "'\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")

CORPUS = """The quick brown fox jumps over the lazy dog. A speculative decoder drafts several tokens and the
target model verifies them in one forward pass. When the draft is right, the engine accepts the tokens and moves
on; when it is wrong, it rolls the cache back and keeps the verified prefix. Hello world! How are you today?
I am fine, thank you. What is the capital of France? The capital of France is Paris. There are 365 days in a
year and 24 hours in a day. def main(): print("hello") return 0. The model reads the text, and then it writes
more text for the user. This is a test of the tokenizer with numbers 1234567890 and some punctuation: (a, b) ->
[c; d] {e}. Once upon a time there was a little cat that liked to sit in the sun and watch the birds."""


def bytes_to_unicode() -> dict:
    """GPT-2's reversible byte -> printable unicode character map (the byte-level BPE alphabet)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def train_bpe(text: str, n_merges: int) -> list:
    """Learn up to n_merges byte-level BPE merges on `text` (deterministic: ties broken lexicographically)."""
    b2u = bytes_to_unicode()
    words = Counter(tuple(b2u[b] for b in w.encode("utf-8"))
                    for w in re.findall(r" ?[A-Za-z]+| ?[0-9]| ?[^\sA-Za-z0-9]+|\s+", text))
    merges = []
    while len(merges) < n_merges:
        pairs = Counter()
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] += c
        if not pairs:
            break
        best = min(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        merges.append(best)
        joined = best[0] + best[1]
        new = Counter()
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(joined)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            new[tuple(out)] += c
        words = new
    return merges


def tiny_tokenizer(vocab: int) -> tuple:
    """(tokenizer.json text, token list) for a byte-level BPE with exactly `vocab` tokens."""
    if vocab < len(SPECIALS) + 256:
        raise ValueError(f"vocab must be >= {len(SPECIALS) + 256}")
    b2u = bytes_to_unicode()
    tokens = SPECIALS + [b2u[b] for b in range(256)]
    merges = []
    for a, b in train_bpe(CORPUS, vocab - len(tokens)):
        if a + b not in tokens:
            tokens.append(a + b)
            merges.append((a, b))
    # a tiny corpus may run out of pairs: pad with unused placeholder tokens so the vocab size is exact
    k = 0
    while len(tokens) < vocab:
        tokens.append(f"<|unused{k}|>")
        k += 1
    specials = list(range(len(SPECIALS))) + [i for i, t in enumerate(tokens) if t.startswith("<|unused")]
    return byte_level_bpe_json(tokens, merges, special_ids=specials, pre="gpt2"), tokens


def tiny_checkpoint(seed: int = 0, vocab: int = 384, hidden: int = 64, layers: int = 2, heads: int = 4,
                    kv_heads: int = 2, head_dim: int = 16, ffn: int = 128, max_pos: int = 2048,
                    tie: bool = False, qkv_bias: bool = False, rope_theta: float = 10000.0) -> Checkpoint:
    """A random Llama-style Checkpoint (float32 weights in HF layout) with a real tokenizer."""
    rng = np.random.default_rng(seed)
    cfg = DecoderConfig(architecture="qwen2" if qkv_bias else "llama", vocab_size=vocab, hidden_size=hidden,
                        intermediate_size=ffn, num_layers=layers, num_heads=heads, num_kv_heads=kv_heads,
                        head_dim=head_dim, max_position_embeddings=max_pos, rope_theta=rope_theta,
                        rms_norm_eps=1e-5, tie_word_embeddings=tie, attention_bias=qkv_bias)

    def mat(out, inp, gain=1.0):
        return (rng.standard_normal((out, inp)) * gain / np.sqrt(inp)).astype(np.float32)

    def norm(n):
        return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

    def vec(n):
        return (0.1 * rng.standard_normal(n)).astype(np.float32) if qkv_bias else None

    lw = []
    for _ in range(layers):
        # gain 2 on q/k sharpens attention so the context actually steers the output
        lw.append(LayerWeights(
            attn_norm=norm(hidden), q=mat(heads * head_dim, hidden, 2.0), k=mat(kv_heads * head_dim, hidden, 2.0),
            v=mat(kv_heads * head_dim, hidden), o=mat(hidden, heads * head_dim), ffn_norm=norm(hidden),
            gate=mat(ffn, hidden), up=mat(ffn, hidden), down=mat(hidden, ffn),
            q_bias=vec(heads * head_dim), k_bias=vec(kv_heads * head_dim), v_bias=vec(kv_heads * head_dim)))
    embed = (0.5 * rng.standard_normal((vocab, hidden))).astype(np.float32)
    head = None if tie else mat(vocab, hidden, 3.0)
    tok_json, tokens = tiny_tokenizer(vocab)
    return Checkpoint(config=cfg, embed=embed, layers=lw, final_norm=norm(hidden), lm_head=head,
                      tokenizer_json=tok_json, bos_id=None, eos_id=2, pad_id=0, add_bos=False,
                      chat_template=CHATML_TEMPLATE, vocab_tokens=tokens,
                      source={"format": "tiny-random", "seed": seed, "files": {}}, source_quantization="none")


def tiny_mask_row(hidden: int = 64) -> np.ndarray:
    """The SPACE mask token's embedding for the tiny model (`python -m export tiny --space-k K`): zeros.

    Nothing is trained, so the tiny model's drafts are whatever its random weights say; identity tests need
    only that some are right. Measured on the default tiny model (8 prompts x 28 positions, a mask's argmax vs
    the token two ahead): zeros 3.6%, the embedding mean 0.9%, random rows 0-2.7%. Adding the row changes no
    other weight (tiny-fp32-space equals tiny-fp32 on every real token).
    """
    return np.zeros(hidden, np.float32)


def write_hf_folder(ck: Checkpoint, out_dir: str, dtype: str = "float32") -> None:
    """Write `ck` as a Hugging Face folder (config.json, model.safetensors, tokenizer files).

    dtype "bfloat16" stores bf16 (truncated toward zero from float32), to exercise the bf16 reader.
    """
    import json
    import os

    c = ck.config
    os.makedirs(out_dir, exist_ok=True)
    cfg = {"architectures": ["Qwen2ForCausalLM" if c.architecture == "qwen2" else "LlamaForCausalLM"],
           "model_type": c.architecture, "vocab_size": c.vocab_size, "hidden_size": c.hidden_size,
           "intermediate_size": c.intermediate_size, "num_hidden_layers": c.num_layers,
           "num_attention_heads": c.num_heads, "num_key_value_heads": c.num_kv_heads, "head_dim": c.head_dim,
           "max_position_embeddings": c.max_position_embeddings, "rope_theta": c.rope_theta,
           "rms_norm_eps": c.rms_norm_eps, "tie_word_embeddings": c.tie_word_embeddings,
           "bos_token_id": ck.bos_id, "eos_token_id": ck.eos_id, "torch_dtype": dtype}
    if c.architecture == "llama":
        cfg["attention_bias"] = c.attention_bias
    t = {"model.embed_tokens.weight": ck.embed, "model.norm.weight": ck.final_norm}
    if ck.lm_head is not None:
        t["lm_head.weight"] = ck.lm_head
    for i, L in enumerate(ck.layers):
        p = f"model.layers.{i}."
        t.update({p + "input_layernorm.weight": L.attn_norm, p + "post_attention_layernorm.weight": L.ffn_norm,
                  p + "self_attn.q_proj.weight": L.q, p + "self_attn.k_proj.weight": L.k,
                  p + "self_attn.v_proj.weight": L.v, p + "self_attn.o_proj.weight": L.o,
                  p + "mlp.gate_proj.weight": L.gate, p + "mlp.up_proj.weight": L.up,
                  p + "mlp.down_proj.weight": L.down})
        if L.q_bias is not None:
            t.update({p + "self_attn.q_proj.bias": L.q_bias, p + "self_attn.k_proj.bias": L.k_bias,
                      p + "self_attn.v_proj.bias": L.v_bias})
    write_safetensors(os.path.join(out_dir, "model.safetensors"), t, bf16=(dtype == "bfloat16"))
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(out_dir, "tokenizer.json"), "w") as f:
        f.write(ck.tokenizer_json)
    with open(os.path.join(out_dir, "tokenizer_config.json"), "w") as f:
        json.dump({"add_bos_token": False, "chat_template": ck.chat_template, "eos_token": "<|im_end|>",
                   "pad_token": "<|endoftext|>"}, f, indent=2)


def write_safetensors(path: str, tensors: dict, bf16: bool = False) -> None:
    """Minimal safetensors writer (numpy cannot represent bf16, so the library's numpy API can't write it).

    bf16=True truncates float32 to bfloat16 (drops the low 16 mantissa bits).
    """
    import json
    import struct

    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], np.float32)
        raw = (a.view(np.uint32) >> 16).astype("<u2").tobytes() if bf16 else a.astype("<f4").tobytes()
        header[name] = {"dtype": "BF16" if bf16 else "F32", "shape": list(a.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)  # keep the data 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for raw in blobs:
            f.write(raw)


def as_q4_k_m(ck: Checkpoint) -> Checkpoint:
    """`ck` with its matrices stored as a Q4_K_M GGUF stores them (llama.cpp's mix: Q4_K, with Q6_K for attn_v and
    ffn_down of every other layer and for the output matrix), encoded round-to-nearest by export/ggml_blocks.py.
    Mixed q|k|v types exercise the exporter's per-type split. The float export of the result is its exact
    dequantization, the reference the engine's K-quant kernels are tested against."""
    import dataclasses

    from .checkpoint import QuantTensor
    from .ggml_blocks import ggml_encode

    def qt(w, t):
        return QuantTensor(t, w.shape, ggml_encode(w, t))

    layers = []
    for i, L in enumerate(ck.layers):
        six = "Q6_K" if i % 2 == 0 else "Q4_K"
        layers.append(dataclasses.replace(L, q=qt(L.q, "Q4_K"), k=qt(L.k, "Q4_K"), v=qt(L.v, six), o=qt(L.o, "Q4_K"),
                                          gate=qt(L.gate, "Q4_K"), up=qt(L.up, "Q4_K"), down=qt(L.down, six)))
    head = ck.lm_head if ck.lm_head is not None else ck.embed
    return dataclasses.replace(ck, layers=layers, embed=qt(ck.embed, "Q4_K"),
                               lm_head=None if ck.lm_head is None else qt(head, "Q6_K"),
                               source_quantization="Q4_K_M (tiny, round-to-nearest)")
