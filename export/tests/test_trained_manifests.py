"""Every committed trained artifact (export/trained/*/) carries a MANIFEST.json whose checksums match its files, and
every weight file in the folder is listed there: a retrained or swapped model without an updated manifest fails here
instead of surfacing later as a benchmark that no longer matches its recorded training."""
from __future__ import annotations

import glob
import json
import os
import shutil

import pytest

from export.manifest import sha256_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRAINED = os.path.join(ROOT, "export", "trained")
FOLDERS = sorted(d for d in glob.glob(os.path.join(TRAINED, "*")) if os.path.isdir(d))


def listed_checksums(manifest: dict) -> dict:
    """File name -> sha256 as the folder's manifest records them (`sha256`, or SPACE's `files`)."""
    if isinstance(manifest.get("sha256"), dict):
        return dict(manifest["sha256"])
    files = manifest.get("files")
    if isinstance(files, dict):
        return {k: (v["sha256"] if isinstance(v, dict) else v) for k, v in files.items()}
    return {}


def problems(folder: str) -> list:
    """What is wrong with one trained folder's manifest (empty when nothing is)."""
    path = os.path.join(folder, "MANIFEST.json")
    if not os.path.isfile(path):
        return [f"{folder}: no MANIFEST.json"]
    with open(path, encoding="utf-8") as f:
        listed = listed_checksums(json.load(f))
    out = []
    if not listed:
        out.append(f"{path}: lists no file checksums")
    for name, expected in sorted(listed.items()):
        file = os.path.join(folder, name)
        if not os.path.isfile(file):
            out.append(f"{path}: lists {name}, which is missing")
            continue
        actual = sha256_file(file)
        if actual != expected:
            out.append(f"{path}: {name} has sha256 {actual[:16]}..., the manifest says {expected[:16]}...")
    for weights in sorted(glob.glob(os.path.join(folder, "*.safetensors"))):
        if os.path.basename(weights) not in listed:
            out.append(f"{path}: {os.path.basename(weights)} is not listed")
    return out


def test_there_are_trained_folders():
    assert len(FOLDERS) >= 10, FOLDERS


@pytest.mark.parametrize("folder", FOLDERS, ids=os.path.basename)
def test_each_trained_folder_matches_its_manifest(folder):
    assert problems(folder) == []


def test_a_changed_or_unlisted_weight_file_is_caught(tmp_path):
    # Negative control on a copy of the smallest folder with weights: flip one byte, then add an unlisted file.
    source = min((d for d in FOLDERS if glob.glob(os.path.join(d, "*.safetensors"))),
                 key=lambda d: sum(os.path.getsize(p) for p in glob.glob(os.path.join(d, "*"))))
    copy = tmp_path / "copy"
    shutil.copytree(source, copy)
    assert problems(str(copy)) == []
    weights = sorted(copy.glob("*.safetensors"))[0]
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 1
    weights.write_bytes(bytes(data))
    found = problems(str(copy))
    assert len(found) == 1 and weights.name in found[0] and "sha256" in found[0], found
    (copy / "extra.safetensors").write_bytes(b"x")
    assert any("extra.safetensors is not listed" in p for p in problems(str(copy)))
