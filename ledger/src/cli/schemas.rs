//! `ledger schemas`: the JSON Schemas of every event message, written out.

use anyhow::Context;

#[derive(clap::Args)]
pub struct Args {
    /// The directory to write them into (created when missing).
    #[arg(long, default_value = "schemas")]
    write: std::path::PathBuf,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let dir = &args.write;
    std::fs::create_dir_all(dir)?;
    for (file, schema) in ledger::messaging::schemas::all() {
        let text = ledger::messaging::schemas::file_contents(&schema);
        std::fs::write(dir.join(&file), text).with_context(|| format!("writing {file}"))?;
    }
    println!("wrote the schemas to {}", dir.display());
    Ok(())
}
