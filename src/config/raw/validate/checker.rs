//! `Checker`: collects one file's errors and warnings, each with the file, line, section and
//! key, and holds the checks several sections share (ranges, server URLs, API keys, node lists).

use std::collections::HashSet;

use crate::config::{ConfigError, Warning, line_of_key};
use crate::node::NodeId;
use crate::secret::{Secret, redact_urls};

/// Collects errors with their line, and warnings.
pub(super) struct Checker<'a> {
    pub(super) source: &'a str,
    pub(super) origin: &'a str,
    pub(super) warnings: Vec<Warning>,
}

impl Checker<'_> {
    pub(super) fn err(&self, section: &str, key: &str, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            origin: self.origin.to_string(),
            line: line_of_key(self.source, section, key),
            message: format!("[{section}] {key}: {}", message.into()),
        }
    }

    pub(super) fn warn(&mut self, section: &str, key: &str, message: impl Into<String>) {
        let line = line_of_key(self.source, section, key)
            .map(|l| format!(" line {l}"))
            .unwrap_or_default();
        self.warnings.push(Warning(format!(
            "{}{line}: [{section}] {key}: {}",
            self.origin,
            message.into()
        )));
    }

    /// `value` must lie in `lo..=hi` (a NaN, which TOML allows, never does).
    pub(super) fn range<T: PartialOrd + std::fmt::Display + Copy>(
        &self,
        section: &str,
        key: &str,
        value: T,
        lo: T,
        hi: T,
    ) -> Result<T, ConfigError> {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let inside = matches!(value.partial_cmp(&lo), Some(Greater | Equal))
            && matches!(value.partial_cmp(&hi), Some(Less | Equal));
        if !inside {
            return Err(self.err(
                section,
                key,
                format!("{value} is out of range ({lo} to {hi})"),
            ));
        }
        Ok(value)
    }

    /// A server's `base_url` without the trailing slash.
    pub(super) fn base_url(&mut self, section: &str, raw: &str) -> Result<String, ConfigError> {
        let base_url = raw.trim().trim_end_matches('/').to_string();
        let rest = base_url
            .strip_prefix("http://")
            .or_else(|| base_url.strip_prefix("https://"))
            .ok_or_else(|| {
                self.err(
                    section,
                    "base_url",
                    format!(
                        "{:?} must start with http:// or https://",
                        redact_urls(&base_url)
                    ),
                )
            })?;
        let host = rest.split('/').next().unwrap_or_default().to_string();
        if host.is_empty() || rest.contains(char::is_whitespace) {
            return Err(self.err(
                section,
                "base_url",
                format!("{:?} has no host", redact_urls(&base_url)),
            ));
        }
        if base_url.ends_with("/chat/completions") {
            return Err(self.err(
                section,
                "base_url",
                "give the API root (e.g. http://127.0.0.1:11434/v1), not the /chat/completions endpoint",
            ));
        }
        if !base_url.ends_with("/v1") {
            self.warn(
                section,
                "base_url",
                "does not end in /v1; Ollama, llama.cpp server and OpenAI all serve the API under /v1",
            );
        }
        Ok(base_url)
    }

    /// The key named by `api_key_env` (read from the environment), and the name. The name
    /// must look like a variable's; otherwise it is most likely the key itself, pasted in the
    /// wrong place, and the error does not repeat it. A key that would go over plain
    /// `http://` to a host other than this machine is a warning.
    pub(super) fn api_key(
        &mut self,
        section: &str,
        api_key_env: &str,
        base_url: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(Option<String>, Option<Secret>), ConfigError> {
        let api_key_env = Some(api_key_env.trim().to_string()).filter(|s| !s.is_empty());
        if api_key_env
            .as_deref()
            .is_some_and(|name| !is_variable_name(name))
        {
            return Err(self.err(
                section,
                "api_key_env",
                "must be the name of an environment variable (letters, digits and _, not \
                 starting with a digit), e.g. \"MESHAI_API_KEY\"; put the key itself in that \
                 variable, not in this file",
            ));
        }
        let api_key = api_key_env
            .as_deref()
            .and_then(env)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .map(Secret::new);
        let url = reqwest::Url::parse(base_url).ok();
        let host = url.as_ref().and_then(|u| u.host_str()).unwrap_or_default();
        if api_key.is_some()
            && url.as_ref().is_some_and(|u| u.scheme() == "http")
            && !is_loopback(host)
        {
            self.warn(
                section,
                "base_url",
                format!(
                    "the API key from ${} would go to {host} over plain http://, readable on \
                     the way: use https://, or unset the variable if this server needs no key",
                    api_key_env.as_deref().unwrap_or_default()
                ),
            );
        }
        if api_key.is_none() && host.ends_with("openai.com") {
            self.warn(
                section,
                "api_key_env",
                format!(
                    "no API key found in ${}; api.openai.com will refuse requests",
                    api_key_env.as_deref().unwrap_or("MESHAI_API_KEY")
                ),
            );
        }
        Ok((api_key_env, api_key))
    }

    /// A list of node ids (`[access] allow`, `[knowledge] private_to`).
    pub(super) fn nodes(
        &self,
        section: &str,
        key: &str,
        list: &[String],
    ) -> Result<HashSet<NodeId>, ConfigError> {
        list.iter()
            .map(|s| {
                s.parse::<NodeId>()
                    .map_err(|e| self.err(section, key, e.to_string()))
            })
            .collect()
    }
}

/// Whether `name` looks like an environment variable's name: `[A-Za-z_][A-Za-z0-9_]*`.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `host` (as a URL gives it: a name, an IPv4 address or a bracketed IPv6 one) is
/// this machine.
fn is_loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => bare.eq_ignore_ascii_case("localhost") || bare.ends_with(".localhost"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_names() {
        for ok in ["MESHAI_API_KEY", "_x", "a1", "OPENAI_API_KEY"] {
            assert!(is_variable_name(ok), "{ok}");
        }
        for bad in ["", "1KEY", "sk-abc123", "MY KEY", "KEY=1", "$KEY", "kéy"] {
            assert!(!is_variable_name(bad), "{bad}");
        }
    }

    #[test]
    fn loopback_hosts() {
        for local in [
            "127.0.0.1",
            "127.1.2.3",
            "[::1]",
            "localhost",
            "LOCALHOST",
            "a.localhost",
        ] {
            assert!(is_loopback(local), "{local}");
        }
        for remote in [
            "192.168.1.5",
            "[fe80::1]",
            "example.com",
            "localhost.example.com",
            "",
        ] {
            assert!(!is_loopback(remote), "{remote}");
        }
    }
}
