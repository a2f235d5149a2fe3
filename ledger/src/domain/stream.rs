//! Streams: every kind of stream the store holds and its id prefix, in one
//! place. A stream id is `<prefix><key>` (`coupon-<uuid>`, `order-<id>`,
//! `template-<sn>`, `channel-<uuid>`, docs/design.md §4; `codebatch-<uuid>` and
//! `code-<batch uuid>-<serial>`, one stream per redemption code used, whose
//! version is its use count, and `package-<sn>`, docs/design.md §13;
//! `allowlist-<sn>`, a template's allow-list changes, docs/design.md §15;
//! `apikey-<uuid>`, an app key's life, docs/design.md §19); it is built with
//! [`StreamKind::id`] and told apart with [`Stream::parse`], never by hand.

use std::fmt;

use uuid::Uuid;

/// The kinds of stream, each with its contract prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamKind {
    Coupon,
    Order,
    Template,
    Channel,
    CodeBatch,
    Code,
    Package,
    AllowList,
    ApiKey,
}

impl StreamKind {
    pub const ALL: [StreamKind; 9] = [
        Self::Coupon,
        Self::Order,
        Self::Template,
        Self::Channel,
        Self::CodeBatch,
        Self::Code,
        Self::Package,
        Self::AllowList,
        Self::ApiKey,
    ];

    /// The prefix of this kind's stream ids, dash included.
    pub const fn prefix(self) -> &'static str {
        match self {
            Self::Coupon => "coupon-",
            Self::Order => "order-",
            Self::Template => "template-",
            Self::Channel => "channel-",
            Self::CodeBatch => "codebatch-",
            Self::Code => "code-",
            Self::Package => "package-",
            Self::AllowList => "allowlist-",
            Self::ApiKey => "apikey-",
        }
    }

    /// The kind's name, as a command line writes it: the prefix without its dash.
    pub fn name(self) -> &'static str {
        self.prefix().trim_end_matches('-')
    }

    /// The stream id of `key` (a coupon or channel uuid, an order id, a sn).
    pub fn id(self, key: impl fmt::Display) -> String {
        format!("{}{key}", self.prefix())
    }
}

/// A stream id, told apart by its prefix; keys borrow from the id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream<'a> {
    Coupon(Uuid),
    Order(&'a str),
    Template(&'a str),
    Channel(Uuid),
    CodeBatch(Uuid),
    /// A code: its batch and serial.
    Code(Uuid, i64),
    Package(&'a str),
    /// A template's allow-list, by the template's sn.
    AllowList(&'a str),
    ApiKey(Uuid),
}

/// A stream id no kind claims (or whose key does not parse).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("stream id {0:?} is of no known kind")]
pub struct UnknownStream(pub String);

impl<'a> Stream<'a> {
    pub fn parse(stream_id: &'a str) -> Result<Self, UnknownStream> {
        let unknown = || UnknownStream(stream_id.to_owned());
        let uuid = |key: &str| Uuid::parse_str(key).map_err(|_| unknown());
        let (kind, key) = StreamKind::ALL
            .into_iter()
            .find_map(|kind| Some((kind, stream_id.strip_prefix(kind.prefix())?)))
            .filter(|(_, key)| !key.is_empty())
            .ok_or_else(unknown)?;
        Ok(match kind {
            StreamKind::Coupon => Self::Coupon(uuid(key)?),
            StreamKind::Order => Self::Order(key),
            StreamKind::Template => Self::Template(key),
            StreamKind::Channel => Self::Channel(uuid(key)?),
            StreamKind::CodeBatch => Self::CodeBatch(uuid(key)?),
            StreamKind::Code => {
                let (batch, serial) = key.rsplit_once('-').ok_or_else(unknown)?;
                let serial = serial.parse().ok().filter(|s: &i64| *s >= 0);
                Self::Code(uuid(batch)?, serial.ok_or_else(unknown)?)
            }
            StreamKind::Package => Self::Package(key),
            StreamKind::AllowList => Self::AllowList(key),
            StreamKind::ApiKey => Self::ApiKey(uuid(key)?),
        })
    }

    pub fn kind(&self) -> StreamKind {
        match self {
            Self::Coupon(_) => StreamKind::Coupon,
            Self::Order(_) => StreamKind::Order,
            Self::Template(_) => StreamKind::Template,
            Self::Channel(_) => StreamKind::Channel,
            Self::CodeBatch(_) => StreamKind::CodeBatch,
            Self::Code(..) => StreamKind::Code,
            Self::Package(_) => StreamKind::Package,
            Self::AllowList(_) => StreamKind::AllowList,
            Self::ApiKey(_) => StreamKind::ApiKey,
        }
    }
}

impl fmt::Display for Stream<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = self.kind().prefix();
        match self {
            Self::Coupon(id) | Self::Channel(id) | Self::CodeBatch(id) | Self::ApiKey(id) => {
                write!(f, "{prefix}{id}")
            }
            Self::Order(key) | Self::Template(key) | Self::Package(key) | Self::AllowList(key) => {
                write!(f, "{prefix}{key}")
            }
            Self::Code(batch, serial) => write!(f, "{prefix}{}", code_key(*batch, *serial)),
        }
    }
}

/// A code stream's key: `<batch uuid>-<serial>`.
pub fn code_key(batch: Uuid, serial: i64) -> String {
    format!("{batch}-{serial}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips() {
        let id = Uuid::now_v7();
        for (stream, key) in [
            (Stream::Coupon(id), id.to_string()),
            (Stream::Order("o-42"), "o-42".to_owned()),
            (Stream::Template("SN123"), "SN123".to_owned()),
            (Stream::Channel(id), id.to_string()),
            (Stream::CodeBatch(id), id.to_string()),
            (Stream::Code(id, 7), code_key(id, 7)),
            (Stream::Package("PK42"), "PK42".to_owned()),
            (Stream::AllowList("SN123"), "SN123".to_owned()),
            (Stream::ApiKey(id), id.to_string()),
        ] {
            let text = stream.kind().id(&key);
            assert_eq!(text, stream.to_string());
            assert_eq!(Stream::parse(&text), Ok(stream));
        }
    }

    #[test]
    fn a_name_is_its_prefix_without_the_dash() {
        let names = StreamKind::ALL.map(StreamKind::name);
        assert_eq!(
            names,
            [
                "coupon",
                "order",
                "template",
                "channel",
                "codebatch",
                "code",
                "package",
                "allowlist",
                "apikey"
            ]
        );
    }

    #[test]
    fn unknown_or_malformed_ids_are_refused() {
        for id in [
            "",
            "coupon-",
            "coupon-42",
            "channel-x",
            "order-",
            "job-1",
            "Coupon-1",
            "code-42",
            "codebatch-x",
        ] {
            assert!(Stream::parse(id).is_err(), "{id}");
        }
    }
}
