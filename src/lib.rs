//! meshai: a Meshtastic node you can text, answered by an OpenAI-compatible LLM.
//!
//! `main.rs` only parses the command line, sets up logging and signals, and calls into this
//! crate; [`run`] is the whole daemon, so tests run it in-process. See `docs/architecture.md`
//! for the codemap and the invariants.

pub mod chunk;
pub mod cli;
pub mod config;
pub mod llm;
pub mod memory;
pub mod node;
pub mod radio;
pub mod responder;
pub mod secret;
pub mod systemd;
#[cfg(test)]
mod test_util;

use std::time::Duration;

use anyhow::Context as _;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::chunk::{ChunkLimits, budget_hint};
use crate::config::Config;
use crate::llm::{LlmClient, LlmSettings};
use crate::memory::store::Store;
use crate::radio::LinkState;
use crate::radio::link::Radio;
use crate::responder::{Responder, ResponderSettings, Sink};
use crate::systemd::Systemd;

/// Inbound events buffered between the radio reader and the responder's intake. The intake
/// never waits on the LLM, so this only absorbs bursts.
const INBOUND_QUEUE: usize = 256;

/// Packet byte budget: the firmware refuses much more than ~230 bytes; clients cap at 200.
pub const MAX_PACKET_BYTES: usize = 200;

/// How long in-flight sends may take to finish after a shutdown signal.
const DRAIN: Duration = Duration::from_secs(4);

/// The chunker limits a config asks for.
pub fn chunk_limits(config: &Config) -> ChunkLimits {
    ChunkLimits {
        max_chars: config.reply.max_chars,
        max_bytes: MAX_PACKET_BYTES,
        max_chunks: config.reply.max_chunks,
    }
}

/// The LLM client settings a config asks for.
pub fn llm_settings(config: &Config) -> LlmSettings {
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

/// The responder settings a config asks for; the system prompt gets the character budget.
pub fn responder_settings(config: &Config) -> ResponderSettings {
    let chunk = chunk_limits(config);
    ResponderSettings {
        system_prompt: format!("{} {}", config.llm.system_prompt, budget_hint(&chunk)),
        model: config.llm.model.clone(),
        max_tokens: config.llm.max_tokens,
        memory: config.memory.clone(),
        chunk,
        limits: config.limits.clone(),
        access: config.access.clone(),
        channels: config.channels.clone(),
        concurrency: config.llm.concurrency,
    }
}

/// Runs the daemon until `shutdown` is cancelled, then stops taking DMs, lets in-flight sends
/// finish for a few seconds, closes the database and returns.
pub async fn run(config: Config, shutdown: CancellationToken) -> anyhow::Result<()> {
    let store = Store::open(&config.database)
        .with_context(|| format!("cannot open the database {}", config.database.display()))?;
    let llm = LlmClient::new(llm_settings(&config)).context("cannot set up the LLM client")?;
    let (inbound_tx, inbound_rx) = mpsc::channel(INBOUND_QUEUE);
    let radio = Radio::spawn(config.radio.clone(), inbound_tx);
    let responder = Responder::spawn(
        responder_settings(&config),
        store.clone(),
        llm,
        Sink::Radio(radio.outbox()),
        radio.state(),
        inbound_rx,
    );
    info!(model = %config.llm.model, llm = %config.llm.base_url, "meshai running");

    let outcome = supervise(&radio, &shutdown).await;
    info!("shutting down: no new messages, finishing sends");
    responder.stop(Duration::from_secs(1)).await;
    radio.close(DRAIN).await;
    if let Err(e) = store.close().await {
        warn!(error = %e, "database did not close cleanly");
    }
    info!("stopped");
    outcome
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
