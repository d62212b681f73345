//! `specrt build-plans`: TensorRT plans of a decoder export, and the manifest that ties each plan to what it was
//! built from. A plan is only valid for one TensorRT version, one GPU model and one ONNX file, so the manifest
//! records all three (plus both files' sha256) and [`load_plan`] refuses a plan whose facts differ, naming which,
//! instead of letting TensorRT fail deep inside deserialization or, worse, run a plan of another model.
//!
//! Plans are built from the GPU form of the contract only (float weights, `attention_kernel: plain`: standard
//! ONNX operators with the explicit additive mask): the CPU exports use ONNX Runtime's contrib operators
//! (GroupQueryAttention, MatMulNBits) and specrt's own, which TensorRT's ONNX parser does not implement.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::library::{Engine, ProfileShapes, TensorRt};
use super::profiles::{decoder_profiles, ProfileLimits};
use super::shim::version_text;
use crate::contract::decoder::WeightPrecision;
use crate::contract::tensor::{Dim, TensorSpec};
use crate::contract::Manifest;
use crate::error::{Error, Result};

/// The manifest's `format` value.
pub const FORMAT: &str = "specrt-tensorrt-plan";
/// The manifest's `format_version`.
pub const FORMAT_VERSION: u32 = 1;

/// What a plan was built from and for (`plans/<name>.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanManifest {
    /// [`FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The plan file, beside this manifest.
    pub plan: String,
    /// sha256 of the plan file.
    pub plan_sha256: String,
    /// The model folder the plan was built from (as given to build-plans).
    pub model: PathBuf,
    /// The ONNX file inside it.
    pub source_onnx: String,
    /// sha256 of that ONNX file (the model manifest's own hash of it).
    pub source_sha256: String,
    /// TensorRT version that built the plan (`major.minor.patch`); plans load only in the same version.
    pub tensorrt_version: String,
    /// The GPU the plan was tuned for (its name as the driver reports it).
    pub gpu: String,
    /// Weight precision of the source graph (`fp16`, `fp32`): TensorRT 10+ networks are strongly typed, so the
    /// plan computes in the ONNX graph's own types.
    pub precision: String,
    /// KV capacity and pass lengths the profiles cover.
    pub capacity: i64,
    /// Longest prefill pass.
    pub prefill_max: i64,
    /// Longest decode/verify pass.
    pub verify_max: i64,
    /// The optimization profiles, in the plan's order (0 = prefill, 1 = decode).
    pub profiles: Vec<ProfileShapes>,
}

/// Options of one build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Shapes the profiles cover.
    pub limits: ProfileLimits,
    /// Builder workspace limit in bytes (0 = TensorRT's default).
    pub workspace_bytes: usize,
    /// The GPU the plan is built on (recorded; TensorRT builds for the GPU it runs on).
    pub gpu: String,
}

fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn io_err(path: &Path, e: std::io::Error) -> Error {
    Error::io(path, e)
}

fn weights_name(w: WeightPrecision) -> &'static str {
    match w {
        WeightPrecision::Fp32 => "fp32",
        WeightPrecision::Fp16 => "fp16",
        WeightPrecision::Int8 => "int8",
        WeightPrecision::Int4 => "int4",
    }
}

/// Refuses models whose graph TensorRT cannot parse, naming the export flag that makes the GPU form.
pub fn check_gpu_form(model: &Manifest) -> Result<()> {
    let p = &model.precision;
    let attention = p.attention_kernel.as_deref().unwrap_or("gqa");
    let problem = if p.linear_kernel.is_some() || !matches!(p.weights, WeightPrecision::Fp16 | WeightPrecision::Fp32) {
        Some(format!(
            "its weights are {} ({}), quantized with ONNX Runtime/specrt operators",
            weights_name(p.weights),
            p.linear_kernel.as_deref().unwrap_or("matmulnbits")
        ))
    } else if attention != "plain" {
        Some(format!("its attention is `{attention}` (a contrib or specrt operator)"))
    } else {
        None
    };
    match problem {
        None => Ok(()),
        Some(why) => Err(Error::TensorRt(format!(
            "{}: TensorRT's ONNX parser cannot build this export: {why}; export the GPU form of the contract: \
             python -m export SOURCE --out DIR --precision fp16 --attention-kernel plain",
            model.header.dir.display()
        ))),
    }
}

/// The plan's file stem for a model folder and capacity: `<folder>-ctx<capacity>`.
pub fn plan_stem(model: &Manifest, capacity: i64) -> String {
    let folder = model.header.dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "model".into());
    format!("{folder}-ctx{capacity}")
}

/// Builds the prefill and decode profiles' plan of `model` into `out_dir` (`<stem>.plan` + `<stem>.json`) and
/// returns the manifest path.
pub fn build_plan(trt: &TensorRt, model: &Manifest, out_dir: &Path, opts: &BuildOptions) -> Result<PathBuf> {
    check_gpu_form(model)?;
    if !trt.can_build() {
        return Err(Error::TensorRt("building plans needs libnvonnxparser, which was not opened".into()));
    }
    let onnx_path = model.header.dir.join(&model.header.graph.file);
    let onnx = std::fs::read(&onnx_path).map_err(|e| io_err(&onnx_path, e))?;
    let source_sha256 = sha256_hex(&onnx);
    let profiles = decoder_profiles(&model.header.graph.inputs, &opts.limits)?;
    let plan = trt.build(&onnx, &onnx_path, &profiles, opts.workspace_bytes)?;
    std::fs::create_dir_all(out_dir).map_err(|e| io_err(out_dir, e))?;
    let stem = plan_stem(model, opts.limits.capacity);
    let plan_path = out_dir.join(format!("{stem}.plan"));
    std::fs::write(&plan_path, &plan).map_err(|e| io_err(&plan_path, e))?;
    let manifest = PlanManifest {
        format: FORMAT.into(),
        format_version: FORMAT_VERSION,
        plan: format!("{stem}.plan"),
        plan_sha256: sha256_hex(&plan),
        model: model.header.dir.clone(),
        source_onnx: model.header.graph.file.clone(),
        source_sha256,
        tensorrt_version: version_text(trt.version()),
        gpu: opts.gpu.clone(),
        precision: weights_name(model.precision.weights).to_string(),
        capacity: opts.limits.capacity,
        prefill_max: opts.limits.prefill_max,
        verify_max: opts.limits.verify_max,
        profiles,
    };
    let manifest_path = out_dir.join(format!("{stem}.json"));
    let text = serde_json::to_string_pretty(&manifest).map_err(|e| Error::Internal(format!("plan manifest: {e}")))?;
    std::fs::write(&manifest_path, text + "\n").map_err(|e| io_err(&manifest_path, e))?;
    Ok(manifest_path)
}

/// `specrt build-plans`: the plan of a pipeline's target model for the GPU `device_id`, into `out_dir`. The KV
/// capacity is the pipeline's `context_length` (default: min(2048, the model's maximum positions), as when the
/// pipeline loads). Libraries come from `library_dir` or the loader's search path.
pub fn build_for_config(
    config: &Path,
    out_dir: &Path,
    library_dir: Option<&Path>,
    prefill_max: i64,
    verify_max: i64,
    workspace_bytes: usize,
) -> Result<PathBuf> {
    let loaded = crate::config::load_file(config)?;
    let model = Manifest::load(&loaded.config.model)?;
    let capacity = loaded.config.context_length.unwrap_or_else(|| model.dims.max_position_embeddings.min(2048)) as i64;
    check_gpu_form(&model)?;
    let device = loaded.config.backend.cuda.device_id;
    // TensorRT builds for the GPU it runs on; the driver names it (and a machine without one is told so here).
    let gpu = crate::backend::cuda::driver::Context::new(device)
        .map_err(|e| Error::TensorRt(format!("build-plans needs the GPU the plans are for (TensorRT tunes them on it): {e}")))?;
    let paths = match library_dir {
        Some(dir) => super::LibraryPaths::in_dir(dir, true),
        None => super::LibraryPaths::default_names(true),
    };
    let trt = TensorRt::open(&paths)?;
    let limits = ProfileLimits {
        capacity,
        prefill_max: prefill_max.min(capacity),
        prefill_opt: 128.min(prefill_max).min(capacity),
        verify_max: verify_max.min(capacity),
    };
    eprintln!(
        "[build-plans] {} on {} with TensorRT {}: capacity {capacity}, prefill <= {}, decode/verify <= {}",
        model.header.dir.display(),
        gpu.name,
        version_text(trt.version()),
        limits.prefill_max,
        limits.verify_max
    );
    let started = std::time::Instant::now();
    let out = build_plan(&trt, &model, out_dir, &BuildOptions { limits, workspace_bytes, gpu: gpu.name.clone() })?;
    eprintln!("[build-plans] wrote {} in {:.1} s", out.display(), started.elapsed().as_secs_f64());
    Ok(out)
}

/// Reads a plan manifest, checks it against the model, the library and the GPU, deserializes the plan and checks
/// its IO tensors against the model's declared graph.
pub fn load_plan(trt: &TensorRt, manifest_path: &Path, model: &Manifest, gpu: &str) -> Result<(PlanManifest, Engine)> {
    let text = std::fs::read_to_string(manifest_path).map_err(|e| io_err(manifest_path, e))?;
    let m: PlanManifest = serde_json::from_str(&text).map_err(|e| Error::TensorRt(format!("{}:{}: {e}", manifest_path.display(), e.line())))?;
    let at = |what: String| Error::TensorRt(format!("{}: {what}", manifest_path.display()));
    if m.format != FORMAT || m.format_version != FORMAT_VERSION {
        return Err(at(format!("format {} v{} (this specrt reads {FORMAT} v{FORMAT_VERSION})", m.format, m.format_version)));
    }
    let expected_source = model.header.files.get(&m.source_onnx);
    if expected_source != Some(&m.source_sha256) {
        return Err(at(format!(
            "the plan was built from a {} with sha256 {}, but {} holds {}; rebuild the plans (specrt build-plans)",
            m.source_onnx,
            m.source_sha256,
            model.header.dir.display(),
            expected_source.map_or("no such file", |s| s.as_str())
        )));
    }
    let library = version_text(trt.version());
    if m.tensorrt_version != library {
        return Err(at(format!("built by TensorRT {}, this is TensorRT {library}; rebuild the plans", m.tensorrt_version)));
    }
    if m.gpu != gpu {
        return Err(at(format!("built for {}, this GPU is {gpu}; rebuild the plans on this machine", m.gpu)));
    }
    let plan_path = manifest_path.parent().unwrap_or(Path::new(".")).join(&m.plan);
    let plan = std::fs::read(&plan_path).map_err(|e| io_err(&plan_path, e))?;
    if sha256_hex(&plan) != m.plan_sha256 {
        return Err(at(format!("{} does not match its recorded sha256 (truncated or replaced)", plan_path.display())));
    }
    let engine = trt.deserialize(&plan)?;
    check_io(&engine, &model.header.graph.inputs, true).and_then(|_| check_io(&engine, &model.header.graph.outputs, false)).map_err(&at)?;
    if engine.profiles() != m.profiles.len() {
        return Err(at(format!("the plan has {} optimization profiles, the manifest lists {}", engine.profiles(), m.profiles.len())));
    }
    Ok((m, engine))
}

/// Every declared tensor exists in the plan, on the same side, with the same element type and rank, and the same
/// size on every fixed axis.
fn check_io(engine: &Engine, declared: &[TensorSpec], inputs: bool) -> std::result::Result<(), String> {
    let side = if inputs { "input" } else { "output" };
    for spec in declared {
        let t = engine.tensor(&spec.name).ok_or_else(|| format!("the plan has no {side} `{}`", spec.name))?;
        if t.input != inputs {
            return Err(format!("`{}` is an {} of the plan, the contract declares an {side}", spec.name, if t.input { "input" } else { "output" }));
        }
        if t.data_type.manifest_name() != spec.dtype.as_str() {
            return Err(format!("{side} `{}` is {} in the plan, {} in the contract", spec.name, t.data_type.manifest_name(), spec.dtype.as_str()));
        }
        let fixed_mismatch = spec.shape.iter().zip(&t.dims).any(|(d, &n)| matches!(d, Dim::Fixed(f) if n >= 0 && *f != n));
        if t.dims.len() != spec.shape.len() || fixed_mismatch {
            return Err(format!("{side} `{}` has shape {:?} in the plan, the contract declares {:?}", spec.name, t.dims, spec.shape));
        }
    }
    Ok(())
}
