//! What must not be printed: a string that never shows up in `Debug` output or logs (API
//! keys), and the user-info part of URLs (`http://user:pass@host/v1`), redacted wherever a
//! URL is printed (the start log, `meshai check`, `meshai init`, advice, errors).

use std::borrow::Cow;
use std::fmt;

/// Holds a secret; `Debug` and `Display` print `***`.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret itself, for the one place that must send it (the HTTP header).
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// `text` with the user-info part of every URL in it replaced by `***`:
/// `http://user:pass@host/v1` → `http://***@host/v1`. A URL's authority runs from its `://`
/// to the next `/`, `?`, `#` or whitespace; its user info is everything before its last `@`.
/// Works on a bare URL and on a message that quotes one (an error, a log line).
pub(crate) fn redact_urls(text: &str) -> Cow<'_, str> {
    if !text.contains('@') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| matches!(c, '/' | '?' | '#') || c.is_whitespace())
            .unwrap_or(tail.len());
        let (authority, after) = tail.split_at(end);
        match authority.rfind('@') {
            Some(i) => {
                out.push_str("***");
                out.push_str(&authority[i..]);
            }
            None => out.push_str(authority),
        }
        rest = after;
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_info_is_redacted_from_urls() {
        let cases = [
            ("http://user:pass@host/v1", "http://***@host/v1"),
            (
                "https://key@api.example.com:8443/v1",
                "https://***@api.example.com:8443/v1",
            ),
            ("http://u:p@[::1]:8080", "http://***@[::1]:8080"),
            ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"),
            (
                "http://host/v1?to=me@example.com",
                "http://host/v1?to=me@example.com",
            ),
            ("http://a:b@c@host/v1", "http://***@host/v1"),
            (
                "GET http://u:p@h/v1/models: http 401 (see http://x:y@z)",
                "GET http://***@h/v1/models: http 401 (see http://***@z)",
            ),
            ("mail me@example.com", "mail me@example.com"),
            ("", ""),
            ("http://", "http://"),
        ];
        for (input, want) in cases {
            assert_eq!(redact_urls(input), want, "{input:?}");
        }
    }

    #[test]
    fn never_printed() {
        let s = Secret::new("sk-abc123");
        assert_eq!(format!("{s:?} {s}"), "Secret(***) ***");
        assert_eq!(s.expose(), "sk-abc123");
    }
}
