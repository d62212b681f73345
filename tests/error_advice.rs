//! Advice in error messages names real things: every dotted config key (`backend.threads`,
//! `strategy.allow_lossy`, ...) that a string literal under engine/ names exists in the pipeline schema, and every
//! `make TARGET` it recommends is a Makefile target. An error that tells users to set a key the loader rejects
//! (`backend.context_length`, issue 17) sends them in a circle.
//!
//! The schema's keys come from the schema itself: configs of every strategy, drafter and level kind are parsed and
//! serialised back, and every mapping path of the result is a key. String literals are found by a small Rust
//! lexer (std only) that skips comments, char literals and lifetimes.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use specrt::config::parse_str;

/// Sections whose dotted keys a message may name.
const SECTIONS: &[&str] = &["backend", "strategy", "generation"];

/// YAML configs that together use every variant of the schema's tagged enums.
const VARIANTS: &[&str] = &[
    "model: m\ncontext_length: 64\nbackend: {kind: cuda}\n",
    "model: m\nstrategy: {kind: speculative, drafter: {kind: draft_model, model: d}}\n",
    "model: m\nstrategy: {kind: speculative, drafter: {kind: layer_skip, model: d}}\n",
    "model: m\nstrategy: {kind: speculative, drafter: {kind: ngram}}\n",
    "model: m\nstrategy: {kind: speculative, drafter: {kind: ngram, corpus: {path: c}}}\n",
    "model: m\nstrategy: {kind: speculative, drafter: {kind: head, model: d}}\n",
    "model: m\nstrategy: {kind: speculative, drafter: {kind: head, model: d, ngram: {corpus: {path: c}}}}\n",
    "model: m\nstrategy: {kind: hsddw, levels: [{kind: ngram}, {kind: model, model: d}]}\n",
    "model: m\nstrategy: {kind: nat, rate: 2.0, baseline: b.yaml}\n",
    "model: m\nstrategy: {kind: space, k: 2, candidates: last}\n",
];

fn collect_keys(prefix: &str, value: &serde_yaml::Value, out: &mut BTreeSet<String>) {
    match value {
        serde_yaml::Value::Mapping(map) => {
            for (k, v) in map {
                if let Some(k) = k.as_str() {
                    let key = if prefix.is_empty() { k.to_string() } else { format!("{prefix}.{k}") };
                    collect_keys(&key, v, out);
                    out.insert(key);
                }
            }
        }
        serde_yaml::Value::Sequence(items) => items.iter().for_each(|v| collect_keys(prefix, v, out)),
        _ => {}
    }
}

/// Every dotted key path the pipeline schema accepts.
fn schema_keys() -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for yaml in VARIANTS {
        let config = parse_str(yaml, "variant.yaml", Path::new(".")).unwrap_or_else(|e| panic!("{yaml}: {e}")).config;
        collect_keys("", &serde_yaml::to_value(&config).unwrap(), &mut keys);
    }
    keys
}

/// The string literals of Rust source (escapes left as written; good enough to find words in messages).
fn string_literals(src: &str) -> Vec<String> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'\'' => {
                // A char literal ('x', '\n', '"') is skipped; a lifetime ('a) has no closing quote nearby.
                if b.get(i + 1) == Some(&b'\\') {
                    i += 2;
                    while i < b.len() && b[i] != b'\'' {
                        i += 1;
                    }
                    i += 1;
                } else if b.get(i + 2) == Some(&b'\'') {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            b'r' if (b.get(i + 1) == Some(&b'#') || b.get(i + 1) == Some(&b'"'))
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'b') =>
            {
                let mut j = i + 1;
                while b.get(j) == Some(&b'#') {
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let hashes = j - i - 1;
                let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                let start = j + 1;
                let end = src[start..].find(&close).map(|e| start + e).unwrap_or(b.len());
                out.push(src[start..end].to_string());
                i = end + close.len();
            }
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                out.push(src[start..i.min(b.len())].to_string());
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// Every string literal under engine/, with the file it is in.
fn engine_literals() -> Vec<(PathBuf, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let files = common::files_with_extension(&root.join("engine"), "rs");
    let mut out = Vec::new();
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        out.extend(string_literals(&src).into_iter().map(|s| (f.strip_prefix(&root).unwrap().to_path_buf(), s)));
    }
    out
}

/// Dotted key paths (`backend.threads`) in `text` that start with one of [`SECTIONS`].
fn dotted_keys(text: &str) -> Vec<String> {
    let is_key = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.';
    let mut out = Vec::new();
    for section in SECTIONS {
        let pat = format!("{section}.");
        let mut from = 0;
        while let Some(pos) = text[from..].find(&pat).map(|p| from + p) {
            from = pos + pat.len();
            let before = text[..pos].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '/' || c == '{') {
                continue; // part of a longer word, a path or a format argument
            }
            let rest = &text[pos..];
            let end = rest.find(|c: char| !is_key(c)).unwrap_or(rest.len());
            let key = rest[..end].trim_end_matches('.');
            if key.len() > pat.len() {
                out.push(key.to_string());
            }
        }
    }
    out
}

#[test]
fn the_lexer_finds_literals_and_skips_the_rest() {
    let src = "// \"not\"\nlet c = '\"'; let s = \"a \\\"b\\\"\"; fn f<'a>() {} let r = r#\"raw \"x\"\"#; /* \"no\" */";
    assert_eq!(string_literals(src), vec!["a \\\"b\\\"".to_string(), "raw \"x\"".to_string()]);
    assert_eq!(dotted_keys("raise backend.threads or set strategy.window.k."), vec!["backend.threads", "strategy.window.k"]);
    assert!(dotted_keys("self.backend.threads x/backend.y").is_empty());
}

#[test]
fn every_config_key_named_in_a_message_exists() {
    let keys = schema_keys();
    assert!(keys.contains("context_length") && keys.contains("strategy.window.k") && keys.contains("strategy.drafter.max_nodes"), "{keys:?}");
    let mut named = 0;
    let mut wrong = Vec::new();
    for (file, literal) in engine_literals() {
        for key in dotted_keys(&literal) {
            named += 1;
            if !keys.contains(&key) {
                wrong.push(format!("{}: `{key}` in \"{literal}\"", file.display()));
            }
        }
    }
    assert!(named >= 3, "the scan found only {named} key names: the lexer is broken");
    assert!(wrong.is_empty(), "messages name keys the pipeline schema does not have:\n{}\nknown keys: {keys:?}", wrong.join("\n"));
}

#[test]
fn prompt_too_long_advice_names_a_key_the_loader_accepts() {
    let e = specrt::Error::PromptTooLong { prompt_tokens: 10, context: 8, model_max: 2048 };
    let msg = e.to_string();
    assert!(!msg.contains("backend.context_length"), "{msg}");
    assert!(msg.contains("context_length"), "{msg}");
    // The key it names is a top-level key; under backend it is an unknown field.
    assert!(parse_str("model: m\ncontext_length: 4096\n", "p.yaml", Path::new(".")).is_ok());
    assert!(parse_str("model: m\nbackend:\n  context_length: 4096\n", "p.yaml", Path::new(".")).is_err());
    for key in dotted_keys(&msg) {
        assert!(schema_keys().contains(&key), "{msg}");
    }
}

#[test]
fn every_make_target_named_in_a_message_exists() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let makefile = std::fs::read_to_string(root.join("Makefile")).unwrap();
    let targets: BTreeSet<&str> = makefile
        .lines()
        .filter_map(|l| l.split_once(':').map(|(t, _)| t))
        .filter(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .collect();
    let mut named = 0;
    let mut wrong = Vec::new();
    for (file, literal) in engine_literals() {
        for (pos, _) in literal.match_indices("`make ") {
            let target: String = literal[pos + 6..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
            named += 1;
            if !targets.contains(target.as_str()) {
                wrong.push(format!("{}: `make {target}` in \"{literal}\"", file.display()));
            }
        }
    }
    assert!(named >= 2, "the scan found only {named} make commands");
    assert!(wrong.is_empty(), "messages name make targets the Makefile does not have:\n{}", wrong.join("\n"));
}
