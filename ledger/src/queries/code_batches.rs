//! Lists of redemption-code batches (the console's and the API's).

use tokio_postgres::GenericClient;
use tokio_postgres::types::ToSql;

use super::page::{self, Bounds, List, Page};
use crate::domain::code_batch::CodeBatchStatus;
use crate::write_model::code_batch_row::{Batch, COLUMNS, batch_from};

/// Which batches a list shows; `None` matches any.
#[derive(Default)]
pub struct ListFilter<'a> {
    pub status: Option<CodeBatchStatus>,
    pub template_sn: Option<&'a str>,
    pub package_sn: Option<&'a str>,
    /// A merchant's shops: batches of their templates or packages only.
    pub shops: Option<Vec<String>>,
}

/// A page of batches, newest first, and how many match in all.
pub async fn list(
    client: &impl GenericClient,
    filter: &ListFilter<'_>,
    bounds: Bounds,
) -> Result<Page<Batch>, tokio_postgres::Error> {
    let list = List {
        columns: COLUMNS,
        from: "code_batches",
        filter: "($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR template_sn = $2)
                 AND ($3::text IS NULL OR package_sn = $3)
                 AND ($4::text[] IS NULL OR NOT EXISTS (
                     SELECT 1 FROM templates t
                      WHERE (t.sn = code_batches.template_sn OR t.sn IN (
                             SELECT i->>'template_sn' FROM packages p
                              CROSS JOIN jsonb_array_elements(p.items) i
                              WHERE p.sn = code_batches.package_sn))
                        AND (t.shop_id IS NULL OR NOT t.shop_id = ANY($4))))",
        order: "created_at DESC, id DESC",
    };
    let status = filter.status.map(CodeBatchStatus::as_str);
    let params: [&(dyn ToSql + Sync); 4] = [
        &status,
        &filter.template_sn,
        &filter.package_sn,
        &filter.shops,
    ];
    page::fetch(client, &list, &params, bounds, batch_from).await
}
