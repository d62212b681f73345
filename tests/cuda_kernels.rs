//! The CUDA backend without a GPU: every kernel compiles to PTX with NVRTC for the GPUs we target (Jetson Orin
//! sm_87, Ampere sm_80, Hopper sm_90), a broken kernel is reported with NVRTC's file:line log, and a machine
//! without a driver gets a clear error instead of a panic. Needs libnvrtc on LD_LIBRARY_PATH (`make test` installs
//! the registry's `nvidia-cuda-nvrtc` and sets it). Runs only with the `cuda` cargo feature.
#![cfg(feature = "cuda")]

use specrt::backend::cuda::driver::driver_present;
use specrt::backend::cuda::kernels::{compile_ptx, compile_source, KERNEL_NAMES, SOURCE};
use specrt::backend::cuda::CudaBackend;
use specrt::config::{BackendConfig, BackendKind};

#[test]
fn every_kernel_compiles_to_ptx_for_each_target() {
    for capability in [(8, 0), (8, 7), (9, 0)] {
        let ptx = compile_ptx(capability).unwrap_or_else(|e| panic!("compute_{}{}: {e}", capability.0, capability.1));
        assert!(ptx.contains(&format!(".target sm_{}{}", capability.0, capability.1)), "PTX for the wrong target");
        for name in KERNEL_NAMES {
            assert!(ptx.contains(&format!(".entry {name}(")), "kernel {name} missing from the PTX for {capability:?}");
        }
    }
}

#[test]
fn a_broken_kernel_is_reported_with_its_line() {
    // Negative control: the same source with one statement broken must fail, naming the line.
    let broken = SOURCE.replacen("const float r = scratch[0];", "const float r = scratch[0]", 1);
    assert_ne!(broken, SOURCE, "the control edit must change the source");
    let err = compile_source(&broken, (9, 0)).expect_err("a syntax error must not compile").to_string();
    assert!(err.contains("specrt_kernels.cu(") && err.contains("error"), "{err}");
}

#[test]
fn without_a_driver_the_backend_says_so_instead_of_panicking() {
    if driver_present() {
        eprintln!("skipped: this machine has an NVIDIA driver");
        return;
    }
    let config = BackendConfig { kind: BackendKind::Cuda, ..Default::default() };
    let err = CudaBackend::new(&config).expect_err("no driver here").to_string();
    assert!(err.contains("no NVIDIA driver found"), "{err}");
    // Through the one factory too (what a YAML pipeline uses).
    let err = specrt::backend::open(&config).err().expect("no driver here").to_string();
    assert!(err.contains("no NVIDIA driver found"), "{err}");
}

fn model_dir(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(name)
}

#[test]
fn the_exporters_gpu_weights_match_what_the_cuda_decoder_reads() {
    use specrt::backend::cuda::weights::{check_file, Shape};
    use specrt::contract::Manifest;
    // tiny-fp32-gpu (`make fixtures`): the same checkpoint as tiny-fp32 written by `python -m export gpu-weights`.
    let manifest = Manifest::load(&model_dir("tiny-fp32-gpu")).expect("make fixtures builds models/tiny-fp32-gpu");
    let file = manifest.header.dir.join(manifest.gpu_weights.as_deref().expect("the manifest names its GPU weights"));
    let shape = Shape::from_manifest(&manifest);
    shape.validate().unwrap();
    let bytes = check_file(&file, &shape).unwrap_or_else(|e| panic!("{e}"));
    let d = &manifest.dims;
    let matrices = d.vocab_size * d.hidden_size
        + d.num_layers
            * ((d.num_heads + 2 * d.num_kv_heads) * d.head_dim * d.hidden_size
                + d.hidden_size * d.num_heads * d.head_dim
                + 3 * d.intermediate_size * d.hidden_size);
    assert!(bytes >= matrices * 2, "{bytes} bytes for {matrices} float16 weights");

    // Negative control: a manifest whose dims disagree with the file is refused, naming the tensor.
    let mut wrong = shape.clone();
    wrong.ffn += 8;
    let err = check_file(&file, &wrong).expect_err("an FFN width the file does not have").to_string();
    assert!(err.contains("layers.0.gate_up"), "{err}");
    let mut wrong = shape.clone();
    wrong.tied = !wrong.tied;
    assert!(check_file(&file, &wrong).is_err(), "tie flag flipped must change the expected tensors");
}

#[test]
fn a_folder_with_only_gpu_weights_loads_without_its_onnx_graph() {
    use specrt::contract::Manifest;
    let dir = tempfile::tempdir().unwrap();
    for f in ["manifest.json", "tokenizer.json", "gpu.safetensors"] {
        std::fs::copy(model_dir("tiny-fp32-gpu").join(f), dir.path().join(f)).unwrap();
    }
    let m = Manifest::load(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.gpu_weights.as_deref(), Some("gpu.safetensors"));
    // And a folder naming GPU weights that are missing says which file.
    std::fs::remove_file(dir.path().join("gpu.safetensors")).unwrap();
    let err = Manifest::load(dir.path()).expect_err("missing GPU weights").to_string();
    assert!(err.contains("gpu.safetensors"), "{err}");
}

#[test]
fn every_gpu_model_folder_present_matches_its_manifest() {
    use specrt::backend::cuda::weights::{check_file, Shape};
    use specrt::contract::Manifest;
    // Whatever GPU forms were built here (`make gpu-model` adds SmolLM2's): each must load as the decoder reads it.
    let mut checked = 0;
    for entry in std::fs::read_dir(model_dir("")).expect("models/ exists after `make fixtures`") {
        let dir = entry.unwrap().path();
        let Ok(m) = Manifest::load(&dir) else { continue };
        let Some(file) = m.gpu_weights.as_deref() else { continue };
        let shape = Shape::from_manifest(&m);
        shape.validate().unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        check_file(&dir.join(file), &shape).unwrap_or_else(|e| panic!("{e}"));
        checked += 1;
    }
    assert!(checked >= 1, "no GPU model folder found (tiny-fp32-gpu is a fixture)");
}
