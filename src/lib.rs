//! meshai: a Meshtastic node you can text, answered by an OpenAI-compatible LLM.
//!
//! `main.rs` only parses the command line, sets up logging and signals, and calls into this
//! crate; [`run`] is the whole daemon, so tests run it in-process. See `docs/architecture.md`
//! for the codemap and the invariants.
//!
//! The public surface is what the binary, the integration tests (`tests/it/`), the benches,
//! the examples and the fuzz targets use, and nothing else: everything is `pub(crate)` unless
//! one of them needs it (about 450 items). Who needs what:
//! - the binary: [`run`], `config` (load, locate), `cli` (each command's `run`), `knowledge`'s
//!   `Reindex`, `node::NodeId`;
//! - the tests and benches: the same, plus what they assert on or drive — `store::Store` and
//!   its rows, `radio` (the codec, packets, the simulated node's frames), `lang` (the texts
//!   the bot says), `memory::layout`'s and `knowledge::render`'s wording, `chunk`'s limits,
//!   `status_file`, `responder`'s settings ([`run_with`], [`responder_settings`], [`llm_pool`]) and how a
//!   prefill is told from an answer (`responder::PREFILL_TOKENS`);
//! - the fuzz targets: `radio::codec` and `chunk::chunk`.
//!
//! A new item starts `pub(crate)`; it becomes `pub` when one of those uses it.

#![forbid(unsafe_code)]

pub(crate) mod airtime;
pub mod chunk;
pub mod cli;
pub mod clock;
pub mod config;
pub(crate) mod facts;
pub mod knowledge;
pub mod lang;
pub(crate) mod llm;
pub mod memory;
pub mod mesh;
pub mod node;
pub mod radio;
pub mod responder;
pub(crate) mod secret;
pub mod status_file;
pub mod store;
pub(crate) mod systemd;
#[cfg(test)]
mod test_util;
pub mod text;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::chunk::{ChunkLimits, budget_hint};
use crate::clock::Zone;
use crate::config::{Config, SlotsSetting, TimeZoneSetting};
use crate::knowledge::Reindex;
use crate::lang::{Lang, Part, part};
use crate::llm::{LlmClient, LlmPool, LlmSettings};
use crate::radio::LinkState;
use crate::radio::link::Radio;
use crate::responder::system_prompt::SystemPrompt;
use crate::responder::{RadioWatch, Responder, ResponderSettings, Sink};
use crate::secret::redact_urls;
use crate::store::{Damage, Health, Store, StoreError};
use crate::systemd::Systemd;

/// Inbound events buffered between the radio reader and the responder's intake. The intake
/// never waits on the LLM, so this only absorbs bursts.
const INBOUND_QUEUE: usize = 256;

/// Packet byte budget: the firmware refuses much more than ~230 bytes; clients cap at 200.
pub(crate) const MAX_PACKET_BYTES: usize = 200;

/// How long in-flight sends may take to finish after a shutdown signal.
const DRAIN: Duration = Duration::from_secs(4);

/// How long `[llm] slots = "auto"` waits for the server's `/props` at start.
const SLOTS_PROBE: Duration = Duration::from_secs(3);

/// The chunker limits a config asks for.
pub(crate) fn chunk_limits(config: &Config) -> ChunkLimits {
    ChunkLimits {
        max_chars: config.reply.max_chars,
        max_bytes: MAX_PACKET_BYTES,
        max_chunks: config.reply.max_chunks,
    }
}

/// The LLM client settings a config asks for.
pub(crate) fn llm_settings(config: &Config) -> LlmSettings {
    LlmSettings {
        base_url: config.llm.base_url.clone(),
        model: config.llm.model.clone(),
        api_key: config.llm.api_key.clone(),
        timeout: config.llm.timeout,
        max_tokens: config.llm.max_tokens,
        temperature: config.llm.temperature,
        stream: config.llm.stream,
    }
}

/// The settings of each `[[llm.fallback]]` server, in order: the server's own keys, the
/// rest from `[llm]`.
pub(crate) fn fallback_settings(config: &Config) -> Vec<LlmSettings> {
    config
        .llm
        .fallbacks
        .iter()
        .map(|f| LlmSettings {
            base_url: f.base_url.clone(),
            model: f.model.clone(),
            api_key: f.api_key.clone(),
            timeout: f.timeout,
            temperature: f.temperature,
            ..llm_settings(config)
        })
        .collect()
}

/// The failover chain a config asks for: `[llm]`, then each `[[llm.fallback]]`.
pub fn llm_pool(config: &Config) -> anyhow::Result<LlmPool> {
    let primary = LlmClient::new(llm_settings(config)).context("cannot set up the LLM client")?;
    let fallbacks = fallback_settings(config)
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            LlmClient::new(s)
                .with_context(|| format!("cannot set up the LLM client of fallback {}", i + 1))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(LlmPool::new(primary, fallbacks, config.llm.skip))
}

/// The responder settings a config asks for; the system prompt gets the character budget
/// and meshai's own guidance (`memory::layout::GUIDANCE`: the asker's language, what the
/// memory and the notes are). With a knowledge folder it also tells the model how to use its
/// notes — as soon as the index holds passages (until [`SystemPrompt::follow`] is given the
/// indexer's watch, whenever a folder is set).
pub fn responder_settings(config: &Config) -> ResponderSettings {
    let chunk = chunk_limits(config);
    // With `[mesh]` on, how to answer from the mesh facts: the same sentence on every turn,
    // with or without the knowledge hint.
    // The default prompt and `about` speak the conversation's language; an operator's own
    // stay as written (the model still answers in the asker's).
    let operators = |lang: Lang| {
        let own = config.llm.system_prompt.trim();
        if own == config::DEFAULT_SYSTEM_PROMPT {
            part(lang, Part::DefaultSystem).to_string()
        } else {
            config.llm.system_prompt.clone()
        }
    };
    let prompt = move |lang: Lang, knowledge: &str| {
        let mesh = if config.mesh.enabled {
            format!(" {}", part(lang, Part::MeshHint))
        } else {
            String::new()
        };
        format!(
            "{}{knowledge}{mesh} {} {}",
            operators(lang),
            budget_hint(lang, &chunk),
            part(lang, Part::Guidance)
        )
    };
    let with_notes = config.knowledge.dir.as_ref().map(|_| {
        move |lang: Lang| {
            prompt(
                lang,
                &format!(
                    " {}",
                    knowledge::render::system_hint(
                        lang,
                        &knowledge::about_in(lang, &config.knowledge.about),
                    )
                ),
            )
        }
    });
    ResponderSettings {
        system_prompt: SystemPrompt::new(
            |lang| prompt(lang, ""),
            with_notes,
            knowledge::Indexed::fixed(config.knowledge.dir.is_some()),
        ),
        language: config.language,
        model: config.llm.model.clone(),
        max_tokens: config.llm.max_tokens,
        memory: config.memory.clone(),
        chunk,
        limits: config.limits.clone(),
        access: config.access.clone(),
        channels: config.channels.clone(),
        context: config.context.clone(),
        zone: Arc::new(local_zone(config.context.time_zone)),
        concurrency: config.llm.concurrency,
        slots: match config.llm.slots {
            SlotsSetting::Fixed(n) => Some(n),
            SlotsSetting::Auto | SlotsSetting::Off => None,
        },
        airtime: config.airtime.clone(),
        knowledge: config.knowledge.clone(),
        embedder: knowledge::Embedder::configured(&config.knowledge),
        mesh: config.mesh.clone(),
        mail: config.mail,
        bulletins: config.bulletins.clone(),
    }
}

/// The zone for the local time the model is told: the system's (`TZ`, else `/etc/localtime`;
/// UTC when neither can be read), or the configured offset.
fn local_zone(setting: TimeZoneSetting) -> Zone {
    match setting {
        TimeZoneSetting::Fixed(minutes) => Zone::fixed(minutes * 60),
        TimeZoneSetting::System => Zone::system().unwrap_or_else(|e| {
            warn!(
                error = %e,
                "cannot read the time zone; local times are given in UTC ([context] utc_offset sets one)"
            );
            Zone::fixed(0)
        }),
    }
}

/// The llama.cpp server slots to use: as configured, or (`auto`) as the server says at
/// `GET /props` within a few seconds. `None`: plain OpenAI requests.
pub(crate) async fn resolve_slots(config: &Config, llm: &LlmClient) -> Option<u32> {
    match config.llm.slots {
        SlotsSetting::Off => None,
        SlotsSetting::Fixed(n) => Some(n),
        SlotsSetting::Auto => match llm.server_slots(SLOTS_PROBE).await {
            Ok(Some(n)) => {
                info!(
                    slots = n,
                    "llama.cpp server detected: pinning nodes to slots, summaries to their own"
                );
                Some(n)
            }
            Ok(None) => {
                info!("LLM server is not llama.cpp's: plain OpenAI requests");
                None
            }
            Err(e) => {
                warn!(error = %e, "could not ask the LLM server for its slots (set [llm] slots to skip this); plain OpenAI requests");
                None
            }
        },
    }
}

/// Runs the daemon until `shutdown` is cancelled, then stops taking DMs, lets in-flight sends
/// finish for a few seconds, closes the database and returns. Old data expires at start and
/// once a day (`[storage] retain_days`). The link's state is published in the status file
/// beside the database (`status_file`) while the daemon runs.
///
/// A database that will not open is returned as the [`StoreError`](store::StoreError)
/// itself, without context, so the command line can add its advice
/// (`cli::advice::run_error`) — unless it is damaged: then the daemon runs without memory
/// where the file fails (see [`open_store`]).
pub async fn run(config: Config, shutdown: CancellationToken) -> anyhow::Result<()> {
    run_with(config, shutdown, Reindex::default()).await
}

/// [`run`], with the knowledge folder (`[knowledge] dir`) indexed at start and again each time
/// `reindex` is asked (`main.rs` asks on SIGHUP).
pub async fn run_with(
    config: Config,
    shutdown: CancellationToken,
    reindex: Reindex,
) -> anyhow::Result<()> {
    let store = open_store(&config.database).await?;
    let settings = responder_settings(&config);
    // Turns use the folder once its index holds passages: what the last run indexed until
    // the indexer has looked again.
    let (indexed_tx, indexed) = knowledge::Indexed::new(knowledge_indexed(&store).await);
    let settings = ResponderSettings {
        system_prompt: settings.system_prompt.follow(indexed),
        ..settings
    };
    let stop_knowledge = CancellationToken::new();
    let indexer = spawn_indexer(
        &config,
        &settings,
        &store,
        reindex,
        indexed_tx,
        &stop_knowledge,
    );
    let stop_expiry = CancellationToken::new();
    let expiry = tokio::spawn(store::retention::daily(
        store.clone(),
        config.retention,
        clock::unix_now,
        stop_expiry.clone(),
    ));
    let llm = llm_pool(&config)?;
    let (inbound_tx, inbound_rx) = mpsc::channel(INBOUND_QUEUE);
    let kept = kept_view(&store, &config).await;
    let radio = Radio::spawn_seeded(config.radio.clone(), inbound_tx, kept);
    let stop_mesh = CancellationToken::new();
    let keeper = tokio::spawn(store::mesh::keep(
        store.clone(),
        radio.mesh(),
        config.retention,
        clock::unix_now,
        stop_mesh.clone(),
    ));
    // Where `meshai check` reads how the link is, instead of taking the node from us.
    let status_file = status_file::publish::spawn(
        status_file::path_for(&config.database),
        &config.radio.transport,
        radio.state(),
        radio.activity(),
    );
    let settings = ResponderSettings {
        slots: resolve_slots(&config, llm.primary()).await,
        ..settings
    };
    let (outbox, watch) = (Sink::Radio(radio.outbox()), radio_watch(&radio));
    let responder = Responder::spawn(settings, store.clone(), llm, outbox, watch, inbound_rx);
    announce(&config);

    let outcome = supervise(&radio, &shutdown).await;
    info!("shutting down: no new messages, finishing sends");
    responder.stop(Duration::from_secs(1)).await;
    stop_expiry.cancel();
    let _ = expiry.await;
    stop_knowledge.cancel();
    if let Some(indexer) = indexer {
        let _ = indexer.await;
    }
    radio.close(DRAIN).await;
    // After the radio: its last view is saved.
    stop_mesh.cancel();
    let _ = keeper.await;
    status_file.stop().await;
    if let Err(e) = store.close().await {
        warn!(error = %e, "database did not close cleanly");
    }
    info!("stopped");
    outcome
}

/// What the responder watches of the radio: the link, the channel, the activity, the mesh.
fn radio_watch(radio: &Radio) -> RadioWatch {
    RadioWatch {
        link: radio.state(),
        channel: radio.channel(),
        activity: radio.activity(),
        mesh: radio.mesh(),
    }
}

/// Logs that meshai runs, and checks in the background that the server has the model: a
/// model it does not have fails every answer with a 404, so that is said, with the fix,
/// before the first DM (bounded by its timeout; nothing waits for it).
fn announce(config: &Config) {
    info!(
        model = %config.llm.model,
        llm = %redact_urls(&config.llm.base_url),
        fallbacks = config.llm.fallbacks.len(),
        "meshai running"
    );
    tokio::spawn(check_model(
        config.llm.base_url.clone(),
        config.llm.model.clone(),
    ));
}

/// The knowledge folder's indexer, when `[knowledge] dir` is set.
fn spawn_indexer(
    config: &Config,
    settings: &ResponderSettings,
    store: &Store,
    reindex: Reindex,
    indexed: tokio::sync::watch::Sender<bool>,
    stop: &CancellationToken,
) -> Option<tokio::task::JoinHandle<()>> {
    let dir = config.knowledge.dir.clone()?;
    let watch = knowledge::reload::Watch {
        dir,
        private_readers: !config.knowledge.private_to.is_empty() || !config.access.allow.is_empty(),
        embedder: settings.embedder.clone(),
    };
    Some(tokio::spawn(knowledge::reload::serve(
        store.clone(),
        watch,
        reindex,
        indexed,
        stop.clone(),
    )))
}

/// The mesh view the last run kept: readings told with their age until the node's handshake
/// and broadcasts bring newer ones (an empty view when it cannot be read).
async fn kept_view(store: &Store, config: &Config) -> radio::MeshView {
    match store
        .load_mesh(config.retention.cutoff(clock::unix_now()))
        .await
    {
        Ok(view) => {
            info!(nodes = view.len(), "mesh view kept from the last run");
            view
        }
        Err(e) => {
            warn!(error = %e, "the kept mesh view could not be read; starting without it");
            radio::MeshView::new()
        }
    }
}

/// Whether the knowledge index holds passages (false when it cannot be read: the indexer
/// says otherwise once it has looked).
pub(crate) async fn knowledge_indexed(store: &Store) -> bool {
    store
        .knowledge_index()
        .await
        .is_ok_and(|index| index.passages > 0)
}

/// Opens the database and checks it (`PRAGMA quick_check`), with one clear log line: ok; a
/// damaged search index, rebuilt from the messages; or a damaged file (the store's error
/// line, which says what to do). A damaged file, even one that does not open, still gives a
/// store: every call is tried, and the bot answers without memory where it fails.
async fn open_store(path: &std::path::Path) -> Result<Store, StoreError> {
    let store = match Store::open(path) {
        Ok(store) => store,
        Err(e) if e.damage().is_some() => Store::open_damaged(path, &e)?,
        Err(e) => return Err(e),
    };
    let started = tokio::time::Instant::now();
    match store.check().await {
        Ok(Health::Ok) => info!(
            database = %path.display(),
            ms = started.elapsed().as_millis() as u64,
            "database check ok"
        ),
        Ok(Health::IndexDamaged(problem)) => {
            warn!(%problem, "the database's search index is damaged; rebuilding it from the stored messages");
            match store.rebuild_index().await {
                Ok(n) => info!(exchanges = n, "search index rebuilt"),
                Err(e) => store.note_damage(Damage::Index, &e),
            }
        }
        Ok(Health::Damaged(problem)) => store.note_damage(Damage::File, &problem),
        Err(e) => warn!(error = %e, "could not check the database"),
    }
    // Trust fails closed on a key table that cannot be read (the responder's screen reads it
    // again and acts on it); said here with the check.
    if let Err(e) = store.pki_nodes().await {
        tracing::error!(
            error = %e,
            "database check: the key table (node_keys) cannot be read; no DM can be proven              until you {}",
            crate::responder::identity::keys::RECOVERY
        );
    }
    Ok(store)
}

/// Warns when the server's model list lacks `model`. Silent when the list cannot be had: the
/// server may still be starting, and the first answer reports its own error.
async fn check_model(base_url: String, model: String) {
    use crate::llm::models::{self, ListApi};
    let Ok(list) = models::list(&base_url, ListApi::OpenAi, Duration::from_secs(10)).await else {
        return;
    };
    if !list.is_empty() && !list.iter().any(|m| m.name == model) {
        let names: Vec<&str> = list.iter().map(|m| m.name.as_str()).collect();
        let base_url = redact_urls(&base_url);
        warn!(
            "[llm] model {model} is not among the models {base_url} lists ({}): install it \
             (Ollama: `ollama pull {model}`) or set [llm] model to one of those; llama.cpp's \
             server ignores the name",
            names.join(", ")
        );
    }
}

/// The main loop: tells systemd when the radio is ready and how the link is, pings the
/// watchdog while the loop runs, and returns when `shutdown` is cancelled — or with an error
/// when the link task ended by itself (systemd then restarts us).
async fn supervise(radio: &Radio, shutdown: &CancellationToken) -> anyhow::Result<()> {
    let systemd = Systemd::from_env();
    let mut state = radio.state();
    let mut ready_sent = false;
    let every = systemd.watchdog_every.unwrap_or(Duration::from_secs(3600));
    let mut watchdog = tokio::time::interval(every);
    watchdog.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let status = match &*state.borrow_and_update() {
            LinkState::Ready { local, .. } => Some(format!(
                "radio ready: {} {} (fw {})",
                local.num, local.names.long_name, local.firmware_version
            )),
            LinkState::Down { reason, .. } => Some(format!("radio down: {reason}")),
            LinkState::Connecting | LinkState::Handshaking => {
                Some("connecting to the radio".into())
            }
            LinkState::Closed => None,
        };
        if let Some(status) = status {
            if !ready_sent && state.borrow().is_ready() {
                systemd.ready(&status);
                ready_sent = true;
            } else {
                systemd.status(&status);
            }
        }
        tokio::select! {
            _ = shutdown.cancelled() => break,
            changed = state.changed() => if changed.is_err() {
                systemd.stopping();
                anyhow::bail!("the radio link task ended unexpectedly");
            },
            _ = watchdog.tick() => if systemd.watchdog_every.is_some() { systemd.watchdog() },
        }
    }
    systemd.stopping();
    Ok(())
}
