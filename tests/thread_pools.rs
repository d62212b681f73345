//! `backend.threads` is honoured per pipeline: pipelines asking for the thread count of the process's shared ONNX
//! Runtime pool (sized by the first pipeline loaded) share it; a pipeline asking for another count gets a pool of
//! its own. Before, every pipeline after the first silently ran on the first one's pool.
//!
//! One test in its own binary: it counts the process's threads, which other tests' threads would disturb.

mod common;

use common::*;
use specrt::generate::{GenerationRequest, Prompt};
use specrt::Pipeline;

fn threads_now() -> usize {
    std::fs::read_dir("/proc/self/task").map(|d| d.count()).unwrap_or(0)
}

fn yaml(dir: &std::path::Path, name: &str, threads: usize) -> std::path::PathBuf {
    let path = dir.join(format!("{name}.yaml"));
    std::fs::write(&path, format!("model: {}\nbackend:\n  threads: {threads}\n", tiny().display())).unwrap();
    path
}

fn tokens(p: &mut Pipeline) -> Vec<u32> {
    let req =
        GenerationRequest { prompt: Some(Prompt::Tokens(vec![5, 17, 42, 99, 7])), max_tokens: Some(16), ignore_eos: true, ..Default::default() };
    p.generate(&req, &mut |_| true).expect("generates").tokens
}

#[test]
fn a_pipeline_with_another_thread_count_gets_its_own_pool() {
    if !std::path::Path::new("/proc/self/task").is_dir() {
        eprintln!("no /proc/self/task on this system: thread counts cannot be read");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut first = Pipeline::load(&yaml(dir.path(), "first", 2)).unwrap();
    let base = tokens(&mut first);
    let after_first = threads_now();

    // Same count as the shared pool: shares it, no thread is added.
    let mut same = Pipeline::load(&yaml(dir.path(), "same", 2)).unwrap();
    assert_eq!(tokens(&mut same), base);
    assert_eq!(threads_now(), after_first, "a pipeline with the shared pool's thread count must not start threads");

    // Another count: a private pool of 4 threads (the calling thread + 3 workers). Under the old behaviour this
    // pipeline ran on the shared 2-thread pool and the count did not move: the negative control.
    let mut other = Pipeline::load(&yaml(dir.path(), "other", 4)).unwrap();
    assert_eq!(tokens(&mut other).len(), base.len());
    let added = threads_now() - after_first;
    assert!(added >= 3, "a 4-thread pipeline beside the 2-thread pool added {added} threads, expected its own pool (>= 3 workers)");
}
