//! What apps can read with the service token (docs/design.md §15): a
//! template's public terms, a wallet whose coupons embed them, and the
//! templates a user can still claim from a channel, each left out for its
//! own reason, paged.

use std::time::Duration;

use chrono::Utc;
use reqwest::Method;
use serde_json::{Value, json};
use tests::{Channel, Env, Server, template_body};

/// Creates a template from `body`, activated when `active`, allowed to
/// `channel` when given; its sn.
async fn template(
    server: &Server,
    body: &Value,
    active: bool,
    channel: Option<&Channel>,
) -> String {
    let (status, created) = server.admin_post("/v1/templates", body).await.unwrap();
    assert_eq!(status, 201, "{created}");
    let sn = created["sn"].as_str().unwrap().to_owned();
    if active {
        let path = format!("/v1/templates/{sn}/activate");
        let (status, answer) = server.admin_post(&path, &json!({})).await.unwrap();
        assert_eq!(status, 200, "{answer}");
    }
    if let Some(c) = channel {
        let path = format!("/v1/templates/{sn}/channels");
        let (status, answer) = server
            .admin_post(&path, &json!({"channel_id": c.id}))
            .await
            .unwrap();
        assert_eq!(status, 200, "{answer}");
    }
    sn
}

fn named(name: &str) -> Value {
    let mut body = template_body(100, 1);
    body["name"] = json!(name);
    body
}

async fn claimable(server: &Server, user: &str, query: &str) -> (u16, Value) {
    server
        .service_get(&format!("/v1/users/{user}/claimable?{query}"))
        .await
        .unwrap()
}

fn names(page: &Value) -> Vec<&str> {
    page["templates"]
        .as_array()
        .unwrap_or_else(|| panic!("{page}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn terms_are_a_service_read_with_the_rule_in_words() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let mut body = template_body(100, 2);
    body["description"] = json!("Members' weekend");
    body["discount"] = json!({"type": "rate", "rate_off": "0.12", "threshold": "50",
        "max_off": "30"});
    body["shop_id"] = json!("shop-7");
    body["eligibility"] = json!({"user_tags": {"all": ["vip"]}, "allow_list": true});
    let sn = template(&server, &body, true, None).await;

    let (status, terms) = server
        .service_get(&format!("/v1/templates/{sn}/terms"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{terms}");
    assert_eq!(
        terms["rule_text"],
        "12% off orders of 50.00 or more, at most 30.00 off"
    );
    assert_eq!(
        terms["discount"],
        json!({"type": "rate", "rate_off": "0.12", "threshold": "50.00", "max_off": "30.00"})
    );
    assert_eq!(terms["description"], "Members' weekend");
    assert_eq!(terms["face_value"], "30.00");
    assert_eq!(terms["shop_id"], "shop-7");
    assert_eq!(
        (terms["kind"].as_str(), terms["stacking"].as_str()),
        (Some("goods"), Some("stackable"))
    );
    assert_eq!(
        terms["eligibility"],
        json!({"user_tags": {"all": ["vip"]}, "allow_list": true})
    );
    assert_eq!(terms["validity"]["type"], "relative");
    assert_eq!(terms["status"], "active");
    assert!(terms["issue_window"]["end"].is_string(), "{terms}");
    for private in [
        "total",
        "issued",
        "channels",
        "rate_limit",
        "per_user_limit",
    ] {
        assert!(terms.get(private).is_none(), "{private} shown: {terms}");
    }

    // Admins may read it too; nobody else; an unknown sn is 404.
    let r = server
        .admin(Method::GET, &format!("/v1/templates/{sn}/terms"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = server
        .http
        .get(server.url(&format!("/v1/templates/{sn}/terms")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let (status, missing) = server
        .service_get("/v1/templates/NOSUCHTEMPLATE0000/terms")
        .await
        .unwrap();
    assert_eq!(status, 404, "{missing}");
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("NOSUCHTEMPLATE0000")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wallet_embeds_each_coupons_terms() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let mut ladder = template_body(100, 2);
    ladder["discount"] = json!({"type": "ladder", "tiers": [
        {"threshold": "50", "amount": "5"}, {"threshold": "100", "amount": "15"}]});
    let first = server.activate_template(&ladder).await.unwrap();
    let second = server.active_template(100, 1).await.unwrap();
    let a = server.channel_for(&first).await.unwrap();
    let b = server.channel_for(&second).await.unwrap();
    let mut claimed = Vec::new();
    for (channel, sn) in [(&a, &first), (&a, &first), (&b, &second)] {
        let (status, coupon) = server.claim(channel, sn, "walleted").await.unwrap();
        assert_eq!(status, 201, "{coupon}");
        claimed.push(coupon);
    }

    let (status, wallet) = server
        .service_get("/v1/users/walleted/coupons?limit=2")
        .await
        .unwrap();
    assert_eq!(status, 200, "{wallet}");
    assert_eq!(
        (wallet["total"].as_i64(), wallet["limit"].as_i64()),
        (Some(3), Some(2))
    );
    let coupons = wallet["coupons"].as_array().unwrap();
    assert_eq!(coupons.len(), 2);
    for (coupon, issued) in coupons.iter().zip(&claimed) {
        // Every field a coupon had is still there, as the claim answered it.
        for field in [
            "id",
            "template_sn",
            "user_id",
            "status",
            "issued_at",
            "effective_at",
            "expires_at",
            "channel_id",
        ] {
            assert_eq!(coupon[field], issued[field], "{field}: {coupon}");
        }
        assert_eq!(coupon["terms"]["sn"], coupon["template_sn"]);
        assert_eq!(
            coupon["terms"]["rule_text"],
            "5.00 off orders of 50.00 or more; 15.00 off orders of 100.00 or more"
        );
    }
    let (status, rest) = server
        .service_get("/v1/users/walleted/coupons?offset=2&status=unused")
        .await
        .unwrap();
    assert_eq!(status, 200, "{rest}");
    let last = &rest["coupons"][0];
    assert_eq!(
        (last["template_sn"].as_str(), last["terms"]["sn"].as_str()),
        (Some(second.as_str()), Some(second.as_str()))
    );
    assert_eq!(
        last["terms"]["rule_text"],
        "20.00 off orders of 100.00 or more"
    );
}

/// Puts `user` on `sn`'s allow-list by uploading a file of that one id.
async fn allow_listed(server: &Server, sn: &str, user: &str) {
    let body = format!("{user}\n").into_bytes();
    let (status, file) = tests::uploads::upload_allow_list(server, sn, "add", body, &[]).await;
    assert_eq!((status, file["changed"].as_i64()), (201, Some(1)), "{file}");
}

#[tokio::test(flavor = "multi_thread")]
async fn claimable_lists_exactly_what_a_claim_would_grant() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (status, made) = server
        .admin_post("/v1/channels", &json!({"name": "app"}))
        .await
        .unwrap();
    assert_eq!(status, 201);
    let channel = Channel {
        id: made["id"].as_str().unwrap().to_owned(),
        secret: made["secret"].as_str().unwrap().to_owned(),
    };
    let c = Some(&channel);
    let now = Utc::now();

    // Ends its validity in 2 s: by the time the list is read, its coupons
    // would be expired on issue.
    let mut ending = named("validity ended");
    ending["validity"] = json!({"type": "absolute", "begin": now - chrono::Duration::hours(1),
        "end": now + chrono::Duration::seconds(2)});
    template(&server, &ending, true, c).await;
    let plain = template(&server, &named("plain"), true, c).await;
    template(&server, &named("draft"), false, c).await;
    let mut later = named("window ahead");
    later["issue_window"] = json!({"begin": now + chrono::Duration::hours(1),
        "end": now + chrono::Duration::days(1)});
    template(&server, &later, true, c).await;
    template(&server, &named("other channel"), true, None).await;
    let at_limit = template(&server, &named("at limit"), true, c).await;
    let mut one = named("sold out");
    one["total"] = json!(1);
    let sold_out = template(&server, &one, true, c).await;
    let mut vip = named("vip");
    vip["eligibility"] = json!({"user_tags": {"all": ["vip", "gold"]}});
    template(&server, &vip, true, c).await;
    let mut local = named("shanghai");
    local["eligibility"] = json!({"regions": ["310000"]});
    template(&server, &local, true, c).await;
    let mut fresh = named("new users");
    fresh["eligibility"] = json!({"new_users_only": true});
    template(&server, &fresh, true, c).await;
    let mut listed = named("allow-listed");
    listed["eligibility"] = json!({"allow_list": true});
    let listed_sn = template(&server, &listed, true, c).await;
    let mut other = named("allow-listed, not her");
    other["eligibility"] = json!({"allow_list": true});
    let other_sn = template(&server, &other, true, c).await;
    allow_listed(&server, &listed_sn, "ann").await;
    allow_listed(&server, &other_sn, "bob").await;

    let (status, _) = server.claim(&channel, &at_limit, "ann").await.unwrap();
    assert_eq!(status, 201);
    let (status, _) = server.claim(&channel, &sold_out, "bob").await.unwrap();
    assert_eq!(status, 201);
    tokio::time::sleep(Duration::from_millis(2_500)).await;

    let (status, page) = claimable(&server, "ann", &format!("channel_id={}", channel.id)).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(names(&page), ["allow-listed", "plain"], "{page}");
    assert_eq!(
        (page["total"].as_i64(), page["truncated"].as_bool()),
        (Some(2), Some(false))
    );
    let first = &page["templates"][1];
    assert_eq!(
        (
            first["sn"].as_str(),
            first["claimed"].as_i64(),
            first["per_user_limit"].as_i64()
        ),
        (Some(plain.as_str()), Some(0), Some(1))
    );
    assert_eq!(first["rule_text"], "20.00 off orders of 100.00 or more");

    // The facts the caller vouches for open the templates they meet, newest first.
    let facts = format!(
        "channel_id={}&user_tags=gold,%20vip,x&region=310000&new_user=true",
        channel.id
    );
    let (status, page) = claimable(&server, "ann", &facts).await;
    assert_eq!(status, 200, "{page}");
    let all = ["allow-listed", "new users", "shanghai", "vip", "plain"];
    assert_eq!(names(&page), all, "{page}");
    let (status, page) = claimable(&server, "ann", &format!("{facts}&offset=1&limit=2")).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(names(&page), ["new users", "shanghai"]);
    assert_eq!(
        (
            page["total"].as_i64(),
            page["offset"].as_i64(),
            page["limit"].as_i64()
        ),
        (Some(5), Some(1), Some(2))
    );
    let (_, page) = claimable(&server, "ann", &format!("{facts}&offset=4")).await;
    assert_eq!(names(&page), ["plain"]);
    // Only one of the two tags: not "vip" (all of them).
    let (_, page) = claimable(
        &server,
        "ann",
        &format!("channel_id={}&user_tags=vip", channel.id),
    )
    .await;
    assert_eq!(names(&page), ["allow-listed", "plain"]);
    // Bob is on the other list; he claimed the last of "sold out".
    let (_, page) = claimable(&server, "bob", &format!("channel_id={}", channel.id)).await;
    assert_eq!(names(&page), ["allow-listed, not her", "at limit", "plain"]);

    // A raised limit and a moved window show at once.
    let r = server
        .admin(Method::PATCH, &format!("/v1/templates/{at_limit}"))
        .json(&json!({"per_user_limit": 2}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (_, page) = claimable(&server, "ann", &format!("channel_id={}", channel.id)).await;
    assert_eq!(names(&page), ["allow-listed", "at limit", "plain"]);

    // A disabled channel can claim nothing.
    let path = format!("/v1/channels/{}/disable", channel.id);
    let (status, _) = server.admin_post(&path, &json!({})).await.unwrap();
    assert_eq!(status, 200);
    let (status, page) = claimable(&server, "ann", &format!("channel_id={}", channel.id)).await;
    assert_eq!((status, page["total"].as_i64()), (200, Some(0)), "{page}");
}

#[tokio::test(flavor = "multi_thread")]
async fn claimable_refuses_bad_queries_naming_the_field() {
    let env = Env::new().await.unwrap();
    let server = Server::start(&env).await.unwrap();
    let (status, made) = server
        .admin_post("/v1/channels", &json!({"name": "app"}))
        .await
        .unwrap();
    assert_eq!(status, 201);
    let id = made["id"].as_str().unwrap();
    let long = "t".repeat(65);
    let cases = [
        (String::new(), "channel_id"),
        ("channel_id=nope".to_owned(), "channel_id"),
        (format!("channel_id={id}&limit=0"), "limit"),
        (format!("channel_id={id}&limit=201"), "limit"),
        (format!("channel_id={id}&offset=-1"), "offset"),
        (format!("channel_id={id}&new_user=maybe"), "new_user"),
        (format!("channel_id={id}&user_tags=a,,b"), "user_tags[1]"),
        (format!("channel_id={id}&user_tags={long}"), "user_tags[0]"),
        (format!("channel_id={id}&region="), "region"),
        (format!("channel_id={id}&colour=red"), "colour"),
    ];
    for (query, field) in cases {
        let (status, answer) = claimable(&server, "ann", &query).await;
        assert_eq!(status, 400, "{query}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(field), "{query}: {message}");
    }
    let unknown = uuid::Uuid::new_v4();
    let (status, answer) = claimable(&server, "ann", &format!("channel_id={unknown}")).await;
    assert_eq!(status, 404, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&unknown.to_string())
    );
    let (status, answer) = claimable(&server, &"u".repeat(65), &format!("channel_id={id}")).await;
    assert_eq!(status, 400, "{answer}");
    let r = server
        .http
        .get(server.url(&format!("/v1/users/ann/claimable?channel_id={id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}
