//! `schemas/` is generated from the event types, beside the frozen files of
//! older event versions, all under `schemas/versions.lock`: a drifted,
//! missing or stray file fails here, and so does a published version whose
//! content changed (a payload change takes a new `schema_version`).
//! Regenerate with `ledger schemas --write schemas`.

use std::path::{Path, PathBuf};

use ledger::messaging::schemas::{LOCK_FILE, all, check, older_files, write};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas")
}

/// A copy of `schemas/` to break.
fn copy() -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(dir()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.path().join(entry.file_name())).unwrap();
    }
    copy
}

fn edit(dir: &Path, file: &str, edit: impl FnOnce(String) -> String) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, edit(text)).unwrap();
}

#[test]
fn every_schema_file_matches_the_event_types_and_the_lock() {
    let problems = check(&dir());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn older_versions_are_kept_beside_the_current_one() {
    assert!(older_files().contains(&"CouponUsed.v1.json".to_owned()));
    let current: Vec<String> = all().into_iter().map(|(file, _)| file).collect();
    assert!(current.contains(&"CouponUsed.v2.json".to_owned()));
    assert!(!current.contains(&"CouponUsed.v1.json".to_owned()));
    let v1: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir().join("CouponUsed.v1.json")).unwrap())
            .unwrap();
    assert_eq!(v1["properties"]["schema_version"]["const"], 1);
    assert_eq!(v1["properties"]["payload"]["$ref"], "#/$defs/CouponChanged");
    let (_, v2) = all()
        .into_iter()
        .find(|(f, _)| f == "CouponUsed.v2.json")
        .unwrap();
    let required = &v2["$defs"]["CouponUsed"]["required"];
    assert!(
        required.as_array().unwrap().contains(&"discount".into()),
        "{required}"
    );
}

#[test]
fn a_published_file_that_changed_asks_for_a_new_version() {
    for file in [
        "CouponUsed.v2.json",
        "CouponUsed.v1.json",
        "ChannelCreated.v1.json",
    ] {
        let copy = copy();
        edit(copy.path(), file, |text| {
            text.replacen("\"type\": \"object\"", "\"type\": \"object\", \"x\": 1", 1)
        });
        let problems = check(copy.path()).join("\n");
        assert!(
            problems.contains(&format!("{file} changed"))
                && problems.contains("takes a new schema_version"),
            "{file}: {problems}"
        );
    }
}

#[test]
fn a_type_whose_schema_changed_under_its_version_is_refused_by_the_writer() {
    // As if the payload type had changed without a bump: the lock holds
    // another hash for the file the type generates.
    let copy = copy();
    edit(copy.path(), LOCK_FILE, |text| {
        text.lines()
            .map(|l| {
                if l.ends_with("  CouponUsed.v2.json") {
                    format!("{}  CouponUsed.v2.json", "0".repeat(64))
                } else {
                    l.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    });
    let problems = check(copy.path()).join("\n");
    assert!(
        problems.contains("CouponUsed.v2.json changed"),
        "{problems}"
    );
    let refused = write(copy.path()).unwrap_err();
    assert!(refused.contains("takes a new schema_version"), "{refused}");
}

#[test]
fn a_missing_older_version_or_a_stray_file_fails() {
    let copy = copy();
    std::fs::remove_file(copy.path().join("CouponUsed.v1.json")).unwrap();
    std::fs::write(copy.path().join("CouponTeleported.v1.json"), "{}").unwrap();
    let problems = check(copy.path()).join("\n");
    assert!(
        problems.contains("CouponUsed.v1.json is missing"),
        "{problems}"
    );
    assert!(
        problems.contains("CouponTeleported.v1.json is no schema"),
        "{problems}"
    );
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
