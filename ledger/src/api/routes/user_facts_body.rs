//! The body of a request made for one user (a claim, a package's claim, a
//! redemption): its own fields, then the user and what the caller vouches
//! for about them (docs/design.md §15), written once here.

/// Declares such a body: the struct, with its own fields first, then
/// `user_id`, `user_tags`, `region` and `new_user`, and its `facts()`.
///
/// A macro rather than a struct of the four fields `#[serde(flatten)]`ed
/// into each body: serde buffers a flattened body, so a bad field's error
/// would no longer name the field nor list the fields expected, and a
/// claim (the flash sale's hot path) would be buffered before it is read.
macro_rules! user_facts_body {
    (
        $(#[$doc:meta])*
        pub struct $name:ident {
            $($(#[$field_doc:meta])* pub $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$doc])*
        #[derive(serde::Deserialize, utoipa::ToSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($(#[$field_doc])* pub $field: $ty,)*
            /// 1 to 64 visible ASCII characters, or an integer 0 to 2^63−1 (the
            /// same user as its decimal text).
            pub user_id: $crate::domain::ids::UserId,
            /// The user's tags, as the caller knows them (at most 100, each 1
            /// to 64 bytes): checked against `eligibility.user_tags`.
            #[schema(schema_with = $crate::api::http::schemas::tags)]
            pub user_tags: Option<Vec<String>>,
            /// The user's region (1 to 64 bytes), for `eligibility.regions`.
            #[schema(schema_with = $crate::api::http::schemas::visible::<1, { $crate::domain::eligibility::MAX_NAME_LEN }>)]
            pub region: Option<String>,
            /// Whether the caller vouches the user is new, for
            /// `eligibility.new_users_only` (absent: not known to be new).
            pub new_user: Option<bool>,
        }

        impl $name {
            /// What the caller vouches for about the user, checked.
            fn facts(
                &self,
            ) -> Result<$crate::domain::eligibility::UserFacts, $crate::api::http::error::ApiError>
            {
                let facts = $crate::domain::eligibility::UserFacts::parse(
                    self.user_tags.as_deref(),
                    self.region.as_deref(),
                    self.new_user,
                );
                Ok(facts?)
            }
        }
    };
}

pub(crate) use user_facts_body;
