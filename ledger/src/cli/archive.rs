//! `ledger archive`: storage over years (docs/design.md §16). Without a
//! subcommand it moves ended coupons to cold storage
//! ([`archive_coupons`]); its subcommands purge cold coupons and look after
//! the event store's old partitions ([`archive_events`]).

use clap::Subcommand;
use ledger::config::Config;

use super::{archive_coupons, archive_events};

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, after_help = archive_coupons::AFTER_HELP)]
pub struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    coupons: archive_coupons::MoveArgs,
}

#[derive(Subcommand)]
pub enum Command {
    /// Delete for good the cold rows of coupons that ended before an
    /// instant (their events stay).
    #[command(after_help = archive_coupons::PURGE_AFTER_HELP)]
    Purge(archive_coupons::PurgeArgs),
    /// List the event partitions; move one to another tablespace, or
    /// detach or drop one that was exported.
    #[command(after_help = archive_events::EVENTS_AFTER_HELP)]
    Events(archive_events::EventsArgs),
    /// Write a closed partition's events with their chain links and the
    /// checkpoint that closes it to FILE, read it back, verify it, record it.
    ExportEvents(archive_events::ExportArgs),
}

pub async fn run(config: &Config, args: Args) -> anyhow::Result<u8> {
    match args.command {
        None => archive_coupons::move_due(config, args.coupons).await,
        Some(Command::Purge(purge)) => archive_coupons::purge(config, purge).await,
        Some(Command::Events(events)) => archive_events::events(config, events).await,
        Some(Command::ExportEvents(export)) => archive_events::export_events(config, export).await,
    }
}
