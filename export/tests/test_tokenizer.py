"""Tokenizer building: byte-level BPE round trips and special tokens."""
from __future__ import annotations

from tokenizers import Tokenizer

from export.tokenizer_build import check_round_trip

SAMPLES = ["Hello, world!", "The year 2024 has 366 days.", "naïve café — Ünïcödé ✓", "emoji 🤖🚀 and 中文字符",
           "  leading spaces\n\ttabs\r\n", "<|im_start|>user\nhi<|im_end|>\n", ""]


def test_tiny_tokenizer_round_trip(tiny_ck):
    assert check_round_trip(tiny_ck.tokenizer_json, SAMPLES) == []
    tok = Tokenizer.from_str(tiny_ck.tokenizer_json)
    assert tok.get_vocab_size() == 384
    ids = tok.encode("<|im_start|>user\nThe capital of France<|im_end|>", add_special_tokens=False).ids
    assert ids[0] == 1 and ids[-1] == 2 and 0 not in ids
    assert tok.token_to_id("<|endoftext|>") == 0
    # merges are used: common words take fewer tokens than bytes
    assert len(tok.encode(" the capital of France", add_special_tokens=False).ids) < len(" the capital of France")
    # no BOS is added
    assert tok.encode("Hello", add_special_tokens=True).ids == tok.encode("Hello", add_special_tokens=False).ids
