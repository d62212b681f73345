//! A model folder whose files do not match the contract fails at load time, naming the input or output and the
//! mismatching dtype or shape.

mod common;

use std::path::Path;

use common::*;
use specrt::model::LanguageModel;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Copies the tiny model, edits its manifest with `edit`, and returns the load error.
fn load_with_manifest_edit(edit: impl Fn(&mut serde_json::Value)) -> String {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    copy_dir(&tiny(), &model);
    let path = model.join("manifest.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    match LanguageModel::open(&backend(1), &model, Some(64)) {
        Ok(_) => panic!("a broken manifest loaded"),
        Err(e) => e.to_string(),
    }
}

fn input_mut<'a>(v: &'a mut serde_json::Value, name: &str) -> &'a mut serde_json::Value {
    v["graph"]["inputs"].as_array_mut().unwrap().iter_mut().find(|t| t["name"] == name).unwrap()
}

#[test]
fn renamed_input_is_named() {
    let err = load_with_manifest_edit(|v| input_mut(v, "position_ids")["name"] = "positions".into());
    assert!(err.contains("position_ids"), "{err}");
}

#[test]
fn wrong_dtype_is_named() {
    let err = load_with_manifest_edit(|v| input_mut(v, "input_ids")["dtype"] = "int32".into());
    assert!(err.contains("input_ids") && err.contains("int32") && err.contains("int64"), "{err}");
}

#[test]
fn wrong_shape_is_named() {
    let err = load_with_manifest_edit(|v| input_mut(v, "past_key.0")["shape"][3] = 32.into());
    assert!(err.contains("past_key.0") && err.contains("32"), "{err}");
    let err = load_with_manifest_edit(|v| input_mut(v, "past_key.1")["shape"] = serde_json::json!(["batch", "capacity"]));
    assert!(err.contains("past_key.1") && err.contains("rank"), "{err}");
}

#[test]
fn wrong_vocab_is_named() {
    let err = load_with_manifest_edit(|v| v["dims"]["vocab_size"] = 1000.into());
    assert!(err.contains("1000"), "{err}");
}

#[test]
fn unsupported_format_version_is_refused() {
    let err = load_with_manifest_edit(|v| v["format_version"] = 99.into());
    assert!(err.contains("format_version 99"), "{err}");
}

#[test]
fn missing_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m");
    copy_dir(&tiny(), &model);
    std::fs::remove_file(model.join("tokenizer.json")).unwrap();
    let err = LanguageModel::open(&backend(1), &model, Some(64)).err().unwrap().to_string();
    assert!(err.contains("tokenizer.json"), "{err}");
    std::fs::remove_file(model.join("manifest.json")).unwrap();
    let err = LanguageModel::open(&backend(1), &model, Some(64)).err().unwrap().to_string();
    assert!(err.contains("manifest.json"), "{err}");
}

#[test]
fn context_beyond_the_model_positions_is_refused() {
    let err = LanguageModel::open(&backend(1), &tiny(), Some(1 << 20)).err().unwrap().to_string();
    assert!(err.contains("positions"), "{err}");
}
