//! The benchmark harness behind `specrt bench` (filled in below).

/// Arguments of `specrt bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// A pipeline YAML file or a benchmark matrix YAML file.
    #[arg(long)]
    pub config: std::path::PathBuf,
    /// Output folder.
    #[arg(long)]
    pub out: std::path::PathBuf,
}

/// Runs the benchmark.
pub fn run(_args: &BenchArgs) -> crate::Result<()> {
    Err(crate::Error::InvalidRequest("not yet".into()))
}
