//! The client libraries in clients/ (docs/reference/clients.md): generated
//! from the document the server serves, and working against a real
//! server. Each is installed the way a user installs it, into a clean
//! environment of its own (a venv; an npm project with the packed
//! package), and runs the README's walk-through plus a quote, a lock and a
//! confirm (`clients/*/examples`), which exits non-zero on a wrong answer.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use tests::{ADMIN_TOKEN, Env, SERVICE_TOKEN, Server};
use tokio::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// What a command printed, when it failed.
fn check(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what}: {}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_clients_are_generated_from_the_served_document() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let live = server.openapi().await.unwrap();
    let text = std::fs::read_to_string(repo().join("clients/openapi.json")).unwrap();
    let stored: Value = serde_json::from_str(&text).unwrap();
    let changed: Vec<&String> = live["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(path, item)| stored["paths"].get(path.as_str()) != Some(item))
        .map(|(path, _)| path)
        .collect();
    assert!(
        live == stored,
        "the OpenAPI document changed and the clients were not regenerated: run \
         scripts/clients and commit what it writes (paths that differ: {changed:?}; \
         the schemas and the rest may differ too)"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_python_client_runs_the_walk_through() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    let out = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .output()
        .await
        .unwrap();
    check("python3 -m venv", &out);
    let out = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .arg(repo().join("clients/python"))
        .output()
        .await
        .unwrap();
    check("pip install clients/python", &out);
    // Run from the temporary directory: the package comes from the venv,
    // not from the source tree.
    let out = Command::new(venv.join("bin/python"))
        .arg(repo().join("clients/python/examples/walk_through.py"))
        .current_dir(dir.path())
        .env("PYTHONSAFEPATH", "1")
        .env("LEDGER_URL", &server.base)
        .env("LEDGER_ADMIN_TOKEN", ADMIN_TOKEN)
        .env("LEDGER_SERVICE_TOKEN", SERVICE_TOKEN)
        .output()
        .await
        .unwrap();
    check("the Python walk-through", &out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("all answers as expected"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_client_runs_the_walk_through() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let npm = |args: &[&str]| {
        let mut command = Command::new("npm");
        command
            .args(args)
            .args(["--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(dir.path());
        command
    };
    // Packed, then installed from the tarball: what a user gets from a
    // registry, without the source tree's node_modules.
    let out = npm(&["pack", "--pack-destination", "."])
        .arg(repo().join("clients/typescript"))
        .output()
        .await
        .unwrap();
    check("npm pack clients/typescript", &out);
    let tarball = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    std::fs::write(dir.path().join("package.json"), r#"{"private": true}"#).unwrap();
    let out = npm(&["install", &format!("./{tarball}")])
        .output()
        .await
        .unwrap();
    check("npm install", &out);
    let script = dir.path().join("walk-through.mjs");
    std::fs::copy(
        repo().join("clients/typescript/examples/walk-through.mjs"),
        &script,
    )
    .unwrap();
    let out = Command::new("node")
        .arg(&script)
        .current_dir(dir.path())
        .env("LEDGER_URL", &server.base)
        .env("LEDGER_ADMIN_TOKEN", ADMIN_TOKEN)
        .env("LEDGER_SERVICE_TOKEN", SERVICE_TOKEN)
        .output()
        .await
        .unwrap();
    check("the TypeScript walk-through", &out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("all answers as expected"), "{stdout}");
}
