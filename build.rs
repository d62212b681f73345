// Build script: compiles the TensorRT shim (engine/backend/tensorrt/shim/specrt_trt.cpp) when the `tensorrt`
// feature is on. It needs only a C++17 compiler: the TensorRT headers are vendored and the libraries are opened
// with dlopen at run time, so nothing is linked but libdl and the C++ runtime.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "tensorrt")]
    {
        let shim = "engine/backend/tensorrt/shim";
        println!("cargo:rerun-if-changed={shim}");
        cc::Build::new()
            .cpp(true)
            .std("c++17")
            .file(format!("{shim}/specrt_trt.cpp"))
            .include(shim)
            .include(format!("{shim}/include/tensorrt"))
            .include(format!("{shim}/include/cuda_stub"))
            // TensorRT's own headers use their deprecated enumerators in inline code.
            .flag_if_supported("-Wno-deprecated-declarations")
            .warnings(true)
            .compile("specrt_trt");
        println!("cargo:rustc-link-lib=dylib=dl");
        println!("cargo:rustc-link-lib=dylib=stdc++");
    }
}
