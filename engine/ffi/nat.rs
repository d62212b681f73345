//! NAT (translation) pipelines through the C ABI: a request's source sentences, or its prompt read as the CLI
//! reads it (one sentence per non-empty line), translated in one call with one output per sentence. A sentence
//! that fails (NULL, not UTF-8, empty, too long, a failed pass) fails alone.

use std::time::Instant;

use super::error::{FfiError, FfiResult};
use super::request::RequestState;
use super::result::ResultState;
use super::sources::{Source, SPECRT_MAX_SOURCES};
use crate::error::Error;
use crate::generate::Prompt;
use crate::nat::NatPipeline;

/// Translates `request` on `pipeline`.
pub(crate) fn translate(pipeline: &mut NatPipeline, request: &RequestState) -> FfiResult<ResultState> {
    if let Some(t) = request.request.temperature.filter(|t| *t > 0.0) {
        return Err(FfiError::invalid(format!(
            "strategy `nat` decodes deterministically (greedy CTC or beam search): temperature {t} does not apply (leave it unset or 0)"
        )));
    }
    let sources = sources_of(request)?;
    // A sentence that already failed goes in as empty text so every index stays the caller's; its own error
    // replaces the engine's below.
    let texts: Vec<String> = sources.iter().map(|s| s.as_ref().map_or_else(|_| String::new(), Clone::clone)).collect();
    let t0 = Instant::now();
    let translated = pipeline.translate_each(&texts);
    let seconds = t0.elapsed().as_secs_f64();
    let items = sources
        .into_iter()
        .zip(translated)
        .enumerate()
        .map(|(i, (source, translation))| {
            source?;
            translation.map_err(|e| sentence_error(i, e))
        })
        .collect();
    Ok(ResultState::from_translations(items, seconds, pipeline.decode_name()))
}

/// The request's sentences: its sources, else its text prompt split into lines like the CLI does.
fn sources_of(request: &RequestState) -> FfiResult<Vec<Source>> {
    if let Some(sources) = &request.sources {
        return Ok(sources.clone());
    }
    match &request.request.prompt {
        Some(Prompt::Text(text)) => {
            let lines: Vec<Source> = text.lines().map(str::trim).filter(|l| !l.is_empty()).map(|l| Ok(l.to_string())).collect();
            if lines.is_empty() {
                return Err(FfiError::invalid("the prompt has no text to translate"));
            }
            if lines.len() > SPECRT_MAX_SOURCES {
                return Err(FfiError::invalid(format!(
                    "the prompt has {} lines, more than SPECRT_MAX_SOURCES ({SPECRT_MAX_SOURCES}) sentences per request: split it",
                    lines.len()
                )));
            }
            Ok(lines)
        }
        Some(_) => Err(FfiError::invalid("a NAT pipeline translates text: set the sentences with specrt_request_set_sources")),
        None => Err(FfiError::invalid("no sentences to translate: set them with specrt_request_set_sources (or a prompt, one sentence per line)")),
    }
}

/// An engine error of sentence `i`, with a message that names the sentence (the request errors already do).
fn sentence_error(i: usize, e: Error) -> FfiError {
    let named = matches!(e, Error::InvalidRequest(_));
    let mut error = FfiError::from(e);
    if !named {
        error.message = format!("sentence {i}: {}", error.message);
    }
    error
}
