//! Embedding specrt from Rust: load a YAML pipeline, stream a generation, print the statistics.
//!
//! cargo run --release --example generate -- configs/default.yaml "The capital of France is"

use std::io::Write;

use specrt::{GenerationRequest, Pipeline};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let config = args.next().unwrap_or_else(|| "configs/default.yaml".into());
    let prompt = args.next().unwrap_or_else(|| "The capital of France is".into());
    let mut pipeline = Pipeline::load(config.as_ref())?;
    let request = GenerationRequest { max_tokens: Some(64), ..GenerationRequest::text(prompt) };
    let output = pipeline.generate(&request, &mut |piece| {
        print!("{piece}");
        std::io::stdout().flush().is_ok()
    })?;
    println!();
    eprintln!("{} (finish: {})", output.stats.summary_line(), output.finish_reason.as_str());
    Ok(())
}
