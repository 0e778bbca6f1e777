//! `Checker`: collects one file's errors and warnings, each with the file, line, section and
//! key, and holds the checks several sections share (ranges, server URLs, API keys, node lists).

use std::collections::HashSet;

use crate::config::{ConfigError, Warning, line_of_key};
use crate::node::NodeId;
use crate::secret::Secret;

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

    /// A server's `base_url` without the trailing slash, and its host.
    pub(super) fn base_url(
        &mut self,
        section: &str,
        raw: &str,
    ) -> Result<(String, String), ConfigError> {
        let base_url = raw.trim().trim_end_matches('/').to_string();
        let rest = base_url
            .strip_prefix("http://")
            .or_else(|| base_url.strip_prefix("https://"))
            .ok_or_else(|| {
                self.err(
                    section,
                    "base_url",
                    format!("{base_url:?} must start with http:// or https://"),
                )
            })?;
        let host = rest.split('/').next().unwrap_or_default().to_string();
        if host.is_empty() || rest.contains(char::is_whitespace) {
            return Err(self.err(section, "base_url", format!("{base_url:?} has no host")));
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
        Ok((base_url, host))
    }

    /// The key named by `api_key_env` (read from the environment), and the name.
    pub(super) fn api_key(
        &mut self,
        section: &str,
        api_key_env: &str,
        host: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> (Option<String>, Option<Secret>) {
        let api_key_env = Some(api_key_env.trim().to_string()).filter(|s| !s.is_empty());
        let api_key = api_key_env
            .as_deref()
            .and_then(env)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .map(Secret::new);
        if api_key.is_none() && host.contains("openai.com") {
            self.warn(
                section,
                "api_key_env",
                format!(
                    "no API key found in ${}; api.openai.com will refuse requests",
                    api_key_env.as_deref().unwrap_or("MESHAI_API_KEY")
                ),
            );
        }
        (api_key_env, api_key)
    }

    pub(super) fn nodes(&self, key: &str, list: &[String]) -> Result<HashSet<NodeId>, ConfigError> {
        list.iter()
            .map(|s| {
                s.parse::<NodeId>()
                    .map_err(|e| self.err("access", key, e.to_string()))
            })
            .collect()
    }
}
