//! The JSON Schema (2020-12) of every published event message, one per type
//! and version, generated from the Rust types. `schemas/` holds them as
//! files; a test fails when the files drift from [`all`], and
//! `ledger schemas --write schemas` regenerates them.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

use super::message::{Envelope, schema_file};
use crate::domain::events::{
    ChannelCreated, CouponChanged, CouponIssued, Metadata, OrderLocked, OrderRefunded,
    OrderSettled, TemplateChannelAllowed, TemplateCreated, TemplateQuotaRaised,
    TemplateStatusChanged, TemplateUpdated,
};

/// Every event type the ledger appends, with its schema (version 1 each).
pub fn all() -> Vec<(String, Value)> {
    vec![
        schema::<TemplateCreated>("TemplateCreated"),
        schema::<TemplateStatusChanged>("TemplateActivated"),
        schema::<TemplateStatusChanged>("TemplateStopped"),
        schema::<TemplateStatusChanged>("TemplateVoided"),
        schema::<TemplateQuotaRaised>("TemplateQuotaRaised"),
        schema::<TemplateChannelAllowed>("TemplateChannelAllowed"),
        schema::<TemplateUpdated>("TemplateUpdated"),
        schema::<ChannelCreated>("ChannelCreated"),
        schema::<CouponIssued>("CouponIssued"),
        schema::<CouponChanged>("CouponLocked"),
        schema::<CouponChanged>("CouponUnlocked"),
        schema::<CouponChanged>("CouponUsed"),
        schema::<CouponChanged>("CouponRestored"),
        schema::<CouponChanged>("CouponRefunded"),
        schema::<CouponChanged>("CouponExpired"),
        schema::<CouponChanged>("CouponVoided"),
        schema::<OrderLocked>("OrderLocked"),
        schema::<OrderSettled>("OrderConfirmed"),
        schema::<OrderSettled>("OrderCancelled"),
        schema::<OrderSettled>("OrderReleased"),
        schema::<OrderRefunded>("OrderRefunded"),
    ]
}

/// The file name and schema of messages of `event_type` (version 1).
fn schema<P: JsonSchema>(event_type: &str) -> (String, Value) {
    let generator = SchemaSettings::draft2020_12().into_generator();
    let mut schema = generator.into_root_schema_for::<Envelope<P, Metadata>>();
    let file = schema_file(event_type, 1);
    schema.insert(
        "$id".into(),
        json!(format!("https://couponledger.dev/schemas/{file}")),
    );
    schema.insert("title".into(), json!(format!("{event_type} v1")));
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.insert("event_type".into(), json!({"const": event_type}));
        properties.insert("schema_version".into(), json!({"const": 1}));
    }
    (file, schema.to_value())
}

/// The schemas as files would hold them: pretty JSON and a final newline.
pub fn file_contents(schema: &Value) -> String {
    let mut text = serde_json::to_string_pretty(schema).expect("schemas serialize");
    text.push('\n');
    text
}
