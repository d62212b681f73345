//! Prompt text is bounded by the context before it is tokenized (issue 17: a 50 MB prompt file took 31 s and
//! 5.3 GB before "prompt too long"). The check is on bytes (`pipeline::MAX_PROMPT_BYTES_PER_TOKEN` per context
//! token), so the error comes back without the tokenizer ever seeing the text; the test checks the error and the
//! limit it names, not a time.

mod common;

use specrt::pipeline::MAX_PROMPT_BYTES_PER_TOKEN;
use specrt::{ChatMessage, Error, GenerationRequest, Pipeline, Prompt};

#[test]
fn oversized_prompts_are_refused_before_tokenizing() {
    let dir = tempfile::tempdir().unwrap();
    let mut pipeline = Pipeline::load(&common::pipeline_yaml(dir.path(), &common::tiny(), "context_length: 64\n")).unwrap();
    let limit = 64 * MAX_PROMPT_BYTES_PER_TOKEN;
    // 16 MiB of text: tokenizing it would take seconds and gigabytes; refusing it takes a length check.
    let huge = "a ".repeat(8 << 20);
    for request in [
        GenerationRequest::text(huge.clone()),
        GenerationRequest { prompt: Some(Prompt::Text(huge.clone())), chat: Some(true), ..Default::default() },
        GenerationRequest { prompt: Some(Prompt::Messages(vec![ChatMessage::user(huge.clone())])), ..Default::default() },
    ] {
        let err = pipeline.generate(&request, &mut |_| true).unwrap_err();
        assert!(matches!(err, Error::PromptTooLarge { bytes, limit: l, context: 64, .. } if bytes >= huge.len() && l == limit), "{err}");
        let msg = err.to_string();
        assert!(msg.contains(&limit.to_string()) && msg.contains("context_length"), "{msg}");
    }
    // Text at the byte limit goes on to the token count, which decides as before.
    let at_limit = "a".repeat(limit);
    let err = pipeline.generate(&GenerationRequest::text(at_limit), &mut |_| true).unwrap_err();
    assert!(matches!(err, Error::PromptTooLong { context: 64, .. }), "{err}");
    // A prompt that fits still generates.
    let out = pipeline.generate(&GenerationRequest { max_tokens: Some(2), ..GenerationRequest::text("hello there") }, &mut |_| true).unwrap();
    assert!(!out.tokens.is_empty());
}

/// Stop strings are searched for after every token, so a request's stop list is bounded too, in the one place every
/// interface goes through (the server also refuses it up front with a 400 naming `stop`).
#[test]
fn request_stop_strings_are_bounded() {
    use specrt::config::schema::{MAX_STOP_BYTES, MAX_STOP_STRINGS};
    let dir = tempfile::tempdir().unwrap();
    let mut pipeline = Pipeline::load(&common::pipeline_yaml(dir.path(), &common::tiny(), "")).unwrap();
    let with_stop = |stop: Vec<String>| GenerationRequest { max_tokens: Some(2), stop: Some(stop), ..GenerationRequest::text("hello") };
    for stop in [vec!["x".to_string(); MAX_STOP_STRINGS + 1], vec!["y".repeat(MAX_STOP_BYTES + 1)]] {
        let err = pipeline.generate(&with_stop(stop), &mut |_| true).unwrap_err();
        assert!(matches!(&err, Error::InvalidValue { key, .. } if key == "stop"), "{err}");
    }
    // At the limits it generates.
    let ok = with_stop(vec!["z".repeat(MAX_STOP_BYTES); MAX_STOP_STRINGS]);
    assert!(pipeline.generate(&ok, &mut |_| true).is_ok());
}
