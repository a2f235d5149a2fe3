//! Redemption codes over HTTP, for the tests of codes, redemptions,
//! packages and guess limits: a batch made, its codes read back as the API
//! streams them, a code redeemed as the service.

use reqwest::Method;
use serde_json::{Value, json};

use crate::Server;

/// `POST /v1/code-batches` with `body`, which must succeed: the batch.
pub async fn batch(server: &Server, body: Value) -> Value {
    let (status, batch) = server.admin_post("/v1/code-batches", &body).await.unwrap();
    assert_eq!(status, 201, "{batch}");
    batch
}

/// The codes of the batch `id`, as the API streams them (one a line).
pub async fn codes(server: &Server, id: &str) -> Vec<String> {
    let r = server
        .admin(Method::GET, &format!("/v1/code-batches/{id}/codes"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    r.text().await.unwrap().lines().map(str::to_owned).collect()
}

/// The codes of a batch as [`batch`] answered it.
pub async fn codes_of(server: &Server, batch: &Value) -> Vec<String> {
    codes(server, batch["id"].as_str().unwrap()).await
}

/// A new batch made from `body`, and its codes.
pub async fn batch_codes(server: &Server, body: Value) -> Vec<String> {
    codes_of(server, &batch(server, body).await).await
}

/// `POST /v1/redemptions` as the service: (status, body).
pub async fn redeem(server: &Server, code: &str, user: &str) -> (u16, Value) {
    server
        .service_post("/v1/redemptions", &json!({"code": code, "user_id": user}))
        .await
        .unwrap()
}
