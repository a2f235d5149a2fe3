//! The parsers of the variables whose values are more than a number or a
//! name ([`super::variables`]): each says what is wrong in words a
//! deployer can act on. A password a value holds is masked where the error
//! is shown ([`super::ConfigError`]).

use std::str::FromStr;

use crate::domain::reminder::NotifyAt;

/// A PostgreSQL URL that names its database.
pub fn database_url(value: &str) -> Result<String, String> {
    let config = tokio_postgres::Config::from_str(value).map_err(|e| e.to_string())?;
    if config.get_dbname().is_none() {
        return Err("names no database".into());
    }
    Ok(value.to_owned())
}

/// A URL [`database_url`] accepted, as the driver's settings.
pub(super) fn database(url: &str) -> tokio_postgres::Config {
    tokio_postgres::Config::from_str(url).expect("checked when the variables were read")
}

/// One AMQP URL, or a cluster's nodes' URLs separated by commas.
pub fn amqp_url(value: &str) -> Result<String, String> {
    for node in super::amqp_url::nodes(value) {
        lapin::uri::AMQPUri::from_str(node)?;
    }
    Ok(value.to_owned())
}

/// A Redis URL, or Sentinels' (`redis+sentinel://...`).
pub fn redis_url(value: &str) -> Result<String, String> {
    crate::redis_link::target::RedisTarget::parse(value)?;
    Ok(value.to_owned())
}

/// An `http://` URL (RabbitMQ's management API).
pub fn http_url(value: &str) -> Result<String, String> {
    if !value.starts_with("http://") {
        return Err("not an http:// URL".into());
    }
    Ok(value.to_owned())
}

/// `HH:MM`, 24 hours.
pub fn notify_at(value: &str) -> Result<NotifyAt, String> {
    NotifyAt::parse(value).ok_or_else(|| "not HH:MM (24 h)".to_owned())
}
