//! The committed C header `engine/include/specrt.h` must be what cbindgen generates from `engine/ffi/` now.
//!
//! Regenerate it after changing the C ABI:
//!
//! ```text
//! cargo test --test c_header_fresh -- --ignored regenerate
//! ```

use std::path::{Path, PathBuf};

const REGENERATE: &str = "cargo test --test c_header_fresh -- --ignored regenerate";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn header_path() -> PathBuf {
    root().join("engine/include/specrt.h")
}

/// The header as cbindgen generates it from `engine/ffi/mod.rs` (and the modules it declares).
fn generate() -> String {
    let root = root();
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml parses");
    let bindings =
        cbindgen::Builder::new().with_config(config).with_src(root.join("engine/ffi/mod.rs")).generate().expect("cbindgen generates the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("the header is UTF-8")
}

fn first_difference(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n  committed: {x}\n  generated: {y}", i + 1);
        }
    }
    format!("the files differ in length ({} vs {} lines)", a.lines().count(), b.lines().count())
}

#[test]
fn header_is_fresh() {
    let generated = generate();
    let path = header_path();
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is out of date with engine/ffi/ ({}).\nRegenerate it with:\n  {REGENERATE}\nand commit it.",
        path.display(),
        first_difference(&committed, &generated)
    );
}

#[test]
fn header_declares_the_abi() {
    let h = generate();
    for name in [
        "SPECRT_ABI_VERSION",
        "specrt_abi_version",
        "specrt_version",
        "specrt_last_error",
        "specrt_pipeline_load_file",
        "specrt_pipeline_load_yaml",
        "specrt_generate",
        "specrt_pipeline_cancel",
        "specrt_result_get_f64",
        "SPECRT_WRONG_HANDLE",
        "typedef struct specrt_pipeline specrt_pipeline",
    ] {
        assert!(h.contains(name), "the generated header lacks `{name}`");
    }
    // Doc comments are carried over.
    assert!(h.contains("run one after another"), "doc comments are missing from the header");
}

/// Writes the header (ignored: run it explicitly with the command above).
#[test]
#[ignore]
fn regenerate() {
    let path = header_path();
    std::fs::create_dir_all(Path::new(&path).parent().unwrap()).unwrap();
    std::fs::write(&path, generate()).unwrap();
    eprintln!("wrote {}", path.display());
}
