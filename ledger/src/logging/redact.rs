//! Keeping passwords out of messages: the connection URLs (`DATABASE_URL`,
//! `AMQP_URL`, `REDIS_URL`) may carry one, and errors and logs quote them.

/// What a password is replaced with.
pub const MASK: &str = "***";

/// The shortest password [`scrub`] masks where it stands alone.
const MIN_SCRUBBED: usize = 3;

/// `url` with its password masked: `scheme://user:***@host/...`, or a
/// libpq `key=value` string with `password=***`. Anything else is unchanged.
pub fn url(url: &str) -> String {
    match password(url) {
        // At the password's own place: the user may read the same.
        Some(p) => {
            let start = p.as_ptr() as usize - url.as_ptr() as usize;
            format!("{}{MASK}{}", &url[..start], &url[start + p.len()..])
        }
        None => url.to_owned(),
    }
}

/// The password `url` carries, if any: the userinfo's part after its first
/// `:` (the authority ends at the first `/`, `?` or `#`; the userinfo at its
/// last `@`), or the value of a libpq `password=` key.
pub fn password(url: &str) -> Option<&str> {
    let Some((_, rest)) = url.split_once("://") else {
        return keyword_password(url);
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let (userinfo, _) = authority.rsplit_once('@')?;
    let (_, password) = userinfo.split_once(':')?;
    (!password.is_empty()).then_some(password)
}

/// `password=...` in a libpq keyword string (quotes kept out).
fn keyword_password(s: &str) -> Option<&str> {
    let start = s.find("password=")? + "password=".len();
    let value = s[start..].split_whitespace().next()?;
    let value = value.trim_matches('\'');
    (!value.is_empty()).then_some(value)
}

/// `text` with every password of `urls` masked: the last net before an
/// error or a log line is printed, whatever quoted the URL.
pub fn scrub<'a>(text: &str, urls: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = text.to_owned();
    for u in urls {
        let Some(p) = password(u) else { continue };
        out = out.replace(u, &url(u));
        // A password quoted alone is masked too, unless it is so short that
        // masking it would mangle every word holding those letters.
        if p.len() < MIN_SCRUBBED {
            continue;
        }
        // Percent-encoded passwords may also appear decoded.
        out = out.replace(p, MASK);
        if let Ok(decoded) = percent_decode(p)
            && !decoded.is_empty()
        {
            out = out.replace(&decoded, MASK);
        }
    }
    out
}

/// `%XX` sequences decoded (an invalid one is an error: nothing to scrub).
fn percent_decode(s: &str) -> Result<String, ()> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3).ok_or(())?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| ())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_of_a_url_is_masked() {
        for (given, expected) in [
            (
                "postgres://app:s3cr3t-pw@db:5432/couponledger",
                "postgres://app:***@db:5432/couponledger",
            ),
            (
                "amqp://guest:s3cr3t-pw@127.0.0.1:5672/%2f",
                "amqp://guest:***@127.0.0.1:5672/%2f",
            ),
            (
                "redis://:s3cr3t-pw@127.0.0.1:6379/0",
                "redis://:***@127.0.0.1:6379/0",
            ),
            // An `@` inside the password: the userinfo ends at the last one.
            ("postgres://u:p@ss@h/db", "postgres://u:***@h/db"),
            // The user may read as the password: the password is masked.
            ("amqp://guest:guest@h/%2f", "amqp://guest:***@h/%2f"),
            (
                "host=db password=s3cr3t-pw dbname=x",
                "host=db password=*** dbname=x",
            ),
            ("host=db password='s3cr3t-pw'", "host=db password='***'"),
        ] {
            assert_eq!(url(given), expected, "{given}");
        }
    }

    #[test]
    fn a_url_without_a_password_is_unchanged() {
        for given in [
            "postgres://postgres@127.0.0.1:5432/couponledger",
            "redis://127.0.0.1:6379/0",
            "postgres://h/db?user=a@b",
            "amqp://guest@h/%2f#x:y@z",
            "not a url",
            "",
        ] {
            assert_eq!(url(given), given);
            assert_eq!(password(given), None, "{given}");
        }
    }

    #[test]
    fn scrub_masks_every_quoted_password_encoded_or_not() {
        let urls = ["postgres://u:s3cr3t%2Dpw@h/db", "amqp://g:other@h/%2f"];
        let text = "bad s3cr3t%2Dpw and s3cr3t-pw and other; keep guest";
        assert_eq!(scrub(text, urls), "bad *** and *** and ***; keep guest");
    }

    #[test]
    fn scrub_masks_a_short_password_only_within_its_url() {
        let urls = ["amqp://g:ab@h/%2f"];
        let text = "cannot reach amqp://g:ab@h/%2f: about a broken cable";
        assert_eq!(
            scrub(text, urls),
            "cannot reach amqp://g:***@h/%2f: about a broken cable"
        );
    }
}
