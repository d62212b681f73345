#!/usr/bin/env python3
"""Checks the layering of the Rust engine (engine/): the dependency graph between its top-level modules must be
acyclic, and only the backend implementations (engine/backend/<name>/) may name the `ort` crate.

A "module" is the first path component under engine/: engine/strategy/hsddw/mod.rs belongs to `strategy`,
engine/pipeline.rs to `pipeline`. engine/lib.rs and engine/bin/* are roots (they wire everything together) and
are not sources of edges. An edge A -> B is a reference from a file of A to B, found in code (comments, doc
comments and string literals are ignored) as

  - `crate::B...` in `use` statements and in paths, including groups: `use crate::{b, c::d}`;
  - `crate::Name` where engine/lib.rs re-exports `Name` from module B (`pub use b::Name`);
  - `super::super::...` chains that climb out to the crate root and come back down into B
    (e.g. `super::super::bench` in engine/nat/bench.rs is nat -> bench).

Inside the folders named in FILE_LEVEL (every folder of engine/ with files), the FILES must be acyclic too: there an edge a -> b is a
reference from engine/F/a.rs (or engine/F/a/...) to engine/F/b.rs (or engine/F/b/...) through `super::b`,
`super::super::b` from one level deeper, or `crate::F::b` (F/mod.rs is the folder's root, like lib.rs). A cycle
among those files means no file of the ring can be read, tested or replaced without the others (issue 11: the C
ABI's handle table imported every handle type that imported it). Inline `mod x { use super::...; }` blocks are
not told apart from their file (no such block names a sibling file today).

Exit status: 0 when the graph (minus the edges given with --allow) is acyclic, the FILE_LEVEL folders' file
graphs are acyclic, and `ort` stays inside engine/backend/<name>/; 1 otherwise, printing every cycle with one example file:line per edge, and every `ort`
use with its file:line. Standard library only.

    python3 scripts/check_layers.py                      # check the repository this script lives in
    python3 scripts/check_layers.py --allow nat->bench   # accept a known edge (repeatable)
    python3 scripts/check_layers.py -v                   # every file:line of each cycle edge
    python3 scripts/check_layers.py --self-test          # the parser's own tests (inline fixtures)
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections import defaultdict

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
# Folders of engine/ whose files are checked for cycles among themselves (see the module docstring). Issue 11
# found rings in ffi (the handle table), model (session <-> invariance probe) and server (metrics <-> worker,
# batcher <-> worker, generation <-> routes <-> translate); all are broken, so every folder is checked.
FILE_LEVEL = ("backend", "bench", "config", "contract", "ffi", "kernels", "model", "nat", "server", "strategy", "text")
MAX_CYCLES = 200  # elementary cycles printed at most (the strongly connected components are always printed)


# ---------------------------------------------------------------------------------------------------------------
# Lexing: blank out comments and literals, keep line numbers
# ---------------------------------------------------------------------------------------------------------------

def strip_rust(src: str) -> str:
    """`src` with comments (line, doc, nested block) and the contents of string, byte-string, raw-string and char
    literals replaced by spaces; newlines are kept so line numbers stay valid."""
    out = []
    i, n = 0, len(src)

    def blank(text: str) -> str:
        return "".join("\n" if c == "\n" else " " for c in text)

    while i < n:
        c = src[i]
        nxt = src[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(src[i:j]))
            i = j
        elif c == "/" and nxt == "*":
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(src[i:j]))
            i = j
        elif c in "rb" and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")) and _raw_string_at(src, i):
            j = _raw_string_at(src, i)
            out.append(blank(src[i:j]))
            i = j
        elif c == '"' or (c == "b" and nxt == '"' and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_"))):
            j = i + (2 if c == "b" else 1)
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(blank(src[i:j]))
            i = j
        elif c == "'":
            # A char literal ('a', '\n', '\u{1F600}', '\'') or a lifetime / label ('a, 'static): only literals
            # are blanked.
            if nxt == "\\":
                j = i + 2
                while j < n and src[j] != "'":
                    j += 2 if src[j] == "\\" else 1
                j = min(j + 1, n)
                out.append(blank(src[i:j]))
                i = j
            elif i + 2 < n and src[i + 2] == "'" and nxt != "\n":
                out.append("   ")
                i += 3
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _raw_string_at(src: str, i: int) -> int:
    """End index of a raw (byte) string literal starting at `i` (r"..", r#".."#, br#".."#), or 0 if none."""
    m = re.compile(r'b?r(#*)"').match(src, i)
    if not m:
        return 0
    end = src.find('"' + m.group(1), m.end())
    return len(src) if end < 0 else end + 1 + len(m.group(1))


# ---------------------------------------------------------------------------------------------------------------
# References
# ---------------------------------------------------------------------------------------------------------------

def split_group(text: str, start: int) -> tuple[list[tuple[str, int]], int]:
    """Parses the `{...}` group that opens at `text[start]`; returns its top-level items with their offsets, and
    the offset after the closing brace."""
    assert text[start] == "{"
    items, depth, item_start = [], 0, start + 1
    i = start
    while i < len(text):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                items.append((text[item_start:i], item_start))
                return [(t, o) for t, o in items if t.strip()], i + 1
        elif c == "," and depth == 1:
            items.append((text[item_start:i], item_start))
            item_start = i + 1
        i += 1
    items.append((text[item_start:], item_start))
    return [(t, o) for t, o in items if t.strip()], len(text)


def crate_refs(code: str) -> list[tuple[str, int]]:
    """First path segment after every `crate::` in `code` (blanked code), with its offset. Groups give one entry
    per item: `crate::{a, b::c}` -> a, b. `$crate` (macro hygiene) is not the engine's crate."""
    refs = []
    for m in re.finditer(r"(?<![\w$])crate\s*::\s*", code):
        j = m.end()
        if j < len(code) and code[j] == "{":
            items, _ = split_group(code, j)
            for item, off in items:
                lead = len(item) - len(item.lstrip())
                sm = re.match(IDENT, item.lstrip())
                if sm and sm.group(0) not in ("self", "super"):
                    refs.append((sm.group(0), off + lead))
                elif sm is None and item.strip().startswith("{"):
                    pass  # `crate::{{...}}` is not valid Rust
        else:
            sm = re.compile(IDENT).match(code, j)
            if sm:
                refs.append((sm.group(0), sm.start()))
    return refs


def super_refs(code: str, modpath: list[str]) -> list[tuple[str, int]]:
    """Top-level modules reached by `super::` chains that climb to the crate root. `modpath` is the file's own
    module path (engine/nat/bench.rs -> [nat, bench]; engine/nat/mod.rs -> [nat])."""
    refs = []
    for m in re.finditer(r"(?<![\w:])((?:super\s*::\s*)+)", code):
        ups = m.group(1).count("super")
        if ups < len(modpath):
            continue  # stays inside the file's own top-level module
        j = m.end()
        if j < len(code) and code[j] == "{":
            items, _ = split_group(code, j)
            for item, off in items:
                sm = re.match(IDENT, item.lstrip())
                if sm and sm.group(0) not in ("self", "super"):
                    refs.append((sm.group(0), off + len(item) - len(item.lstrip())))
        else:
            sm = re.compile(IDENT).match(code, j)
            if sm:
                refs.append((sm.group(0), sm.start()))
    return refs


ORT_PATTERNS = [
    re.compile(r"(?<![\w:])ort\s*::"),          # ort::value::Tensor, use ort::{...}
    re.compile(r"(?<![\w:])::\s*ort\s*::"),     # ::ort::...
    re.compile(r"\buse\s+(?:::)?ort\b"),        # use ort;  use ::ort as o;
    re.compile(r"\bextern\s+crate\s+ort\b"),
]


def ort_uses(code: str) -> list[int]:
    """Lines (1-based) where `code` names the `ort` crate, each once."""
    lines = set()
    for p in ORT_PATTERNS:
        lines.update(line_of(code, m.start()) for m in p.finditer(code))
    return sorted(lines)


def line_of(code: str, offset: int) -> int:
    return code.count("\n", 0, offset) + 1


# ---------------------------------------------------------------------------------------------------------------
# The repository
# ---------------------------------------------------------------------------------------------------------------

def module_path(rel: str) -> list[str]:
    """Module path of a file given relative to engine/ (a/b/c.rs -> [a, b, c]; a/b/mod.rs -> [a, b])."""
    parts = rel.replace(os.sep, "/").split("/")
    parts[-1] = parts[-1][:-3] if parts[-1].endswith(".rs") else parts[-1]
    if parts[-1] == "mod":
        parts = parts[:-1]
    return parts


def is_root(rel: str) -> bool:
    parts = rel.replace(os.sep, "/").split("/")
    return parts == ["lib.rs"] or parts[0] == "bin" or parts == ["main.rs"]


def ort_allowed(rel: str) -> bool:
    """engine/backend/<name>/... may use ort; engine/backend/mod.rs (the backend-neutral trait) may not."""
    parts = rel.replace(os.sep, "/").split("/")
    return len(parts) >= 3 and parts[0] == "backend"


def reexports(lib_code: str, modules: set[str]) -> dict[str, str]:
    """Names engine/lib.rs re-exports at the crate root (`pub use m::{A, B}`, `pub use m::A as C`) -> module."""
    out = {}
    for m in re.finditer(r"\bpub\s+use\s+(?:crate\s*::\s*)?(" + IDENT + r")\s*::\s*", lib_code):
        mod = m.group(1)
        if mod not in modules:
            continue
        rest = lib_code[m.end():]
        end = rest.find(";")
        tree = rest[: end if end >= 0 else len(rest)]
        # every identifier that is a leaf (after the last `::` of an item, or an `as` alias) is re-exported
        for leaf in re.findall(r"(?:as\s+)?(" + IDENT + r")\s*(?=[,}]|$)", tree.strip()):
            if leaf not in ("self",):
                out[leaf] = mod
    return out


class Scan:
    """Edges between modules (with every place that makes them), `ort` uses, unresolved references."""

    def __init__(self) -> None:
        self.modules: set[str] = set()
        self.edges: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
        self.ort: list[tuple[str, int]] = []
        self.unresolved: list[tuple[str, int, str]] = []


def scan(engine_dir: str, display_prefix: str = "engine") -> Scan:
    """Scans every .rs file under `engine_dir`."""
    s = Scan()
    files = []
    for dirpath, dirnames, filenames in os.walk(engine_dir):
        dirnames.sort()
        for f in sorted(filenames):
            if f.endswith(".rs"):
                files.append(os.path.relpath(os.path.join(dirpath, f), engine_dir).replace(os.sep, "/"))
    for rel in files:
        if not is_root(rel):
            s.modules.add(module_path(rel)[0] if "/" in rel else rel[:-3])
    codes = {}
    for rel in files:
        with open(os.path.join(engine_dir, rel), encoding="utf-8") as fh:
            codes[rel] = strip_rust(fh.read())
    names = reexports(codes.get("lib.rs", ""), s.modules)
    for rel in files:
        code = codes[rel]
        shown = f"{display_prefix}/{rel}"
        if not ort_allowed(rel):
            s.ort.extend((shown, ln) for ln in ort_uses(code))
        if is_root(rel):
            continue
        mp = module_path(rel)
        src = mp[0]
        refs = [(name, off, "crate") for name, off in crate_refs(code)] + [(name, off, "super") for name, off in super_refs(code, mp)]
        for name, off, how in refs:
            if name in s.modules:
                dst = name
            elif how == "crate" and name in names:
                dst = names[name]
            else:
                s.unresolved.append((shown, line_of(code, off), f"{how}::{name}"))
                continue
            if dst != src:
                s.edges[(src, dst)].append((shown, line_of(code, off)))
    return s


def path_heads(code: str, j: int) -> list[tuple[str, int]]:
    """The first segment of the path that starts at `code[j]`, with its offset; one per item for a group
    (`{a, b::c}` -> a, b). `self` and `super` items are skipped."""
    if j < len(code) and code[j] == "{":
        items, _ = split_group(code, j)
        return [(sm.group(0), off + len(item) - len(item.lstrip()))
                for item, off in items if (sm := re.match(IDENT, item.lstrip())) and sm.group(0) not in ("self", "super")]
    sm = re.compile(IDENT).match(code, j)
    return [(sm.group(0), sm.start())] if sm else []


def folder_refs(code: str, modpath: list[str], folder: str) -> list[tuple[str, int]]:
    """Files of `folder` (first component under it) that `code`, a file of that folder with module path
    `modpath`, names through `super::` chains or `crate::folder::`; each with its offset."""
    refs = []
    for m in re.finditer(r"(?<![\w:])((?:super\s*::\s*)+)", code):
        if modpath[: len(modpath) - m.group(1).count("super")] == [folder]:  # lands on the folder itself
            refs.extend(path_heads(code, m.end()))
    for m in re.finditer(r"(?<![\w$])crate\s*::\s*" + folder + r"\s*::\s*", code):
        refs.extend(path_heads(code, m.end()))
    return refs


def scan_folder(engine_dir: str, folder: str, display_prefix: str = "engine") -> Scan:
    """The files of engine/`folder`/ as modules (engine/ffi/handle.rs -> `handle`) and the references between
    them. The folder's mod.rs is the root (it declares and re-exports) and is not a source of edges."""
    s = Scan()
    top = os.path.join(engine_dir, folder)
    files = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        files.extend(os.path.relpath(os.path.join(dirpath, f), engine_dir).replace(os.sep, "/") for f in sorted(filenames) if f.endswith(".rs"))
    subs = {module_path(rel)[1] for rel in files if len(module_path(rel)) > 1}
    s.modules = subs
    codes = {}
    for rel in files:
        with open(os.path.join(engine_dir, rel), encoding="utf-8") as fh:
            codes[rel] = strip_rust(fh.read())
    names = reexports(codes.get(f"{folder}/mod.rs", ""), subs)
    for rel in files:
        mp = module_path(rel)
        if len(mp) < 2:
            continue
        code = codes[rel]
        for name, off in folder_refs(code, mp, folder):
            dst = name if name in subs else names.get(name)
            if dst is None:
                s.unresolved.append((f"{display_prefix}/{rel}", line_of(code, off), f"{folder}::{name}"))
            elif dst != mp[1]:
                s.edges[(mp[1], dst)].append((f"{display_prefix}/{rel}", line_of(code, off)))
    return s


# ---------------------------------------------------------------------------------------------------------------
# Graph
# ---------------------------------------------------------------------------------------------------------------

def sccs(nodes: list[str], adj: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components (Tarjan), each sorted, components with a cycle only."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in adj.get(v, []):
                out.append(sorted(comp))

    sys.setrecursionlimit(max(1000, 10 * len(nodes)))
    for v in nodes:
        if v not in index:
            visit(v)
    return sorted(out)


def elementary_cycles(nodes: list[str], adj: dict[str, list[str]], limit: int = MAX_CYCLES) -> tuple[list[list[str]], bool]:
    """Every elementary cycle, each starting at its smallest node, shortest first; (cycles, truncated)."""
    order = {v: i for i, v in enumerate(sorted(nodes))}
    found: list[list[str]] = []
    truncated = False
    for start in sorted(nodes):
        # cycles whose smallest node is `start`: DFS over nodes >= start
        path, on_path = [start], {start}

        def dfs(v: str) -> bool:
            nonlocal truncated
            for w in sorted(adj.get(v, [])):
                if order[w] < order[start]:
                    continue
                if w == start:
                    found.append(list(path))
                    if len(found) >= limit:
                        truncated = True
                        return False
                elif w not in on_path:
                    path.append(w)
                    on_path.add(w)
                    if not dfs(w):
                        return False
                    path.pop()
                    on_path.discard(w)
            return True

        if not dfs(start):
            break
    found.sort(key=lambda c: (len(c), c))
    return found, truncated


def parse_allow(items: list[str]) -> set[tuple[str, str]]:
    out = set()
    for it in items:
        m = re.fullmatch(r"\s*(" + IDENT + r")\s*->\s*(" + IDENT + r")\s*", it)
        if not m:
            raise SystemExit(f"--allow expects A->B, got {it!r}")
        out.add((m.group(1), m.group(2)))
    return out


def report(s: Scan, allow: set[tuple[str, str]], out=sys.stdout, verbose: bool = False, title: str = "modules") -> int:
    """Prints the graph, allowed edges, cycles and ort uses; returns the exit status. `verbose` lists every
    file:line of a cycle's edges instead of one example; `title` names what the nodes are."""
    def where(edge):
        if verbose:
            return ", ".join(f"{f}:{ln}" for f, ln in s.edges[edge])
        f, ln = s.edges[edge][0]
        more = len(s.edges[edge]) - 1
        return f"{f}:{ln}" + (f" (+{more} more)" if more else "")

    adj: dict[str, list[str]] = defaultdict(list)
    for (a, b) in sorted(s.edges):
        if (a, b) not in allow:
            adj[a].append(b)
    nodes = sorted(s.modules)
    print(f"{title} ({len(nodes)}): {' '.join(nodes)}", file=out)
    print("graph (module -> what it uses):", file=out)
    width = max((len(n) for n in nodes), default=0)
    for n in nodes:
        targets = sorted(b for (a, b) in s.edges if a == n)
        print(f"  {n:<{width}} -> {', '.join(targets) if targets else '(nothing)'}", file=out)
    for a, b in sorted(allow):
        if (a, b) in s.edges:
            print(f"allowed: {a} -> {b}  ({where((a, b))})", file=out)
        else:
            print(f"allowed: {a} -> {b}  (no such edge any more: drop this --allow)", file=out)
    # Inside a folder, names from its mod.rs (the folder's root, not a file node) are expected: noted with -v only.
    for f, ln, what in (s.unresolved if verbose or not title.startswith("files of") else []):
        print(f"note: {f}:{ln}: `{what}` is not a module of engine/ nor a crate-root re-export (ignored)", file=out)

    status = 0
    comps = sccs(nodes, adj)
    if comps:
        status = 1
        cycles, truncated = elementary_cycles(nodes, adj)
        print(f"CYCLES: {len(comps)} strongly connected group(s) of modules: "
              + "; ".join("{" + ", ".join(c) + "}" for c in comps), file=out)
        for cyc in cycles:
            ring = cyc + [cyc[0]]
            print("cycle: " + " -> ".join(ring), file=out)
            for a, b in zip(ring, ring[1:]):
                print(f"    {a} -> {b}: {where((a, b))}", file=out)
        if truncated:
            print(f"    ... more cycles (first {MAX_CYCLES} shown; break the groups above)", file=out)
    if s.ort:
        status = 1
        print("ORT OUTSIDE engine/backend/<name>/: the `ort` crate is named in", file=out)
        for f, ln in s.ort:
            print(f"    {f}:{ln}", file=out)
    if status == 0:
        print("layers: ok", file=out)
    else:
        print("layers: FAILED", file=out)
    return status


# ---------------------------------------------------------------------------------------------------------------
# Self-tests (inline fixtures)
# ---------------------------------------------------------------------------------------------------------------

def self_test() -> int:
    import io
    import tempfile
    import unittest

    def write_tree(root: str, files: dict[str, str]) -> None:
        for rel, text in files.items():
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(text)

    def scan_fixture(files: dict[str, str]) -> Scan:
        with tempfile.TemporaryDirectory() as d:
            write_tree(d, files)
            return scan(d)

    class T(unittest.TestCase):
        def test_comments_strings_and_chars_are_blanked(self):
            src = (
                "// use crate::a;\n"
                "/// crate::b in a doc comment\n"
                "//! crate::c\n"
                "/* crate::d /* nested crate::e */ still crate::f */\n"
                'let s = "crate::g \\" crate::h";\n'
                'let r = r#"crate::i "quoted" "#;\n'
                "let c = '\"'; let q = '\\''; fn f<'a>(x: &'a str) {}\n"
                "use crate::real;\n"
            )
            code = strip_rust(src)
            self.assertEqual(code.count("\n"), src.count("\n"))
            self.assertEqual([n for n, _ in crate_refs(code)], ["real"])
            self.assertEqual(line_of(code, crate_refs(code)[0][1]), 8)
            self.assertIn("<'a>", code, "lifetimes are code, not char literals")

        def test_groups_and_paths(self):
            code = strip_rust(
                "use crate::{a, b::c, d::{e, f}, self};\n"
                "use crate::{\n    g::{h as i},\n    j,\n};\n"
                "fn x() -> crate::k::T { crate::l::f(); $crate::m::n() }\n"
                "pub(in crate::o) fn y() {}\n"
            )
            self.assertEqual([n for n, _ in crate_refs(code)], ["a", "b", "d", "g", "j", "k", "l", "o"])

        def test_super_chains_only_count_when_they_reach_the_root(self):
            code = "use super::super::bench::x;\nuse super::sibling;\nuse super::super::{config, error::E};\n"
            self.assertEqual([n for n, _ in super_refs(code, ["nat", "bench"])], ["bench", "config", "error"])
            # from a mod.rs one level deeper the same chain stays inside the module
            self.assertEqual(super_refs(code, ["strategy", "hsddw", "level"]), [])
            self.assertEqual([n for n, _ in super_refs("use super::x;", ["nat"])], ["x"])

        def test_module_paths(self):
            self.assertEqual(module_path("strategy/hsddw/mod.rs"), ["strategy", "hsddw"])
            self.assertEqual(module_path("strategy/hsddw/level.rs"), ["strategy", "hsddw", "level"])
            self.assertEqual(module_path("pipeline.rs"), ["pipeline"])
            self.assertTrue(is_root("lib.rs") and is_root("bin/specrt.rs") and not is_root("nat/mod.rs"))

        def test_ort_detection(self):
            code = strip_rust(
                "use ort::value::Tensor;\nlet s = sort::x(); report::y();\n// ort::in_comment\n"
                "let t: ::ort::Session;\nuse ort;\nlet z = self::ort_helpers::f();\n"
            )
            self.assertEqual(ort_uses(code), [1, 4, 5])
            self.assertTrue(ort_allowed("backend/onnxruntime/decoder.rs"))
            self.assertFalse(ort_allowed("backend/mod.rs"))
            self.assertFalse(ort_allowed("nat/model.rs"))

        def test_reexports_resolve_crate_root_names(self):
            names = reexports("pub mod error;\npub use error::{Error, Result};\npub use stats::Stats as S;\n",
                              {"error", "stats"})
            self.assertEqual(names, {"Error": "error", "Result": "error", "S": "stats"})

        def test_cycles_subfolders_allow_and_ort_end_to_end(self):
            files = {
                "lib.rs": "pub mod backend; pub mod model; pub mod nat; pub mod bench;\npub use model::Manifest;\n",
                "bin/cli.rs": "use specrt::nat;\n",
                "backend/mod.rs": "use crate::Manifest;\n",                  # backend -> model (re-export)
                "backend/onnxruntime/mod.rs": "use ort::session::Session;\n",  # allowed
                "model/mod.rs": "use crate::backend::Backend; // crate::nat in a comment\n",
                "nat/mod.rs": "pub mod bench;\n",
                "nat/bench.rs": "use super::super::bench::Report;\n",       # nat -> bench
                "nat/model.rs": "\n\nuse ort::value::Tensor;\n",              # ort outside backend
                "bench/mod.rs": "use crate::{nat::bench as nb};\n",          # bench -> nat
            }
            s = scan_fixture(files)
            self.assertEqual(s.modules, {"backend", "model", "nat", "bench"})
            self.assertEqual(set(s.edges), {("backend", "model"), ("model", "backend"), ("nat", "bench"), ("bench", "nat")})
            self.assertEqual(s.edges[("nat", "bench")], [("engine/nat/bench.rs", 1)])
            self.assertEqual(s.ort, [("engine/nat/model.rs", 3)])
            buf = io.StringIO()
            self.assertEqual(report(s, set(), buf), 1)
            text = buf.getvalue()
            self.assertIn("cycle: backend -> model -> backend", text)
            self.assertIn("cycle: bench -> nat -> bench", text)
            self.assertIn("nat -> bench: engine/nat/bench.rs:1", text)
            self.assertIn("engine/nat/model.rs:3", text)
            # allowing one edge of each cycle and moving ort into the backend: clean
            files["nat/model.rs"] = "use crate::backend::onnxruntime::Session;\n"
            s = scan_fixture(files)
            buf = io.StringIO()
            self.assertEqual(report(s, {("model", "backend"), ("bench", "nat")}, buf), 0, buf.getvalue())
            self.assertIn("allowed: model -> backend", buf.getvalue())
            self.assertIn("layers: ok", buf.getvalue())

        def test_file_level_cycles_inside_a_folder(self):
            files = {
                "lib.rs": "pub mod ffi;\n",
                "ffi/mod.rs": "pub mod handle; pub mod pipeline; pub mod kinds;\npub use pipeline::Pipe;\n",
                "ffi/handle.rs": "use super::status::S;\nconst K: u64 = super::pipeline::Pipe::MAGIC;\n",
                "ffi/pipeline.rs": "use super::{handle::get, status};\nmod tests { }\n",
                "ffi/status.rs": "use crate::error::E;\n",
                "ffi/nested/mod.rs": "use super::super::ffi::x;\n",       # climbs above the folder: no edge
                "ffi/nested/deep.rs": "use super::super::handle::get;\nuse super::sib;\n",
                "ffi/kinds.rs": "use crate::ffi::Pipe;\n",                # a re-export of the folder's mod.rs
            }
            s = None
            with tempfile.TemporaryDirectory() as d:
                write_tree(d, files)
                s = scan_folder(d, "ffi")
            self.assertEqual(s.modules, {"handle", "pipeline", "status", "nested", "kinds"})
            self.assertEqual(set(s.edges), {("handle", "status"), ("handle", "pipeline"), ("pipeline", "handle"),
                                            ("pipeline", "status"), ("nested", "handle"), ("kinds", "pipeline")})
            self.assertEqual(s.edges[("handle", "pipeline")], [("engine/ffi/handle.rs", 2)])
            buf = io.StringIO()
            self.assertEqual(report(s, set(), buf, title="files of engine/ffi/"), 1)
            self.assertIn("cycle: handle -> pipeline -> handle", buf.getvalue())
            files["ffi/handle.rs"] = "use super::status::S;\n"
            with tempfile.TemporaryDirectory() as d:
                write_tree(d, files)
                s = scan_folder(d, "ffi")
            buf = io.StringIO()
            self.assertEqual(report(s, set(), buf), 0, buf.getvalue())

        def test_every_elementary_cycle_is_listed_once(self):
            adj = {"a": ["b"], "b": ["a", "c"], "c": ["a"]}
            cycles, truncated = elementary_cycles(["a", "b", "c"], adj)
            self.assertEqual(cycles, [["a", "b"], ["a", "b", "c"]])
            self.assertFalse(truncated)
            self.assertEqual(sccs(["a", "b", "c", "d"], {**adj, "d": ["a"]}), [["a", "b", "c"]])

    suite = unittest.defaultTestLoader.loadTestsFromTestCase(T)
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    return 0 if result.wasSuccessful() else 1


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="repository root (default: the one this script lives in)")
    ap.add_argument("--allow", action="append", default=[], metavar="A->B", help="accept a known module edge")
    ap.add_argument("-v", "--verbose", action="store_true", help="every file:line of each cycle edge, not one example")
    ap.add_argument("--self-test", action="store_true", help="run the parser's tests on inline fixtures")
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    engine = os.path.join(args.root, "engine")
    if not os.path.isdir(engine):
        print(f"no engine/ folder under {args.root}", file=sys.stderr)
        return 2
    status = report(scan(engine), parse_allow(args.allow), verbose=args.verbose)
    for folder in FILE_LEVEL:
        if os.path.isdir(os.path.join(engine, folder)):
            print(file=sys.stdout)
            status |= report(scan_folder(engine, folder), set(), verbose=args.verbose, title=f"files of engine/{folder}/")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
