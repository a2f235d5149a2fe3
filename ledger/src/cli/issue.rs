//! `ledger issue`: bulk issuance for ops, as a client of the HTTP API
//! (docs/design.md §9): uploads the file with a progress bar (bytes), then follows
//! the job with another (lines decided, rate, ETA) until it ends; prints the
//! summary and where the report is. Exit 0 when the job is done.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use ledger::config::Config;
use ledger::domain::issuance::IssuanceJobStatus;
use ledger::queries::issuance_jobs::JobView;
use sha2::{Digest, Sha256};
use tokio::io::AsyncReadExt;

/// The token to send: `operator`'s, else `LEDGER_ADMIN_TOKEN`, else the one
/// operator of `LEDGER_ADMIN_TOKENS`.
fn token(config: &Config, operator: Option<&str>) -> anyhow::Result<String> {
    let ops = &config.operators;
    if let Some(name) = operator {
        let op = ops.iter().find(|o| o.name == name);
        return op.map(|o| o.token.clone()).with_context(|| {
            format!("--operator: {name:?} is not an operator of LEDGER_ADMIN_TOKENS or LEDGER_ADMIN_TOKEN")
        });
    }
    match (&config.admin_token, ops.as_slice()) {
        (Some(token), _) => Ok(token.clone()),
        (None, [only]) => Ok(only.token.clone()),
        (None, []) => bail!(
            "LEDGER_ADMIN_TOKEN: required by `ledger issue` (the admin token the server was \
             started with; scripts/run prints the dev tokens to export)"
        ),
        (None, _) => {
            bail!("LEDGER_ADMIN_TOKENS names several operators: say which with --operator")
        }
    }
}

/// Bytes read from the file per step of the upload.
const READ_STEP: usize = 256 * 1024;
/// How often the job is asked how far it got.
const POLL: Duration = Duration::from_millis(500);

#[derive(clap::Args)]
pub struct Args {
    /// The template's sn.
    #[arg(long)]
    template: String,
    /// The file of user ids (`-` reads standard input); `.csv` is sent as CSV.
    #[arg(long)]
    file: PathBuf,
    /// Names the job; by default a file is named by its content, so running
    /// the same command again answers the same job (or resumes it).
    #[arg(long)]
    key: Option<String>,
    /// Return once the file is uploaded, without following the job.
    #[arg(long)]
    no_wait: bool,
    /// Once the job has ended, send each of its users one `CouponsGranted`
    /// message (`?notify=true`, docs/reference/reminders.md).
    #[arg(long)]
    notify: bool,
    /// Upload as this operator of LEDGER_ADMIN_TOKENS (its token is sent).
    /// Default: LEDGER_ADMIN_TOKEN's, else the list's only operator.
    #[arg(long)]
    operator: Option<String>,
    /// The API's base URL.
    #[arg(long, env = "LEDGER_URL", default_value = "http://127.0.0.1:8080")]
    url: String,
}

pub async fn run(config: &Config, args: Args) -> anyhow::Result<u8> {
    let token = token(config, args.operator.as_deref())?;
    let stdin = args.file.as_os_str() == "-";
    let key = match (&args.key, stdin) {
        (Some(k), _) => Some(k.clone()),
        (None, true) => None,
        (None, false) => Some(content_key(&args.template, &args.file).await?),
    };
    let http = reqwest::Client::new();
    let job = upload(&http, &args, &token, key.as_deref(), stdin).await?;
    eprintln!("job {} is {}", job.job_id, job.status);
    if args.no_wait {
        println!("{}", job.job_id);
        return Ok(0);
    }
    let job = follow(&http, &args.url, &token, job).await?;
    summary(&args.url, &job);
    Ok(if job.status == IssuanceJobStatus::Done {
        0
    } else {
        1
    })
}

/// The upload's query: the template, and `notify=true` when asked.
fn query(args: &Args) -> Vec<(&'static str, &str)> {
    let mut query = vec![("template", args.template.as_str())];
    if args.notify {
        query.push(("notify", "true"));
    }
    query
}

/// The file's key: its template and content, hashed.
async fn content_key(template: &str, file: &PathBuf) -> anyhow::Result<String> {
    let mut f = tokio::fs::File::open(file)
        .await
        .with_context(|| format!("--file {}: cannot open", file.display()))?;
    let mut sha = Sha256::new();
    sha.update(template.as_bytes());
    let mut buf = vec![0; READ_STEP];
    loop {
        let n = f.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        sha.update(&buf[..n]);
    }
    Ok(format!("file-{}", hex::encode(&sha.finalize()[..16])))
}

async fn upload(
    http: &reqwest::Client,
    args: &Args,
    token: &str,
    key: Option<&str>,
    stdin: bool,
) -> anyhow::Result<JobView> {
    let (reader, size): (Box<dyn tokio::io::AsyncRead + Unpin + Send>, u64) = if stdin {
        (Box::new(tokio::io::stdin()), 0)
    } else {
        let f = tokio::fs::File::open(&args.file)
            .await
            .with_context(|| format!("--file {}: cannot open", args.file.display()))?;
        let size = f.metadata().await?.len();
        (Box::new(f), size)
    };
    let bar = super::progress::bytes(size, "uploading");
    let body = reqwest::Body::wrap_stream(read_steps(reader, bar.clone()));
    let csv = args
        .file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let mut req = http
        .post(format!(
            "{}/v1/issuance-jobs",
            args.url.trim_end_matches('/')
        ))
        .query(&query(args))
        .bearer_auth(token)
        .header("Content-Type", if csv { "text/csv" } else { "text/plain" })
        .body(body);
    if let Some(key) = key {
        req = req.header("Idempotency-Key", key);
    }
    let response = req.send().await.context("uploading the file")?;
    bar.finish_and_clear();
    answer(response).await
}

/// The reader as a stream of steps, counted on `bar`.
fn read_steps(
    reader: Box<dyn tokio::io::AsyncRead + Unpin + Send>,
    bar: indicatif::ProgressBar,
) -> impl futures_util::Stream<Item = std::io::Result<Vec<u8>>> + Send + 'static {
    futures_util::stream::unfold((reader, bar), |(mut reader, bar)| async move {
        let mut buf = vec![0; READ_STEP];
        match reader.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                bar.inc(n as u64);
                Some((Ok(buf), (reader, bar)))
            }
            Err(e) => Some((Err(e), (reader, bar))),
        }
    })
}

async fn answer(response: reqwest::Response) -> anyhow::Result<JobView> {
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    if !status.is_success() {
        let message = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v["error"]["message"].as_str().map(str::to_owned))
            .unwrap_or(text);
        bail!("the API answered {status}: {message}");
    }
    serde_json::from_str(&text).with_context(|| format!("not a job: {text}"))
}

/// Polls the job until it ends, with a bar of the lines decided.
async fn follow(
    http: &reqwest::Client,
    url: &str,
    token: &str,
    mut job: JobView,
) -> anyhow::Result<JobView> {
    let bar = super::progress::lines(job.valid as u64, "issuing");
    let link = format!(
        "{}/v1/issuance-jobs/{}",
        url.trim_end_matches('/'),
        job.job_id
    );
    while !matches!(
        job.status,
        IssuanceJobStatus::Done
            | IssuanceJobStatus::Cancelled
            | IssuanceJobStatus::Failed
            | IssuanceJobStatus::Incomplete
    ) {
        tokio::time::sleep(POLL).await;
        let response = http.get(&link).bearer_auth(token).send().await?;
        job = answer(response).await?;
        bar.set_length(job.valid as u64);
        let decided = job.issued + job.over_limit + job.sold_out + job.cancelled + job.not_eligible;
        bar.set_position(decided as u64);
    }
    bar.finish_and_clear();
    Ok(job)
}

fn summary(url: &str, job: &JobView) {
    println!(
        "job {} {}: {} lines read, {} blank, {} invalid, {} issued, {} over the per-user limit, \
         {} sold out, {} cancelled, {} not eligible",
        job.job_id,
        job.status,
        job.lines_read,
        job.blank,
        job.invalid,
        job.issued,
        job.over_limit,
        job.sold_out,
        job.cancelled,
        job.not_eligible
    );
    println!(
        "report: {}/v1/issuance-jobs/{}/report",
        url.trim_end_matches('/'),
        job.job_id
    );
}
