//! The TensorRT shim's C interface, driven through specrt's Rust API against a fake libnvinfer/libnvonnxparser
//! (tests/fake_tensorrt/fake_nvinfer.cpp) compiled here from the same vendored headers: the library checks
//! (missing, wrong major version, not TensorRT), deserialization and IO listing, shapes, bindings and enqueue,
//! and `build-plans` from a real tiny export through to the checked loader. No GPU and no TensorRT needed.
#![cfg(feature = "tensorrt")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use specrt::backend::tensorrt::{build_plan, header_version, load_plan, BuildOptions, LibraryPaths, ProfileLimits, TensorRt};
use specrt::contract::Manifest;

const HEADERS: &str = "engine/backend/tensorrt/shim/include";

/// `namespace <ns> { struct Stub<Class> : <qualified> { ... } }` with a body that aborts for every pure virtual
/// method of `class` as declared in `header` (declared inside `ns`, so its unqualified names resolve): the fake
/// overrides only what the shim calls.
fn stub(header: &str, class: &str, ns: &str, qualified: &str, stub_name: &str) -> String {
    let text = std::fs::read_to_string(common::root().join(HEADERS).join("tensorrt").join(header)).unwrap();
    let start = text
        .find(&format!("class {class}\n"))
        .or_else(|| text.find(&format!("class {class} :")))
        .unwrap_or_else(|| panic!("{class} not in {header}"));
    let open = start + text[start..].find('{').unwrap();
    let close = open + text[open..].find("\n};").unwrap();
    // Drop comments, then read declarations up to each ';'.
    let body: String = text[open + 1..close].lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join(" ");
    let mut out = format!("namespace {ns} {{\nstruct {stub_name} : public {qualified} {{\n");
    for decl in body.split(';') {
        let d = decl.replace("public:", " ").replace("protected:", " ");
        let d = d.split_whitespace().collect::<Vec<_>>().join(" ");
        if !d.contains("virtual ") || !d.ends_with("= 0") {
            continue;
        }
        let d = d.trim_end_matches("= 0").replacen("virtual ", "", 1);
        out += &format!("    {d} override {{ std::abort(); }}\n");
    }
    out + "};\n}\n"
}

struct Fake {
    dir: tempfile::TempDir,
}

impl Fake {
    fn lib(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// Builds the fake libraries once: TensorRT 11.4 (`libnvinfer.so.11` + `libnvonnxparser.so.11`) and a 10.3 one.
fn fake() -> &'static Fake {
    static FAKE: OnceLock<Fake> = OnceLock::new();
    FAKE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let stubs = [
            stub("NvInferImpl.h", "VHostMemory", "nvinfer1", "nvinfer1::apiv::VHostMemory", "StubVHostMemory"),
            stub("NvInferImpl.h", "VRuntime", "nvinfer1", "nvinfer1::apiv::VRuntime", "StubVRuntime"),
            stub("NvInferImpl.h", "VCudaEngine", "nvinfer1", "nvinfer1::apiv::VCudaEngine", "StubVCudaEngine"),
            stub("NvInferImpl.h", "VExecutionContext", "nvinfer1", "nvinfer1::apiv::VExecutionContext", "StubVExecutionContext"),
            stub("NvInferImpl.h", "VOptimizationProfile", "nvinfer1", "nvinfer1::apiv::VOptimizationProfile", "StubVOptimizationProfile"),
            stub("NvInferImpl.h", "VBuilderConfig", "nvinfer1", "nvinfer1::apiv::VBuilderConfig", "StubVBuilderConfig"),
            stub("NvInferImpl.h", "VBuilder", "nvinfer1", "nvinfer1::apiv::VBuilder", "StubVBuilder"),
            stub("NvInferImpl.h", "VNetworkDefinition", "nvinfer1", "nvinfer1::apiv::VNetworkDefinition", "StubVNetworkDefinition"),
            stub("NvInferImpl.h", "VTensor", "nvinfer1", "nvinfer1::apiv::VTensor", "StubVTensor"),
            stub("NvOnnxParser.h", "IParser", "nvonnxparser", "nvonnxparser::IParser", "StubIParser"),
        ];
        std::fs::write(dir.path().join("stubs.h"), format!("#pragma once\n#include <cstdlib>\n{}", stubs.join("\n"))).unwrap();
        let root = common::root();
        let compile = |version: u32, out: &str| {
            let status = Command::new("g++")
                .args(["-std=c++17", "-shared", "-fPIC", "-O1", "-Wno-deprecated-declarations", "-fvisibility=hidden"])
                .arg(format!("-DFAKE_TRT_VERSION={version}"))
                .arg(format!("-I{}", dir.path().display()))
                .arg(format!("-I{}", root.join(HEADERS).join("tensorrt").display()))
                .arg(format!("-I{}", root.join(HEADERS).join("cuda_stub").display()))
                .arg(root.join("tests/fake_tensorrt/fake_nvinfer.cpp"))
                .arg("-o")
                .arg(dir.path().join(out))
                .status()
                .expect("g++ runs");
            assert!(status.success(), "compiling the fake TensorRT library failed");
        };
        compile(110400, "libnvinfer.so.11");
        compile(100300, "libnvinfer.so.10");
        // One library serves as both: TensorRT's parser is a separate file, the fake's factories live together.
        std::fs::copy(dir.path().join("libnvinfer.so.11"), dir.path().join("libnvonnxparser.so.11")).unwrap();
        Fake { dir }
    })
}

fn open(with_parser: bool) -> TensorRt {
    TensorRt::open(&LibraryPaths::in_dir(fake().dir.path(), with_parser)).expect("the fake TensorRT opens")
}

const PLAN: &str = "specrt-fake-plan\nprofiles 2\nio x in 0 3 1 -1 4\nio ids in 8 2 1 -1\nio y out 0 3 1 -1 4\n";

#[test]
fn the_shim_was_compiled_against_the_vendored_headers() {
    assert_eq!(header_version(), 110400);
    assert_eq!(LibraryPaths::default_names(true).nvinfer, PathBuf::from("libnvinfer.so.11"));
}

#[test]
fn a_missing_library_is_a_clear_error() {
    let e = TensorRt::open(&LibraryPaths::in_dir(Path::new("/nonexistent"), false)).unwrap_err().to_string();
    assert!(e.starts_with("TensorRT: opening TensorRT: cannot load /nonexistent/libnvinfer.so.11"), "{e}");
    let parser_missing =
        LibraryPaths { onnx_parser: Some(PathBuf::from("/nonexistent/libnvonnxparser.so.11")), ..LibraryPaths::in_dir(fake().dir.path(), false) };
    let e = TensorRt::open(&parser_missing).unwrap_err().to_string();
    assert!(e.contains("cannot load /nonexistent/libnvonnxparser.so.11"), "{e}");
}

#[test]
fn another_major_version_is_refused_naming_both() {
    let paths = LibraryPaths { nvinfer: fake().lib("libnvinfer.so.10"), onnx_parser: None };
    let e = TensorRt::open(&paths).unwrap_err().to_string();
    assert!(e.contains("is TensorRT 10.3.0, but this specrt was compiled against TensorRT 11.4.0 headers"), "{e}");
}

#[test]
fn a_library_that_is_not_tensorrt_is_refused() {
    // The shim's own test binary has none of TensorRT's factories.
    let other = std::env::current_exe().unwrap();
    let e = TensorRt::open(&LibraryPaths { nvinfer: other, onnx_parser: None }).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("is not libnvinfer") || e.contains("cannot load"), "{e}");
}

#[test]
fn a_plan_lists_its_io_and_runs_on_bound_buffers() {
    let trt = open(false);
    assert_eq!(trt.version(), 110400);
    assert!(!trt.can_build());
    let engine = trt.deserialize(PLAN.as_bytes()).unwrap();
    // The engine keeps the library loaded after its handle is gone.
    drop(trt);
    assert_eq!(engine.profiles(), 2);
    let names: Vec<_> = engine.io().iter().map(|t| (t.name.as_str(), t.input, t.dims.clone())).collect();
    assert_eq!(names, [("x", true, vec![1, -1, 4]), ("ids", true, vec![1, -1]), ("y", false, vec![1, -1, 4])]);
    assert_eq!(engine.tensor("ids").unwrap().data_type.manifest_name(), "int64");

    let mut ctx = engine.context().unwrap();
    // SAFETY (the unsafe calls below): the fake takes null streams and host pointers that outlive `ctx`'s use.
    unsafe { ctx.set_profile(1, std::ptr::null_mut()) }.unwrap();
    let e = unsafe { ctx.set_profile(2, std::ptr::null_mut()) }.unwrap_err().to_string();
    assert!(e.contains("setOptimizationProfileAsync(2) refused"), "{e}");
    // Enqueue before every dynamic input has a shape is refused by the shim, not run.
    let e = unsafe { ctx.enqueue(std::ptr::null_mut()) }.unwrap_err().to_string();
    assert!(e.contains("an input's shape is not set"), "{e}");
    ctx.set_input_shape("x", &[1, 3, 4]).unwrap();
    ctx.set_input_shape("ids", &[1, 3]).unwrap();
    let e = ctx.set_input_shape("x", &[1, 3, 5]).unwrap_err().to_string();
    assert!(e.contains("setInputShape(x, [1,3,5]) refused"), "{e}");
    assert_eq!(ctx.shape("y").unwrap(), vec![1, 3, 4]);
    let e = ctx.shape("nope").unwrap_err().to_string();
    assert!(e.contains("getTensorShape(nope) failed"), "{e}");

    let x: Vec<f32> = (0..12).map(|i| i as f32).collect();
    let mut y = vec![0f32; 12];
    unsafe { ctx.set_address("x", x.as_ptr() as *mut _) }.unwrap();
    let e = unsafe { ctx.set_address("z", y.as_mut_ptr().cast()) }.unwrap_err().to_string();
    assert!(e.contains("setTensorAddress(z) refused"), "{e}");
    unsafe { ctx.set_address("y", y.as_mut_ptr().cast()) }.unwrap();
    unsafe { ctx.enqueue(std::ptr::null_mut()) }.unwrap();
    assert_eq!(y, x.iter().map(|v| 2.0 * v + 1.0).collect::<Vec<_>>());
    let e = ctx.set_input_shape("x\0y", &[1]).unwrap_err().to_string();
    assert!(e.contains("NUL"), "{e}");
}

#[test]
fn a_foreign_plan_is_refused() {
    let e = open(false).deserialize(b"not a plan").unwrap_err().to_string();
    assert!(e.contains("deserializeCudaEngine refused the plan"), "{e}");
}

fn tiny_gpu_form() -> Manifest {
    Manifest::load(&common::model_dir("tiny-fp32-plain")).unwrap()
}

fn options() -> BuildOptions {
    BuildOptions {
        limits: ProfileLimits { capacity: 256, prefill_max: 128, prefill_opt: 32, verify_max: 16 },
        workspace_bytes: 1 << 26,
        gpu: "Fake GPU".into(),
    }
}

#[test]
fn build_plans_writes_a_plan_and_a_manifest_that_load_back_checked() {
    let trt = open(true);
    let model = tiny_gpu_form();
    let out = tempfile::tempdir().unwrap();
    let manifest_path = build_plan(&trt, &model, out.path(), &options()).unwrap();
    assert_eq!(manifest_path.file_name().unwrap(), "tiny-fp32-plain-ctx256.json");
    let plan = std::fs::read_to_string(out.path().join("tiny-fp32-plain-ctx256.plan")).unwrap();
    // The profiles reached the builder: the decode profile (p1) of input_ids is [1,1]..[1,16], tuned at [1,1];
    // the KV binding is pinned to the capacity.
    assert!(
        plan.contains("range p1 input_ids 0 1 1\n") && plan.contains("range p1 input_ids 1 1 1\n") && plan.contains("range p1 input_ids 2 1 16\n"),
        "{plan}"
    );
    assert!(plan.contains("range p0 input_ids 2 1 128\n"), "{plan}");
    assert!(plan.contains("range p0 past_key.0 0 1 2 256 16\n"), "{plan}");
    // total_sequence_length is a shape tensor for the (fake) TensorRT: its values 1..256, tuned at 128.
    assert!(plan.contains("range p1 values total_sequence_length 0 1\n") && plan.contains("range p1 values total_sequence_length 2 256\n"), "{plan}");
    assert!(plan.contains("range p1 values total_sequence_length 1 128\n"), "{plan}");

    let (m, engine) = load_plan(&trt, &manifest_path, &model, "Fake GPU").unwrap();
    assert_eq!((m.tensorrt_version.as_str(), m.precision.as_str(), m.profiles.len()), ("11.4.0", "fp32", 2));
    assert_eq!(m.source_sha256, model.header.files["model.onnx"]);
    assert!(engine.tensor("logits").is_some_and(|t| !t.input));

    // Every recorded fact is checked, and the message names it.
    let e = load_plan(&trt, &manifest_path, &model, "Other GPU").unwrap_err().to_string();
    assert!(e.contains("built for Fake GPU, this GPU is Other GPU"), "{e}");
    let mut other_model = model.clone();
    other_model.header.files.insert("model.onnx".into(), "0".repeat(64));
    let e = load_plan(&trt, &manifest_path, &other_model, "Fake GPU").unwrap_err().to_string();
    assert!(e.contains("rebuild the plans"), "{e}");
    let mut bad_contract = model.clone();
    bad_contract.header.graph.inputs[0].name = "token_ids".into();
    let e = load_plan(&trt, &manifest_path, &bad_contract, "Fake GPU").unwrap_err().to_string();
    assert!(e.contains("the plan has no input `token_ids`"), "{e}");
    std::fs::write(out.path().join("tiny-fp32-plain-ctx256.plan"), plan.replace("profiles 2", "profiles 3")).unwrap();
    let e = load_plan(&trt, &manifest_path, &model, "Fake GPU").unwrap_err().to_string();
    assert!(e.contains("does not match its recorded sha256"), "{e}");
}

#[test]
fn build_plans_refuses_cpu_exports_and_carries_the_parsers_errors() {
    let trt = open(true);
    // Negative control of the value ranges: profiles without them fail the build, naming the input.
    let model = tiny_gpu_form();
    let onnx_path = model.header.dir.join("model.onnx");
    let onnx = std::fs::read(&onnx_path).unwrap();
    let limits = options().limits;
    let mut profiles = specrt::backend::tensorrt::profiles::decoder_profiles(&model.header.graph.inputs, &limits).unwrap();
    for p in &mut profiles {
        p.inputs.iter_mut().for_each(|i| i.values.clear());
    }
    let e = trt.build(&onnx, &onnx_path, &profiles, 0).unwrap_err().to_string();
    assert!(e.contains("input total_sequence_length is a shape tensor") && e.contains("no value range"), "{e}");
    let cpu = Manifest::load(&common::tiny()).unwrap();
    let e = build_plan(&trt, &cpu, Path::new("/nonexistent"), &options()).unwrap_err().to_string();
    assert!(e.contains("its attention is `gqa`") && e.contains("--attention-kernel plain"), "{e}");
    // A file that is not ONNX: the parser's error and TensorRT's logged warning both reach the message.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.onnx");
    std::fs::write(&path, b"garbage").unwrap();
    let e = trt.build(b"garbage", &path, &[], 0).unwrap_err().to_string();
    assert!(e.contains("the ONNX parser refused the model: node -1 (ModelProto): not an ONNX model"), "{e}");
    assert!(e.contains("TensorRT: fake parser: only graph inputs and outputs are read"), "{e}");
    let e = open(false).build(b"x", &path, &[], 0).unwrap_err().to_string();
    assert!(e.contains("the ONNX parser library was not opened"), "{e}");
}

#[test]
fn the_build_plans_command_names_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let run = |model: &Path| {
        let cfg = dir.path().join("p.yaml");
        std::fs::write(&cfg, format!("model: {}\ncontext_length: 256\n", model.display())).unwrap();
        let out =
            Command::new(env!("CARGO_BIN_EXE_specrt")).args(["build-plans", "--config"]).arg(&cfg).arg("--out").arg(dir.path()).output().unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = run(&common::tiny());
    assert!(e.contains("export the GPU form of the contract") && e.contains("--attention-kernel plain"), "{e}");
    // The GPU form passes that check; this machine then lacks the GPU (CI) or TensorRT (a GPU machine without it).
    let e = run(&common::model_dir("tiny-fp32-plain"));
    assert!(e.contains("build-plans needs the GPU the plans are for") || e.contains("cannot load libnvinfer.so.11"), "{e}");
    assert!(!dir.path().join("tiny-fp32-plain-ctx256.plan").exists());
}
