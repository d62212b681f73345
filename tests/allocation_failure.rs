//! Buffers sized from a manifest and a context length fail as errors naming the size, never by aborting the
//! process (issue 17: a huge context aborted with "memory allocation of ... bytes failed", also through the C
//! ABI, which promises that no function aborts). The model is the tiny fixture with a crafted manifest that claims
//! 2^50 positions; the context asked for needs more bytes than any address space holds.

mod common;

use specrt::model::LanguageModel;

/// A copy of the tiny fixture whose manifest claims `positions` positions.
fn crafted_model(dir: &std::path::Path, positions: u64) -> std::path::PathBuf {
    let src = common::tiny();
    let dst = dir.join("tiny-huge");
    std::fs::create_dir_all(&dst).unwrap();
    for entry in std::fs::read_dir(&src).unwrap() {
        let entry = entry.unwrap();
        if entry.path().is_file() {
            std::fs::copy(entry.path(), dst.join(entry.file_name())).unwrap();
        }
    }
    let path = dst.join("manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    manifest["dims"]["max_position_embeddings"] = positions.into();
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
    dst
}

#[test]
fn a_kv_cache_too_large_for_memory_is_an_error_naming_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let model = crafted_model(dir.path(), 1 << 50);
    let backend = common::backend(1);
    // 2 KV heads x 2^44 slots x 16 dims x 4 bytes = 2^51 bytes per buffer: more than the 2^47-byte user address
    // space of x86-64 and aarch64, so the allocation fails on any machine, overcommit or not.
    let context = 1usize << 44;
    let err = match LanguageModel::open(&backend, &model, Some(context)) {
        Ok(_) => panic!("a {context}-slot KV cache was allocated"),
        Err(e) => e,
    };
    let msg = err.to_string();
    assert!(matches!(err, specrt::Error::Allocation { bytes, .. } if bytes == 1u128 << 51), "{msg}");
    assert!(msg.contains("2251799813685248 bytes") && msg.contains("KV cache"), "{msg}");
    // Sizes whose product overflows usize are errors too, not a wrapped small buffer.
    let err = LanguageModel::open(&backend, &crafted_model(&dir.path().join("b"), u64::MAX >> 1), Some(usize::MAX >> 2)).err().map(|e| e.to_string());
    assert!(err.as_deref().is_some_and(|m| m.contains("could not allocate")), "{err:?}");
    // The same folder opens with a normal context afterwards: nothing leaked into a broken state.
    assert!(LanguageModel::open(&backend, &model, Some(64)).is_ok());
}
