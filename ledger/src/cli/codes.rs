//! `ledger codes export --batch ID --file codes.txt`: a batch's codes,
//! recomputed from its serials under its key (`LEDGER_SECRET_KEY` or an old
//! key in `LEDGER_SECRET_KEYS_OLD`), written a chunk at a time: memory stays
//! flat for any count.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Subcommand;
use ledger::config::Config;
use ledger::write_model::code_batch_row;
use uuid::Uuid;

use super::progress;

/// Codes computed and written per chunk.
const CHUNK: i64 = 65_536;

#[derive(Subcommand)]
pub enum Command {
    /// Write a batch's codes, one a line (or `serial,code` as CSV).
    Export {
        #[arg(long)]
        batch: Uuid,
        /// The file to write (created or truncated); `-` for stdout.
        #[arg(long)]
        file: PathBuf,
        #[arg(long)]
        csv: bool,
    },
}

pub async fn run(config: &Config, command: Command) -> anyhow::Result<u8> {
    let Command::Export { batch, file, csv } = command;
    let keys = config
        .secret_keys
        .as_ref()
        .context("LEDGER_SECRET_KEY is required to compute the codes")?;
    let client = ledger::db::connect(&config.database).await?;
    let Some(batch) = code_batch_row::read(&client, batch).await? else {
        anyhow::bail!("no code batch {batch}");
    };
    let key = keys
        .code_key_by_id(&batch.key_id)
        .with_context(|| format!("the batch's key {} is not configured", batch.key_id))?;
    let out: Box<dyn Write> = if file.as_os_str() == "-" {
        Box::new(std::io::stdout().lock())
    } else {
        let f =
            std::fs::File::create(&file).with_context(|| format!("creating {}", file.display()))?;
        Box::new(f)
    };
    let mut out = std::io::BufWriter::new(out);
    let bar = progress::codes(u64::try_from(batch.count).unwrap_or(0), "exporting");
    if csv {
        out.write_all(b"serial,code\n")?;
    }
    let end = batch.first_serial + batch.count;
    for start in (batch.first_serial..end).step_by(usize::try_from(CHUNK)?) {
        let chunk_end = (start + CHUNK).min(end);
        out.write_all(ledger::codes::lines(&key, start..chunk_end, csv).as_bytes())?;
        bar.inc(u64::try_from(chunk_end - start)?);
    }
    out.flush()?;
    bar.finish_and_clear();
    eprintln!("exported {} codes of batch {}", batch.count, batch.id);
    Ok(0)
}
