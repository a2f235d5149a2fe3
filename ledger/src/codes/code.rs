//! A code as people type it: normalized, checked, no key involved.

use std::fmt;
use std::str::FromStr;

use super::alphabet::{char_of, value_of};
use super::check;
use super::{CIPHER_LEN, CODE_LEN};

/// Ten alphabet characters (ASCII) whose check character is valid.
///
/// Holding a `Code` says nothing about authenticity: that is
/// [`super::CodeKey::decode`]'s answer.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Code([u8; CODE_LEN]);

/// Why typed text is not a code. Decided without any key or database.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    #[error("a code has {CODE_LEN} characters (spaces and dashes aside), this has {found}")]
    Length { found: usize },
    #[error(
        "character {position} ({found:?}) is not used in codes: they use the letters A–Z \
         without I and O, and the digits 2–9"
    )]
    Character { position: usize, found: char },
    #[error("the code's last character does not match: a character is mistyped or two are swapped")]
    Check,
}

impl Code {
    /// Reads a code as typed or printed: surrounding whitespace, spaces and
    /// dashes are ignored (printed codes may be grouped), lower case is
    /// accepted. Refuses a wrong length, a character outside the alphabet or
    /// a wrong check character.
    pub fn parse(input: &str) -> Result<Code, CodeError> {
        let mut chars = [0u8; CODE_LEN];
        let mut values = [0u8; CODE_LEN];
        let mut count = 0;
        for c in input.trim().chars().filter(|&c| c != ' ' && c != '-') {
            if count < CODE_LEN {
                let upper = c.to_ascii_uppercase();
                let value = u8::try_from(upper).ok().and_then(value_of);
                let Some(value) = value else {
                    let position = count + 1;
                    return Err(CodeError::Character { position, found: c });
                };
                chars[count] = upper as u8;
                values[count] = value;
            }
            count += 1;
        }
        if count != CODE_LEN {
            return Err(CodeError::Length { found: count });
        }
        if !check::is_valid(&values) {
            return Err(CodeError::Check);
        }
        Ok(Code(chars))
    }

    /// The code whose 9 enciphered characters are the 45-bit `number`
    /// (5 bits a character, most significant first), with its check character.
    pub(crate) fn from_enciphered(number: u64) -> Code {
        let mut values = [0u8; CODE_LEN];
        for (i, v) in values[..CIPHER_LEN].iter_mut().enumerate() {
            *v = (number >> (5 * (CIPHER_LEN - 1 - i))) as u8 & 31;
        }
        values[CIPHER_LEN] = check::check_value(&values[..CIPHER_LEN]);
        Code(values.map(char_of))
    }

    /// The 45-bit number of the 9 enciphered characters (inverse of
    /// [`Code::from_enciphered`]).
    pub(crate) fn enciphered(&self) -> u64 {
        self.0[..CIPHER_LEN].iter().fold(0, |number, &c| {
            // Every byte is an alphabet character by construction.
            (number << 5) | u64::from(value_of(c).unwrap_or(0))
        })
    }

    /// The 10 characters, upper case, without grouping.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("a code is ASCII")
    }

    /// The 10 ASCII characters.
    pub fn as_bytes(&self) -> &[u8; CODE_LEN] {
        &self.0
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Code({})", self.as_str())
    }
}

impl FromStr for Code {
    type Err = CodeError;

    fn from_str(s: &str) -> Result<Code, CodeError> {
        Code::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Code {
        Code::from_enciphered(0x1234_5678_9ABC & ((1 << 45) - 1))
    }

    #[test]
    fn the_enciphered_number_round_trips() {
        for number in [0, 1, 0x1234_5678_9ABC & ((1 << 45) - 1), (1 << 45) - 1] {
            let code = Code::from_enciphered(number);
            assert_eq!(code.enciphered(), number);
            assert_eq!(Code::parse(code.as_str()), Ok(code));
        }
        assert_eq!(Code::from_enciphered(0).as_str(), "AAAAAAAAAA");
    }

    #[test]
    fn reads_what_people_type() {
        let code = sample();
        let text = code.as_str();
        assert_eq!(Code::parse(text), Ok(code));
        let grouped = format!("  {}-{} {} \n", &text[..3], &text[3..6], &text[6..]);
        assert_eq!(Code::parse(&grouped.to_lowercase()), Ok(code));
        assert_eq!(code.to_string(), text);
        assert_eq!(text.parse::<Code>(), Ok(code));
    }

    #[test]
    fn refuses_wrong_lengths_and_characters() {
        assert_eq!(Code::parse(""), Err(CodeError::Length { found: 0 }));
        assert_eq!(
            Code::parse("ABCDE-FGHJ-KL"),
            Err(CodeError::Length { found: 11 })
        );
        assert_eq!(
            Code::parse("AB0DEFGHJK"),
            Err(CodeError::Character {
                position: 3,
                found: '0'
            })
        );
        assert_eq!(
            Code::parse("ABCDEFGHJé"),
            Err(CodeError::Character {
                position: 10,
                found: 'é'
            })
        );
    }

    #[test]
    fn refuses_a_wrong_check_character() {
        let text = sample().to_string();
        let last = if text.ends_with('A') { "B" } else { "A" };
        let typo = format!("{}{last}", &text[..9]);
        assert_eq!(Code::parse(&typo), Err(CodeError::Check));
    }

    #[test]
    fn messages_say_what_to_fix() {
        let length = CodeError::Length { found: 9 }.to_string();
        assert_eq!(
            length,
            "a code has 10 characters (spaces and dashes aside), this has 9"
        );
        let character = CodeError::Character {
            position: 3,
            found: 'O',
        }
        .to_string();
        assert!(
            character.starts_with("character 3 ('O') is not used in codes"),
            "{character}"
        );
    }
}
