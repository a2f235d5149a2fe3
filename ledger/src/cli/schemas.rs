//! `ledger schemas`: the JSON Schemas of every event message, written out.

#[derive(clap::Args)]
pub struct Args {
    /// The directory to write them into (created when missing).
    #[arg(long, default_value = "schemas")]
    write: std::path::PathBuf,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let dir = &args.write;
    ledger::messaging::schemas::write(dir).map_err(anyhow::Error::msg)?;
    println!("wrote the schemas and their lock to {}", dir.display());
    Ok(())
}
