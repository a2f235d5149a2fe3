//! Each user's count of a template (`user_claims`) against its per-user
//! limit: every statement on the table is here (docs/design.md §9). A
//! write takes its users' rows in one statement, in user order, so that a
//! claim, a batch of claims and an issuance chunk of one template cannot
//! deadlock on them.

use std::collections::{HashMap, HashSet};

use deadpool_postgres::Transaction;

use crate::commands::CommandError;

/// Raises each user's count by theirs (`users[i]` by `counts[i]`; a user at
/// most once) unless that passes `limit`. The users whose count was raised;
/// the others' rows are left as they were.
pub(crate) async fn raise(
    tx: &Transaction<'_>,
    sn: &str,
    users: &[&str],
    counts: &[i32],
    limit: i32,
) -> Result<HashSet<String>, tokio_postgres::Error> {
    debug_assert_eq!(users.len(), counts.len());
    if users.is_empty() {
        return Ok(HashSet::new());
    }
    let sql = "INSERT INTO user_claims AS c (template_sn, user_id, claimed)
               SELECT $1, u, n FROM unnest($2::text[], $3::int[]) AS x (u, n)
                WHERE n <= $4 ORDER BY u
               ON CONFLICT (template_sn, user_id) DO UPDATE
                  SET claimed = c.claimed + excluded.claimed
                WHERE c.claimed + excluded.claimed <= $4
               RETURNING user_id";
    let rows = tx
        .query(
            &tx.prepare_cached(sql).await?,
            &[&sn, &users, &counts, &limit],
        )
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Lowers the user's count by `n`: a large package's claim raised it in its
/// request, and its job could not write the coupons (docs/design.md §13).
pub(crate) async fn lower(
    tx: &Transaction<'_>,
    sn: &str,
    user: &str,
    n: i32,
) -> Result<(), tokio_postgres::Error> {
    let sql = "UPDATE user_claims SET claimed = claimed - $3
                WHERE template_sn = $1 AND user_id = $2";
    tx.execute(&tx.prepare_cached(sql).await?, &[&sn, &user, &n])
        .await?;
    Ok(())
}

/// The refusal of a user at the template's per-user limit (409).
pub(crate) fn at_limit(per_user_limit: i32) -> CommandError {
    CommandError::Conflict(
        "per_user_limit",
        format!("user already holds the limit of {per_user_limit} from this template"),
    )
}

/// What each of `users` already claimed, as the snapshot sees it (absent:
/// nothing). Not locked: [`raise`]'s guard catches a change since.
pub(crate) async fn read(
    tx: &Transaction<'_>,
    sn: &str,
    users: &[&str],
) -> Result<HashMap<String, i32>, tokio_postgres::Error> {
    let sql =
        "SELECT user_id, claimed FROM user_claims WHERE template_sn = $1 AND user_id = ANY($2)";
    let rows = tx
        .query(&tx.prepare_cached(sql).await?, &[&sn, &users])
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// What each of `users` (sorted, distinct) already claimed, every row
/// locked. One sorted pass creates the rows of new users (claimed 0) and
/// locks the others, before the template's row: batched claims take their
/// users' rows the same way, so neither can hold a row the other wants
/// next. (Creating first and locking in a second pass deadlocked with a
/// batch: the chunk held a new row and waited for an old one the batch
/// held while it waited for the new one.)
pub(crate) async fn lock(
    tx: &Transaction<'_>,
    sn: &str,
    users: &[&str],
) -> Result<HashMap<String, i32>, tokio_postgres::Error> {
    debug_assert!(users.is_sorted(), "rows are taken in user order");
    let sql = "INSERT INTO user_claims AS c (template_sn, user_id, claimed)
               SELECT $1, u, 0 FROM unnest($2::text[]) AS u ORDER BY u
               ON CONFLICT (template_sn, user_id) DO UPDATE SET claimed = c.claimed
               RETURNING user_id, claimed";
    let rows = tx
        .query(&tx.prepare_cached(sql).await?, &[&sn, &users])
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Writes each user's count after a write that [`lock`]ed their rows, and
/// drops the rows it created for users of `locked` who got nothing.
pub(crate) async fn set(
    tx: &Transaction<'_>,
    sn: &str,
    after: &[(String, i32)],
    locked: &[&str],
) -> Result<(), tokio_postgres::Error> {
    let users: Vec<&str> = after.iter().map(|(u, _)| u.as_str()).collect();
    let counts: Vec<i32> = after.iter().map(|(_, n)| *n).collect();
    let update = "UPDATE user_claims c SET claimed = x.n
                    FROM unnest($2::text[], $3::int[]) AS x (u, n)
                   WHERE c.template_sn = $1 AND c.user_id = x.u";
    tx.execute(&tx.prepare_cached(update).await?, &[&sn, &users, &counts])
        .await?;
    let empty = "DELETE FROM user_claims
                  WHERE template_sn = $1 AND user_id = ANY($2) AND claimed = 0";
    tx.execute(&tx.prepare_cached(empty).await?, &[&sn, &locked])
        .await?;
    Ok(())
}

/// The users whose unit the quota could not give take it back (their
/// counts were [`raise`]d by one in the same transaction).
pub(crate) async fn give_back(
    tx: &Transaction<'_>,
    sn: &str,
    users: &[&str],
) -> Result<(), tokio_postgres::Error> {
    if users.is_empty() {
        return Ok(());
    }
    let sql = "UPDATE user_claims SET claimed = claimed - 1
                WHERE template_sn = $1 AND user_id = ANY($2)";
    tx.execute(&tx.prepare_cached(sql).await?, &[&sn, &users])
        .await?;
    Ok(())
}
