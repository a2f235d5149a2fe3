//! The JSON Schema (2020-12) of every published event message, one per type
//! and version, generated from the Rust types. `schemas/` holds them as
//! files; a test fails when the files drift from [`all`], and
//! `ledger schemas --write schemas` regenerates them.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

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
