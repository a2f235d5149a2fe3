//! One page of a list (templates, a user's coupons, code batches,
//! packages): the bounds the API checked, and one query for the page's
//! rows and the count of all that match, so every list pages alike.

use tokio_postgres::types::ToSql;
use tokio_postgres::{GenericClient, Row};

/// Where a page starts and how many items it holds at most; checked at the
/// edge (`api/http/extract.rs::page_bounds`) against the list's own limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub offset: i64,
    pub limit: i64,
}

/// A page of items and the count of all that match.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: i64,
    pub bounds: Bounds,
}

impl<T> Page<T> {
    /// The same page of other items (a view of each).
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            total: self.total,
            bounds: self.bounds,
        }
    }
}

/// A list's SQL: `SELECT {columns} FROM {from} WHERE {filter} ORDER BY
/// {order}`; the filter's parameters are `$1…$n`, the page's come after.
pub struct List<'a> {
    pub columns: &'a str,
    pub from: &'a str,
    pub filter: &'a str,
    /// Must end in a unique column, so pages neither skip nor repeat rows.
    pub order: &'a str,
}

/// The page `bounds` of `list`, each row read by `read`.
pub async fn fetch<T, E>(
    client: &impl GenericClient,
    list: &List<'_>,
    params: &[&(dyn ToSql + Sync)],
    bounds: Bounds,
    read: impl Fn(&Row) -> Result<T, E>,
) -> Result<Page<T>, E>
where
    E: From<tokio_postgres::Error>,
{
    let List {
        columns,
        from,
        filter,
        order,
    } = list;
    let count = format!("SELECT count(*) FROM {from} WHERE {filter}");
    let total: i64 = client.query_one(&count, params).await?.get(0);
    let (o, l) = (params.len() + 1, params.len() + 2);
    let sql = format!(
        "SELECT {columns} FROM {from} WHERE {filter} ORDER BY {order} OFFSET ${o} LIMIT ${l}"
    );
    let mut all = params.to_vec();
    all.extend([&bounds.offset as &(dyn ToSql + Sync), &bounds.limit]);
    let rows = client.query(&sql, &all).await?;
    let items = rows.iter().map(read).collect::<Result<_, _>>()?;
    Ok(Page {
        items,
        total,
        bounds,
    })
}

/// Declares a list's answer on the wire: the page's items under the list's
/// own field name (`templates`, `coupons`, `batches`, `packages`), the count
/// of all that match and the page's bounds; made from a [`Page`] of views.
macro_rules! page_of {
    ($(#[$attr:meta])* $name:ident { $field:ident: $item:ty $(, total: $doc:literal)? }) => {
        $(#[$attr])*
        #[derive(serde::Serialize, utoipa::ToSchema)]
        pub struct $name {
            pub $field: Vec<$item>,
            $(#[doc = $doc])?
            pub total: i64,
            pub offset: i64,
            pub limit: i64,
        }

        impl From<$crate::queries::page::Page<$item>> for $name {
            fn from(page: $crate::queries::page::Page<$item>) -> Self {
                let $crate::queries::page::Bounds { offset, limit } = page.bounds;
                Self {
                    $field: page.items,
                    total: page.total,
                    offset,
                    limit,
                }
            }
        }
    };
}
pub(crate) use page_of;
