//! Every shipped pipeline and benchmark matrix parses and validates (no models needed).

mod common;

use std::path::Path;

#[test]
fn shipped_configs_parse() {
    let files = common::files_with_extension(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs"), "yaml");
    assert!(files.len() >= 10, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        if f.file_name().is_some_and(|n| n == "server.yaml") {
            let c = specrt::server::ServerConfig::load(&f).unwrap_or_else(|e| panic!("{e}"));
            for p in &c.pipelines {
                specrt::config::load_file(&p.config).unwrap_or_else(|e| panic!("{e}"));
            }
            continue;
        }
        if text.lines().any(|l| l.starts_with("pipelines:")) {
            let m = specrt::bench::BenchMatrix::load(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            for p in &m.pipelines {
                assert!(p.is_file(), "{} names a missing pipeline {}", f.display(), p.display());
            }
        } else {
            specrt::config::load_file(&f).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
