"""GGUF reader without the real model: write a tiny model as a llama GGUF the way llama.cpp's converter does
(q/k rows permuted for interleaved rope, Q4_1/Q4_0 matrices, Q8_0 embedding/head, tokenizer metadata), read it
back and export it."""
from __future__ import annotations

import json

import numpy as np
import pytest

from export.checkpoint import as_float
from export.checkpoint_gguf import load_gguf, unpermute_rows
from export.ort_runner import OrtDecoder
from export.pipeline import export_checkpoint
from export.reference_numpy import ReferenceDecoder
from export.tiny import tiny_checkpoint

from .helpers import ggml_encode


def llama_cpp_permute(w: np.ndarray, n_head: int) -> np.ndarray:
    """convert_hf_to_gguf.py LlamaModel.permute."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def test_unpermute_inverts_llama_cpp_permute():
    w = np.arange(4 * 16 * 3).reshape(4 * 16, 3)
    np.testing.assert_array_equal(llama_cpp_permute(w, 4)[unpermute_rows(64, 4)], w)


def write_tiny_gguf(ck, path, mtype):
    import gguf

    c = ck.config
    qt = gguf.GGMLQuantizationType
    w = gguf.GGUFWriter(path, "llama")
    w.add_block_count(c.num_layers)
    w.add_context_length(c.max_position_embeddings)
    w.add_embedding_length(c.hidden_size)
    w.add_feed_forward_length(c.intermediate_size)
    w.add_head_count(c.num_heads)
    w.add_head_count_kv(c.num_kv_heads)
    w.add_rope_freq_base(c.rope_theta)
    w.add_layer_norm_rms_eps(c.rms_norm_eps)
    w.add_vocab_size(c.vocab_size)
    tok = json.loads(ck.tokenizer_json)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt2")
    w.add_token_list(ck.vocab_tokens)
    special = {a["id"] for a in tok["added_tokens"] if a["special"]}
    w.add_token_types([3 if i in special else 1 for i in range(len(ck.vocab_tokens))])
    w.add_token_merges([" ".join(m) for m in tok["model"]["merges"]])
    w.add_eos_token_id(2)
    w.add_add_bos_token(False)
    w.add_chat_template(ck.chat_template)

    def mat(name, a, t):
        blocks = ggml_encode(a, t)
        w.add_tensor(name, blocks, raw_shape=blocks.shape, raw_dtype=qt[t])

    mat("token_embd.weight", ck.embed, "Q8_0")
    mat("output.weight", ck.lm_head, "Q8_0")
    w.add_tensor("output_norm.weight", ck.final_norm)
    for i, L in enumerate(ck.layers):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", L.attn_norm)
        w.add_tensor(p + "ffn_norm.weight", L.ffn_norm)
        mat(p + "attn_q.weight", llama_cpp_permute(L.q, c.num_heads), mtype)
        mat(p + "attn_k.weight", llama_cpp_permute(L.k, c.num_kv_heads), mtype)
        for n, a in [("attn_v", L.v), ("attn_output", L.o), ("ffn_gate", L.gate), ("ffn_up", L.up),
                     ("ffn_down", L.down)]:
            mat(p + n + ".weight", a, mtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


@pytest.mark.parametrize("mtype,precision", [("Q4_1", "int4"), ("Q4_0", "int8"), ("Q4_1", "fp32")])
def test_tiny_gguf_round_trip(tmp_path, mtype, precision):
    ck = tiny_checkpoint(seed=5)
    path = str(tmp_path / "tiny.gguf")
    write_tiny_gguf(ck, path, mtype)
    back = load_gguf(path)
    assert back.config == ck.config
    assert back.source_quantization == f"{mtype}+Q8_0"
    # un-permuted rows equal the HF rows quantized directly (blocks never span rows)
    np.testing.assert_array_equal(as_float(back.layers[1].q),
                                  as_float(type(back.layers[1].q)(mtype, ck.layers[1].q.shape,
                                                                  ggml_encode(ck.layers[1].q, mtype))))
    assert np.abs(as_float(back.layers[0].k) - ck.layers[0].k).max() < 0.2 * np.abs(ck.layers[0].k).max()
    assert back.tokenizer_json is not None and back.eos_id == 2 and back.chat_template == ck.chat_template
    from tokenizers import Tokenizer

    t1, t2 = Tokenizer.from_str(back.tokenizer_json), Tokenizer.from_str(ck.tokenizer_json)
    s = "<|im_start|>user\nThe capital of France is 2024 ✓<|im_end|>"
    assert t1.encode(s).ids == t2.encode(s).ids
    out = tmp_path / "onnx"
    manifest, res = export_checkpoint(back, str(out), precision=precision, accuracy_level=0)
    assert manifest["source"]["format"] == "gguf"
    if precision != "fp32":
        assert manifest["precision"]["exact_conversion"] is True
    dec, ref = OrtDecoder(str(out), capacity=16), ReferenceDecoder(back, capacity=16)
    ids = [5, 60, 70, 300, 2]
    np.testing.assert_allclose(dec.forward(ids, np.arange(5), 0), ref.forward(ids, np.arange(5), 0), atol=1e-4, rtol=0)
    np.testing.assert_allclose(dec.forward([9], [5], 5), ref.forward([9], [5], 5), atol=1e-4, rtol=0)
