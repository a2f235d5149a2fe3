//! `AMQP_URL`'s shape: one node's URL, or a cluster's separated by commas.

/// The nodes of `amqp_url`: one URL, or several separated by commas.
pub fn nodes(amqp_url: &str) -> Vec<&str> {
    let nodes: Vec<&str> = amqp_url
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    if nodes.is_empty() {
        vec![amqp_url]
    } else {
        nodes
    }
}
