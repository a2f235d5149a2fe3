//! A template's budget as operators and quotes read it (docs/design.md
//! §15, "Budgets"): what it allows, what is spent and reserved, and what is
//! left in all and on the business day asked for.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use tokio_postgres::GenericClient;
use tokio_postgres::types::Json;
use utoipa::ToSchema;

use crate::domain::budget::{Budget, Counters};
use crate::domain::money::Money;

/// The columns of `template_budgets` a view reads, as one JSON object of
/// texts (amounts stay exact), for a template `t` of the outer query.
pub const STORED: &str = "(SELECT json_build_object('total', b.total::text,
        'daily', b.daily::text, 'spent', b.spent::text, 'reserved', b.reserved::text,
        'day', b.day, 'day_spent', b.day_spent::text, 'day_reserved', b.day_reserved::text)
   FROM template_budgets b WHERE b.template_sn = t.sn)";

/// A budget row as [`STORED`] reads it.
#[derive(Debug, Deserialize)]
pub struct StoredBudget {
    total: Money,
    daily: Option<Money>,
    spent: Money,
    reserved: Money,
    day: Option<NaiveDate>,
    day_spent: Money,
    day_reserved: Money,
}

impl StoredBudget {
    fn budget(&self) -> Budget {
        Budget {
            total: self.total,
            daily: self.daily,
        }
    }

    fn counters(&self) -> Counters {
        Counters {
            spent: self.spent.cents(),
            reserved: self.reserved.cents(),
            day: self.day,
            day_spent: self.day_spent.cents(),
            day_reserved: self.day_reserved.cents(),
        }
    }

    /// What is left for a lock on `today` (the total's or the day's, whichever is less).
    pub fn left(&self, today: NaiveDate) -> Money {
        self.counters().left(self.budget(), today)
    }
}

/// A template's budget: what it allows and where it stands.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BudgetView {
    pub total: Money,
    /// The cap per business day; absent: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub daily: Option<Money>,
    /// What confirmed orders' coupons cost, less what refunds gave back.
    pub spent: Money,
    /// What locked orders' coupons hold, until they are confirmed or released.
    pub reserved: Money,
    /// What a lock may still charge now: the total's left, or the day's
    /// when that is less.
    pub left: Money,
    /// The business day's counters, when the budget has a daily cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub today: Option<BudgetDayView>,
}

/// One business day of a budget with a daily cap.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct BudgetDayView {
    pub day: NaiveDate,
    pub spent: Money,
    pub reserved: Money,
    pub left: Money,
}

impl BudgetView {
    /// The view of `stored` on business day `today`.
    pub fn of(stored: &StoredBudget, today: NaiveDate) -> BudgetView {
        let of_today = stored.day == Some(today);
        let day_part = |cents: Money| if of_today { cents } else { Money::ZERO };
        let today_view = stored.daily.map(|daily| {
            let (spent, reserved) = (day_part(stored.day_spent), day_part(stored.day_reserved));
            BudgetDayView {
                day: today,
                spent,
                reserved,
                left: daily.saturating_sub(spent).saturating_sub(reserved),
            }
        });
        BudgetView {
            total: stored.total,
            daily: stored.daily,
            spent: stored.spent,
            reserved: stored.reserved,
            left: stored.left(today),
            today: today_view,
        }
    }
}

/// The budget of template `sn` on `today`; none when it has none.
pub async fn view_of(
    client: &impl GenericClient,
    sn: &str,
    today: NaiveDate,
) -> Result<Option<BudgetView>, tokio_postgres::Error> {
    let sql = format!("SELECT {STORED} FROM (SELECT $1::text AS sn) AS t");
    let row = client.query_one(&sql, &[&sn]).await?;
    let stored = row.try_get::<_, Option<Json<StoredBudget>>>(0)?;
    Ok(stored.map(|Json(b)| BudgetView::of(&b, today)))
}

/// What the budgets of `sns` leave for a lock on `today`, for those that
/// have one (a quote marks coupons whose discount does not fit).
pub async fn left_of(
    client: &impl GenericClient,
    sns: &[&str],
    today: NaiveDate,
) -> Result<Vec<(String, Money)>, tokio_postgres::Error> {
    let sql = format!(
        "SELECT t.sn, {STORED} FROM unnest($1::text[]) AS t (sn)
          WHERE EXISTS (SELECT FROM template_budgets b WHERE b.template_sn = t.sn)"
    );
    let rows = client.query(&sql, &[&sns]).await?;
    let mut left = Vec::with_capacity(rows.len());
    for row in rows {
        let Json(stored) = row.try_get::<_, Json<StoredBudget>>(1)?;
        left.push((row.get(0), stored.left(today)));
    }
    Ok(left)
}
