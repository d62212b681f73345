"""Build a Hugging Face `tokenizer.json` (byte-level BPE) from GGUF metadata or from a token list + merges.

The engine only reads `tokenizer.json`, so a GGUF-only checkpoint needs one built from
`tokenizer.ggml.tokens` / `tokenizer.ggml.merges` / `tokenizer.ggml.token_type`. The pre-tokenizer is chosen
from `tokenizer.ggml.pre` the way llama.cpp does:
- `smollm`: individual digits, then GPT-2 byte-level splitting;
- `qwen2`: NFC normalization, Qwen2's split regex, byte-level mapping;
- `llama-bpe` / `llama3`: Llama 3's split regex (digits in groups of up to 3), byte-level mapping;
- anything else with model `gpt2`: plain GPT-2 byte-level splitting.
Control tokens (token_type 3) become special added tokens, user-defined ones (4) plain added tokens.
No BOS is added unless the GGUF says `add_bos_token`.
"""
from __future__ import annotations

import json
from typing import Optional

QWEN2_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
               r"|\s*[\r\n]+|\s+(?!\S)|\s+")
LLAMA3_REGEX = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")

TOKEN_TYPE_CONTROL = 3
TOKEN_TYPE_USER_DEFINED = 4


def _byte_level(use_regex: bool) -> dict:
    return {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": use_regex}


def pre_tokenizer_for(pre: str) -> tuple:
    """(normalizer, pre_tokenizer, ignore_merges) JSON for a llama.cpp `tokenizer.ggml.pre` name."""
    if pre == "smollm":
        return None, {"type": "Sequence", "pretokenizers": [
            {"type": "Digits", "individual_digits": True}, _byte_level(True)]}, False
    if pre in ("qwen2", "deepseek-r1-qwen"):
        return {"type": "NFC"}, {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": QWEN2_REGEX}, "behavior": "Isolated", "invert": False},
            _byte_level(False)]}, False
    if pre in ("llama-bpe", "llama3", "llama-v3"):
        return None, {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_REGEX}, "behavior": "Isolated", "invert": False},
            _byte_level(False)]}, True
    return None, _byte_level(True), False


def byte_level_bpe_json(tokens: list, merges: list, token_types: Optional[list] = None, pre: str = "gpt2",
                        bos_token: Optional[str] = None, special_ids: Optional[list] = None) -> str:
    """Serialize a byte-level BPE tokenizer as HF `tokenizer.json` text.

    tokens: id -> token string (byte-level alphabet, e.g. "Ġthe"); merges: "a b" strings or (a, b) pairs, in
    priority order; token_types: GGUF token types (3 = control -> special); special_ids: extra special ids.
    bos_token: when given, the post-processor prepends it (add_bos).
    """
    normalizer, pre_tok, ignore_merges = pre_tokenizer_for(pre)
    special = set(special_ids or [])
    added = []
    for i, tok in enumerate(tokens):
        tt = token_types[i] if token_types is not None else None
        if i in special or tt == TOKEN_TYPE_CONTROL or tt == TOKEN_TYPE_USER_DEFINED:
            is_special = i in special or tt == TOKEN_TYPE_CONTROL
            added.append({"id": i, "content": tok, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": not is_special, "special": is_special})
    pair_merges = [m.split(" ", 1) if isinstance(m, str) else list(m) for m in merges]
    post = None
    if bos_token is not None:
        post = {"type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": bos_token, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                "pair": [{"SpecialToken": {"id": bos_token, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                         {"Sequence": {"id": "B", "type_id": 1}}],
                "special_tokens": {bos_token: {"id": bos_token, "ids": [tokens.index(bos_token)],
                                               "tokens": [bos_token]}}}
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": normalizer,
        "pre_tokenizer": pre_tok,
        "post_processor": post,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "ignore_merges": ignore_merges,
                  "vocab": {tok: i for i, tok in enumerate(tokens)}, "merges": pair_merges},
    }
    return json.dumps(doc, ensure_ascii=False)


def tokenizer_from_gguf(reader) -> str:
    """tokenizer.json text from a `gguf.GGUFReader`'s tokenizer.ggml.* metadata (BPE/gpt2 models only)."""
    def field(key, default=None):
        f = reader.fields.get(key)
        return default if f is None else f.contents()

    model = field("tokenizer.ggml.model")
    if model != "gpt2":
        raise ValueError(f"tokenizer model {model!r} is not supported (only byte-level BPE 'gpt2')")
    tokens = list(field("tokenizer.ggml.tokens"))
    if len(set(tokens)) != len(tokens):
        raise ValueError("GGUF vocabulary has duplicate token strings; cannot build a BPE vocab")
    merges = list(field("tokenizer.ggml.merges") or [])
    types = list(field("tokenizer.ggml.token_type") or [])
    pre = field("tokenizer.ggml.pre", "gpt2")
    bos = None
    if field("tokenizer.ggml.add_bos_token", False):
        bos = tokens[int(field("tokenizer.ggml.bos_token_id"))]
    return byte_level_bpe_json(tokens, merges, types or None, pre=pre, bos_token=bos)


def check_round_trip(tokenizer_json: str, samples: Optional[list] = None) -> list:
    """Encode->decode each sample with `tokenizers`; returns the list of failures (empty when all pass)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(tokenizer_json)
    samples = samples or ["Hello, world!", "The year 2024 has 366 days.", "naïve café — Ünïcödé ✓",
                          "emoji 🤖🚀 and 中文字符", "  leading spaces\n\ttabs\r\n", "<|im_start|>user\nhi<|im_end|>"]
    bad = []
    for s in samples:
        ids = tok.encode(s, add_special_tokens=False).ids
        back = tok.decode(ids, skip_special_tokens=False)
        if back != s:
            bad.append((s, back))
    return bad
