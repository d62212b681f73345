//! The `specrt` command line: generate text with a YAML pipeline, and benchmark pipelines.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use specrt::config::StrategyConfig;
use specrt::{GenerationRequest, Pipeline, Prompt};

#[derive(Parser)]
#[command(name = "specrt", version, about = "Deploy ONNX-exported LLMs and decode them fast")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate text with a pipeline. Prints only the text on stdout and a one-line summary on stderr.
    Generate(GenerateArgs),
    /// Run pipelines over prompt sets and write results.json, results.md and plots.
    Bench(specrt::bench::BenchArgs),
    /// Serve pipelines over an OpenAI-compatible HTTP API (see docs/SERVER.md).
    Serve(ServeArgs),
    /// Measure the native CUDA backend: roofline, CUDA graphs, verify cost, and a model against its reference
    /// (see docs/GPU.md; needs the `cuda` cargo feature and an NVIDIA GPU).
    #[cfg(feature = "cuda")]
    BenchGpu(specrt::bench::gpu::GpuBenchArgs),
    /// Build TensorRT plans of a pipeline's model into plans/ (see docs/GPU.md "TensorRT"; needs the `tensorrt`
    /// cargo feature, an NVIDIA GPU and TensorRT 11 with its ONNX parser, and the GPU form of the export).
    #[cfg(feature = "tensorrt")]
    BuildPlans(BuildPlansArgs),
}

#[cfg(feature = "tensorrt")]
#[derive(Args)]
struct BuildPlansArgs {
    /// The pipeline YAML whose `model` (and `context_length`, `backend.cuda.device_id`) the plan is for.
    #[arg(long)]
    config: PathBuf,
    /// Where the plan and its manifest go.
    #[arg(long, default_value = "plans")]
    out: PathBuf,
    /// Folder holding libnvinfer.so.11 and libnvonnxparser.so.11 (default: the dynamic loader's search path).
    #[arg(long)]
    library_dir: Option<PathBuf>,
    /// Longest prompt chunk of the prefill profile.
    #[arg(long, default_value_t = 512)]
    prefill_max: i64,
    /// Longest decode/verify pass of the decode profile (token trees and SPACE steps included).
    #[arg(long, default_value_t = 64)]
    verify_max: i64,
    /// Builder workspace limit in MiB (0 = TensorRT's default).
    #[arg(long, default_value_t = 0)]
    workspace_mib: usize,
}

#[derive(Args)]
struct ServeArgs {
    /// The server YAML file (e.g. configs/server.yaml).
    #[arg(long)]
    config: PathBuf,
    /// Override the file's `host`.
    #[arg(long)]
    host: Option<String>,
    /// Override the file's `port`.
    #[arg(long)]
    port: Option<u16>,
    /// One line per request on stderr: `text` (key=value) or `json` (one object per line), or `off`.
    #[arg(long, default_value = "text", value_parser = ["text", "json", "off"])]
    log_format: String,
}

fn serve(args: ServeArgs) -> Result<()> {
    let mut config = specrt::server::ServerConfig::load(&args.config)?;
    if let Some(h) = args.host {
        config.host = h;
    }
    if let Some(p) = args.port {
        config.port = p;
    }
    let log_format = match args.log_format.as_str() {
        "off" => None,
        f => Some(f.parse::<specrt::server::LogFormat>().map_err(anyhow::Error::msg)?),
    };
    specrt::server::run(&config, log_format)?;
    Ok(())
}

#[derive(Args)]
#[command(allow_negative_numbers = true)]
struct GenerateArgs {
    /// The pipeline YAML file.
    #[arg(long)]
    config: PathBuf,
    /// The prompt text.
    #[arg(long, conflicts_with = "prompt_file")]
    prompt: Option<String>,
    /// Read the prompt from a file (must be UTF-8).
    #[arg(long)]
    prompt_file: Option<PathBuf>,
    /// Apply the model's chat template to the prompt.
    #[arg(long)]
    chat: bool,
    /// Maximum new tokens.
    #[arg(long)]
    max_tokens: Option<usize>,
    /// Sampling temperature (0 = greedy).
    #[arg(long)]
    temperature: Option<f32>,
    /// Top-k (0 = off).
    #[arg(long)]
    top_k: Option<usize>,
    /// Top-p (1 = off).
    #[arg(long)]
    top_p: Option<f32>,
    /// Min-p (0 = off).
    #[arg(long)]
    min_p: Option<f32>,
    /// Repetition penalty (1 = off).
    #[arg(long)]
    repetition_penalty: Option<f32>,
    /// RNG seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Stop string (repeatable).
    #[arg(long)]
    stop: Vec<String>,
    /// Print text as it is generated.
    #[arg(long)]
    stream: bool,
    /// Print one JSON object (text, token counts, speeds, strategy statistics) instead of text + summary.
    #[arg(long)]
    json: bool,
    /// Override the pipeline's strategy with plain `ar` (same target and settings), to check identity.
    #[arg(long, value_parser = ["ar"])]
    strategy: Option<String>,
    /// Intra-op threads, overriding the pipeline's `backend.threads` (e.g. 1 per process when several
    /// processes share the cores: two 1-thread generators give ~1.6x the tokens per second of one 2-thread
    /// generator for SmolLM2 on 2 cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Generate(args) => generate(args),
        Command::Bench(args) => specrt::bench::run(&args).map_err(anyhow::Error::from),
        Command::Serve(args) => serve(args),
        #[cfg(feature = "cuda")]
        Command::BenchGpu(args) => specrt::bench::gpu::run(&args).map_err(Into::into),
        #[cfg(feature = "tensorrt")]
        Command::BuildPlans(a) => specrt::backend::tensorrt::plans::build_for_config(
            &a.config,
            &a.out,
            a.library_dir.as_deref(),
            a.prefill_max,
            a.verify_max,
            a.workspace_mib << 20,
        )
        .map(|_| ())
        .map_err(Into::into),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn generate(args: GenerateArgs) -> Result<()> {
    let prompt = match (&args.prompt, &args.prompt_file) {
        (Some(p), _) => p.clone(),
        (None, Some(path)) => {
            let bytes = std::fs::read(path).with_context(|| format!("cannot read prompt file {}", path.display()))?;
            String::from_utf8(bytes).map_err(|e| {
                anyhow::anyhow!("prompt file {} is not valid UTF-8 (invalid byte at offset {})", path.display(), e.utf8_error().valid_up_to())
            })?
        }
        (None, None) => anyhow::bail!("give a prompt with --prompt TEXT or --prompt-file PATH"),
    };
    let t0 = Instant::now();
    eprintln!("specrt: loading {}", args.config.display());
    // One read per config file, with `--threads` applied in one place.
    let load = |path: &std::path::Path| -> Result<specrt::config::LoadedConfig> {
        let mut loaded = specrt::config::load_file(path)?;
        if let Some(n) = args.threads {
            loaded.config.backend.threads = Some(usize::from(n));
        }
        Ok(loaded)
    };
    let mut config_path = args.config.clone();
    let mut chat = args.chat;
    let mut loaded = load(&config_path)?;
    if let StrategyConfig::Nat { baseline, .. } = &loaded.config.strategy {
        if args.strategy.as_deref() != Some("ar") {
            return generate_nat(&args, loaded, &prompt, t0);
        }
        // `--strategy ar` on a NAT pipeline runs its AR baseline on the same text (its chat template turns
        // the sentence into the baseline's prompt format).
        config_path = baseline.clone().ok_or_else(|| anyhow::anyhow!("{}: strategy.baseline names no AR baseline to run", args.config.display()))?;
        chat = true;
        eprintln!("specrt: --strategy ar on a NAT pipeline: running its baseline {}", config_path.display());
        loaded = load(&config_path)?;
    }
    let mut pipeline = Pipeline::from_config(loaded)?;
    if args.strategy.as_deref() == Some("ar") && config_path == args.config {
        pipeline.set_strategy(StrategyConfig::Ar {})?;
    }
    // The numerics mode says how verification is kept bit-identical to decoding (docs/DESIGN.md).
    let numerics = pipeline.numerics().map_or(String::new(), |m| format!(", numerics {}", m.as_str()));
    eprintln!(
        "specrt: {} ({}, strategy {}, {}{numerics}) ready in {:.1}s",
        pipeline.name(),
        pipeline.model_name(),
        pipeline.strategy_name(),
        pipeline.device(),
        t0.elapsed().as_secs_f64()
    );
    let request = GenerationRequest {
        prompt: Some(Prompt::Text(prompt)),
        chat: chat.then_some(true),
        max_tokens: args.max_tokens,
        temperature: args.temperature,
        top_k: args.top_k,
        top_p: args.top_p,
        min_p: args.min_p,
        repetition_penalty: args.repetition_penalty,
        seed: args.seed,
        stop: (!args.stop.is_empty()).then(|| args.stop.clone()),
        ignore_eos: false,
        // A prompt file may hold text from anywhere: control-token text in it stays text.
        trusted_messages: false,
    };
    let stream = args.stream && !args.json;
    let mut stdout = std::io::stdout().lock();
    let output = pipeline.generate(&request, &mut |piece| {
        if stream {
            // A closed stdout (e.g. `| head`) ends the generation instead of panicking.
            return write!(stdout, "{piece}").and_then(|_| stdout.flush()).is_ok();
        }
        true
    })?;
    if args.json {
        let mut obj = serde_json::json!({
            "text": output.text,
            "prompt_tokens": output.stats.prompt_tokens,
            "new_tokens": output.stats.new_tokens,
            "prefill_tokens_per_second": output.stats.prefill_tokens_per_second(),
            "decode_tokens_per_second": output.stats.decode_tokens_per_second(),
            "finish_reason": output.finish_reason.as_str(),
            "tokens": output.tokens,
            "pipeline": pipeline.name(),
            "model": pipeline.model_name(),
        });
        obj["stats"] = output.stats.to_json();
        writeln!(stdout, "{obj}")?;
    } else {
        if !stream {
            write!(stdout, "{}", output.text)?;
        }
        writeln!(stdout)?;
        eprintln!("{} (finish: {})", output.stats.summary_line(), output.finish_reason.as_str());
    }
    Ok(())
}

/// `specrt generate` on a NAT pipeline: every non-empty line of the prompt is one sentence; all of them are
/// translated in batches of the pipeline's `batch_size`, one output line per input line.
fn generate_nat(args: &GenerateArgs, loaded: specrt::config::LoadedConfig, prompt: &str, t0: Instant) -> Result<()> {
    if args.temperature.is_some_and(|t| t > 0.0) {
        anyhow::bail!("strategy `nat` decodes deterministically (greedy CTC or beam search): --temperature does not apply");
    }
    let mut pipeline = specrt::nat::NatPipeline::from_config(loaded)?;
    eprintln!(
        "specrt: {} ({}, strategy nat/{}, {}) ready in {:.1}s",
        pipeline.name(),
        pipeline.model_name(),
        pipeline.decode_name(),
        pipeline.device(),
        t0.elapsed().as_secs_f64()
    );
    let sentences: Vec<String> = prompt.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
    if sentences.is_empty() {
        anyhow::bail!("the prompt has no text to translate");
    }
    let start = Instant::now();
    let out = pipeline.translate(&sentences)?;
    let seconds = start.elapsed().as_secs_f64();
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let items: Vec<serde_json::Value> = out
            .iter()
            .map(|t| {
                serde_json::json!({"text": t.text, "tokens": t.tokens, "source_tokens": t.source_tokens, "positions": t.positions,
                "log_prob": t.log_prob, "stats": t.stats().to_json()})
            })
            .collect();
        let obj = serde_json::json!({
            "text": out.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join("\n"),
            "translations": items,
            "pipeline": pipeline.name(),
            "model": pipeline.model_name(),
            "decode": pipeline.decode_name(),
            "seconds": seconds,
        });
        writeln!(stdout, "{obj}")?;
    } else {
        for t in &out {
            writeln!(stdout, "{}", t.text)?;
        }
        let tokens: usize = out.iter().map(|t| t.tokens.len()).sum();
        eprintln!(
            "[nat/{}] {} sentence(s), {} -> {} tokens, {:.1} ms ({:.1} ms per sentence, {} per pass)",
            pipeline.decode_name(),
            out.len(),
            out.iter().map(|t| t.source_tokens).sum::<usize>(),
            tokens,
            seconds * 1e3,
            seconds * 1e3 / out.len() as f64,
            pipeline.batch_size().min(out.len())
        );
    }
    Ok(())
}
