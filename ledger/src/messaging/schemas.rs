//! The JSON Schema (2020-12) of every published event message, one per type
//! and version, generated from the Rust types. `schemas/` holds them as
//! files; a test fails when the files drift from [`all`], and
//! `ledger schemas --write schemas` regenerates them.
//!
//! `schemas/` also holds every older version of an event type (stored
//! events keep the version they were written with, and subscribers get
//! them so: docs/design.md "Event versions"). Those files are frozen: no
//! type generates them any more. `schemas/versions.lock` holds the SHA-256
//! of every file; [`check`] fails when a locked file's content changed,
//! since a payload change is a new `schema_version`, never an edit of one
//! already published.

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::chunk_message::CHUNK_SCHEMA_VERSION;
use super::job_kind::JobKind;
use super::message::{Envelope, schema_file};
use super::package_job_message::PACKAGE_JOB_SCHEMA_VERSION;
use super::run_message::{MAX_RUN, RUN_SCHEMA_VERSION, RUN_TYPE};
use crate::domain::events::Metadata;
use crate::domain::granted::{CouponsGranted, GRANTED_SCHEMA_VERSION};
use crate::domain::issuance::IssuanceChunk;
use crate::domain::ledger_event::{EventType, PayloadVisitor};
use crate::domain::package_job::PackageJob;
use crate::domain::reminder::{ExpiryReminder, MESSAGE_TYPE, REMINDER_SCHEMA_VERSION};
use crate::domain::upcast;

/// Every message the ledger publishes: each event type's envelope at its
/// current version, a run of them, the bulk-issuance chunk and the package job.
pub fn all() -> Vec<(String, Value)> {
    let mut schemas: Vec<(String, Value)> = EventType::ALL
        .iter()
        .map(|t| t.visit_payload(EnvelopeSchema))
        .collect();
    schemas.push(run_schema());
    schemas.push(chunk_schema());
    schemas.push(package_job_schema());
    schemas.push(reminder_schema());
    schemas.push(granted_schema());
    schemas
}

/// The schema of a run on the ledger's own queues: an array of envelopes,
/// each also valid against its own type's file.
fn run_schema() -> (String, Value) {
    let (file, mut schema) =
        root_schema::<Vec<Envelope<Value, Value>>>(RUN_TYPE, RUN_SCHEMA_VERSION);
    let object = schema.as_object_mut().expect("a schema is an object");
    object.insert("minItems".into(), json!(1));
    object.insert("maxItems".into(), json!(MAX_RUN));
    object.insert(
        "description".into(),
        json!(
            "Consecutive events of one relay route, in order (headers run_first, run_last, \
             run_events); each element is valid against <event_type>.v<schema_version>.json"
        ),
    );
    (file, schema)
}

/// The schema of `coupon.notifications` messages of expiry reminders (docs/design.md §10).
fn reminder_schema() -> (String, Value) {
    root_schema::<ExpiryReminder>(MESSAGE_TYPE, REMINDER_SCHEMA_VERSION)
}

/// The schema of `coupon.notifications` messages of jobs that asked
/// `notify=true` (docs/design.md §10).
fn granted_schema() -> (String, Value) {
    let name = crate::domain::granted::MESSAGE_TYPE;
    root_schema::<CouponsGranted>(name, GRANTED_SCHEMA_VERSION)
}

/// The schema of `coupon.issuance` messages: chunks.
fn chunk_schema() -> (String, Value) {
    root_schema::<IssuanceChunk>(JobKind::IssuanceChunk.as_str(), CHUNK_SCHEMA_VERSION)
}

/// The schema of `coupon.issuance` messages asking for a package claim.
fn package_job_schema() -> (String, Value) {
    root_schema::<PackageJob>(JobKind::PackageJob.as_str(), PACKAGE_JOB_SCHEMA_VERSION)
}

/// The file name and schema of a message whose body is `T` itself.
fn root_schema<T: JsonSchema>(name: &str, version: i16) -> (String, Value) {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<T>();
    let file = schema_file(name, version);
    schema.insert(
        "$id".into(),
        json!(format!("https://couponledger.dev/schemas/{file}")),
    );
    schema.insert("title".into(), json!(format!("{name} v{version}")));
    (file, schema.to_value())
}

/// The file name and schema of messages of one event type.
struct EnvelopeSchema;

impl PayloadVisitor for EnvelopeSchema {
    type Output = (String, Value);

    fn visit<P: JsonSchema>(self, event_type: EventType) -> (String, Value) {
        let (name, version) = (event_type.as_str(), event_type.schema_version());
        let generator = SchemaSettings::draft2020_12().into_generator();
        let mut schema = generator.into_root_schema_for::<Envelope<P, Metadata>>();
        let file = schema_file(name, version);
        schema.insert(
            "$id".into(),
            json!(format!("https://couponledger.dev/schemas/{file}")),
        );
        schema.insert("title".into(), json!(format!("{name} v{version}")));
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            properties.insert("event_type".into(), json!({"const": name}));
            properties.insert("schema_version".into(), json!({"const": version}));
        }
        (file, schema.to_value())
    }
}

/// The schemas as files would hold them: pretty JSON and a final newline.
pub fn file_contents(schema: &Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).expect("schemas serialize");
    text.push('\n');
    text
}

/// The lock of `schemas/`: `<sha256 hex>  <file>` per line, by file name
/// (the format of `sha256sum`).
pub const LOCK_FILE: &str = "versions.lock";

/// The files of the event versions older than their type's current one
/// (each readable: an upcast leads from it to the current version). Frozen:
/// kept as published, checked against the lock, never generated again.
pub fn older_files() -> Vec<String> {
    EventType::ALL
        .iter()
        .flat_map(|t| {
            upcast::readable_versions(*t)
                .filter(|v| *v < t.schema_version())
                .map(|v| schema_file(t.as_str(), v))
        })
        .collect()
}

/// The hex SHA-256 of a file's text.
pub fn sha256_hex(text: &[u8]) -> String {
    hex::encode(Sha256::digest(text))
}

/// The lock's entries, by file (an unreadable line is an error naming it).
pub fn read_lock(dir: &Path) -> Result<BTreeMap<String, String>, String> {
    let path = dir.join(LOCK_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let (hash, file) = line
                .split_once("  ")
                .ok_or_else(|| format!("{LOCK_FILE}: not `<sha256>  <file>`: {line:?}"))?;
            Ok((file.to_owned(), hash.to_owned()))
        })
        .collect()
}

/// The lock's text for `entries`.
pub fn lock_text(entries: &BTreeMap<String, String>) -> String {
    let mut text = String::from(
        "# The SHA-256 of every file of schemas/ (docs/design.md \"Event versions\").\n\
         # A published version never changes: a payload change is a new schema_version.\n",
    );
    for (file, hash) in entries {
        text.push_str(&format!("{hash}  {file}\n"));
    }
    text
}

/// What a locked file's change is told.
fn bump(file: &str) -> String {
    format!(
        "{file} changed, but it is a published version ({LOCK_FILE}): a payload change \
         takes a new schema_version (bump it in domain/ledger_event.rs, add the upcast from \
         the version before in domain/upcast.rs, and keep this file as it was; \
         docs/design.md \"Event versions\")"
    )
}

/// What is wrong with `dir` (`schemas/`): a generated file that differs
/// from its type, a locked file whose content changed (its version must
/// be bumped instead), a file missing from the lock or the lock naming a
/// file that is not there, an older version's file missing, a stray file.
/// Empty when all is well.
pub fn check(dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let lock = match read_lock(dir) {
        Ok(lock) => lock,
        Err(e) => return vec![e],
    };
    let mut expected = BTreeMap::new();
    for (file, schema) in all() {
        expected.insert(file, Some(file_contents(&schema)));
    }
    for file in older_files() {
        expected.insert(file, None);
    }
    for (file, generated) in &expected {
        let on_disk = std::fs::read(dir.join(file)).ok();
        let locked = lock.get(file);
        match (&on_disk, locked) {
            (Some(text), Some(hash)) if sha256_hex(text) != *hash => problems.push(bump(file)),
            (Some(_), None) => problems.push(format!(
                "{file} is not in {LOCK_FILE}: run `ledger schemas --write schemas`"
            )),
            (None, _) => problems.push(format!(
                "{file} is missing: run `ledger schemas --write schemas` (an older version's \
                 file is restored from git: it is never generated again)"
            )),
            _ => {}
        }
        if let (Some(generated), Some(locked)) = (generated, locked)
            && sha256_hex(generated.as_bytes()) != *locked
        {
            problems.push(bump(file));
        } else if let (Some(generated), Some(text)) = (generated, &on_disk)
            && generated.as_bytes() != text.as_slice()
        {
            problems.push(format!(
                "{file} drifted from the types: run `ledger schemas --write schemas`"
            ));
        }
    }
    for file in lock.keys() {
        if !expected.contains_key(file) {
            problems.push(format!(
                "{LOCK_FILE} names {file}, which no event type reads: a published version \
                 stays readable (keep its upcast)"
            ));
        }
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name != LOCK_FILE && !expected.contains_key(&name) {
                problems.push(format!("{name} is no schema of a message this build sends"));
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// Writes the generated files into `dir` and adds the new ones to its
/// lock; refuses, writing nothing, when that would change a locked file.
pub fn write(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut lock = if dir.join(LOCK_FILE).exists() {
        read_lock(dir)?
    } else {
        BTreeMap::new()
    };
    let generated: Vec<(String, String)> = all()
        .into_iter()
        .map(|(file, schema)| (file, file_contents(&schema)))
        .collect();
    let changed: Vec<String> = generated
        .iter()
        .filter(|(file, text)| {
            lock.get(file)
                .is_some_and(|hash| *hash != sha256_hex(text.as_bytes()))
        })
        .map(|(file, _)| bump(file))
        .collect();
    if !changed.is_empty() {
        return Err(changed.join("\n"));
    }
    for (file, text) in &generated {
        std::fs::write(dir.join(file), text).map_err(|e| format!("writing {file}: {e}"))?;
        lock.insert(file.clone(), sha256_hex(text.as_bytes()));
    }
    for file in older_files() {
        if let Ok(text) = std::fs::read(dir.join(&file)) {
            lock.entry(file).or_insert_with(|| sha256_hex(&text));
        }
    }
    std::fs::write(dir.join(LOCK_FILE), lock_text(&lock))
        .map_err(|e| format!("writing {LOCK_FILE}: {e}"))
}
