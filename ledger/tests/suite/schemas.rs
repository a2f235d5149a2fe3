//! `schemas/` is generated from the event types: a drifted, missing or
//! stray file fails here. Regenerate with `ledger schemas --write schemas`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use ledger::messaging::schemas::{all, file_contents};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas")
}

#[test]
fn every_schema_file_matches_the_event_types() {
    for (file, schema) in all() {
        let path = dir().join(&file);
        let on_disk = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{file} is missing: run `ledger schemas --write schemas`"));
        assert_eq!(
            on_disk,
            file_contents(&schema),
            "{file} drifted from the types: run `ledger schemas --write schemas`"
        );
    }
}

#[test]
fn there_is_no_schema_file_without_an_event_type() {
    let expected: BTreeSet<String> = all().into_iter().map(|(file, _)| file).collect();
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(on_disk, expected);
}

#[test]
fn a_schema_names_its_event_type_and_version() {
    let (_, schema) = all()
        .into_iter()
        .find(|(f, _)| f == "CouponIssued.v1.json")
        .unwrap();
    assert_eq!(schema["properties"]["event_type"]["const"], "CouponIssued");
    assert_eq!(schema["properties"]["schema_version"]["const"], 1);
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}
