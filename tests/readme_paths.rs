//! README.md and docs/DESIGN.md name only paths that exist in the repository.
//!
//! What counts as a named path (std only, a small Markdown reader):
//! - in inline code (`...`): a token with a `/` or a known extension (.rs .py .md .yaml .yml .toml .h .c .sh), or
//!   a known top-level file (Makefile, Cargo.toml, ...). A token that starts with a repository folder
//!   (engine/, export/, configs/, tests/, examples/, docs/, plans/, scripts/, deploy/) or is a top-level file is
//!   checked from the repository root. Any other relative token (`default.yaml`, `speculative/`,
//!   `include/specrt.h`) must exist somewhere in the repository as a path ending with it; inside the layout table
//!   (a table whose first header cell is `path`) it must exist under that row's own path (`engine/`, ...);
//! - in plain text, link targets and fenced code blocks: only tokens that start with a repository folder (or are a
//!   top-level file), checked from the root (bare names there are often examples: `sentences.txt`).
//!
//! Never checked: generated or git-ignored locations (models/, target/, .cache/, .venv/, bench-out/,
//! plans/*.plan), absolute or parent paths, URLs, and placeholders (containing `...`, `<`, `*`, `{`, `$`, a word
//! NAME, DIR, PATH, X or N, or starting with path/to/).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const DOCS: &[&str] = &["README.md", "docs/DESIGN.md"];
const FOLDERS: &[&str] = &["engine", "export", "configs", "tests", "examples", "docs", "plans", "scripts", "deploy"];
const TOP_LEVEL: &[&str] = &["Makefile", "Cargo.toml", "Cargo.lock", "cbindgen.toml", "README.md", "LICENSE", "build.rs", "rust-toolchain.toml"];
const EXTENSIONS: &[&str] = &["rs", "py", "md", "yaml", "yml", "toml", "h", "c", "sh"];
const IGNORED: &[&str] = &["models", "target", ".cache", ".venv", "bench-out", ".git"];
const PLACEHOLDER_WORDS: &[&str] = &["NAME", "DIR", "PATH", "X", "N"];

/// How a named path is resolved.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Scope {
    /// From the repository root.
    Root,
    /// Anywhere in the repository, as a path ending with the token.
    Anywhere,
    /// Under this folder (a layout-table row), as a path ending with the token.
    Under(String),
}

/// A path a document names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Named {
    line: usize,
    path: String,
    scope: Scope,
}

/// Where a piece of text sits in the Markdown.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Prose,
    Fenced,
    Code,
}

/// Every path `markdown` names (see the module docs), in order.
fn extract(markdown: &str) -> Vec<Named> {
    let mut out = Vec::new();
    let mut in_fence = false;
    let mut table_is_layout = false;
    let mut prose = String::new(); // the current run of non-fenced lines, for inline code spanning lines
    let mut prose_start = 1;
    let flush = |prose: &mut String, start: usize, out: &mut Vec<Named>| {
        scan_prose(prose, start, None, out);
        prose.clear();
    };
    for (i, line) in markdown.lines().enumerate() {
        let lineno = i + 1;
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            flush(&mut prose, prose_start, &mut out);
            in_fence = !in_fence;
            prose_start = lineno + 1;
            continue;
        }
        if in_fence {
            scan_tokens(line, lineno, Context::Fenced, None, &mut out);
            prose_start = lineno + 1;
            continue;
        }
        if trimmed.starts_with('|') {
            // A table row: handled on its own (its cells never continue on the next line).
            flush(&mut prose, prose_start, &mut out);
            prose_start = lineno + 1;
            let cells: Vec<&str> = trimmed.trim().trim_matches('|').split('|').map(str::trim).collect();
            if cells.iter().all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' '))) {
                continue; // the |---|---| separator
            }
            let first = cells.first().copied().unwrap_or("");
            if first.eq_ignore_ascii_case("path") {
                table_is_layout = true;
                continue;
            }
            let row = if table_is_layout { code_spans(first).into_iter().next().map(|(_, s)| s) } else { None };
            scan_prose(trimmed, lineno, row.as_deref(), &mut out);
            continue;
        }
        table_is_layout = false;
        if prose.is_empty() {
            prose_start = lineno;
        }
        prose.push_str(line);
        prose.push('\n');
        if trimmed.is_empty() {
            flush(&mut prose, prose_start, &mut out);
            prose_start = lineno + 1;
        }
    }
    flush(&mut prose, prose_start, &mut out);
    out
}

/// Inline code spans of `text`: (byte offset of the content, content). A backtick run opens a span closed by the
/// next run of the same length; an unmatched run is literal text.
fn code_spans(text: &str) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let run = b[i..].iter().take_while(|&&c| c == b'`').count();
        let start = i + run;
        let mut j = start;
        let mut close = None;
        while j < b.len() {
            if b[j] == b'`' {
                let r = b[j..].iter().take_while(|&&c| c == b'`').count();
                if r == run {
                    close = Some(j);
                    break;
                }
                j += r;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                spans.push((start, text[start..end].to_string()));
                i = end + run;
            }
            None => i = start,
        }
    }
    spans
}

/// Scans a block of non-fenced text starting at line `first_line`: inline code as code, the rest as prose.
/// `row` is the layout-table row path when the text is a layout-table row.
fn scan_prose(text: &str, first_line: usize, row: Option<&str>, out: &mut Vec<Named>) {
    let line_at = |offset: usize| first_line + text[..offset].matches('\n').count();
    let mut last = 0;
    for (start, content) in code_spans(text) {
        // the prose before this span (minus its opening backticks)
        let open = text[..start].trim_end_matches('`').len();
        scan_tokens_multiline(&text[last..open], line_at(last), Context::Prose, row, out);
        scan_tokens_multiline(&content, line_at(start), Context::Code, row, out);
        last = start + content.len();
        last += text[last..].bytes().take_while(|&c| c == b'`').count();
    }
    scan_tokens_multiline(&text[last..], line_at(last), Context::Prose, row, out);
}

fn scan_tokens_multiline(text: &str, first_line: usize, ctx: Context, row: Option<&str>, out: &mut Vec<Named>) {
    for (i, line) in text.split('\n').enumerate() {
        scan_tokens(line, first_line + i, ctx, row, out);
    }
}

/// Splits `text` into tokens and keeps those that name repository paths.
fn scan_tokens(text: &str, line: usize, ctx: Context, row: Option<&str>, out: &mut Vec<Named>) {
    let separators = |c: char| c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | ',' | ';' | '|' | '"' | '\'' | '=' | '`');
    for raw in text.split(separators) {
        let token = raw.trim_end_matches(['.', ':', '!', '?']);
        if let Some((path, scope)) = classify(token, ctx, row) {
            out.push(Named { line, path, scope });
        }
    }
}

fn is_placeholder(token: &str) -> bool {
    token.contains("...")
        || token.contains(['<', '>', '*', '{', '}', '$', '~'])
        || token.starts_with("path/to")
        || token.split(['/', '.', '-', '_']).any(|w| PLACEHOLDER_WORDS.contains(&w))
}

fn has_known_extension(token: &str) -> bool {
    let name = token.rsplit('/').next().unwrap_or(token);
    name.rsplit_once('.').is_some_and(|(stem, ext)| !stem.is_empty() && EXTENSIONS.contains(&ext))
}

/// Whether `token` names a repository path, and how to resolve it.
fn classify(token: &str, ctx: Context, row: Option<&str>) -> Option<(String, Scope)> {
    if token.is_empty() || is_placeholder(token) || token.contains("://") {
        return None;
    }
    if !token.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '-' | '+')) {
        return None;
    }
    let token = token.strip_prefix("./").unwrap_or(token);
    if token.starts_with('/') || token.starts_with("..") || token.contains("//") {
        return None;
    }
    let first = token.split('/').next().unwrap_or("");
    if IGNORED.contains(&first) || (first == "plans" && token.ends_with(".plan")) {
        return None;
    }
    if TOP_LEVEL.contains(&token) || (token.contains('/') && FOLDERS.contains(&first)) {
        return Some((token.to_string(), Scope::Root));
    }
    if ctx != Context::Code {
        return None;
    }
    let pathlike = has_known_extension(token) || token.ends_with('/') || (row.is_some() && token.contains('/'));
    if !pathlike || token.starts_with('.') {
        return None;
    }
    match row {
        Some(r) => Some((token.to_string(), Scope::Under(r.trim_end_matches('/').to_string()))),
        None => Some((token.to_string(), Scope::Anywhere)),
    }
}

/// Every file and folder of the repository (relative, `/`-separated, folders with a trailing `/`), ignored
/// locations left out.
fn repository_paths(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap_or(&p).to_string_lossy().replace('\\', "/");
            let first = rel.split('/').next().unwrap_or("");
            if IGNORED.contains(&first) || rel.contains("__pycache__") {
                continue;
            }
            if p.is_dir() {
                out.push(format!("{rel}/"));
                walk(root, &p, out);
            } else {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// The named paths that do not exist under `root`.
fn missing(root: &Path, named: &[Named]) -> Vec<Named> {
    let all = repository_paths(root);
    let ends_with = |p: &str, token: &str| {
        let (p, t) = (p.trim_end_matches('/'), token.trim_end_matches('/'));
        p == t || p.ends_with(&format!("/{t}"))
    };
    let kind_ok = |p: &str, token: &str| !token.ends_with('/') || p.ends_with('/');
    named
        .iter()
        .filter(|n| {
            let found = match &n.scope {
                Scope::Root => {
                    let full = root.join(&n.path);
                    if n.path.ends_with('/') {
                        full.is_dir()
                    } else {
                        full.exists()
                    }
                }
                Scope::Anywhere => all.iter().any(|p| ends_with(p, &n.path) && kind_ok(p, &n.path)),
                Scope::Under(dir) => {
                    let prefix = format!("{dir}/");
                    all.iter().any(|p| p.starts_with(&prefix) && ends_with(&p[dir.len()..], &n.path) && kind_ok(p, &n.path))
                }
            };
            !found
        })
        .cloned()
        .collect()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn readme_and_design_name_only_existing_paths() {
    let root = root();
    let mut failures = Vec::new();
    let mut checked = 0;
    for doc in DOCS {
        let text = std::fs::read_to_string(root.join(doc)).unwrap_or_else(|e| panic!("cannot read {doc}: {e}"));
        let named = extract(&text);
        assert!(!named.is_empty(), "{doc}: no repository paths found; is the extractor broken?");
        checked += named.iter().map(|n| &n.path).collect::<BTreeSet<_>>().len();
        for n in missing(&root, &named) {
            let scope = match &n.scope {
                Scope::Root => String::new(),
                Scope::Anywhere => " (looked for anywhere in the repository)".to_string(),
                Scope::Under(d) => format!(" (looked for under {d}/)"),
            };
            failures.push(format!("{doc}:{}: `{}` does not exist{scope}", n.line, n.path));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of the paths named in {} are missing ({checked} checked):\n{}",
        failures.len(),
        DOCS.join(" and "),
        failures.join("\n")
    );
}

#[test]
fn extractor_keeps_paths_drops_placeholders_and_reports_the_missing_one() {
    let text = "Build with `Cargo.toml`; see `engine/no_such_module.rs` and `configs/NAME.yaml`.\n";
    let named = extract(text);
    let paths: Vec<&str> = named.iter().map(|n| n.path.as_str()).collect();
    assert_eq!(paths, ["Cargo.toml", "engine/no_such_module.rs"], "the placeholder is not a path");
    let gone = missing(&root(), &named);
    assert_eq!(gone.len(), 1);
    assert_eq!((gone[0].path.as_str(), gone[0].line), ("engine/no_such_module.rs", 1));
}

#[test]
fn extractor_reads_tables_fences_prose_and_ignores_generated_locations() {
    let text = "\
intro naming docs/DESIGN.md) and `target/release/specrt`, `models/x/`, `plans/a.plan`, `path/to/file.rs`
a span over two lines: `see
engine/lib.rs`

| path | what |
|---|---|
| `engine/` | `strategy/`, `speculative/`, `nowhere/`, `lib.rs` |

```
./target/release/specrt --config configs/default.yaml --out bench-out/x sentences.txt
```
`default.yaml` and `no-such-config.yaml` and `cpu | cuda` and `<dir>/x.rs`
";
    let named = extract(text);
    let got: Vec<(usize, &str, &Scope)> = named.iter().map(|n| (n.line, n.path.as_str(), &n.scope)).collect();
    let engine = Scope::Under("engine".into());
    assert_eq!(
        got,
        vec![
            (1, "docs/DESIGN.md", &Scope::Root),
            (3, "engine/lib.rs", &Scope::Root),
            (7, "engine/", &Scope::Root),
            (7, "strategy/", &engine),
            (7, "speculative/", &engine),
            (7, "nowhere/", &engine),
            (7, "lib.rs", &engine),
            (10, "configs/default.yaml", &Scope::Root),
            (12, "default.yaml", &Scope::Anywhere),
            (12, "no-such-config.yaml", &Scope::Anywhere),
        ]
    );
    let gone: Vec<String> = missing(&root(), &named).into_iter().map(|n| n.path).collect();
    assert_eq!(gone, ["nowhere/", "no-such-config.yaml"]);
}
