//! Reading the [`Variables`] through a lookup (the process environment, or
//! a test's map), and clap's errors as [`ConfigError`]s naming the
//! variable.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, FromArgMatches};

use super::ConfigError;
use super::variables::Variables;

/// Every variable `lookup` gives (an empty value is unset), parsed.
pub fn all(lookup: &impl Fn(&str) -> Option<String>) -> Result<Variables, ConfigError> {
    parse(lookup, |_| true)
}

/// One variable read through `lookup`, every other at its default.
pub fn one<T>(
    lookup: &impl Fn(&str) -> Option<String>,
    var: &str,
    pick: impl FnOnce(Variables) -> T,
) -> Result<T, ConfigError> {
    parse(lookup, |name| name == var).map(pick)
}

/// Each wanted variable's value is given as its option's (`--long=value`);
/// clap's own reading of the process environment is turned off, so that
/// `lookup` is the one source.
fn parse(
    lookup: &impl Fn(&str) -> Option<String>,
    wanted: impl Fn(&str) -> bool,
) -> Result<Variables, ConfigError> {
    let mut argv = Vec::new();
    for arg in Variables::command().get_arguments() {
        let (Some(name), Some(long)) = (arg.get_env(), arg.get_long()) else {
            continue;
        };
        let name = name.to_string_lossy();
        if let Some(value) = lookup(&name).filter(|v| !v.is_empty() && wanted(&name)) {
            argv.push(format!("--{long}={value}"));
        }
    }
    let command = Variables::command().mut_args(|arg| arg.env(None::<&'static str>));
    let matches = command
        .try_get_matches_from(argv)
        .map_err(|e| config_error(&e))?;
    Variables::from_arg_matches(&matches).map_err(|e| config_error(&e))
}

/// The variable, value and reason of clap's error.
fn config_error(e: &clap::Error) -> ConfigError {
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        _ => String::new(),
    };
    let arg = text(ContextKind::InvalidArg);
    let long = arg.trim_start_matches("--").split([' ', '=']).next();
    let var = Variables::command()
        .get_arguments()
        .find(|a| a.get_long().is_some() && a.get_long() == long)
        .and_then(|a| a.get_env())
        .map_or_else(
            || "environment".into(),
            |n| n.to_string_lossy().into_owned(),
        );
    let message = match (std::error::Error::source(e), e.get(ContextKind::ValidValue)) {
        (Some(source), _) => source.to_string(),
        (None, Some(ContextValue::Strings(valid))) => format!("not one of {}", valid.join(", ")),
        _ if e.kind() == ErrorKind::ValueValidation => "not a valid value".into(),
        _ => e.kind().as_str().unwrap_or("not a valid value").into(),
    };
    super::error(var, &text(ContextKind::InvalidValue), &message)
}
