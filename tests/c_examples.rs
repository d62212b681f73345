//! Builds the C examples (examples/c/) with `cc` against the libspecrt.so of this build, runs them on the tiny
//! model, and runs one under valgrind's memcheck (valgrind is required). `make test-c` runs this test.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// target/<profile>/, where cargo puts libspecrt.so next to the test's deps/ folder.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
    assert!(dir.join("libspecrt.so").is_file(), "{} has no libspecrt.so (build the library first)", dir.display());
    dir
}

fn build(example: &str, out_dir: &Path) -> PathBuf {
    let lib = lib_dir();
    let out = out_dir.join(example);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg(format!("-I{}", root().join("engine/include").display()))
        .arg(root().join("examples/c").join(format!("{example}.c")))
        .arg("-o")
        .arg(&out)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lspecrt")
        .status()
        .unwrap_or_else(|e| panic!("running {cc}: {e}"));
    assert!(status.success(), "{cc} failed on examples/c/{example}.c");
    out
}

fn write_yaml(dir: &Path, name: &str, extra: &str) -> PathBuf {
    let path = dir.join(name);
    let model = root().join("models/tiny-fp32");
    assert!(model.join("manifest.json").is_file(), "fixture model missing: run `make fixtures`");
    std::fs::write(&path, format!("model: {}\nbackend:\n  threads: 1\n{extra}", model.display())).unwrap();
    path
}

fn run(cmd: &mut Command) -> (String, String) {
    let out = cmd.output().expect("the example runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "{cmd:?} failed ({}):\n{stdout}\n{stderr}", out.status);
    (stdout, stderr)
}

#[test]
fn c_examples_build_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let stream = build("stream", dir.path());
    let spec = build("speculative_stats", dir.path());
    let callbacks = build("callbacks", dir.path());
    let ar_yaml = write_yaml(dir.path(), "ar.yaml", "");
    let spec_yaml = write_yaml(dir.path(), "spec.yaml", "strategy:\n  kind: speculative\n  drafter:\n    kind: ngram\n");

    let (_, stderr) = run(Command::new(&stream).arg(&ar_yaml).arg("hello there").arg("7"));
    assert!(stderr.contains(&format!("specrt {}", env!("CARGO_PKG_VERSION"))), "{stderr}");
    assert!(stderr.contains("strategy=ar finish_reason=length"), "{stderr}");
    assert!(stderr.contains("new_tokens=7 tau=1.00"), "{stderr}");

    let (stdout, _) = run(Command::new(&spec).arg(&spec_yaml).arg("a b c a b c a b c a b c").arg("24"));
    assert!(stdout.contains("strategy: speculative"), "{stdout}");
    for line in ["tau: ", "acceptance: ", "decode tokens/s: ", "new_tokens: 24"] {
        assert!(stdout.contains(line), "missing {line:?} in\n{stdout}");
    }

    // Re-entrant calls from a callback are refused; free from another thread waits for the generation.
    let (stdout, _) = run(Command::new(&callbacks).arg(&ar_yaml));
    assert!(stdout.contains("callbacks: ok"), "{stdout}");

    // The ctypes host does the same from Python.
    if Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success()) {
        let (_, stderr) = run(Command::new("python3")
            .arg(root().join("examples/python/specrt_ctypes.py"))
            .arg(&ar_yaml)
            .arg("hello")
            .arg("5")
            .env("SPECRT_LIB", lib_dir().join("libspecrt.so")));
        assert!(stderr.contains("finish_reason=length") && stderr.contains("new_tokens=5"), "{stderr}");
    }

    // A broken config: a nonzero exit and the library's message.
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "model: [\n").unwrap();
    let out = Command::new(&stream).arg(&bad).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("SPECRT_CONFIG"), "{}", String::from_utf8_lossy(&out.stderr));

    // Memcheck: no invalid access in our code and nothing definitely or indirectly lost. ONNX Runtime's and the
    // dynamic loader's known reports are suppressed (examples/c/valgrind.supp says which and why).
    // `make test` installs valgrind (the `tools` target); a missing one is a failure, never a silent skip.
    let have_valgrind = Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(have_valgrind, "valgrind is not installed (make tools installs it): the C memcheck cannot run");
    for args in [vec![stream.as_os_str(), ar_yaml.as_os_str(), "hi".as_ref(), "3".as_ref()], vec![callbacks.as_os_str(), ar_yaml.as_os_str()]] {
        let out = Command::new("valgrind")
            .args(["--leak-check=full", "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=1", "--show-possibly-lost=no"])
            .arg(format!("--suppressions={}", root().join("examples/c/valgrind.supp").display()))
            .args(&args)
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "valgrind found errors in {args:?}:\n{log}");
        assert!(log.contains("definitely lost: 0 bytes") || log.contains("All heap blocks were freed"), "{log}");
    }
}
