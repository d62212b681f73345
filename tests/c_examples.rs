//! Builds the C examples (examples/c/) with `cc` against the libspecrt.so of this build, runs them on the tiny
//! model, and runs them under valgrind's memcheck (valgrind is required), with a negative control: a host that
//! reads freed memory through a result's text must fail the same memcheck. `make test-c` runs this test.

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
    build_source(&root().join("examples/c").join(format!("{example}.c")), out_dir)
}

fn build_source(source: &Path, out_dir: &Path) -> PathBuf {
    let lib = lib_dir();
    let example = source.file_stem().unwrap().to_str().unwrap();
    let out = out_dir.join(example);
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .arg(format!("-I{}", root().join("engine/include").display()))
        .arg(source)
        .arg("-o")
        .arg(&out)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lspecrt")
        .status()
        .unwrap_or_else(|e| panic!("running {cc}: {e}"));
    assert!(status.success(), "{cc} failed on {}", source.display());
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

    // Memcheck: no invalid access and nothing definitely or indirectly lost. Only loader, start-up and ONNX
    // Runtime's own exit-time reports are suppressed, none on a pool thread (examples/c/valgrind.supp says which
    // and why); the examples call specrt_shutdown, so the pool is joined before the process exits.
    for args in [vec![stream.as_os_str(), ar_yaml.as_os_str(), "hi".as_ref(), "3".as_ref()], vec![callbacks.as_os_str(), ar_yaml.as_os_str()]] {
        let (ok, log) = memcheck(&args);
        assert!(ok, "valgrind found errors in {args:?}:\n{log}");
        assert!(log.contains("definitely lost: 0 bytes") || log.contains("All heap blocks were freed"), "{log}");
    }
    // The negative control: the same memcheck catches a host reading freed memory through the library's result.
    let bad_host = build_source(&root().join("tests/fixtures/c/read_after_free.c"), dir.path());
    run(Command::new(&bad_host).arg(&ar_yaml));
    let (ok, log) = memcheck(&[bad_host.as_os_str(), ar_yaml.as_os_str()]);
    assert!(!ok && log.contains("Invalid read of size 1") && log.contains("read_after_free.c"), "the memcheck missed a read after free:\n{log}");
}

/// Runs `args` under valgrind's memcheck with the suppressions and flags every example gets; (passed, log).
/// `make test` installs valgrind (the `tools` target); a missing one is a failure, never a silent skip.
fn memcheck(args: &[&std::ffi::OsStr]) -> (bool, String) {
    let have_valgrind = Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(have_valgrind, "valgrind is not installed (make tools installs it): the C memcheck cannot run");
    let out = Command::new("valgrind")
        .args(["--leak-check=full", "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=1", "--show-possibly-lost=no"])
        .arg(format!("--suppressions={}", root().join("examples/c/valgrind.supp").display()))
        .args(args)
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Sentences of the committed English->German model's domain (UN documents, reviews, news).
const SENTENCES: &[&str] = &[
    "The committee approved the report.",
    "This film is very good.",
    "The children are playing in the garden.",
    "We must protect the environment for our children.",
    "The government has adopted new measures to support small businesses.",
    "I would like to thank the President.",
    "The book was written by a famous author.",
    "The meeting will take place next week in Geneva.",
    "Thank you very much.",
];

fn stdout_of(cmd: &mut Command) -> String {
    run(cmd).0
}

/// NAT over the C ABI: examples/c/translate.c and examples/python/translate.py print, for the same sentences,
/// exactly what `specrt generate` prints on the committed English->German model; a line that is not UTF-8 or
/// is too long fails alone (its output line is empty, the others are unchanged); translate.c passes memcheck.
#[test]
fn translate_from_c_and_python_equals_the_cli() {
    let config = root().join("configs/ctc-nat-en-de.yaml");
    assert!(root().join("models/ctc-nat-en-de/manifest.json").is_file(), "models/ctc-nat-en-de is missing: run `make nat-models`");
    let dir = tempfile::tempdir().unwrap();
    let translate = build("translate", dir.path());
    let sentences = dir.path().join("sentences.txt");
    std::fs::write(&sentences, SENTENCES.join("\n") + "\n").unwrap();

    let cli = stdout_of(Command::new(env!("CARGO_BIN_EXE_specrt")).arg("generate").arg("--config").arg(&config).arg("--prompt-file").arg(&sentences));
    assert_eq!(cli.lines().count(), SENTENCES.len(), "{cli}");
    assert!(cli.lines().all(|l| !l.trim().is_empty()), "every sentence has a translation: {cli}");
    let c = stdout_of(Command::new(&translate).arg(&config).arg(&sentences));
    assert_eq!(c, cli, "translate.c must print what the CLI prints");
    let python = stdout_of(
        Command::new("python3")
            .arg(root().join("examples/python/translate.py"))
            .arg(&config)
            .arg(&sentences)
            .env("SPECRT_LIB", lib_dir().join("libspecrt.so")),
    );
    assert_eq!(python, cli, "translate.py must print what the CLI prints");

    // Bad lines fail alone: not UTF-8 (line 2 of the file) and longer than the model's 256 positions (line 5).
    let mut bad = Vec::new();
    for (i, s) in SENTENCES.iter().enumerate() {
        match i {
            2 => bad.extend_from_slice(b"caf\xc3( \xff\n"),
            4 => bad.extend_from_slice(format!("{}\n", "word ".repeat(400)).as_bytes()),
            _ => {}
        }
        bad.extend_from_slice(format!("{s}\n").as_bytes());
    }
    let bad_file = dir.path().join("bad.txt");
    std::fs::write(&bad_file, &bad).unwrap();
    let mut want: Vec<&str> = cli.lines().collect();
    want.insert(2, "");
    want.insert(5, "");
    let want = want.join("\n") + "\n";
    let (c, c_err) = run(Command::new(&translate).arg(&config).arg(&bad_file));
    assert_eq!(c, want, "translate.c: the bad lines fail alone\n{c_err}");
    assert!(c_err.contains("sentence 2 failed: SPECRT_INVALID_UTF8") && c_err.contains("sentence 5 failed: SPECRT_INVALID_ARGUMENT"), "{c_err}");
    assert!(c_err.contains("failed=2"), "{c_err}");
    let (python, py_err) = run(Command::new("python3")
        .arg(root().join("examples/python/translate.py"))
        .arg(&config)
        .arg(&bad_file)
        .env("SPECRT_LIB", lib_dir().join("libspecrt.so")));
    assert_eq!(python, want, "translate.py: the bad lines fail alone\n{py_err}");
    assert!(py_err.contains("sentence 2 failed: SPECRT_INVALID_UTF8"), "{py_err}");

    // Memcheck on the real model, a few sentences (the bad ones included) to keep it short.
    let few = dir.path().join("few.txt");
    std::fs::write(&few, [b"This film is very good.\n".as_slice(), b"caf\xc3(\n", b"Thank you very much.\n"].concat()).unwrap();
    let (ok, log) = memcheck(&[translate.as_os_str(), config.as_os_str(), few.as_os_str()]);
    assert!(ok, "valgrind found errors in translate.c:\n{log}");
    assert!(log.contains("definitely lost: 0 bytes") || log.contains("All heap blocks were freed"), "{log}");
}
