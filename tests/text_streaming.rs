//! Streaming never splits a multi-byte UTF-8 character, whatever the tokens' byte boundaries.

mod common;

use common::*;
use specrt::text::{TextStream, Tokenizer};

#[test]
fn byte_level_tokens_stream_whole_characters() {
    let tok = Tokenizer::load(&tiny().join("tokenizer.json")).unwrap();
    let text = "héllo wörld — 日本語 🙂🍣 done";
    let ids = tok.encode(text).unwrap();
    // The tiny tokenizer is byte-level with few merges, so multi-byte characters span several tokens.
    assert!(ids.len() > text.chars().count() / 2);
    let mut stream = TextStream::new();
    let mut pieces = Vec::new();
    for &id in &ids {
        if let Some(p) = stream.push(&tok, id).unwrap() {
            pieces.push(p);
        }
    }
    if let Some(p) = stream.finish(&tok).unwrap() {
        pieces.push(p);
    }
    assert!(pieces.iter().all(|p| !p.contains('\u{FFFD}')), "{pieces:?}");
    assert_eq!(pieces.concat(), text);
}

#[test]
fn a_truncated_character_is_flushed_at_the_end() {
    let tok = Tokenizer::load(&tiny().join("tokenizer.json")).unwrap();
    let ids = tok.encode("a🙂").unwrap();
    let mut stream = TextStream::new();
    let mut out = String::new();
    for &id in &ids[..ids.len() - 1] {
        if let Some(p) = stream.push(&tok, id).unwrap() {
            out.push_str(&p);
        }
    }
    assert_eq!(out, "a", "an incomplete character is held back");
    let rest = stream.finish(&tok).unwrap().unwrap_or_default();
    assert!(rest.contains('\u{FFFD}'), "the incomplete tail is flushed as a replacement character: {rest:?}");
}
