//! The admin console's shell (docs/design.md §14): served by `ledger serve` at
//! `/admin` without a token (it holds no data), with every asset from the
//! same origin (it works offline), and the token never in a URL or in
//! localStorage.

use tests::{Env, Server};

async fn get(server: &Server, path: &str) -> (u16, String, reqwest::header::HeaderMap) {
    let r = server.http.get(server.url(path)).send().await.unwrap();
    let (status, headers) = (r.status().as_u16(), r.headers().clone());
    (status, r.text().await.unwrap(), headers)
}

#[tokio::test]
async fn the_console_shell_and_its_assets_are_served_from_the_ledger_itself() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (status, html, headers) = get(&server, "/admin").await;
    assert_eq!(status, 200);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("default-src 'self'") && csp.contains("script-src 'self'"));
    let assets: Vec<&str> = html
        .split(['"', '\''])
        .filter(|s| s.starts_with("/admin/assets/"))
        .collect();
    assert!(assets.len() >= 4, "{html}");
    for asset in &assets {
        let (status, body, headers) = get(&server, asset).await;
        assert_eq!(status, 200, "{asset}");
        assert!(!body.is_empty());
        let kind = headers["content-type"].to_str().unwrap();
        assert!(
            kind.starts_with("text/javascript") || kind.starts_with("text/css"),
            "{asset}: {kind}"
        );
    }
    // Offline: no page or script of ours loads anything from elsewhere.
    let (_, app, _) = get(&server, "/admin/assets/app.js").await;
    for page in [&html, &app] {
        assert!(
            !page.contains("http://") && !page.contains("https://"),
            "no CDN"
        );
    }
    assert!(
        !app.contains("localStorage"),
        "the token stays in sessionStorage"
    );
    assert!(app.contains("sessionStorage") && app.contains("Authorization"));
    assert_eq!(get(&server, "/admin/assets/nope.js").await.0, 404);
}

#[tokio::test]
async fn the_favicon_is_served_without_a_token_and_linked_from_the_page() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (status, icon, headers) = get(&server, "/favicon.ico").await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "image/svg+xml");
    assert!(icon.starts_with("<svg") && icon.len() < 2_048, "{icon}");
    let (_, html, _) = get(&server, "/admin").await;
    assert!(
        html.contains(r#"<link rel="icon" href="/favicon.ico""#),
        "{html}"
    );
}

/// The finance page's report names each template and channel beside the id
/// it groups by (the JSON rows; the CSV keeps the ids alone).
#[tokio::test]
async fn the_liability_report_names_templates_and_channels() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let sn = server.active_template(10, 1).await.unwrap();
    let channel = server.channel_for(&sn).await.unwrap();
    assert_eq!(server.claim(&channel, &sn, "ann").await.unwrap().0, 201);
    for (by, group, name) in [
        ("template", sn.as_str(), "test: 20 off 100"),
        ("channel", channel.id.as_str(), "test channel"),
    ] {
        let path = format!("/v1/reports/liability?as_of=now&by={by}");
        let r = server
            .admin(reqwest::Method::GET, &path)
            .send()
            .await
            .unwrap();
        let report: serde_json::Value = r.json().await.unwrap();
        let rows = report["rows"].as_array().unwrap();
        let row = rows
            .iter()
            .find(|r| r["group"] == group)
            .expect("the group's row");
        assert_eq!(
            (row["name"].as_str(), row["issued"].as_i64()),
            (Some(name), Some(1)),
            "{report}"
        );
        let total = rows.iter().find(|r| r["group"] == "total").unwrap();
        assert!(total.get("name").is_none(), "{total}");
        let csv = format!("{path}&format=csv");
        let text = server
            .admin(reqwest::Method::GET, &csv)
            .send()
            .await
            .unwrap();
        let text = text.text().await.unwrap();
        assert!(
            text.starts_with("group,issued,") && !text.contains(name),
            "{text}"
        );
    }
}
