//! The file as written: serde structs with `deny_unknown_fields` and explicit defaults.
//! `validate` checks them and turns them into [`Config`](super::Config).

mod validate;

pub(in crate::config) use validate::validate;

use std::path::PathBuf;

use serde::Deserialize;

use super::ContextConfig;
use crate::airtime::AirtimeConfig;
use crate::knowledge::KnowledgeConfig;

/// The default system prompt: short plain-text answers for a tiny radio link. The character
/// budget sentence is appended at run time from `[reply]`.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a helpful assistant reached over a Meshtastic \
LoRa mesh radio. Messages are tiny and airtime is precious: answer in plain text, no markdown, no \
lists, no emoji unless asked. Be direct and factual; if you do not know, say so briefly.";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    radio: RawRadio,
    #[serde(default)]
    llm: RawLlm,
    #[serde(default)]
    storage: RawStorage,
    #[serde(default)]
    memory: RawMemory,
    #[serde(default)]
    reply: RawReply,
    #[serde(default)]
    limits: RawLimits,
    #[serde(default)]
    access: RawAccess,
    #[serde(default)]
    channels: RawChannels,
    #[serde(default)]
    context: RawContext,
    #[serde(default)]
    airtime: RawAirtime,
    #[serde(default)]
    knowledge: RawKnowledge,
    #[serde(default)]
    mesh: RawMesh,
    #[serde(default)]
    bot: RawBot,
    #[serde(default)]
    mail: RawMail,
    #[serde(default)]
    bulletins: RawBulletins,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRadio {
    serial: Option<String>,
    tcp: Option<String>,
    #[serde(default = "d_baud")]
    baud: u32,
    #[serde(default = "d_send_gap_ms")]
    send_gap_ms: u64,
    #[serde(default = "d_ack_timeout")]
    ack_timeout_secs: u64,
    #[serde(default = "d_handshake_timeout")]
    handshake_timeout_secs: u64,
    #[serde(default = "d_heartbeat")]
    heartbeat_secs: u64,
    #[serde(default = "d_silence")]
    silence_timeout_secs: u64,
    #[serde(default = "d_duty_pause")]
    duty_cycle_pause_secs: u64,
    /// TCP only: leave the node to another client that keeps taking it, for a while.
    #[serde(default = "d_yield")]
    yield_to_other_clients: bool,
    /// No reply goes further than this many hops (the firmware's rule may go less far).
    reply_hops: Option<u32>,
    /// The node's status message (firmware 2.8): how the bot is advertised, if at all.
    node_status: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLlm {
    #[serde(default = "d_base_url")]
    base_url: String,
    #[serde(default = "d_model")]
    model: String,
    #[serde(default = "d_api_key_env")]
    api_key_env: String,
    #[serde(default = "d_llm_timeout")]
    timeout_secs: u64,
    #[serde(default = "d_max_tokens")]
    max_tokens: u32,
    #[serde(default = "d_temperature")]
    temperature: f32,
    #[serde(default = "d_system_prompt")]
    system_prompt: String,
    #[serde(default = "d_concurrency")]
    concurrency: usize,
    #[serde(default = "d_slots")]
    slots: RawSlots,
    #[serde(default = "d_stream")]
    stream: bool,
    /// How long a failing server is first skipped (doubling up to 10 min).
    #[serde(default = "d_skip")]
    skip_secs: u64,
    /// `[[llm.fallback]]`: tried in order when the primary fails.
    #[serde(default)]
    fallback: Vec<RawFallback>,
}

/// `[[llm.fallback]]`: another server for when the primary fails. Only the keys that belong
/// to a server; the prompt, `max_tokens`, `concurrency`, `stream` and slots stay `[llm]`'s.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFallback {
    base_url: String,
    model: String,
    /// No default: a fallback without this key sends no key.
    #[serde(default)]
    api_key_env: String,
    /// Defaults to `[llm] timeout_secs`; the primary's budget bounds the whole answer anyway.
    timeout_secs: Option<u64>,
    /// Defaults to `[llm] temperature`.
    temperature: Option<f32>,
}

/// `[llm] slots`: "auto", "off" or a number.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum RawSlots {
    Word(String),
    Count(i64),
}

impl Default for RawLlm {
    fn default() -> Self {
        RawLlm {
            base_url: d_base_url(),
            model: d_model(),
            api_key_env: d_api_key_env(),
            timeout_secs: d_llm_timeout(),
            max_tokens: d_max_tokens(),
            temperature: d_temperature(),
            system_prompt: d_system_prompt(),
            concurrency: d_concurrency(),
            slots: d_slots(),
            stream: d_stream(),
            skip_secs: d_skip(),
            fallback: Vec::new(),
        }
    }
}

/// `[storage]`: every key defaults from the one `Default` below (no per-key functions).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawStorage {
    database: PathBuf,
    retain_days: u32,
}

impl Default for RawStorage {
    fn default() -> Self {
        RawStorage {
            database: PathBuf::from("/var/lib/meshai/meshai.db"),
            retain_days: 30,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMemory {
    #[serde(default = "d_window")]
    window_messages: usize,
    #[serde(default = "d_threshold")]
    summarize_threshold: usize,
    #[serde(default = "d_summary_max")]
    summary_max_chars: usize,
    #[serde(default = "d_retrieve")]
    retrieve_exchanges: usize,
    #[serde(default = "d_facts_max")]
    facts_max: usize,
    #[serde(default = "d_fold_tokens")]
    fold_tokens: usize,
    #[serde(default = "d_warm_after_fold")]
    warm_after_fold: bool,
}

impl Default for RawMemory {
    fn default() -> Self {
        RawMemory {
            window_messages: d_window(),
            summarize_threshold: d_threshold(),
            summary_max_chars: d_summary_max(),
            retrieve_exchanges: d_retrieve(),
            facts_max: d_facts_max(),
            fold_tokens: d_fold_tokens(),
            warm_after_fold: d_warm_after_fold(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReply {
    #[serde(default = "d_max_chars")]
    max_chars: usize,
    #[serde(default = "d_max_chunks")]
    max_chunks: usize,
}

impl Default for RawReply {
    fn default() -> Self {
        RawReply {
            max_chars: d_max_chars(),
            max_chunks: d_max_chunks(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLimits {
    #[serde(default = "d_node_messages")]
    node_messages: u32,
    #[serde(default = "d_node_window")]
    node_window_secs: u64,
    #[serde(default = "d_node_queue")]
    node_queue: usize,
    #[serde(default = "d_max_waiting")]
    max_waiting: usize,
    #[serde(default = "d_max_turn_wait")]
    max_turn_wait_secs: u64,
    #[serde(default = "d_new_node_parts")]
    new_node_parts: usize,
    /// No longer used (a node's later messages join its waiting turn); a warning when set.
    #[serde(default)]
    new_node_turns: Option<usize>,
}

impl Default for RawLimits {
    fn default() -> Self {
        RawLimits {
            node_messages: d_node_messages(),
            node_window_secs: d_node_window(),
            node_queue: d_node_queue(),
            max_waiting: d_max_waiting(),
            max_turn_wait_secs: d_max_turn_wait(),
            new_node_parts: d_new_node_parts(),
            new_node_turns: None,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAccess {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
    #[serde(default)]
    admins: Vec<String>,
    #[serde(default)]
    require_pki: RawRequirePki,
    #[serde(default = "d_mqtt")]
    mqtt: String,
}

impl Default for RawAccess {
    fn default() -> Self {
        RawAccess {
            allow: Vec::new(),
            deny: Vec::new(),
            admins: Vec::new(),
            require_pki: RawRequirePki::default(),
            mqtt: d_mqtt(),
        }
    }
}

/// `require_pki`: `"pki_nodes"` or `"all"`; a list of command names is what earlier versions
/// took (it is read as `"pki_nodes"`, with a warning).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawRequirePki {
    Word(String),
    List(Vec<String>),
}

impl Default for RawRequirePki {
    fn default() -> Self {
        RawRequirePki::Word("pki_nodes".into())
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChannels {
    #[serde(default)]
    answer_mentions: bool,
    #[serde(default = "d_mention")]
    mention: String,
    #[serde(default = "d_mention_channels")]
    channels: Vec<u32>,
}

impl Default for RawChannels {
    fn default() -> Self {
        RawChannels {
            answer_mentions: false,
            mention: d_mention(),
            channels: d_mention_channels(),
        }
    }
}

/// `[context]`: every key defaults from the one `Default` below (no per-key functions).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawContext {
    names: bool,
    hops: bool,
    snr: bool,
    distance: bool,
    time: bool,
    /// `system`, `+HH:MM` or `-HH:MM`.
    utc_offset: String,
}

impl Default for RawContext {
    fn default() -> Self {
        let d = ContextConfig::default();
        RawContext {
            names: d.names,
            hops: d.hops,
            snr: d.snr,
            distance: d.distance,
            time: d.time,
            utc_offset: "system".to_string(),
        }
    }
}

/// `[airtime]`: every key defaults from the one `Default` below (no per-key functions).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawAirtime {
    enabled: bool,
    shorten_above: f32,
    shorten_parts: usize,
    wait_above: f32,
    max_wait_secs: u64,
    stale_secs: u64,
    /// Unset: the node's region decides.
    duty_cycle_percent: Option<f32>,
    duty_cycle_shorten_at: f32,
}

impl Default for RawAirtime {
    fn default() -> Self {
        let d = AirtimeConfig::default();
        RawAirtime {
            enabled: d.enabled,
            shorten_above: d.shorten_above,
            shorten_parts: d.shorten_parts,
            wait_above: d.wait_above,
            max_wait_secs: d.max_wait.as_secs(),
            stale_secs: d.stale_after.as_secs(),
            duty_cycle_percent: d.duty_cycle,
            duty_cycle_shorten_at: d.duty_cycle_shorten_at,
        }
    }
}

/// `[mail]`: every key defaults from `MailConfig`'s `Default`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(super) struct RawMail {
    enabled: bool,
    keep_days: u32,
    per_sender: usize,
    per_recipient: usize,
}

impl Default for RawMail {
    fn default() -> Self {
        let d = super::MailConfig::default();
        RawMail {
            enabled: d.enabled,
            keep_days: d.keep_days,
            per_sender: d.per_sender,
            per_recipient: d.per_recipient,
        }
    }
}

/// `[bulletins]`: every key defaults from `BulletinsConfig`'s `Default`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(super) struct RawBulletins {
    pub(super) dir: Option<PathBuf>,
    pub(super) per_day: usize,
    pub(super) channel: Option<u32>,
    pub(super) broadcast: Vec<String>,
}

impl Default for RawBulletins {
    fn default() -> Self {
        let d = super::BulletinsConfig::default();
        RawBulletins {
            dir: d.dir,
            per_day: d.per_day,
            channel: d.channel,
            broadcast: d.broadcast,
        }
    }
}

/// `[bot]`: how the bot speaks.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(super) struct RawBot {
    /// `auto` (the asker's language) or a language code (`de`, `es`, …).
    pub(super) language: String,
}

impl Default for RawBot {
    fn default() -> Self {
        RawBot {
            language: "auto".to_string(),
        }
    }
}

/// `[mesh]`: every key defaults from `MeshConfig`'s `Default`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawMesh {
    enabled: bool,
    /// `metric` or `imperial`.
    units: String,
    positions: bool,
    /// Node ids (`!a1b2c3d4`) or names.
    hidden: Vec<String>,
}

impl Default for RawMesh {
    fn default() -> Self {
        let d = crate::mesh::MeshConfig::default();
        RawMesh {
            enabled: d.enabled,
            units: "metric".to_string(),
            positions: d.positions,
            hidden: Vec::new(),
        }
    }
}

/// `[knowledge]`: every key defaults from the one `Default` below (no per-key functions).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawKnowledge {
    /// Unset: no knowledge folder.
    dir: Option<PathBuf>,
    about: String,
    max_passages: usize,
    max_chars: usize,
    min_score: f64,
    private_to: Vec<String>,
    private_requires_pki: bool,
    /// `[knowledge.embeddings]`; unset: full-text search only.
    embeddings: Option<RawEmbeddings>,
}

/// `[knowledge.embeddings]`: `model` is required; the server defaults to `[llm]`'s.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEmbeddings {
    model: String,
    base_url: Option<String>,
    api_key_env: Option<String>,
    #[serde(default = "d_min_similarity")]
    min_similarity: f64,
}

fn d_min_similarity() -> f64 {
    crate::knowledge::embed::DEFAULT_MIN_SIMILARITY
}

impl Default for RawKnowledge {
    fn default() -> Self {
        let d = KnowledgeConfig::default();
        RawKnowledge {
            dir: d.dir,
            about: d.about,
            max_passages: d.bounds.max_passages,
            max_chars: d.bounds.max_chars,
            min_score: d.bounds.min_score,
            private_to: Vec::new(),
            private_requires_pki: d.private_requires_pki,
            embeddings: None,
        }
    }
}

fn d_baud() -> u32 {
    crate::radio::transport::serial::BAUD
}
fn d_send_gap_ms() -> u64 {
    2000
}
fn d_ack_timeout() -> u64 {
    45
}
fn d_handshake_timeout() -> u64 {
    30
}
fn d_heartbeat() -> u64 {
    300
}
fn d_silence() -> u64 {
    900
}
fn d_duty_pause() -> u64 {
    300
}
fn d_yield() -> bool {
    true
}
fn d_base_url() -> String {
    "http://127.0.0.1:11434/v1".into()
}
fn d_model() -> String {
    "qwen2.5:1.5b".into()
}
fn d_api_key_env() -> String {
    "MESHAI_API_KEY".into()
}
fn d_llm_timeout() -> u64 {
    90
}
fn d_max_tokens() -> u32 {
    200
}
fn d_temperature() -> f32 {
    0.7
}
fn d_system_prompt() -> String {
    DEFAULT_SYSTEM_PROMPT.into()
}
fn d_concurrency() -> usize {
    1
}
fn d_slots() -> RawSlots {
    RawSlots::Word("auto".into())
}
fn d_stream() -> bool {
    true
}
fn d_skip() -> u64 {
    60
}
fn d_facts_max() -> usize {
    12
}
fn d_window() -> usize {
    2
}
fn d_threshold() -> usize {
    10
}
fn d_fold_tokens() -> usize {
    480
}

fn d_warm_after_fold() -> bool {
    true
}
fn d_summary_max() -> usize {
    240
}
fn d_retrieve() -> usize {
    2
}
fn d_max_chars() -> usize {
    150
}
fn d_max_chunks() -> usize {
    4
}
fn d_node_messages() -> u32 {
    10
}
fn d_node_window() -> u64 {
    600
}
fn d_node_queue() -> usize {
    10
}
fn d_mqtt() -> String {
    "no_memory".into()
}
fn d_max_waiting() -> usize {
    32
}
fn d_max_turn_wait() -> u64 {
    300
}
fn d_new_node_parts() -> usize {
    2
}
fn d_mention() -> String {
    "@ai".into()
}
fn d_mention_channels() -> Vec<u32> {
    vec![0]
}
