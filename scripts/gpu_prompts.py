"""Token ids of the GPU check's reference prompts (scripts/gpu-check.sh), written as a JSON list of lists.

The prompts are chat-templated with SmolLM2's ChatML (`<|im_start|>user ... <|im_end|>` then the assistant
header), exactly as `specrt generate --chat` renders them, and tokenized with the model folder's tokenizer.json,
so the GPU machine needs no tokenizer to run the PyTorch reference.

Usage: python scripts/gpu_prompts.py MODEL_DIR OUT.json
"""
import json
import sys

from tokenizers import Tokenizer

PROMPTS = [
    "What is the capital of France? Answer in one sentence.",
    "Write a Python function that returns the n-th Fibonacci number.",
    "Explain in two sentences why the sky is blue.",
    "List three uses of a paperclip.",
    "Translate to German: The weather is nice today and we are going for a walk.",
    "Summarize: The quick brown fox jumps over the lazy dog. The dog does not react. The fox runs away.",
]


def main() -> int:
    model_dir, out = sys.argv[1], sys.argv[2]
    tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    ids = []
    for p in PROMPTS:
        text = f"<|im_start|>user\n{p}<|im_end|>\n<|im_start|>assistant\n"
        ids.append(tok.encode(text, add_special_tokens=False).ids)
    with open(out, "w") as f:
        json.dump(ids, f)
    print(f"{out}: {len(ids)} prompts, {sum(map(len, ids))} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
