//! The README and its reference stay true: the configuration table
//! (docs/reference/configuration.md) is the one list of variables
//! (`ledger/src/config/variables.rs`, which `--help` shows too), the README's walk-through runs as written
//! against a fresh server, and the signing example
//! (docs/reference/signing.md) is the ledger's own signature.

use std::path::Path;

use tests::{ADMIN_TOKEN, Env, Server};

/// A file of the repository, by its path from the root.
fn doc(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    std::fs::read_to_string(path).unwrap()
}

fn readme() -> String {
    doc("README.md")
}

/// The first fenced block of `lang` after the heading `heading`.
fn block_after(text: &str, heading: &str, lang: &str) -> String {
    let section = &text[text.find(heading).expect("the heading is there")..];
    let fence = format!("```{lang}\n");
    let start = section.find(&fence).expect("a block follows") + fence.len();
    let end = section[start..].find("```").expect("the block ends");
    section[start..start + end].to_owned()
}

/// The table between these lines of docs/reference/configuration.md is
/// generated from the list; `UPDATE_REFERENCE=1` writes it.
const TABLE_BEGIN: &str = "<!-- generated from ledger/src/config/variables.rs: do not edit -->\n";
const TABLE_END: &str = "<!-- end of the generated table -->\n";

#[test]
fn the_configuration_table_is_generated_from_the_one_list() {
    let path = "docs/reference/configuration.md";
    let text = doc(path);
    let start = text.find(TABLE_BEGIN).expect("the table's first marker") + TABLE_BEGIN.len();
    let end = start
        + text[start..]
            .find(TABLE_END)
            .expect("the table's last marker");
    let generated = ledger::config::reference::markdown_table();
    if std::env::var_os("UPDATE_REFERENCE").is_some() {
        let updated = format!("{}{generated}{}", &text[..start], &text[end..]);
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
        std::fs::write(file, updated).unwrap();
        return;
    }
    assert_eq!(
        text[start..end],
        generated,
        "{path} is not the list's table: run the test with UPDATE_REFERENCE=1"
    );
    for name in ledger::config::variables::names() {
        assert!(generated.contains(&format!("| `{name}` |")), "{name}");
    }
}

#[test]
fn the_signing_example_is_the_ledgers_own_signature() {
    let text = doc("docs/reference/signing.md");
    let body = br#"{"template_sn":"8RE9KQ2MV7XWD4TA","user_id":"user-42"}"#;
    let nonce = "5d41402abc4b2a76b9719d911017c592";
    let signature = ledger::api::auth::signature::sign(
        "s3cr3t-example",
        "POST",
        "/v1/claims",
        1764000000,
        nonce,
        body,
    );
    assert!(text.contains(&signature), "the reference shows {signature}");
    let python = block_after(&text, "Python:", "python");
    let out = std::process::Command::new("python3")
        .args(["-c", &python])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), signature);
    let shell = block_after(&text, "Shell (openssl):", "sh");
    let out = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-c", &shell])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), signature);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_walk_through_runs_as_written() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let script = block_after(&readme(), "## Walk-through", "sh");
    let out = tokio::process::Command::new("bash")
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .env("LEDGER_URL", &server.base)
        .env("LEDGER_ADMIN_TOKEN", ADMIN_TOKEN)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let statuses: Vec<&str> = stdout.lines().filter(|l| l.starts_with("HTTP ")).collect();
    assert_eq!(statuses, ["HTTP 201", "HTTP 409"], "{stdout}");
    assert!(stdout.contains("per_user_limit"), "{stdout}");
}
