//! `GET /v1/templates`: pages of templates, newest first, with the total,
//! optionally of one status; bad paging or an unknown status is a 400.

use reqwest::Method;
use serde_json::{Value, json};
use tests::{Env, Server};

async fn list(server: &Server, query: &str) -> (u16, Value) {
    let r = server
        .admin(Method::GET, &format!("/v1/templates{query}"))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

fn names(page: &Value) -> Vec<String> {
    page["templates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// `t{i}` for the given creation indexes.
fn named(indexes: impl IntoIterator<Item = usize>) -> Vec<String> {
    indexes.into_iter().map(|i| format!("t{i:02}")).collect()
}

/// 30 templates `t00`..`t29`, created in that order; every third is activated.
async fn thirty(server: &Server) {
    for i in 0..30 {
        let mut body = tests::template_body(10, 1);
        body["name"] = json!(format!("t{i:02}"));
        let (status, created) = server.admin_post("/v1/templates", &body).await.unwrap();
        assert_eq!(status, 201, "{created}");
        if i % 3 == 0 {
            let sn = created["sn"].as_str().unwrap();
            let path = format!("/v1/templates/{sn}/activate");
            let (status, body) = server.admin_post(&path, &json!({})).await.unwrap();
            assert_eq!(status, 200, "{body}");
        }
    }
}

#[tokio::test]
async fn templates_are_listed_newest_first_paged_and_filtered() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    thirty(&server).await;

    let (status, page) = list(&server, "").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        (&page["total"], &page["offset"], &page["limit"]),
        (&json!(30), &json!(0), &json!(50))
    );
    assert_eq!(names(&page), named((0..30).rev()), "newest first");
    let first = &page["templates"][0];
    assert!(first["sn"].is_string() && first["discount"]["type"] == "fixed_off");

    let (status, page) = list(&server, "?offset=10&limit=7").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        (&page["total"], &page["offset"], &page["limit"]),
        (&json!(30), &json!(10), &json!(7))
    );
    assert_eq!(names(&page), named((13..20).rev()));

    let (_, page) = list(&server, "?offset=28&limit=5").await;
    assert_eq!(names(&page), named([1, 0]), "the last page is short");
    let (_, page) = list(&server, "?offset=30").await;
    assert_eq!(names(&page), Vec::<String>::new());
    assert_eq!(page["total"], 30);

    let (status, page) = list(&server, "?status=active").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["total"], 10);
    assert_eq!(names(&page), named((0..30).rev().filter(|i| i % 3 == 0)));
    assert!(
        page["templates"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["status"] == "active")
    );

    let (_, page) = list(&server, "?status=draft&offset=2&limit=3").await;
    assert_eq!(page["total"], 20);
    assert_eq!(names(&page), named([26, 25, 23]));

    let (_, page) = list(&server, "?status=void").await;
    assert_eq!((&page["total"], names(&page).len()), (&json!(0), 0));
}

#[tokio::test]
async fn bad_listing_queries_are_refused_naming_the_field() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    for (query, field) in [
        ("?status=bogus", "status"),
        ("?status=ACTIVE", "status"),
        ("?limit=0", "limit"),
        ("?limit=201", "limit"),
        ("?offset=-1", "offset"),
        ("?limit=ten", "limit"),
        ("?colour=blue", "colour"),
    ] {
        let (status, body) = list(&server, query).await;
        assert_eq!(status, 400, "{query}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(field), "{query}: {message}");
    }
    let (status, page) = list(&server, "?limit=200").await;
    assert_eq!((status, &page["limit"]), (200, &json!(200)));
    let r = server
        .service(Method::GET, "/v1/templates")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403, "listing templates is for admins");
}
