//! The variables' help and reference, generated from the one list
//! ([`super::variables::Variables`]): the `Environment variables` section of
//! `ledger --help` and `workers --help`, and the table of
//! docs/reference/configuration.md (a test keeps the file in step:
//! `UPDATE_REFERENCE=1` rewrites it).

use clap::CommandFactory;

use super::variables::Variables;

/// One variable as the help and the reference show it.
struct Shown {
    name: String,
    default: Option<String>,
    help: String,
    long_help: String,
}

fn shown() -> Vec<Shown> {
    let one_line = |s: String| s.split_whitespace().collect::<Vec<_>>().join(" ");
    Variables::command()
        .get_arguments()
        .filter_map(|a| {
            let name = a.get_env()?.to_string_lossy().into_owned();
            let defaults: Vec<String> = a
                .get_default_values()
                .iter()
                .map(|d| d.to_string_lossy().into_owned())
                .collect();
            let help = a.get_help().map(ToString::to_string).unwrap_or_default();
            let long_help = a
                .get_long_help()
                .map_or_else(|| help.clone(), ToString::to_string);
            Some(Shown {
                name,
                default: (!defaults.is_empty()).then(|| defaults.join(",")),
                help: one_line(help),
                long_help: one_line(long_help),
            })
        })
        .collect()
}

/// The `--help` section.
pub fn help() -> String {
    let vars = shown();
    let width = vars.iter().map(|v| v.name.len()).max().unwrap_or(0);
    let mut out = String::from("Environment variables:\n");
    for v in &vars {
        let default = v.default.as_deref().unwrap_or("none");
        let (name, help) = (&v.name, &v.help);
        out.push_str(&format!("  {name:<width$}  {help} [default: {default}]\n"));
    }
    out.push_str("Passwords in the URLs are masked in every message.");
    out
}

/// The reference's table (markdown), a row per variable.
pub fn markdown_table() -> String {
    let mut out = String::from("| env var | default | |\n|---|---|---|\n");
    for v in shown() {
        let default = v.default.map_or_else(|| "—".into(), |d| format!("`{d}`"));
        let text = v.long_help.replace('|', "\\|");
        out.push_str(&format!("| `{}` | {default} | {text} |\n", v.name));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_and_table_list_every_variable_with_its_default() {
        let (help, table) = (help(), markdown_table());
        for v in shown() {
            assert!(help.contains(&format!("  {} ", v.name)), "{}", v.name);
            assert!(table.contains(&format!("| `{}` |", v.name)), "{}", v.name);
            if let Some(default) = &v.default {
                assert!(help.contains(default.as_str()), "{default}");
            }
            assert!(!v.help.is_empty(), "{} has no description", v.name);
        }
        assert!(shown().len() >= 25, "every variable is in the list");
    }
}
