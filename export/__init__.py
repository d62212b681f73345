"""specrt exporter: LLM checkpoints (GGUF, HF safetensors, random tiny) -> ONNX decoder folders.

See export/README.md for the CLI and the graph contract the Rust engine relies on.
"""
