//! Who may claim a template's coupons (发放范围, docs/design.md §15): user
//! tags (all of, or any of), regions, new users only, and an allow-list of
//! user ids. The first three are facts about the user that the claiming
//! channel vouches for in its signed request ([`UserFacts`]); the
//! allow-list is a set kept in Postgres, checked by the commands in SQL.
//!
//! Pure: a template's rules and a user's facts in, the first rule that
//! refuses out.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::domain::names::name_list;
use crate::domain::parse_error::{ParseError, ParseErrorKind};

/// Most tags one rule or one claim lists: a rule is read on every claim.
pub const MAX_TAGS: usize = 100;
/// Most regions one rule lists (e.g. every city of a country).
pub const MAX_REGIONS: usize = 1_000;
/// Longest tag or region, in bytes.
pub const MAX_NAME_LEN: usize = 64;

name_list! {
    /// The rules of an eligibility, as a refusal names them.
    #[derive(Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    #[schemars(inline, transform = crate::domain::names::plain_schema)]
    pub enum Rule {
        UserTags,
        Regions,
        NewUsersOnly,
        AllowList,
    }
}

name_list! {
    /// What an uploaded allow-list file does to the list.
    #[derive(Default, Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum AllowListMode {
        /// Its ids join the list (those already on it stay).
        #[default]
        Add,
        /// Its ids leave the list (those not on it are ignored).
        Remove,
    }
}

impl AllowListMode {
    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }
}

name_list! {
    /// Where an uploaded allow-list file stands.
    #[derive(Serialize, Deserialize, schemars::JsonSchema, utoipa::ToSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum AllowListFileStatus {
        /// Being read and applied.
        Uploading,
        /// Broken off: the same file under the same key finishes it.
        Incomplete,
        /// Read to its end and applied.
        Done,
    }
}

impl AllowListFileStatus {
    pub const fn as_str(self) -> &'static str {
        self.into_str()
    }
}

/// Most users one template's allow-list holds: a campaign's audience of
/// millions, kept as a set in Postgres (~100 bytes a member with its index).
pub const MAX_ALLOW_LIST: i64 = 10_000_000;

/// The tags a user must carry: every one of them, or at least one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TagRule {
    All(BTreeSet<String>),
    Any(BTreeSet<String>),
}

/// A template's eligibility as it arrives, and as events and rows hold it
/// (the canonical form: absent parts are no restriction).
#[derive(
    Clone,
    Debug,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    utoipa::ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Eligibility {
    /// `{"all": [...]}` or `{"any": [...]}`: the user tags the claim must carry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_tags: Option<TagRule>,
    /// The claim's `region` must be one of these; absent or empty: any.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    #[schema(schema_with = region_list_schema)]
    pub regions: BTreeSet<String>,
    /// Only claims the channel marks `new_user: true`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub new_users_only: bool,
    /// Only users on the template's allow-list (uploaded as a file).
    #[serde(default, skip_serializing_if = "is_false")]
    pub allow_list: bool,
}

/// In the OpenAPI document: `{"all": [...]}` or `{"any": [...]}`, each 1
/// to [`MAX_TAGS`] names as [`name_schema`] says.
impl utoipa::PartialSchema for TagRule {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder};
        let rule = |key: &str| {
            let tags = ArrayBuilder::new()
                .items(name_schema())
                .min_items(Some(1))
                .max_items(Some(MAX_TAGS));
            ObjectBuilder::new()
                .property(key, tags)
                .required(key)
                .additional_properties(Some(
                    utoipa::openapi::schema::AdditionalProperties::FreeForm(false),
                ))
        };
        OneOfBuilder::new()
            .item(rule("all"))
            .item(rule("any"))
            .into()
    }
}

impl utoipa::ToSchema for TagRule {}

/// A tag or a region in the OpenAPI document: 1 to [`MAX_NAME_LEN`]
/// visible ASCII characters, as a claim's tags are documented. Narrower
/// than [`check_name`] (any text of 1 to 64 bytes), so that a template's
/// names are ones a claim can carry.
fn name_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use crate::domain::ids::{text_schema, visible_pattern};
    text_schema(&visible_pattern(MAX_NAME_LEN), 1..=MAX_NAME_LEN, "vip")
}

/// `regions` in the OpenAPI document: up to [`MAX_REGIONS`] names.
fn region_list_schema() -> utoipa::openapi::Array {
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(name_schema())
        .max_items(Some(MAX_REGIONS))
        .build()
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// What the claiming channel vouches for about its user (the claim body's
/// `user_tags`, `region`, `new_user`): absent facts satisfy no rule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct UserFacts {
    pub user_tags: BTreeSet<String>,
    pub region: Option<String>,
    pub new_user: Option<bool>,
}

impl UserFacts {
    /// Validates a claim's facts; fields as the body names them.
    pub fn parse(
        user_tags: Option<&[String]>,
        region: Option<&str>,
        new_user: Option<bool>,
    ) -> Result<Self, ParseError> {
        let user_tags = names("user_tags", user_tags.unwrap_or_default(), MAX_TAGS)?;
        if let Some(r) = region {
            check_name("region", r)?;
        }
        Ok(Self {
            user_tags,
            region: region.map(str::to_owned),
            new_user,
        })
    }
}

impl Eligibility {
    /// Checks an eligibility as it arrived: lists within their bounds, no
    /// empty names, a tag rule with at least one tag. Fields are relative
    /// (`user_tags.all[2]`), prefixed by the caller.
    pub fn parse(raw: Eligibility) -> Result<Self, ParseError> {
        match &raw.user_tags {
            Some(TagRule::All(tags)) => check_names("user_tags.all", tags, MAX_TAGS)?,
            Some(TagRule::Any(tags)) => check_names("user_tags.any", tags, MAX_TAGS)?,
            None => {}
        }
        check_names("regions", &raw.regions, MAX_REGIONS)?;
        Ok(raw)
    }

    /// Whether it restricts anyone at all (`None` is stored for one that does not).
    pub fn restricts(&self) -> bool {
        self.user_tags.is_some()
            || !self.regions.is_empty()
            || self.new_users_only
            || self.allow_list
    }

    /// The first rule the user's facts fail, of those a claim carries
    /// (tags, region, new user). The allow-list is the caller's: it lives
    /// in Postgres.
    pub fn admits(&self, facts: &UserFacts) -> Result<(), Rule> {
        let tags_ok = match &self.user_tags {
            None => true,
            Some(TagRule::All(tags)) => tags.is_subset(&facts.user_tags),
            Some(TagRule::Any(tags)) => !tags.is_disjoint(&facts.user_tags),
        };
        if !tags_ok {
            return Err(Rule::UserTags);
        }
        let region_ok = self.regions.is_empty()
            || facts
                .region
                .as_ref()
                .is_some_and(|r| self.regions.contains(r));
        if !region_ok {
            return Err(Rule::Regions);
        }
        if self.new_users_only && facts.new_user != Some(true) {
            return Err(Rule::NewUsersOnly);
        }
        Ok(())
    }
}

impl Rule {
    /// Why a user is refused under this rule, as the 403's message says it:
    /// the rule's name, never its values (a refusal may come from a batch
    /// that does not hold them) nor the allow-list's members. The values
    /// are the template's terms, which `GET /v1/templates/{sn}/terms` shows.
    pub fn message(self) -> &'static str {
        match self {
            Rule::UserTags => {
                "not eligible (user_tags): the user does not carry the tags the template requires"
            }
            Rule::Regions => {
                "not eligible (regions): the user's region is not one of the template's regions"
            }
            Rule::NewUsersOnly => {
                "not eligible (new_users_only): the template is for new users only"
            }
            Rule::AllowList => {
                "not eligible (allow_list): the user is not on the template's allow-list"
            }
        }
    }
}

fn check_name(field: &str, name: &str) -> Result<(), ParseError> {
    if name.is_empty() {
        return Err(ParseError::new(field, ParseErrorKind::Empty));
    }
    if name.len() > MAX_NAME_LEN {
        return Err(ParseError::new(
            field,
            ParseErrorKind::TooLong { max: MAX_NAME_LEN },
        ));
    }
    Ok(())
}

fn check_names(field: &str, names: &BTreeSet<String>, max: usize) -> Result<(), ParseError> {
    if field.starts_with("user_tags") && names.is_empty() {
        return Err(ParseError::new(field, ParseErrorKind::EmptyValues));
    }
    if names.len() > max {
        return Err(ParseError::new(
            field,
            ParseErrorKind::TooManyValues { max },
        ));
    }
    for (i, n) in names.iter().enumerate() {
        check_name(&format!("{field}[{i}]"), n)?;
    }
    Ok(())
}

fn names(field: &str, list: &[String], max: usize) -> Result<BTreeSet<String>, ParseError> {
    if list.len() > max {
        return Err(ParseError::new(
            field,
            ParseErrorKind::TooManyValues { max },
        ));
    }
    for (i, n) in list.iter().enumerate() {
        check_name(&format!("{field}[{i}]"), n)?;
    }
    Ok(list.iter().cloned().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn facts(tags: &[&str], region: Option<&str>, new_user: Option<bool>) -> UserFacts {
        UserFacts {
            user_tags: set(tags),
            region: region.map(str::to_owned),
            new_user,
        }
    }

    #[test]
    fn tags_all_of_and_any_of() {
        let all = Eligibility {
            user_tags: Some(TagRule::All(set(&["vip", "gold"]))),
            ..Default::default()
        };
        assert_eq!(
            all.admits(&facts(&["vip", "gold", "x"], None, None)),
            Ok(())
        );
        assert_eq!(
            all.admits(&facts(&["vip"], None, None)),
            Err(Rule::UserTags)
        );
        let any = Eligibility {
            user_tags: Some(TagRule::Any(set(&["vip", "gold"]))),
            ..Default::default()
        };
        assert_eq!(any.admits(&facts(&["gold"], None, None)), Ok(()));
        assert_eq!(any.admits(&facts(&[], None, None)), Err(Rule::UserTags));
    }

    #[test]
    fn regions_and_new_users_need_the_fact() {
        let e = Eligibility {
            regions: set(&["310000"]),
            new_users_only: true,
            ..Default::default()
        };
        assert_eq!(e.admits(&facts(&[], None, Some(true))), Err(Rule::Regions));
        assert_eq!(
            e.admits(&facts(&[], Some("310000"), None)),
            Err(Rule::NewUsersOnly)
        );
        assert_eq!(
            e.admits(&facts(&[], Some("310000"), Some(false))),
            Err(Rule::NewUsersOnly)
        );
        assert_eq!(e.admits(&facts(&[], Some("310000"), Some(true))), Ok(()));
    }

    #[test]
    fn nothing_restricts_everyone_passes() {
        let e = Eligibility::default();
        assert!(!e.restricts());
        assert_eq!(e.admits(&UserFacts::default()), Ok(()));
        let listed = Eligibility {
            allow_list: true,
            ..Default::default()
        };
        assert!(listed.restricts());
        // The allow-list is checked in SQL, not here.
        assert_eq!(listed.admits(&UserFacts::default()), Ok(()));
    }

    #[test]
    fn bad_rules_name_their_field() {
        let empty = Eligibility {
            user_tags: Some(TagRule::Any(BTreeSet::new())),
            ..Default::default()
        };
        assert_eq!(
            Eligibility::parse(empty).unwrap_err().field(),
            "user_tags.any"
        );
        let too_many = Eligibility {
            regions: (0..=MAX_REGIONS).map(|i| i.to_string()).collect(),
            ..Default::default()
        };
        assert_eq!(Eligibility::parse(too_many).unwrap_err().field(), "regions");
        let blank = Eligibility {
            regions: set(&["", "x"]),
            ..Default::default()
        };
        assert_eq!(Eligibility::parse(blank).unwrap_err().field(), "regions[0]");
        let long = vec!["x".repeat(MAX_NAME_LEN + 1)];
        let err = UserFacts::parse(Some(&long), None, None).unwrap_err();
        assert_eq!(err.field(), "user_tags[0]");
    }

    #[test]
    fn the_canonical_json_leaves_out_what_does_not_restrict() {
        let e = Eligibility {
            user_tags: Some(TagRule::All(set(&["vip"]))),
            allow_list: true,
            ..Default::default()
        };
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"user_tags": {"all": ["vip"]}, "allow_list": true})
        );
        assert_eq!(serde_json::from_value::<Eligibility>(json).unwrap(), e);
    }
}
