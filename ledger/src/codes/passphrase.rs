//! A passphrase (口令): a code chosen by hand that many users type, such as
//! `DOUBLE11` or `双十一快乐` (docs/design.md §20, "Passphrase codes").
//! What users type is matched after NFKC (full-width letters and digits
//! become plain ones) and lower-casing, so `ＤＯＵＢＬＥ１１`, `Double11` and
//! `double11` are one passphrase. Spaces and dashes are dropped, as they
//! are from generated codes. Pure: no key, no database.

use unicode_normalization::UnicodeNormalization;

use super::CODE_LEN;
use super::alphabet::value_of;

/// Fewest and most characters of a passphrase, once normalised: one
/// character is guessed at once; more than 32 nobody types.
pub const MIN_CHARS: usize = 2;
pub const MAX_CHARS: usize = 32;
/// Longest text read at all (a full-width passphrase is three bytes a character).
const MAX_INPUT_BYTES: usize = 4 * MAX_CHARS + 64;

/// A passphrase as typed (`shown`) and the key it is found by (`key`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Passphrase {
    pub shown: String,
    pub key: String,
}

/// Why text is not a passphrase; each message starts with the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PassphraseError {
    #[error("code: a passphrase has {MIN_CHARS} to {MAX_CHARS} letters or digits, this has {0}")]
    Length(usize),
    #[error("code: a passphrase holds letters (any script) and digits only, not {0:?}")]
    Character(char),
    #[error(
        "code: {0} characters of the generated codes' alphabet read as a generated code; \
         choose another passphrase"
    )]
    LooksGenerated(usize),
}

impl Passphrase {
    /// `text` as a passphrase an operator chooses: letters and digits,
    /// 2–32 of them, never in the generated codes' form.
    pub fn parse(text: &str) -> Result<Self, PassphraseError> {
        let key = key_of(text)?;
        let generated_form = key.chars().count() == CODE_LEN
            && key.chars().all(|c| {
                u8::try_from(c.to_ascii_uppercase())
                    .ok()
                    .and_then(value_of)
                    .is_some()
            });
        if generated_form {
            return Err(PassphraseError::LooksGenerated(CODE_LEN));
        }
        Ok(Self {
            shown: text.trim().to_owned(),
            key,
        })
    }
}

/// The key `text` is found by: NFKC, lower case, without spaces and
/// dashes; refused when it could be no passphrase (so a redemption of
/// such text reads nothing).
pub fn key_of(text: &str) -> Result<String, PassphraseError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(PassphraseError::Length(text.chars().count()));
    }
    let key: String = text
        .nfkc()
        .filter(|&c| !c.is_whitespace() && c != '-')
        .flat_map(char::to_lowercase)
        .collect();
    if let Some(bad) = key.chars().find(|c| !c.is_alphanumeric()) {
        return Err(PassphraseError::Character(bad));
    }
    let count = key.chars().count();
    if !(MIN_CHARS..=MAX_CHARS).contains(&count) {
        return Err(PassphraseError::Length(count));
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_users_type_finds_one_key() {
        let key = |t: &str| key_of(t).unwrap();
        assert_eq!(key("DOUBLE11"), "double11");
        assert_eq!(key("ＤＯＵＢＬＥ１１"), "double11");
        assert_eq!(key(" double-11 "), "double11");
        assert_eq!(key("双十一快乐"), "双十一快乐");
        assert_eq!(key("Ünïcode9"), "ünïcode9");
    }

    #[test]
    fn bad_passphrases_are_refused_naming_the_field() {
        for bad in ["a", "x".repeat(33).as_str(), "50%off", "a.b", "", "🎉🎉"] {
            let err = Passphrase::parse(bad).unwrap_err();
            assert!(err.to_string().starts_with("code: "), "{bad}: {err}");
        }
        // Ten characters of the alphabet: the form of a generated code.
        assert_eq!(
            Passphrase::parse("ABCDEFGH23"),
            Err(PassphraseError::LooksGenerated(10))
        );
        assert!(
            Passphrase::parse("ABCDEFGHI2").is_ok(),
            "I is not in the alphabet"
        );
        assert!(
            Passphrase::parse("happy22222").is_err(),
            "lower case reads the same"
        );
    }
}
