//! The configuration file: raw serde structs (unknown keys are errors, every default explicit)
//! turned into a validated [`Config`] of typed values (Durations, paths, node ids, masked secrets).
//!
//! Errors name the file, the key and the line and say what is allowed; odd-but-legal values are
//! returned as warnings for the caller to log. `config.example.toml` documents every key, and a
//! test parses it together with the examples under `tests/configs/`.

pub mod locate;
mod raw;

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::airtime::AirtimeConfig;
use crate::knowledge::KnowledgeConfig;
use crate::node::NodeId;
use crate::radio::RadioConfig;
use crate::secret::Secret;
use crate::store::retention::Retention;

pub use raw::DEFAULT_SYSTEM_PROMPT;

/// The validated configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where it was read from (for messages); `None` when parsed from a string.
    pub origin: String,
    pub(crate) radio: RadioConfig,
    pub(crate) llm: LlmConfig,
    pub(crate) database: PathBuf,
    /// `[storage] retain_days`: how long messages are kept.
    pub(crate) retention: Retention,
    pub(crate) memory: MemoryConfig,
    pub(crate) reply: ReplyConfig,
    pub(crate) limits: LimitsConfig,
    pub(crate) access: AccessConfig,
    pub(crate) channels: ChannelsConfig,
    pub(crate) context: ContextConfig,
    /// `[airtime]`: how a busy radio channel shortens or holds answers.
    pub(crate) airtime: AirtimeConfig,
    /// `[knowledge]`: the operator's documents the answers may come from.
    pub knowledge: KnowledgeConfig,
    /// `[mesh]`: what the bot tells about the mesh it lives on.
    pub(crate) mesh: crate::mesh::MeshConfig,
    /// `[bot] language`: the asker's, or one the operator fixed.
    pub(crate) language: Language,
    /// `[mail]`: messages left with `!tell`.
    pub(crate) mail: MailConfig,
    /// `[bulletins]`: the drop folder's bulletins for `!subscribe`.
    pub(crate) bulletins: BulletinsConfig,
}

/// `[bot] language`: which language the prompt's fixed parts and the bot's own texts are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Language {
    /// The conversation's (`crate::lang::Sticky`); English until a message says another.
    #[default]
    Auto,
    /// This one, whatever the asker writes in (the model still answers in theirs).
    Fixed(crate::lang::Lang),
}

/// `[llm]`: how to reach the OpenAI-compatible server.
#[derive(Debug, Clone)]
pub(crate) struct LlmConfig {
    /// Without the trailing slash, e.g. `http://127.0.0.1:11434/v1`.
    pub(crate) base_url: String,
    pub(crate) model: String,
    /// Read from the environment variable named by `api_key_env`; never logged.
    pub(crate) api_key: Option<Secret>,
    pub(crate) api_key_env: Option<String>,
    /// Budget for one whole call, retries included.
    pub(crate) timeout: Duration,
    pub(crate) max_tokens: u32,
    pub(crate) temperature: f32,
    pub(crate) system_prompt: String,
    /// How many LLM calls may run at once, across all nodes (1 suits a Pi).
    pub(crate) concurrency: usize,
    /// llama.cpp server slots: pin each node's prompt to a slot, summaries to their own.
    pub(crate) slots: SlotsSetting,
    /// Stream replies (server-sent events), so the first part goes on air while the model
    /// still writes; `false` for a proxy that breaks streaming.
    pub(crate) stream: bool,
    /// How long a server that failed 3 answers in a row is first skipped before it is
    /// probed; doubles after each failed probe, up to 10 min.
    pub(crate) skip: Duration,
    /// `[[llm.fallback]]`, in the order they are tried after the primary.
    pub(crate) fallbacks: Vec<FallbackConfig>,
}

/// `[[llm.fallback]]`: another server, tried when the ones before it fail to connect, time
/// out or answer 408, 429 or 5xx. Prompt, `max_tokens`, `stream` and `concurrency` are the
/// primary's; slots are the primary's alone (a fallback gets plain OpenAI requests).
#[derive(Debug, Clone)]
pub(crate) struct FallbackConfig {
    /// Without the trailing slash.
    pub(crate) base_url: String,
    pub(crate) model: String,
    /// Read from the environment variable named by `api_key_env`; never logged.
    pub(crate) api_key: Option<Secret>,
    pub(crate) api_key_env: Option<String>,
    /// This server's share of the budget at most; the primary's timeout bounds the answer.
    pub(crate) timeout: Duration,
    pub(crate) temperature: f32,
}

/// `[llm] slots`: whether and how requests name a llama.cpp server slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlotsSetting {
    /// Ask the server (`GET /props`) at start: llama.cpp's says how many slots it has; any
    /// other server gets plain OpenAI requests.
    Auto,
    /// Plain OpenAI requests, whatever the server.
    Off,
    /// The server is llama.cpp with this many slots (`--parallel N`).
    Fixed(u32),
}

/// `[memory]`: what each node's prompt carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MemoryConfig {
    /// Most recent messages (user and assistant) kept verbatim when older ones are folded.
    pub(crate) window_messages: usize,
    /// A fold is also due when more than `window_messages + summarize_threshold` messages
    /// are unsummarised, however few tokens they are (a backstop; tokens decide first).
    pub(crate) summarize_threshold: usize,
    pub(crate) summary_max_chars: usize,
    /// Older exchanges retrieved by full-text search for the new message.
    pub(crate) retrieve_exchanges: usize,
    /// Statements the user made about themselves, kept verbatim beside the summary (the
    /// newest this many; 0 keeps none).
    pub(crate) facts_max: usize,
    /// A fold is due once the conversation's prompt (system prompt, memory, unsummarised
    /// messages and the last reply) reaches this many tokens: the server re-reads what
    /// follows the memory block after each fold, so folds are few and keep little.
    pub(crate) fold_tokens: usize,
    /// After a fold is saved, the node's next prompt up to its new message (the new memory
    /// block and the kept messages) is read into the server's cache while the slot is idle,
    /// so the next reply evaluates only its message (`responder::fold::warm`).
    pub(crate) warm_after_fold: bool,
}

/// `[reply]`: the shape of what goes on air.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReplyConfig {
    pub(crate) max_chars: usize,
    pub(crate) max_chunks: usize,
}

/// `[limits]`: per-node rate limit and queue bound, and the bounds across all nodes under a
/// flood (`responder::schedule`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LimitsConfig {
    /// At most this many messages from one node per `node_window` are answered.
    pub(crate) node_messages: u32,
    pub(crate) node_window: Duration,
    /// Messages of one node waiting to be answered; more are dropped with a warning.
    pub(crate) node_queue: usize,
    /// LLM turns waiting across all nodes (replies in the outbox included); see the schedule
    /// for who gets one when it is full.
    pub(crate) max_waiting: usize,
    /// A turn not given the LLM within this long of its arrival is not answered (known and
    /// proven nodes get one short notice).
    pub(crate) max_turn_wait: Duration,
    /// Parts an answer to a node heard for the first time may have at most.
    pub(crate) new_node_parts: usize,
}

/// `[access]`: who may use the bot.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct AccessConfig {
    /// When non-empty, only these nodes are answered.
    pub(crate) allow: HashSet<NodeId>,
    /// Never answered, and never cost an LLM call.
    pub(crate) deny: HashSet<NodeId>,
    /// See extra details in `!status`.
    pub(crate) admins: HashSet<NodeId>,
    /// Which DMs must arrive PKI-encrypted (see `docs/security.md`).
    pub(crate) require_pki: RequirePki,
    /// What a DM that came through an MQTT gateway without PKI may do.
    pub(crate) mqtt: MqttPolicy,
}

/// `[access] require_pki`: which nodes' direct messages must be PKI-encrypted, since only a
/// PKI DM proves who sent it. Either way, a non-PKI DM carrying the id of a node that has
/// talked to us over PKI never reaches that node's memory and runs no command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum RequirePki {
    /// `"pki_nodes"`: only from the nodes known to use PKI; nodes that never used PKI
    /// (firmware before 2.5) work as before.
    #[default]
    PkiNodes,
    /// `"all"`: a non-PKI DM from any node is answered without memory and not stored, and
    /// runs no command but `!help`.
    All,
}

/// `[access] mqtt`: a DM that came through an MQTT gateway (`via_mqtt`) without PKI may have
/// been written by anyone who can publish to the broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum MqttPolicy {
    /// Answered without memory and not stored; commands but `!help` refused.
    #[default]
    NoMemory,
    /// Answered like a DM over the air.
    Answer,
    /// Not answered at all.
    Ignore,
}

impl AccessConfig {
    pub(crate) fn permits(&self, node: NodeId) -> bool {
        !self.deny.contains(&node) && (self.allow.is_empty() || self.allow.contains(&node))
    }
}

/// `[channels]`: the opt-in mention mode for channel broadcasts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ChannelsConfig {
    /// Answer broadcasts that start with `mention` (off by default: channels are shared airtime).
    pub(crate) answer_mentions: bool,
    /// Lower-cased; compared case-insensitively with the start of the text.
    pub(crate) mention: String,
    /// Channel indexes where mentions are answered.
    pub(crate) channels: Vec<u32>,
}

/// `[context]`: what the model is told, per turn, about who is asking. Each item can be
/// switched off; an item the radio does not know (no position, no SNR) is left out anyway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ContextConfig {
    /// The sender's long and short name.
    pub(crate) names: bool,
    /// How many hops away the sender is.
    pub(crate) hops: bool,
    /// The SNR the message was heard with.
    pub(crate) snr: bool,
    /// Distance and compass direction from our node, when both positions are known.
    pub(crate) distance: bool,
    /// The local time the message arrived.
    pub(crate) time: bool,
    /// Where the local time's offset from UTC comes from.
    pub(crate) time_zone: TimeZoneSetting,
}

/// `[mail]`: messages a known or proven user leaves for a node with `!tell`, delivered when
/// that node is next heard (`docs/mail.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MailConfig {
    /// `!tell` and `!mail` answer; off, they say so.
    pub(crate) enabled: bool,
    /// A message not delivered within this many days is deleted, its sender told.
    pub(crate) keep_days: u32,
    /// Waiting messages one sender may have.
    pub(crate) per_sender: usize,
    /// Waiting messages one recipient may be owed.
    pub(crate) per_recipient: usize,
}

impl Default for MailConfig {
    fn default() -> Self {
        MailConfig {
            enabled: true,
            keep_days: 7,
            per_sender: 5,
            per_recipient: 10,
        }
    }
}

/// `[bulletins]`: text files a local script drops in a folder, each a topic (its file name),
/// sent as DMs to the users who asked with `!subscribe TOPIC` (`docs/bulletins.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BulletinsConfig {
    /// The folder; unset: no bulletins.
    pub(crate) dir: Option<PathBuf>,
    /// Bulletins one topic sends in 24 hours at most.
    pub(crate) per_day: usize,
    /// The channel (index) the topics in `broadcast` also go out on, to everyone on it;
    /// unset: bulletins are only DMs (the default).
    pub(crate) channel: Option<u32>,
    /// The topics broadcast on `channel` (the operator's explicit choice, topic by topic).
    pub(crate) broadcast: Vec<String>,
}

impl Default for BulletinsConfig {
    fn default() -> Self {
        BulletinsConfig {
            dir: None,
            per_day: 6,
            channel: None,
            broadcast: Vec::new(),
        }
    }
}

impl BulletinsConfig {
    /// The topics the folder has now, by name; none without a folder.
    pub(crate) fn topics(&self) -> Vec<String> {
        self.dir.as_deref().map(topics).unwrap_or_default()
    }

    /// The channel `topic` is broadcast on, when the operator chose to broadcast it.
    pub(crate) fn channel_for(&self, topic: &str) -> Option<u32> {
        self.channel
            .filter(|_| self.broadcast.iter().any(|t| t == topic))
    }
}

/// The most files of the bulletins folder looked at.
pub(crate) const BULLETIN_FILES_MAX: usize = 64;

/// The topic a file's name gives: its stem in lowercase when it is a `.txt` or `.md` file (or
/// has no extension) and the stem is 1–20 letters, digits, `-` or `_`; `None` for anything
/// else (a hidden or temporary file among them).
pub(crate) fn topic_of(name: &str) -> Option<String> {
    if name.starts_with('.') || name.ends_with('~') {
        return None;
    }
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    if !matches!(ext, "" | "txt" | "md") {
        return None;
    }
    let ok = (1..=20).contains(&stem.chars().count())
        && stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then(|| stem.to_ascii_lowercase())
}

/// The topics the folder has now, by name (for `!subscribe`'s list and check).
fn topics(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut topics: Vec<String> = entries
        .flatten()
        .take(BULLETIN_FILES_MAX)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| topic_of(&e.file_name().to_string_lossy()))
        .collect();
    topics.sort();
    topics.dedup();
    topics
}

/// `[context] utc_offset`: the system's zone (`/etc/localtime`), or a fixed offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeZoneSetting {
    System,
    /// Minutes east of UTC.
    Fixed(i32),
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig {
            names: true,
            hops: true,
            snr: true,
            distance: true,
            time: true,
            time_zone: TimeZoneSetting::System,
        }
    }
}

/// A configuration problem, already worded for the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {reason}")]
    Read { path: String, reason: String },
    /// No `--config`, no `$MESHAI_CONFIG`, and none of the searched files exists.
    #[error(
        "no config file found (looked for ${}, {}): write one for this machine with \
         `meshai init`, or name one with --config FILE",
        locate::ENV,
        looked.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    NotFound { looked: Vec<PathBuf> },
    #[error("{origin}{line}: {message}", line = line.map(|l| format!(" line {l}")).unwrap_or_default())]
    Invalid {
        origin: String,
        line: Option<usize>,
        message: String,
    },
}

/// Something legal but probably not meant; logged as a warning at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning(pub String);

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads and validates a config file.
pub fn load(path: &Path) -> Result<(Config, Vec<Warning>), ConfigError> {
    let source = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
        path: path.display().to_string(),
        reason: match e.kind() {
            std::io::ErrorKind::NotFound => format!(
                "{e}; write one for this machine with `meshai init --output {}`",
                path.display()
            ),
            _ => e.to_string(),
        },
    })?;
    parse(&source, &path.display().to_string(), &|name| {
        std::env::var(name).ok()
    })
}

/// Parses and validates config text; `env` looks up environment variables (the API key).
pub fn parse(
    source: &str,
    origin: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(Config, Vec<Warning>), ConfigError> {
    let raw: raw::RawConfig = toml::from_str(source).map_err(|e| {
        let line = e.span().map(|s| line_of_offset(source, s.start));
        let key = e.span().and_then(|s| key_at(source, s.start));
        let message = match key {
            Some(k) if !e.message().contains(&format!("`{k}`")) => {
                format!("`{k}`: {}", e.message().trim())
            }
            _ => e.message().trim().to_string(),
        };
        ConfigError::Invalid {
            origin: origin.to_string(),
            line,
            message,
        }
    })?;
    raw::validate(raw, source, origin, env)
}

/// 1-based line number of a byte offset.
fn line_of_offset(source: &str, offset: usize) -> usize {
    source
        .get(..offset)
        .map_or(1, |s| s.matches('\n').count() + 1)
}

/// The key assigned on the line holding `offset`, when that line is `key = value`.
fn key_at(source: &str, offset: usize) -> Option<String> {
    let start = source.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    let line = source.get(start..)?.lines().next()?;
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    (!key.is_empty() && !key.starts_with('[')).then(|| key.to_string())
}

/// 1-based line of `key = ...` inside `[section]`, for validation messages.
fn line_of_key(source: &str, section: &str, key: &str) -> Option<usize> {
    let mut in_section = false;
    for (i, line) in source.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            // A header may carry a comment: `[airtime]  # ...`.
            let header = t.split('#').next().unwrap_or_default().trim();
            in_section = header.trim_start_matches('[').trim_end_matches(']').trim() == section;
            continue;
        }
        if in_section
            && let Some((k, _)) = t.split_once('=')
            && k.trim() == key
        {
            return Some(i + 1);
        }
    }
    None
}

#[cfg(test)]
mod tests;
