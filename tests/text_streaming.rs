//! Streaming never splits a multi-byte UTF-8 character, whatever the tokens' byte boundaries, and the streamed
//! text is exactly what the tokenizer's decoder gives for the whole output. Both detokenizing paths of
//! text/stream.rs are checked: the byte table (byte-level vocabularies: SmolLM2, the tiny fixtures) and the
//! decode-a-window fallback (forced here by wrapping the same decoder in a Sequence, which the table refuses).

mod common;

use std::path::PathBuf;

use common::*;
use rand::{Rng, SeedableRng};
use specrt::text::{TextStream, Tokenizer};

/// Streams `ids` through a fresh [`TextStream`]; returns the pieces as they were released.
fn stream(tok: &Tokenizer, ids: &[u32]) -> Vec<String> {
    let mut s = TextStream::new();
    let mut pieces = Vec::new();
    for &id in ids {
        let mut piece = String::new();
        if s.push_into(tok, id, &mut piece).unwrap() {
            pieces.push(piece);
        }
    }
    let mut rest = String::new();
    if s.finish_into(tok, &mut rest).unwrap() {
        pieces.push(rest);
    }
    pieces
}

/// The same tokenizer with its ByteLevel decoder wrapped in a Sequence: identical decoding, no byte table.
fn window_only(path: &std::path::Path, dir: &std::path::Path) -> Tokenizer {
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let decoder = json["decoder"].take();
    json["decoder"] = serde_json::json!({"type": "Sequence", "decoders": [decoder]});
    let out: PathBuf = dir.join("tokenizer.json");
    std::fs::write(&out, json.to_string()).unwrap();
    Tokenizer::load(&out).unwrap()
}

fn tokenizers() -> (tempfile::TempDir, Vec<(String, Tokenizer)>) {
    let dir = tempfile::tempdir().unwrap();
    let mut all = Vec::new();
    for (name, path) in [("tiny", tiny().join("tokenizer.json")), ("smollm2", smollm2("int4").join("tokenizer.json"))] {
        let table = Tokenizer::load(&path).unwrap();
        assert!(table.token_bytes().is_some(), "{name}: a ByteLevel decoder gets the byte table");
        let sub = dir.path().join(name);
        std::fs::create_dir_all(&sub).unwrap();
        let window = window_only(&path, &sub);
        assert!(window.token_bytes().is_none(), "{name}: a Sequence decoder keeps the window path");
        all.push((format!("{name}/table"), table));
        all.push((format!("{name}/window"), window));
    }
    (dir, all)
}

#[test]
fn byte_level_tokens_stream_whole_characters() {
    let (_d, toks) = tokenizers();
    let text = "héllo wörld — 日本語 🙂🍣 done";
    for (name, tok) in &toks {
        let ids = tok.encode(text).unwrap();
        let pieces = stream(tok, &ids);
        assert!(pieces.iter().all(|p| !p.contains('\u{FFFD}')), "{name}: {pieces:?}");
        assert_eq!(pieces.concat(), text, "{name}");
    }
}

#[test]
fn a_truncated_character_is_flushed_at_the_end() {
    let (_d, toks) = tokenizers();
    for (name, tok) in toks.iter().filter(|(n, _)| n.starts_with("tiny")) {
        let ids = tok.encode("a🙂").unwrap();
        let pieces = stream(tok, &ids[..ids.len() - 1]);
        assert_eq!(pieces[0], "a", "{name}: an incomplete character is held back");
        assert!(pieces.concat().ends_with('\u{FFFD}'), "{name}: the incomplete tail is flushed as a replacement character: {pieces:?}");
    }
}

/// Every single token of the real vocabulary, and random id sequences (which often form invalid UTF-8: lone
/// continuation bytes, truncated characters, special tokens in between), stream to exactly the decoder's text.
#[test]
fn streamed_text_equals_the_decoder_on_the_whole_vocabulary_and_random_sequences() {
    let (_d, toks) = tokenizers();
    for (name, tok) in &toks {
        let n = tok.vocab_size() as u32;
        if name.ends_with("/table") {
            for id in 0..n {
                assert_eq!(stream(tok, &[id]).concat(), tok.decode(&[id], true).unwrap(), "{name}: token {id}");
            }
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut invalid = 0;
        for _ in 0..300 {
            let len = rng.random_range(1..40);
            let ids: Vec<u32> = (0..len).map(|_| rng.random_range(0..n + 3)).collect();
            let expected = tok.decode(&ids, true).unwrap();
            invalid += usize::from(expected.contains('\u{FFFD}'));
            assert_eq!(stream(tok, &ids).concat(), expected, "{name}: {ids:?}");
        }
        assert!(invalid > 10, "{name}: the random sequences must exercise invalid UTF-8 ({invalid} of 300 did)");
    }
}
