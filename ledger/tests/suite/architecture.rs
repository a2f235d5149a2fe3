//! The layering rules of docs/design.md ("Layers"), checked on the source:
//!
//! - nothing outside `api/` and the `ledger` binary (`main.rs`, `cli/`)
//!   imports `api`; the workers binary imports nothing from it;
//! - `queries` imports no `commands` (shared rows live in `write_model`);
//! - `domain` and `codes` use no I/O crate;
//! - `commands` imports no `queries` (a shape both need lives below both);
//! - an event type's name is written as a string only in the one list
//!   (`domain/ledger_event.rs`); everything else goes through `EventType`;
//! - so is a projection's name or queue (`domain/projection.rs`);
//! - no SQL in a string literal spells a status as a quoted value
//!   (`'unused'`): statuses are bound from their enum, or written into the
//!   text from it where a partial index needs to see the value;
//! - every source file is named on docs/reference/repository-map.md.
//!
//! Each rule reads the files as text (comments and test modules skipped)
//! and names every offending line, so a planted import fails the suite.

use std::path::{Path, PathBuf};

use ledger::domain::channel::ChannelStatus;
use ledger::domain::code_batch::CodeBatchStatus;
use ledger::domain::coupon_state::CouponStatus;
use ledger::domain::eligibility::AllowListFileStatus;
use ledger::domain::issuance::IssuanceJobStatus;
use ledger::domain::ledger_event::EventType;
use ledger::domain::order_status::OrderStatus;
use ledger::domain::package::PackageStatus;
use ledger::domain::package_job::PackageJobStatus;
use ledger::domain::projection::Projection;
use ledger::domain::template_status::TemplateStatus;
use strum::VariantArray;

/// The crates whose use means I/O: databases, brokers, HTTP.
const IO_CRATES: [&str; 7] = [
    "tokio_postgres",
    "deadpool_postgres",
    "deadpool",
    "redis",
    "lapin",
    "axum",
    "reqwest",
];

#[test]
fn only_the_api_and_the_ledger_binary_import_api() {
    let mut offences = Vec::new();
    for file in rust_files(&src("ledger/src")) {
        let rel = relative(&file, "ledger/src");
        if rel.starts_with("api/") || rel.starts_with("cli/") || rel == "main.rs" {
            continue;
        }
        offences.extend(lines_using(&file, &["crate::api"]));
    }
    for file in rust_files(&src("workers/src")) {
        offences.extend(lines_using(&file, &["ledger::api"]));
    }
    assert!(
        offences.is_empty(),
        "imports of api:\n{}",
        offences.join("\n")
    );
}

#[test]
fn queries_import_no_commands() {
    let mut offences = Vec::new();
    for file in rust_files(&src("ledger/src/queries")) {
        offences.extend(lines_using(
            &file,
            &["crate::commands", "super::super::commands"],
        ));
    }
    assert!(
        offences.is_empty(),
        "queries importing commands:\n{}",
        offences.join("\n")
    );
}

#[test]
fn domain_and_codes_do_no_io() {
    let paths: Vec<String> = IO_CRATES.iter().map(|c| format!("{c}::")).collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let mut offences = Vec::new();
    for dir in ["ledger/src/domain", "ledger/src/codes"] {
        for file in rust_files(&src(dir)) {
            offences.extend(lines_using(&file, &paths));
        }
    }
    assert!(
        offences.is_empty(),
        "I/O in pure code:\n{}",
        offences.join("\n")
    );
}

#[test]
fn event_type_names_are_written_only_in_the_one_list() {
    let mut offences = Vec::new();
    for dir in ["ledger/src", "workers/src"] {
        for file in rust_files(&src(dir)) {
            if file.ends_with("domain/ledger_event.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            for (line, literal) in string_literals(without_tests(&text)) {
                for t in EventType::ALL {
                    if names_word(&literal, t.as_str()) {
                        offences.push(format!("{}:{line}: {:?}", file.display(), literal));
                    }
                }
            }
        }
    }
    assert!(
        offences.is_empty(),
        "event type names as strings:\n{}",
        offences.join("\n")
    );
}

#[test]
fn projection_names_and_queues_are_written_only_in_the_one_list() {
    let mut offences = Vec::new();
    for dir in ["ledger/src", "workers/src"] {
        for file in rust_files(&src(dir)) {
            if file.ends_with("domain/projection.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            for (line, literal) in string_literals(without_tests(&text)) {
                let other = OTHER_MEANINGS
                    .iter()
                    .any(|(f, l)| file.ends_with(f) && literal == *l);
                if names_a_projection(&literal) && !other {
                    offences.push(format!("{}:{line}: {:?}", file.display(), literal));
                }
            }
        }
    }
    assert!(
        offences.is_empty(),
        "projection names or queues as strings (domain/projection.rs lists them):\n{}",
        offences.join("\n")
    );
}

/// Literals spelt like a projection that mean something else, by file.
const OTHER_MEANINGS: [(&str, &str); 3] = [
    // The operation id of `GET /v1/templates/{sn}/stats` (public), and the
    // links that name it.
    ("api/routes/projections.rs", "template_stats"),
    ("api/http/openapi_links.rs", "template_stats"),
    // `POST /v1/issuance-jobs?notify=true`: the upload's query parameter.
    ("cli/issue.rs", "notify"),
];

/// A literal that is a projection's name, or names its queue.
fn names_a_projection(literal: &str) -> bool {
    Projection::VARIANTS
        .iter()
        .any(|p| literal == p.as_str() || literal.contains(p.queue()))
}

#[test]
fn statuses_are_written_in_sql_only_from_their_enums() {
    let mut offences = Vec::new();
    for dir in ["ledger/src", "workers/src"] {
        for file in rust_files(&src(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (line, literal) in string_literals(without_tests(&text)) {
                if let Some(status) = quoted_status(&literal) {
                    offences.push(format!("{}:{line}: '{status}'", file.display()));
                }
            }
        }
    }
    assert!(
        offences.is_empty(),
        "statuses written as SQL literals (bind `Status::X.as_str()`, or write it \
         into the text from the enum where a partial index must see it):\n{}",
        offences.join("\n")
    );
}

/// Every value of every stored status list.
fn status_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    names.extend(CouponStatus::VARIANTS.iter().map(|s| s.as_str()));
    names.extend(TemplateStatus::VARIANTS.iter().map(|s| s.as_str()));
    names.extend(OrderStatus::VARIANTS.iter().map(|s| s.as_str()));
    names.extend(IssuanceJobStatus::VARIANTS.iter().map(|s| s.as_str()));
    names.extend(PackageJobStatus::VARIANTS.iter().map(|s| s.as_str()));
    names.extend(PackageStatus::VARIANTS.iter().map(|s| s.as_str()));
    names.extend(CodeBatchStatus::VARIANTS.iter().map(|s| s.as_str()));
    names.extend(ChannelStatus::VARIANTS.iter().map(|s| s.as_str()));
    names.extend(AllowListFileStatus::VARIANTS.iter().map(|s| s.as_str()));
    names
}

/// The status a literal spells as an SQL value (`'name'`), if any.
fn quoted_status(literal: &str) -> Option<&'static str> {
    status_names()
        .into_iter()
        .find(|name| literal.contains(&format!("'{name}'")))
}

#[test]
fn commands_import_no_queries() {
    let mut offences = Vec::new();
    for file in rust_files(&src("ledger/src/commands")) {
        offences.extend(lines_using(
            &file,
            &["crate::queries", "super::super::queries"],
        ));
    }
    assert!(
        offences.is_empty(),
        "commands importing queries:\n{}",
        offences.join("\n")
    );
}

/// Every source file is on docs/reference/repository-map.md: its name
/// (without `.rs`; a room's `mod.rs`, `main.rs` and `lib.rs` go by their
/// folder) is written there.
#[test]
fn every_source_file_is_on_the_map() {
    let map = std::fs::read_to_string(src("docs/reference/repository-map.md")).unwrap();
    let rooms = [
        "ledger/src",
        "ledger/tests",
        "ledger/benches",
        "workers/src",
        "tests/src",
        "tests/tests",
        "tests/benches",
    ];
    let mut missing = Vec::new();
    for room in rooms {
        for file in rust_files(&src(room)) {
            let stem = file.file_stem().unwrap().to_str().unwrap();
            if !["mod", "main", "lib"].contains(&stem) && !names_word(&map, stem) {
                missing.push(relative(&file, ""));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "source files the repository map does not name:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_checks_see_what_they_look_for() {
    // The rules above pass on nothing if the reader misses what it is
    // given: a planted line of each kind is found.
    let planted = "use crate::api::AppState;\nfn f() { let s = \"x CouponIssued y\"; }\n";
    assert_eq!(
        code_lines(planted).len(),
        3,
        "two lines and the empty one after the last newline"
    );
    assert!(code_lines(planted)[0].1.contains("crate::api"));
    let literals = string_literals(planted);
    assert!(literals.iter().any(|(_, l)| names_word(l, "CouponIssued")));
    let commented = "// use crate::api::AppState;\n/* \"CouponIssued\" */\n";
    assert!(
        code_lines(commented)
            .iter()
            .all(|(_, l)| l.trim().is_empty())
    );
    assert!(string_literals(commented).is_empty());
    assert!(!names_word("CouponIssuedAt", "CouponIssued"));
    assert!(without_tests("a\n#[cfg(test)]\nmod tests {\"CouponIssued\"}").ends_with("a\n"));
    assert!(rust_files(&src("ledger/src")).len() > 100);
    let named = "fn f() { spawn(\"template_stats\", \"coupon.events.notify\") }";
    let literals = string_literals(named);
    assert!(
        literals.iter().all(|(_, l)| names_a_projection(l)),
        "{literals:?}"
    );
    assert!(!names_a_projection("SELECT * FROM balances"));
    let sql = "fn f() { q(\"UPDATE coupons SET status = 'unused' WHERE id = $1\") }";
    let literals = string_literals(sql);
    assert_eq!(
        quoted_status(&literals[0].1),
        Some("unused"),
        "{literals:?}"
    );
    assert_eq!(quoted_status("WHERE status = '{unused}'"), None);
}

fn src(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir)
}

fn relative(file: &Path, dir: &str) -> String {
    let base = src(dir);
    file.strip_prefix(&base)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `file:line: text` for each line of code (not comment) naming one of `paths`.
fn lines_using(file: &Path, paths: &[&str]) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    code_lines(without_tests(&text))
        .into_iter()
        .filter(|(_, code)| paths.iter().any(|p| names_path(code, p)))
        .map(|(n, code)| format!("{}:{n}: {}", file.display(), code.trim()))
        .collect()
}

/// `path` used in `code` as a path (not as the tail of a longer name).
fn names_path(code: &str, path: &str) -> bool {
    code.match_indices(path).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + path.len()..].chars().next();
        let starts = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let ends = path.ends_with("::") || after.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        starts && ends
    })
}

/// `word` in `text`, not as part of a longer identifier.
fn names_word(text: &str, word: &str) -> bool {
    names_path(text, word)
}

/// The text before a file's unit-test module: tests may name anything.
fn without_tests(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    }
}

/// Each line's code with comments and string contents blanked out.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines = vec![String::new()];
    scan(text, |piece| match piece {
        Piece::Code(c) => lines.last_mut().unwrap().push(c),
        Piece::Newline => lines.push(String::new()),
        Piece::Literal(..) | Piece::Comment => {}
    });
    lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .collect()
}

/// Every string literal's contents with its line.
fn string_literals(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut line = 1;
    scan(text, |piece| match piece {
        Piece::Newline => line += 1,
        Piece::Literal(s, newlines) => {
            found.push((line, s));
            line += newlines;
        }
        Piece::Code(_) | Piece::Comment => {}
    });
    found
}

enum Piece {
    Code(char),
    Newline,
    /// A string literal's contents and the newlines inside it.
    Literal(String, usize),
    Comment,
}

/// A small lexer: enough of Rust to tell code from comments and strings.
fn scan(text: &str, mut out: impl FnMut(Piece)) {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        i += match rest {
            ['/', '/', ..] => skip_line_comment(rest, &mut out),
            ['/', '*', ..] => skip_block_comment(rest, &mut out),
            ['r', '#' | '"', ..] if raw_start(rest).is_some() => raw_string(rest, &mut out),
            ['"', ..] => string(rest, &mut out),
            ['\'', ..] => char_literal(rest, &mut out),
            ['\n', ..] => {
                out(Piece::Newline);
                1
            }
            [c, ..] => {
                out(Piece::Code(*c));
                1
            }
            [] => unreachable!(),
        };
    }
}

fn skip_line_comment(rest: &[char], out: &mut impl FnMut(Piece)) -> usize {
    out(Piece::Comment);
    rest.iter().position(|&c| c == '\n').unwrap_or(rest.len())
}

fn skip_block_comment(rest: &[char], out: &mut impl FnMut(Piece)) -> usize {
    out(Piece::Comment);
    let end = (2..rest.len()).find(|&j| rest[j - 1] == '*' && rest[j] == '/');
    let len = end.map_or(rest.len(), |j| j + 1);
    rest[..len]
        .iter()
        .filter(|&&c| c == '\n')
        .for_each(|_| out(Piece::Newline));
    len
}

/// The number of `#`s of a raw string starting here (`r"`, `r#"`, ...).
fn raw_start(rest: &[char]) -> Option<usize> {
    let hashes = rest[1..].iter().take_while(|&&c| c == '#').count();
    (rest.get(1 + hashes) == Some(&'"')).then_some(hashes)
}

fn raw_string(rest: &[char], out: &mut impl FnMut(Piece)) -> usize {
    let hashes = raw_start(rest).unwrap();
    let open = 2 + hashes;
    let close: Vec<char> = std::iter::once('"')
        .chain(std::iter::repeat_n('#', hashes))
        .collect();
    let end = (open..rest.len())
        .find(|&j| rest[j..].starts_with(&close))
        .unwrap_or(rest.len());
    let body: String = rest[open..end].iter().collect();
    let newlines = body.matches('\n').count();
    out(Piece::Literal(body, newlines));
    (end + close.len()).min(rest.len())
}

fn string(rest: &[char], out: &mut impl FnMut(Piece)) -> usize {
    let mut j = 1;
    let mut body = String::new();
    while j < rest.len() && rest[j] != '"' {
        if rest[j] == '\\' {
            j += 1;
        }
        if let Some(&c) = rest.get(j) {
            body.push(c);
        }
        j += 1;
    }
    let newlines = body.matches('\n').count();
    out(Piece::Literal(body, newlines));
    (j + 1).min(rest.len())
}

/// A char literal (`'x'`, `'\n'`, `'"'`) is skipped whole; a lifetime is code.
fn char_literal(rest: &[char], out: &mut impl FnMut(Piece)) -> usize {
    match rest {
        ['\'', '\\', ..] => {
            let end = (3..rest.len())
                .find(|&j| rest[j] == '\'')
                .unwrap_or(rest.len());
            end + 1
        }
        ['\'', _, '\'', ..] => 3,
        _ => {
            out(Piece::Code('\''));
            1
        }
    }
}
