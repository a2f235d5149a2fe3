//! A client of the two `serve`s: each try goes to one of them; a 503 or a
//! dropped connection is retried (on either) with the same key until an
//! answer comes or the client's patience runs out.

use std::time::Duration;

use reqwest::{Method, RequestBuilder};
use serde_json::Value;

use super::history::Answer;
use crate::{ADMIN_TOKEN, Channel, SERVICE_TOKEN};

/// How long one logical request is retried: longer than any fault lasts.
const PATIENCE: Duration = Duration::from_secs(60);

/// A try that takes longer has met a stopped process: give up on it.
const TRY_TIMEOUT: Duration = Duration::from_secs(8);

#[derive(Clone)]
pub struct Client {
    pub bases: Vec<String>,
    http: reqwest::Client,
}

/// The final answer, with how many tries it took and how many of them
/// may have taken effect.
pub struct Sent {
    pub answer: Answer,
    pub tries: u32,
    pub uncertain: u32,
}

/// Who signs a request.
#[derive(Clone, Copy)]
pub enum Auth<'a> {
    Admin,
    Service,
    Channel(&'a Channel),
}

impl Client {
    pub fn new(bases: Vec<String>) -> anyhow::Result<Self> {
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(32)
            .timeout(TRY_TIMEOUT)
            .build()?;
        Ok(Client { bases, http })
    }

    /// A JSON POST to `path` with `key` (None: no Idempotency-Key).
    pub async fn post(&self, auth: Auth<'_>, path: &str, body: &Value, key: Option<&str>) -> Sent {
        let text = body.to_string();
        self.retried(|base| {
            let mut req = self.request(Method::POST, base, path, auth, &text);
            req = req
                .header("Content-Type", "application/json")
                .body(text.clone());
            if let Some(key) = key {
                req = req.header("Idempotency-Key", key);
            }
            req
        })
        .await
    }

    /// A file upload (admin) with `key`, given more time: it streams.
    pub async fn upload(&self, path: &str, file: Vec<u8>, key: &str) -> Sent {
        self.retried(|base| {
            self.request(Method::POST, base, path, Auth::Admin, "")
                .timeout(Duration::from_secs(120))
                .header("Idempotency-Key", key)
                .body(file.clone())
        })
        .await
    }

    /// A GET as the admin.
    pub async fn get(&self, path: &str) -> Sent {
        self.retried(|base| self.request(Method::GET, base, path, Auth::Admin, ""))
            .await
    }

    /// A GET as the admin, its body as text (setup only: no retries).
    pub async fn get_text(&self, path: &str) -> anyhow::Result<String> {
        let r = self
            .request(Method::GET, &self.bases[0], path, Auth::Admin, "")
            .send()
            .await?;
        anyhow::ensure!(r.status().is_success(), "GET {path}: {}", r.status());
        Ok(r.text().await?)
    }

    fn request(
        &self,
        method: Method,
        base: &str,
        path: &str,
        auth: Auth<'_>,
        body: &str,
    ) -> RequestBuilder {
        let req = self.http.request(method.clone(), format!("{base}{path}"));
        match auth {
            Auth::Admin => req.bearer_auth(ADMIN_TOKEN),
            Auth::Service => req.bearer_auth(SERVICE_TOKEN),
            // A fresh nonce each try: the first try spends its nonce.
            Auth::Channel(channel) => {
                let nonce = uuid::Uuid::new_v4().to_string();
                let signed = channel.sign(method.as_str(), path, body, &nonce);
                signed
                    .headers
                    .into_iter()
                    .fold(req, |r, (k, v)| r.header(k, v))
            }
        }
    }

    async fn retried(&self, make: impl Fn(&str) -> RequestBuilder) -> Sent {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        let (mut tries, mut uncertain) = (0u32, 0u32);
        let mut last = String::new();
        while tokio::time::Instant::now() < deadline {
            let base = &self.bases[rand::random_range(0..self.bases.len())];
            tries += 1;
            match make(base).send().await {
                Ok(r) if r.status() == 503 || r.status() == 429 => {
                    // 429: the rate limit, which a retry later passes.
                    uncertain += u32::from(r.status() == 503);
                    last = format!("{}", r.status());
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                Ok(r) => {
                    let status = r.status().as_u16();
                    let body = r.json().await.unwrap_or(Value::Null);
                    let answer = Answer::Status { status, body };
                    return Sent {
                        answer,
                        tries,
                        uncertain,
                    };
                }
                Err(e) => {
                    uncertain += 1;
                    last = e.to_string();
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
            }
        }
        Sent {
            answer: Answer::Unknown { last },
            tries,
            uncertain,
        }
    }
}
