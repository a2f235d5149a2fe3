//! The named operators (docs/design.md §7 "Operators", §19):
//! `LEDGER_ADMIN_TOKENS=name:token[:role[:shop|shop...]],...` (role
//! default `admin`; shops for a merchant only, and a merchant needs one),
//! and `LEDGER_ADMIN_TOKEN` as the operator `admin`. Parsed once at start;
//! a bad list is one error naming the variable that never quotes a token
//! (entries are named by position). A token may not hold `:`: the field
//! after it is the role, and a mistyped role must be an error, not part of
//! a token.

use std::str::FromStr;

use crate::domain::ids::ShopId;
use crate::domain::names::alternatives;
use crate::domain::role::Role;

/// The named list's variable.
pub const VAR: &str = "LEDGER_ADMIN_TOKENS";

/// Why the list is refused. It never quotes a token: entries are named by
/// their place.
#[derive(Debug, thiserror::Error)]
#[error("{VAR}: {message}")]
pub struct OperatorsError {
    pub message: String,
}
/// The single token's variable; its operator is [`SINGLE_NAME`].
pub const SINGLE_VAR: &str = "LEDGER_ADMIN_TOKEN";
/// The operator `LEDGER_ADMIN_TOKEN` names (what every admin was before).
pub const SINGLE_NAME: &str = "admin";
/// Most operators a deployment names (each admin request compares them all).
pub const MAX_OPERATORS: usize = 100;
/// Longest operator name.
pub const MAX_NAME_LEN: usize = 64;

/// Most shops one merchant entry names.
pub const MAX_SHOPS: usize = 100;

/// One operator: a name recorded in events, the token that proves it, its
/// role and (a merchant's) shops.
#[derive(Clone, PartialEq, Eq)]
pub struct Operator {
    pub name: String,
    pub token: String,
    pub role: Role,
    pub shops: Vec<ShopId>,
}

/// Never shows the token.
impl std::fmt::Debug for Operator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operator")
            .field("name", &self.name)
            .field("role", &self.role)
            .field("shops", &self.shops)
            .finish_non_exhaustive()
    }
}

/// Whether `name` may name an operator: 1 to 64 of `[A-Za-z0-9._-]`, so it
/// reads plainly in events, logs and the console.
pub fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The operators of `LEDGER_ADMIN_TOKENS` (`list`) and `LEDGER_ADMIN_TOKEN`
/// (`single`), the single one first; empty when neither is set.
pub fn parse(list: Option<&str>, single: Option<&str>) -> Result<Vec<Operator>, OperatorsError> {
    let mut operators = Vec::new();
    if let Some(token) = single {
        // Taken as it is, as before operators had names.
        operators.push(Operator {
            name: SINGLE_NAME.into(),
            token: token.into(),
            role: Role::Admin,
            shops: Vec::new(),
        });
    }
    let Some(list) = list else {
        return Ok(operators);
    };
    for (i, entry) in list.split(',').enumerate() {
        let operator = entry_operator(i + 1, entry.trim())?;
        check_unique(&operators, &operator, i + 1, single.is_some())?;
        operators.push(operator);
        if operators.len() > MAX_OPERATORS {
            let message = format!("names more than {MAX_OPERATORS} operators (with {SINGLE_VAR})");
            return Err(refused(&message));
        }
    }
    Ok(operators)
}

/// Entry `n` (from 1) as an operator: `name:token[:role[:shops]]`.
fn entry_operator(n: usize, entry: &str) -> Result<Operator, OperatorsError> {
    let bad = |why: &str| refused(&format!("entry {n} {why}"));
    if entry.is_empty() {
        return Err(bad("is empty"));
    }
    let mut fields = entry.splitn(4, ':');
    let name = fields.next().unwrap_or_default();
    let token = fields.next().ok_or_else(|| bad("is not name:token"))?;
    if name.is_empty() {
        return Err(bad("has an empty name"));
    }
    if !valid_name(name) {
        let rule = format!("1 to {MAX_NAME_LEN} of A-Z a-z 0-9 . _ -");
        return Err(bad(&format!("has a name that is not {rule}")));
    }
    if token.is_empty() {
        return Err(bad("has an empty token"));
    }
    if !valid_token(token) {
        return Err(bad("has a token with whitespace or a control character"));
    }
    let role = match fields.next() {
        None => Role::Admin,
        Some(role) => Role::from_str(role).map_err(|_| {
            let known = alternatives::<Role>();
            bad(&format!("has an unknown role {role:?} (roles: {known})"))
        })?,
    };
    let shops = shops(fields.next(), role).map_err(|why| bad(&why))?;
    Ok(Operator {
        name: name.into(),
        token: token.into(),
        role,
        shops,
    })
}

/// A merchant's shops, `shop|shop...`: at least one, and only a merchant
/// has any.
fn shops(list: Option<&str>, role: Role) -> Result<Vec<ShopId>, String> {
    let Some(list) = list else {
        return match role.is_shop_scoped() {
            true => Err("is a merchant of no shop (name:token:merchant:shop|shop)".into()),
            false => Ok(Vec::new()),
        };
    };
    if !role.is_shop_scoped() {
        return Err(format!(
            "names shops for role {role}: only a merchant has shops"
        ));
    }
    let shops: Vec<ShopId> = list
        .split('|')
        .map(|s| ShopId::parse(s).map_err(|_| format!("has an invalid shop id {s:?}")))
        .collect::<Result<_, _>>()?;
    if shops.len() > MAX_SHOPS {
        return Err(format!("names more than {MAX_SHOPS} shops"));
    }
    Ok(shops)
}

/// Entry `n` names neither an operator nor a token already named.
fn check_unique(
    known: &[Operator],
    new: &Operator,
    n: usize,
    single: bool,
) -> Result<(), OperatorsError> {
    // Entries are numbered from 1 in the list; the single token comes first.
    let first = usize::from(single);
    let place = |i: usize| match i.checked_sub(first) {
        None => format!("{SINGLE_VAR}'s"),
        Some(at) => format!("entry {}'s", at + 1),
    };
    if let Some(i) = known.iter().position(|o| o.name == new.name) {
        let message = format!("entry {n} repeats the operator name of {}", place(i));
        return Err(refused(&message));
    }
    if let Some(i) = known.iter().position(|o| o.token == new.token) {
        let message = format!("entry {n} repeats the token of {}", place(i));
        return Err(refused(&message));
    }
    Ok(())
}

/// A token a `Bearer` header can carry as it is.
fn valid_token(token: &str) -> bool {
    !token.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn refused(message: &str) -> OperatorsError {
    OperatorsError {
        message: message.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(ops: &[Operator]) -> Vec<&str> {
        ops.iter().map(|o| o.name.as_str()).collect()
    }

    #[test]
    fn the_single_token_is_operator_admin_and_comes_first() {
        let ops = parse(Some("alice:t-a, bob:t:admin"), Some("t-admin")).unwrap();
        assert_eq!(names(&ops), ["admin", "alice", "bob"]);
        assert_eq!(ops[0].token, "t-admin");
        assert_eq!(ops[2].token, "t");
        assert_eq!(ops[2].role, Role::Admin);
        assert_eq!(parse(None, None).unwrap(), []);
        assert_eq!(names(&parse(Some("a.b_c-9:x"), None).unwrap()), ["a.b_c-9"]);
    }

    #[test]
    fn a_bad_list_names_the_variable_and_quotes_no_token() {
        let long = "n".repeat(65);
        let many: Vec<String> = (0..101).map(|i| format!("op{i}:tok{i}")).collect();
        let hundred: Vec<String> = (0..100).map(|i| format!("op{i}:tok{i}")).collect();
        for list in [
            "alice:sekrit1,",
            "alice:sekrit1,,bob:sekrit2",
            "sekrit1",
            ":sekrit1",
            "alice:",
            "al ice:sekrit1",
            "alice/x:sekrit1",
            &format!("{long}:sekrit1"),
            "alice:sek rit1",
            "alice:sekrit1,alice:sekrit2",
            "alice:sekrit1,bob:sekrit1",
            &many.join(","),
        ] {
            let err = parse(Some(list), None).unwrap_err();
            let shown = format!("{err} {err:?}");
            assert!(shown.starts_with("LEDGER_ADMIN_TOKENS: "), "{shown}");
            assert!(
                !shown.contains("sekrit") && !shown.contains("tok1"),
                "{shown}"
            );
        }
        assert_eq!(parse(Some(&hundred.join(",")), None).unwrap().len(), 100);
        let err = parse(Some(&hundred.join(",")), Some("x")).unwrap_err();
        assert!(err.message.contains("more than 100"), "{err}");
    }

    #[test]
    fn the_list_may_not_repeat_the_single_tokens_name_or_token() {
        let err = parse(Some("admin:sekrit2"), Some("sekrit1")).unwrap_err();
        assert!(err.message.contains("LEDGER_ADMIN_TOKEN's"), "{err}");
        let err = parse(Some("bob:sekrit1"), Some("sekrit1")).unwrap_err();
        assert!(
            err.message.contains("token of LEDGER_ADMIN_TOKEN's"),
            "{err}"
        );
        assert!(!err.to_string().contains("sekrit"), "{err}");
        let err = parse(Some("a:x,b:y,c:x"), None).unwrap_err();
        assert!(
            err.message
                .contains("entry 3 repeats the token of entry 1's"),
            "{err}"
        );
        assert!(
            parse(Some("admin:sekrit2"), None).is_ok(),
            "`admin` is free"
        );
    }

    #[test]
    fn entries_name_roles_and_a_merchants_shops() {
        let list = "fin:t1:finance, m:t2:merchant:shop-a|shop-b, o:t3:ops";
        let ops = parse(Some(list), None).unwrap();
        assert_eq!(ops[0].role, Role::Finance);
        assert_eq!((ops[1].role, ops[1].shops.len()), (Role::Merchant, 2));
        assert_eq!(ops[1].shops[1].as_str(), "shop-b");
        assert_eq!(ops[2].role, Role::Ops);
        for (list, says) in [
            ("a:sekrit1:boss", "unknown role \"boss\""),
            ("a:sekrit1:merchant", "merchant of no shop"),
            ("a:sekrit1:ops:shop-a", "only a merchant has shops"),
            ("a:sekrit1:merchant:a||b", "invalid shop id \"\""),
        ] {
            let err = parse(Some(list), None).unwrap_err();
            assert!(err.message.contains(says), "{list}: {err}");
            assert!(!err.message.contains("sekrit"), "{err}");
        }
    }

    #[test]
    fn debug_shows_names_only() {
        let ops = parse(Some("alice:sekrit1"), None).unwrap();
        let shown = format!("{ops:?}");
        assert!(
            shown.contains("alice") && !shown.contains("sekrit"),
            "{shown}"
        );
    }
}
