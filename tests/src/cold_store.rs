//! A store of coupons that ended long ago, written straight in SQL as the
//! ledger writes them (so that `replay --verify` finds no difference), for
//! the archive's scale test and the storage benchmark: each coupon issued
//! 130 days ago and expired 120 days ago, with both events, its row and its
//! place in every projection.

/// `$N` coupons of template `$SN`, one per user (`e$FIRST` on).
const ENDED: &str = "
DROP TABLE IF EXISTS ended;
CREATE TEMP TABLE ended AS
  SELECT gen_random_uuid() AS id, 'e' || i AS user_id,
         now() - interval '130 days' AS issued, now() - interval '120 days' AS expired
    FROM generate_series($FIRST, $LAST) i;
INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version, payload,
                    metadata, occurred_at)
  SELECT gen_random_uuid(), 'coupon-' || id, 1, 'CouponIssued', 1,
         jsonb_build_object('coupon_id', id, 'template_sn', '$SN', 'user_id', user_id,
           'issued_at', issued, 'effective_at', issued, 'expires_at', expired,
           'face_value', '20.00', 'currency', 'CNY'),
         '{\"actor\": \"bench\", \"correlation_id\": \"bench\"}', issued
    FROM ended;
INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version, payload,
                    metadata, occurred_at)
  SELECT gen_random_uuid(), 'coupon-' || id, 2, 'CouponExpired', 1,
         jsonb_build_object('coupon_id', id), '{\"actor\": \"system:expiry\"}', expired
    FROM ended;
INSERT INTO coupons (id, template_sn, user_id, status, issued_at, effective_at, expires_at,
                     version, changed_at)
  SELECT id, '$SN', user_id, 'expired', issued, issued, expired, 2, expired FROM ended;
INSERT INTO user_claims SELECT '$SN', user_id, 1 FROM ended;
INSERT INTO balances SELECT user_id, 'expired', 1, 20.00 FROM ended;
INSERT INTO template_stats VALUES ('$SN', 'expired', $N, 20.00 * $N);
INSERT INTO template_totals VALUES ('$SN', $N, 0);
";

/// Rows per statement group: the temporary table and one transaction's WAL
/// stay bounded however large the store grows.
const CHUNK: i64 = 1_000_000;

/// `n` ended coupons in templates of their own (`ENDED<k>`, a million at
/// most each), to users `e1..en`.
pub async fn add_ended(client: &tokio_postgres::Client, n: i64) {
    let mut first = 1;
    let mut k = 0;
    while first <= n {
        let count = CHUNK.min(n - first + 1);
        let sn = format!("ENDEDCOUPONS{k:08}");
        let since: i64 = client
            .query_one("SELECT last_value FROM events_position_seq", &[])
            .await
            .unwrap()
            .get(0);
        crate::bench_store::template(client, &sn, count).await;
        let sql = ENDED
            .replace("$SN", &sn)
            .replace("$FIRST", &first.to_string())
            .replace("$LAST", &(first + count - 1).to_string())
            .replace("$N", &count.to_string());
        client.batch_execute(&sql).await.unwrap();
        client
            .execute("SELECT events_index_keys($1)", &[&since])
            .await
            .unwrap();
        first += count;
        k += 1;
    }
}

/// The relay's cursors and the projections' positions past every event so
/// far: workers started afterwards carry only what comes next.
pub async fn skip_setup(client: &tokio_postgres::Client) {
    client
        .batch_execute(
            "INSERT INTO relay_cursors (name, tx_id, position)
               SELECT r, e.tx_id, e.position FROM
                 (SELECT tx_id, position FROM events ORDER BY tx_id DESC, position DESC LIMIT 1) e,
                 unnest(ARRAY['coupon.events', 'coupon.events.balances',
                              'coupon.events.template_stats', 'coupon.events.notify']) r
             ON CONFLICT (name) DO UPDATE SET tx_id = excluded.tx_id, position = excluded.position;
             INSERT INTO projection_positions (projection, position, applied)
               SELECT p, (SELECT max(position) FROM events), (SELECT count(*) FROM events)
                 FROM unnest(ARRAY['balances', 'template_stats', 'notify']) p
             ON CONFLICT (projection) DO UPDATE SET position = excluded.position,
                                                    applied = excluded.applied;",
        )
        .await
        .unwrap();
}
