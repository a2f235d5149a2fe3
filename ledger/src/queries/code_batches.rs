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
                 AND ($3::text IS NULL OR package_sn = $3)",
        order: "created_at DESC, id DESC",
    };
    let status = filter.status.map(CodeBatchStatus::as_str);
    let params: [&(dyn ToSql + Sync); 3] = [&status, &filter.template_sn, &filter.package_sn];
    page::fetch(client, &list, &params, bounds, batch_from).await
}
