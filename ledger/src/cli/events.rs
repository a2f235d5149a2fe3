//! `ledger events ...`: event log commands.

use clap::Subcommand;
use ledger::config::Config;

use super::{export, progress};

#[derive(Subcommand)]
pub enum Command {
    /// Backfill a subscriber's queue with the stored events from a position on.
    Publish {
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i64).range(1..))]
        from_position: i64,
        /// The queue (it must exist).
        #[arg(long)]
        queue: String,
    },
    /// Write the events of a window, in the relay's order, with their
    /// chain links, as JSON lines or CSV.
    #[command(after_help = export::AFTER_HELP)]
    Export(export::Args),
}

/// The exit code.
pub async fn run(config: &Config, command: Command) -> anyhow::Result<u8> {
    match command {
        Command::Publish {
            from_position,
            queue,
        } => publish(config, from_position, &queue).await.map(|()| 0),
        Command::Export(args) => export::run(config, args).await,
    }
}

async fn publish(config: &Config, from_position: i64, queue: &str) -> anyhow::Result<()> {
    let client = ledger::db::connect(&config.database).await?;
    let amqp = ledger::messaging::connect(&config.amqp_url, "couponledger-backfill").await?;
    let store = ledger::store::StoreId::load(&client).await?;
    let publisher = ledger::messaging::publish::Publisher::open(&amqp, store).await?;
    let bar = progress::bar(0, "publishing");
    let sent =
        ledger::messaging::backfill::backfill(&client, &publisher, queue, from_position, |n| {
            bar.set_position(n)
        })
        .await?;
    bar.finish_and_clear();
    println!("published {sent} events to {queue} from position {from_position}");
    Ok(())
}
