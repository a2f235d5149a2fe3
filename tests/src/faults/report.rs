//! A run's report: the seed, the schedule and what the nemesis did, the
//! answers by operation, the verdict, and the first anomaly in full.
//! Written to `target/faults/<run>/` as `report.json`, `summary.txt` and
//! `history.jsonl` (every request).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use super::Run;
use super::checker::Anomaly;
use super::history::{Entry, Op};
use super::nemesis::Injected;
use super::schedule::Planned;

#[derive(Debug, Serialize)]
pub struct Report {
    pub name: String,
    pub seed: u64,
    pub seconds: u64,
    pub cluster: bool,
    pub planted: Option<String>,
    pub schedule: Vec<Planned>,
    pub injected: Vec<Injected>,
    pub requests: usize,
    /// Operation → answer ("201", "409", "unknown") → count.
    pub answers: BTreeMap<&'static str, BTreeMap<String, usize>>,
    pub faults: BTreeMap<&'static str, usize>,
    pub anomalies: Vec<Anomaly>,
}

impl Report {
    pub fn new(
        run: &Run,
        schedule: Vec<Planned>,
        injected: Vec<Injected>,
        history: &[Entry],
        anomalies: Vec<Anomaly>,
    ) -> Self {
        let mut answers: BTreeMap<&'static str, BTreeMap<String, usize>> = BTreeMap::new();
        for e in history {
            let answer = e
                .answer
                .status()
                .map_or("unknown".to_owned(), |s| s.to_string());
            *answers
                .entry(<&str>::from(e.op))
                .or_default()
                .entry(answer)
                .or_default() += 1;
        }
        let mut faults = BTreeMap::new();
        for i in &injected {
            *faults.entry(i.fault.name()).or_default() += 1;
        }
        Report {
            name: name(run),
            seed: run.seed,
            seconds: run.length.as_secs(),
            cluster: run.cluster,
            planted: run.planted.clone(),
            schedule,
            injected,
            requests: history.len(),
            answers,
            faults,
            anomalies,
        }
    }

    pub fn passed(&self) -> bool {
        self.anomalies.is_empty()
    }

    /// The checks that found something, each once, in order.
    pub fn failed_checks(&self) -> Vec<&'static str> {
        let mut checks: Vec<&'static str> = self.anomalies.iter().map(|a| a.check).collect();
        checks.dedup();
        checks
    }

    pub fn dir(&self) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../target/faults")
            .join(&self.name)
    }

    /// The verdict and the counts, as a person reads them.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{}: seed {} for {} s{}{}: {} requests, {} faults, {}\n",
            self.name,
            self.seed,
            self.seconds,
            if self.cluster {
                " on the clusters"
            } else {
                " on single nodes"
            },
            self.planted
                .as_ref()
                .map_or(String::new(), |b| format!(" with the planted bug {b}")),
            self.requests,
            self.injected.len(),
            if self.passed() {
                "PASS".to_owned()
            } else {
                format!(
                    "FAIL: {} anomalies {:?}",
                    self.anomalies.len(),
                    self.failed_checks()
                )
            }
        );
        for i in &self.injected {
            s += &format!(
                "  fault {:>6} ms  {:<22} {}\n",
                i.started_ms,
                i.fault.name(),
                i.detail
            );
        }
        for (op, answers) in &self.answers {
            s += &format!("  {op:<14} {answers:?}\n");
        }
        if let Some(first) = self.anomalies.first() {
            s += &format!("first anomaly ({}): {}\n", first.check, first.detail);
            for e in &first.entries {
                s += &format!("  {}\n", serde_json::to_string(e).unwrap_or_default());
            }
        }
        s
    }

    pub fn write(&self, history: &[Entry]) -> anyhow::Result<()> {
        let dir = self.dir();
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("report.json"), serde_json::to_vec_pretty(self)?)?;
        std::fs::write(dir.join("summary.txt"), self.summary())?;
        let mut file = std::io::BufWriter::new(std::fs::File::create(dir.join("history.jsonl"))?);
        for e in history {
            serde_json::to_writer(&mut file, e)?;
            file.write_all(b"\n")?;
        }
        file.flush()?;
        Ok(())
    }
}

fn name(run: &Run) -> String {
    let mut name = format!("seed-{}", run.seed);
    if run.cluster {
        name += "-cluster";
    }
    if let Some(bug) = &run.planted {
        name += &format!("-planted-{bug}");
    }
    name
}

/// The counts of one op in a history (for tests that look at the load).
pub fn count(history: &[Entry], op: Op) -> usize {
    history.iter().filter(|e| e.op == op).count()
}
