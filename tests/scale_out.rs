//! Scale-out on existing parts (docs/DEPLOY.md): two `specrt serve` processes with the tiny model behind a real
//! nginx (Debian's package, `make tools`) configured from deploy/nginx.conf on 127.0.0.1 with ephemeral ports,
//! running as the current user with every path under a temp dir.
//!
//! It shows, reading each replica's own `/metrics` rather than nginx's view: requests spread over both replicas;
//! a replica killed with SIGKILL mid-load loses only the requests it held (each gets a clean error at once: 502
//! from nginx, or a stream that ends without `[DONE]`), and every later request succeeds on the survivor. Every
//! client call has a timeout and a watchdog bounds the whole test; child processes are killed on every exit path.

mod common;

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use specrt::server::client::{self, EventStream};

/// The whole test must end within this; past it the watchdog kills the children and fails the process.
const OVERALL_BOUND: Duration = Duration::from_secs(240);
/// Every client call's timeout (connect, each read, each write).
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// A request that was in flight on the killed replica must have its error within this after the kill.
const ERROR_WITHIN: Duration = Duration::from_secs(5);
/// Requests of the spread phase, and their concurrency.
const SPREAD_REQUESTS: usize = 40;
const SPREAD_CLIENTS: usize = 4;
/// Clients of the kill phase; each has one request outstanding at a time.
const LOAD_CLIENTS: usize = 6;
/// Tokens per kill-phase request: long enough that both replicas are busy when one is killed.
const LOAD_TOKENS: usize = 400;
/// Requests sent after the load, one at a time, all of which the survivor must serve.
const AFTER_REQUESTS: usize = 20;
const MODEL: &str = "tiny";

/// Pids of the children, for the watchdog (a `Child` cannot be shared with it).
static CHILD_PIDS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn signal(pid: u32, sig: &str) {
    let _ = Command::new("kill").args([sig, &pid.to_string()]).stderr(Stdio::null()).status();
}

/// Fails the whole process (not just a thread) if the test runs past `OVERALL_BOUND`, after killing the children.
fn watchdog(done: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let end = Instant::now() + OVERALL_BOUND;
        while Instant::now() < end {
            if done.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        eprintln!("scale_out: still running after {OVERALL_BOUND:?}: something hangs; killing the children");
        for pid in CHILD_PIDS.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            // SIGTERM first: nginx's master then stops its worker (a SIGKILLed master would orphan it).
            signal(*pid, "-TERM");
        }
        std::thread::sleep(Duration::from_millis(500));
        for pid in CHILD_PIDS.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            signal(*pid, "-KILL");
        }
        std::process::exit(101);
    });
}

/// A child process that is stopped (SIGTERM, then SIGKILL after 5 s) when dropped.
struct Proc {
    child: Child,
    name: String,
    log: PathBuf,
}

impl Proc {
    fn spawn(name: &str, cmd: &mut Command, log: PathBuf) -> Proc {
        let file = std::fs::File::create(&log).unwrap();
        let child = cmd.stdout(Stdio::null()).stderr(file).spawn().unwrap_or_else(|e| panic!("{name} does not start: {e}"));
        CHILD_PIDS.lock().unwrap().push(child.id());
        Proc { child, name: name.to_string(), log }
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Panics with the log if the process has exited.
    fn assert_running(&mut self) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!("{} exited ({status}); its log:\n{}", self.name, self.log_text());
        }
    }

    fn kill_now(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            signal(self.child.id(), "-TERM");
            let end = Instant::now() + Duration::from_secs(5);
            while Instant::now() < end && matches!(self.child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        self.kill_now();
    }
}

/// A free 127.0.0.1 port (bound and released; the child binds it a moment later).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn addr(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

/// Polls `GET /health` until it answers 200 (the process must stay alive meanwhile).
fn wait_healthy(p: &mut Proc, at: SocketAddr) {
    let end = Instant::now() + Duration::from_secs(60);
    while Instant::now() < end {
        p.assert_running();
        if client::request(at, "GET", "/health", None, Duration::from_secs(2)).is_ok_and(|r| r.status == 200) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{} not healthy at {at} after 60 s; its log:\n{}", p.name, p.log_text());
}

/// One `specrt serve` replica of the tiny model.
fn start_replica(dir: &Path, name: &str) -> (Proc, SocketAddr) {
    let port = free_port();
    let pipeline = dir.join(format!("{name}-pipeline.yaml"));
    std::fs::write(&pipeline, format!("name: {MODEL}\nmodel: {}\nbackend:\n  threads: 1\n", common::tiny().display())).unwrap();
    let server = dir.join(format!("{name}-server.yaml"));
    std::fs::write(
        &server,
        format!("host: 127.0.0.1\nport: {port}\nworkers: 1\nqueue_capacity: 16\npipelines:\n  - config: {}\n", pipeline.display()),
    )
    .unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_specrt"));
    cmd.args(["serve", "--config"]).arg(&server);
    let mut p = Proc::spawn(name, &mut cmd, dir.join(format!("{name}.log")));
    wait_healthy(&mut p, addr(port));
    (p, addr(port))
}

/// The nginx binary: on PATH, or where Debian installs it (not on a non-root user's PATH).
fn nginx_binary() -> PathBuf {
    let found =
        ["nginx", "/usr/sbin/nginx"].into_iter().find(|b| Command::new(b).arg("-v").stderr(Stdio::null()).status().is_ok_and(|s| s.success()));
    PathBuf::from(found.unwrap_or_else(|| {
        panic!(
            "nginx is not installed; this test needs a real nginx: run `make tools` (installs it from Debian's packages) or `apt-get install nginx`"
        )
    }))
}

/// deploy/nginx.conf with its `${SPECRT_*}` values filled in, as envsubst would.
fn render_nginx_conf(prefix: &Path, listen: SocketAddr, upstreams: &[SocketAddr]) -> String {
    let template = std::fs::read_to_string(common::root().join("deploy/nginx.conf")).expect("deploy/nginx.conf");
    let user = Command::new("id").arg("-un").output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
    assert!(!user.is_empty(), "`id -un` names no user");
    let servers: Vec<String> = upstreams.iter().map(|a| format!("server {a} max_fails=1 fail_timeout=10s;")).collect();
    let text = template
        .replace("${SPECRT_NGINX_USER}", &user)
        .replace("${SPECRT_NGINX_PREFIX}", &prefix.display().to_string())
        .replace("${SPECRT_LISTEN}", &listen.to_string())
        .replace("${SPECRT_UPSTREAM_SERVERS}", &servers.join("\n        "));
    let unfilled = text.lines().find(|l| !l.trim_start().starts_with('#') && l.contains("${SPECRT_"));
    assert!(unfilled.is_none(), "a template value is left unfilled: {unfilled:?}");
    text
}

/// nginx with `conf` (rendered from the template) in `prefix`, in the foreground, answering on `listen`.
fn start_nginx(prefix: &Path, conf: &str, listen: SocketAddr) -> Proc {
    std::fs::create_dir_all(prefix).unwrap();
    let path = prefix.join("nginx.conf");
    std::fs::write(&path, conf).unwrap();
    let nginx = nginx_binary();
    let check = Command::new(&nginx).arg("-t").arg("-p").arg(prefix).arg("-c").arg(&path).output().unwrap();
    assert!(check.status.success(), "nginx -t refuses the rendered deploy/nginx.conf:\n{}", String::from_utf8_lossy(&check.stderr));
    let mut cmd = Command::new(&nginx);
    cmd.arg("-p").arg(prefix).arg("-c").arg(&path).args(["-g", "daemon off;"]);
    let mut p = Proc::spawn("nginx", &mut cmd, prefix.join("stderr.log"));
    let end = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect_timeout(&listen, Duration::from_millis(200)).is_err() {
        p.assert_running();
        assert!(
            Instant::now() < end,
            "nginx does not listen on {listen}; error.log:\n{}",
            std::fs::read_to_string(prefix.join("error.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    p
}

/// Sum of a metric's samples whose labels include every `label=value` of `want`, in Prometheus text.
fn metric(text: &str, name: &str, want: &[(&str, &str)]) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            let (metric_name, labels) = series.split_once('{').unwrap_or((series, "}"));
            let labels = labels.strip_suffix('}')?;
            let has = |k: &str, v: &str| labels.split(',').any(|kv| kv == format!("{k}=\"{v}\""));
            (metric_name == name && want.iter().all(|(k, v)| has(k, v))).then(|| value.parse::<f64>().ok()).flatten()
        })
        .sum()
}

fn scrape(at: SocketAddr) -> String {
    let r = client::request(at, "GET", "/metrics", None, CALL_TIMEOUT).unwrap_or_else(|e| panic!("/metrics of {at}: {e}"));
    assert_eq!(r.status, 200, "{}", r.body);
    r.body
}

/// Completions answered 200 by one replica, from its own counters.
fn completions_served(at: SocketAddr) -> usize {
    metric(&scrape(at), "specrt_requests_total", &[("endpoint", "completions"), ("status", "200")]) as usize
}

/// Requests a replica holds now: running plus queued.
fn held(at: SocketAddr) -> usize {
    let m = scrape(at);
    (metric(&m, "specrt_generations_running", &[]) + metric(&m, "specrt_queue_depth", &[])) as usize
}

fn completion_body(i: usize, tokens: usize, stream: bool) -> Value {
    json!({"model": MODEL, "prompt": format!("request {i}"), "max_tokens": tokens, "ignore_eos": true, "temperature": 0, "stream": stream})
}

/// A non-streaming completion: Ok(()) when it is complete, else what was wrong.
fn complete(at: SocketAddr, i: usize, tokens: usize) -> Result<(), String> {
    let r = client::request(at, "POST", "/v1/completions", Some(completion_body(i, tokens, false).to_string().as_bytes()), CALL_TIMEOUT)
        .map_err(|e| format!("transport: {e}"))?;
    if r.status != 200 {
        return Err(format!("status {}: {}", r.status, r.body.trim()));
    }
    let v: Value = serde_json::from_str(&r.body).map_err(|e| format!("bad JSON ({e}): {}", r.body))?;
    if v["usage"]["completion_tokens"] != tokens {
        return Err(format!("incomplete: {v}"));
    }
    Ok(())
}

/// A streamed completion: Ok(()) when every token arrived and the stream ended with `[DONE]`.
fn stream(at: SocketAddr, i: usize, tokens: usize) -> Result<(), String> {
    let mut s = EventStream::open(at, "/v1/completions", &completion_body(i, tokens, true), CALL_TIMEOUT).map_err(|e| format!("transport: {e}"))?;
    if s.status != 200 {
        return Err(format!("status {}", s.status));
    }
    let mut last = None;
    loop {
        match s.next_data() {
            Ok(Some(d)) => last = Some(d),
            Ok(None) => break,
            Err(e) => return Err(format!("stream cut: {e}")),
        }
    }
    match last.as_deref() {
        Some("[DONE]") => Ok(()),
        other => Err(format!("stream ended without [DONE] (last event {other:?})")),
    }
}

/// One request of the kill phase.
#[derive(Debug)]
struct Outcome {
    streamed: bool,
    started: Instant,
    ended: Instant,
    result: Result<(), String>,
}

#[test]
fn two_replicas_behind_nginx_spread_and_survive_a_kill() {
    let done = Arc::new(AtomicBool::new(false));
    watchdog(done.clone());
    let nginx_bin = nginx_binary();
    let dir = tempfile::tempdir().unwrap();
    let (mut replica_a, a) = start_replica(dir.path(), "replica-a");
    let (mut replica_b, b) = start_replica(dir.path(), "replica-b");
    let listen = addr(free_port());
    let prefix = dir.path().join("nginx");
    let nginx = start_nginx(&prefix, &render_nginx_conf(&prefix, listen, &[a, b]), listen);
    let access_log = || std::fs::read_to_string(prefix.join("access.log")).unwrap_or_default();
    eprintln!("replicas {a} and {b} behind nginx {} at {listen}", nginx_bin.display());

    // The per-replica reading tells replicas apart (negative control): requests sent straight to A move A's
    // counter only.
    for i in 0..5 {
        complete(a, i, 4).unwrap();
    }
    assert_eq!((completions_served(a), completions_served(b)), (5, 0), "direct requests to A must count on A only");

    // 1. Spread: every request through nginx succeeds, and each replica served a fair share of them.
    let next = Arc::new(Mutex::new(0usize));
    let failures = Arc::new(Mutex::new(Vec::new()));
    let clients: Vec<_> = (0..SPREAD_CLIENTS)
        .map(|_| {
            let (next, failures) = (next.clone(), failures.clone());
            std::thread::spawn(move || loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                if i >= SPREAD_REQUESTS {
                    return;
                }
                if let Err(e) = complete(listen, i, 8) {
                    failures.lock().unwrap().push(e);
                }
            })
        })
        .collect();
    clients.into_iter().for_each(|t| t.join().unwrap());
    assert!(failures.lock().unwrap().is_empty(), "requests through nginx failed: {:?}\naccess.log:\n{}", failures.lock().unwrap(), access_log());
    let (on_a, on_b) = (completions_served(a) - 5, completions_served(b));
    eprintln!("spread: {on_a} on A, {on_b} on B (of {SPREAD_REQUESTS})");
    assert_eq!(on_a + on_b, SPREAD_REQUESTS, "the replicas' counters must add up to the requests sent");
    assert!(on_a.min(on_b) >= SPREAD_REQUESTS / 4, "requests not spread: A {on_a}, B {on_b}");

    // 2. Kill B with SIGKILL while both replicas hold requests.
    let stop = Arc::new(AtomicBool::new(false));
    let outcomes = Arc::new(Mutex::new(Vec::<Outcome>::new()));
    let clients: Vec<_> = (0..LOAD_CLIENTS)
        .map(|c| {
            let (stop, outcomes) = (stop.clone(), outcomes.clone());
            std::thread::spawn(move || {
                // Bounded in count as well as by `stop`.
                for k in 0..200 {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let streamed = c % 3 == 2;
                    let started = Instant::now();
                    let i = 1000 * (c + 1) + k;
                    let result = if streamed { stream(listen, i, LOAD_TOKENS) } else { complete(listen, i, LOAD_TOKENS) };
                    outcomes.lock().unwrap().push(Outcome { streamed, started, ended: Instant::now(), result });
                }
            })
        })
        .collect();
    let busy_by = Instant::now() + Duration::from_secs(30);
    while held(a) == 0 || held(b) == 0 {
        assert!(Instant::now() < busy_by, "the load never kept both replicas busy");
        std::thread::sleep(Duration::from_millis(10));
    }
    let held_by_b = held(b);
    let killed_at = Instant::now();
    replica_b.kill_now();
    // The kill is a window, not an instant: until B is reaped its listening socket still accepts, so a request
    // that starts between the signal and the reaping can reach B and be lost like the ones it held (seen once in
    // CI: a request started 0.5 ms after `killed_at` got nginx's 502).
    let died_at = Instant::now();
    eprintln!("killed B (SIGKILL) holding {held_by_b} request(s), reaped after {:?}", died_at - killed_at);
    // Keep the load on until several rounds of requests started after the kill have finished.
    let after_kill = |o: &Outcome| o.started > died_at;
    let more_by = Instant::now() + Duration::from_secs(60);
    while outcomes.lock().unwrap().iter().filter(|o| after_kill(o)).count() < 3 * LOAD_CLIENTS {
        assert!(Instant::now() < more_by, "the load stalled after the kill");
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    clients.into_iter().for_each(|t| t.join().unwrap());

    let outcomes = outcomes.lock().unwrap();
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| o.result.is_err()).collect();
    let report = || format!("failed: {failed:#?}\naccess.log:\n{}", access_log());
    let errors: Vec<&str> = failed.iter().map(|o| o.result.as_ref().unwrap_err().lines().next().unwrap_or("")).collect();
    eprintln!("kill phase: {} requests, {} failed: {errors:?}", outcomes.len(), failed.len());
    // Only the requests B held were lost: each was in flight at the kill, and each got its error at once.
    assert!(!failed.is_empty(), "B held {held_by_b} request(s) when killed, yet nothing failed: {}", report());
    assert!(failed.len() <= LOAD_CLIENTS, "more failures than requests in flight: {}", report());
    for o in &failed {
        assert!(o.started < died_at && o.ended > killed_at, "a request not in flight at the kill failed: {}", report());
        assert!(o.ended - killed_at < ERROR_WITHIN, "an in-flight request took over {ERROR_WITHIN:?} to fail: {}", report());
        let err = o.result.as_ref().unwrap_err();
        // 502 from nginx; or, for a stream that had its 200 head already (it was running, not queued), an end
        // without [DONE]: nginx can only close it.
        let clean = err.starts_with("status 502") || (o.streamed && (err.contains("without [DONE]") || err.contains("stream cut")));
        assert!(clean, "unclean failure of an in-flight request: {}", report());
    }
    // Everything sent after the kill succeeded: nginx retried the refused connection on the survivor.
    assert!(outcomes.iter().filter(|o| after_kill(o)).all(|o| o.result.is_ok()), "a request sent after the kill failed: {}", report());

    // 3. After the load, the survivor serves every request (counted by the survivor itself).
    let before = completions_served(a);
    for i in 0..AFTER_REQUESTS {
        complete(listen, 5000 + i, 8).unwrap_or_else(|e| panic!("request {i} after the kill: {e}\naccess.log:\n{}", access_log()));
    }
    assert_eq!(completions_served(a) - before, AFTER_REQUESTS, "the survivor must have served every request after the kill");
    replica_a.assert_running();

    // Negative control: the same template without retry on a refused connection loses requests to the dead
    // replica, so the survivor assertions above do detect a balancer that does not fail over.
    let listen2 = addr(free_port());
    let prefix2 = dir.path().join("nginx-no-retry");
    let conf = render_nginx_conf(&prefix2, listen2, &[b, a]);
    assert!(conf.contains("proxy_next_upstream error timeout;"), "deploy/nginx.conf no longer says proxy_next_upstream error timeout");
    let nginx2 = start_nginx(&prefix2, &conf.replace("proxy_next_upstream error timeout;", "proxy_next_upstream off;"), listen2);
    let results: Vec<Result<(), String>> = (0..4).map(|i| complete(listen2, 6000 + i, 4)).collect();
    assert!(
        results.iter().any(|r| r.as_ref().is_err_and(|e| e.starts_with("status 502"))),
        "without retry a request should reach the dead replica: {results:?}"
    );
    drop(nginx2);
    drop(nginx);
    done.store(true, Ordering::Relaxed);
}
