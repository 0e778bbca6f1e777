//! `meshai check`: tries the config, the database, the knowledge folder (when one is set),
//! the LLM server (and each `[[llm.fallback]]`) and the radio one after the other and prints
//! one `✓`/`✗` line for each, with a line of advice under a failure (or under a line that
//! passed but wants something done).
//!
//! Where the server is llama.cpp's, a line says what its slots do to the prompt cache
//! (`cache`); it never fails the check.
//!
//! The checks after the config are independent: each runs even when an earlier one failed, so
//! one run shows everything that is wrong.
//!
//! The radio is asked through the running daemon when it holds the node (`held`): its status
//! file, not a connection that would take the node from it.

mod cache;
mod held;

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{advice, format, knowledge, open_store};
use crate::config::locate::Env;
use crate::config::{Config, ConfigError};
use crate::knowledge::{Embedder, folder, plan};
use crate::llm::{ChatMessage, ChatRole, LlmClient, LlmError, LlmSettings};
use crate::radio::link::Radio;
use crate::radio::{DownReason, LinkState, LocalNode, RadioConfig};
use crate::secret::redact_urls;
use crate::store::{Damage, Health};

/// Extra time over the handshake timeout before the radio check gives up by itself: the link
/// reports its own handshake timeout first when it can.
const RADIO_MARGIN: Duration = Duration::from_secs(5);

/// Inbound events the radio may deliver while the check waits; they are dropped.
const INBOUND_QUEUE: usize = 16;

/// The result of one check, ready to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub(crate) ok: bool,
    /// The `✓`/`✗` line, without the mark.
    pub(crate) line: String,
    /// What to do about a failure.
    pub(crate) advice: Option<String>,
}

impl Outcome {
    fn ok(line: String) -> Outcome {
        Outcome {
            ok: true,
            line,
            advice: None,
        }
    }

    fn failed(line: String, advice: Option<String>) -> Outcome {
        Outcome {
            ok: false,
            line,
            advice,
        }
    }

    /// The lines to print: the marked line, then the advice indented under it.
    pub fn render(&self) -> String {
        let mark = if self.ok { '✓' } else { '✗' };
        match &self.advice {
            Some(a) => format!("{mark} {}\n  → {a}\n", self.line),
            None => format!("{mark} {}\n", self.line),
        }
    }
}

/// What the command line asks of the check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Open a TCP node even when a running meshai may hold it and its state cannot be read.
    pub connect: bool,
}

/// Runs every check for the config at `path` (or reports that none was found), printing as
/// it goes; `env` is the environment (where the user's default database is). Returns true
/// when all passed.
pub async fn run(
    path: Result<PathBuf, ConfigError>,
    options: Options,
    env: Env<'_>,
    out: &mut (dyn Write + Send),
) -> io::Result<bool> {
    let loaded = path.and_then(|p| crate::config::load(&p).map(|c| (p, c)));
    let config = match loaded {
        Ok((path, (config, warnings))) => {
            let line = format!(
                "config {} ({}, model {})",
                path.display(),
                config.radio.transport,
                config.llm.model
            );
            print(out, &Outcome::ok(line))?;
            for w in warnings {
                writeln!(out, "! warning: {w}")?;
            }
            config
        }
        Err(e) => {
            print(out, &Outcome::failed(format!("config: {e}"), None))?;
            return Ok(false);
        }
    };
    // One after the other, each printed as soon as it is known; each is bounded by its own
    // timeout.
    let mut all = true;
    let outcome = database(&config).await;
    all &= outcome.ok;
    print(out, &outcome)?;
    if let Some(outcome) = knowledge(&config).await {
        all &= outcome.ok;
        print(out, &outcome)?;
    }
    let outcome = llm(&config).await;
    all &= outcome.ok;
    print(out, &outcome)?;
    if outcome.ok
        && let Some(cache) = cache::llm_cache(&config).await
    {
        print(out, &cache)?;
    }
    for outcome in fallbacks(&config).await {
        all &= outcome.ok;
        print(out, &outcome)?;
    }
    if let Some(outcome) = embeddings(&config).await {
        all &= outcome.ok;
        print(out, &outcome)?;
    }
    let outcome = held::radio(&config, options, env).await;
    all &= outcome.ok;
    print(out, &outcome)?;
    Ok(all)
}

fn print(out: &mut (dyn Write + Send), outcome: &Outcome) -> io::Result<()> {
    out.write_all(outcome.render().as_bytes())?;
    out.flush()
}

/// Opens (creating and migrating if needed) the database, checks it (`PRAGMA quick_check`)
/// and counts what it holds.
pub async fn database(config: &Config) -> Outcome {
    let path = config.database.display();
    let store = match open_store(&config.database).await {
        Ok(store) => store,
        Err(e) => return Outcome::failed(format!("database: {e}"), advice::database(&e)),
    };
    let health = store.check().await;
    let keys = store.pki_nodes().await;
    let stats = store.stats().await;
    let closed = store.close().await;
    let damaged = |damage, problem| {
        Outcome::failed(
            format!("database {path}: {damage}: {problem}"),
            Some(advice::damaged(damage)),
        )
    };
    if let Err(e) = keys {
        return Outcome::failed(
            format!("database {path}: the key table (node_keys) cannot be read: {e}"),
            Some(advice::keys_unreadable()),
        );
    }
    match health {
        Ok(Health::Damaged(problem)) => return damaged(Damage::File, problem),
        Ok(Health::IndexDamaged(problem)) => return damaged(Damage::Index, problem),
        Ok(Health::Ok) | Err(_) => {}
    }
    match (stats, closed) {
        (Ok(stats), Ok(())) => {
            let messages: u64 = stats.iter().map(|s| s.messages).sum();
            Outcome::ok(format!(
                "database {path} ({}, {})",
                crate::text::count(stats.len() as u64, "node", "nodes"),
                crate::text::count(messages, "message", "messages")
            ))
        }
        (Err(e), _) | (_, Err(e)) => {
            Outcome::failed(format!("database {path}: {e}"), advice::database(&e))
        }
    }
}

/// The knowledge folder, when one is set: readable, what its index holds, and whether the
/// folder changed since (a walk, nothing read).
pub async fn knowledge(config: &Config) -> Option<Outcome> {
    let dir = config.knowledge.dir.clone()?;
    let walk_dir = dir.clone();
    let walked =
        tokio::task::spawn_blocking(move || folder::walk(&walk_dir, &CancellationToken::new()))
            .await;
    let found = match walked {
        Ok(Ok((found, _))) => found,
        Ok(Err(e)) => {
            return Some(Outcome::failed(
                format!("knowledge {}: {e}", dir.display()),
                Some(advice::knowledge_folder(&dir, &e)),
            ));
        }
        Err(e) => return Some(Outcome::failed(format!("knowledge: {e}"), None)),
    };
    let store = match open_store(&config.database).await {
        Ok(store) => store,
        Err(e) => return Some(Outcome::failed(format!("knowledge: {e}"), None)),
    };
    let index = store.knowledge_index().await;
    let files = store.knowledge_files().await;
    let embedded = match &config.knowledge.embeddings {
        Some(e) => Some((
            e.model.clone(),
            store.knowledge_embedded(e.model.clone()).await,
        )),
        None => None,
    };
    let _ = store.close().await;
    let (index, files) = match (index, files) {
        (Ok(i), Ok(f)) => (i, f),
        (Err(e), _) | (_, Err(e)) => {
            return Some(Outcome::failed(format!("knowledge: {e}"), None));
        }
    };
    let resplit = index
        .splitter
        .is_some_and(|v| v != crate::knowledge::split::VERSION);
    let plan = plan::plan(&files, &found, resplit);
    let pending = plan.read.len() + plan.skip.len() + plan.remove.len();
    let readers = !config.knowledge.private_to.is_empty() || !config.access.allow.is_empty();
    let mut line = knowledge::check_line(&dir, &index, crate::clock::unix_now());
    let mut advice = advice::knowledge_index(&index, pending, readers);
    if let Some((model, embedded)) = embedded {
        match embedded {
            Ok(e) => {
                line.push_str(&format!("; {}", knowledge::embedded_line(&model, &e)));
                if e.embedded < e.passages && pending == 0 {
                    let more = "the rest are embedded at the daemon's next reindex (or run \
                                `meshai knowledge reindex`); check that the embedding server \
                                serves the model";
                    advice = Some(match advice {
                        Some(a) => format!("{a}; {more}"),
                        None => more.to_string(),
                    });
                }
            }
            Err(e) => return Some(Outcome::failed(format!("knowledge: {e}"), None)),
        }
    }
    Some(Outcome {
        ok: true,
        line,
        advice,
    })
}

/// Sends one tiny request (`max_tokens = 1`) to the configured model.
pub(crate) async fn llm(config: &Config) -> Outcome {
    let l = &config.llm;
    let what = format!("llm {} model {}", redact_urls(&l.base_url), l.model);
    server(what, crate::llm_settings(config), l.api_key_env.as_deref()).await
}

/// [`llm`] for each `[[llm.fallback]]`, in order.
pub(crate) async fn fallbacks(config: &Config) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    let settings = crate::fallback_settings(config);
    for (i, (f, settings)) in config.llm.fallbacks.iter().zip(settings).enumerate() {
        let what = format!(
            "llm fallback {} {} model {}",
            i + 1,
            redact_urls(&f.base_url),
            f.model
        );
        outcomes.push(server(what, settings, f.api_key_env.as_deref()).await);
    }
    outcomes
}

/// The embedding model of `[knowledge.embeddings]`, when a folder and one are set: one
/// question's vector, within the time a turn gives it.
pub(crate) async fn embeddings(config: &Config) -> Option<Outcome> {
    let e = config.knowledge.embeddings.as_ref()?;
    config.knowledge.dir.as_ref()?;
    let what = format!("embeddings {} model {}", redact_urls(&e.base_url), e.model);
    let embedder = match Embedder::new(e) {
        Ok(embedder) => embedder,
        Err(e) => return Some(Outcome::failed(format!("{what}: {e}"), None)),
    };
    let started = Instant::now();
    let result = embedder.question("Where does the club meet?").await;
    let ms = started.elapsed().as_millis();
    Some(match result {
        Ok(v) => Outcome::ok(format!("{what} answered in {ms} ms ({} values)", v.len())),
        Err(err) => Outcome::failed(
            format!("{what}: {err}"),
            Some(advice::embeddings(&err, &e.model)),
        ),
    })
}

/// One server of the chain: one tiny request, within its timeout.
async fn server(what: String, settings: LlmSettings, api_key_env: Option<&str>) -> Outcome {
    let (base_url, model) = (settings.base_url.clone(), settings.model.clone());
    let client = match LlmClient::new(settings) {
        Ok(client) => client,
        Err(e) => return Outcome::failed(format!("{what}: {e}"), None),
    };
    let started = Instant::now();
    let result = client
        .complete(&[ChatMessage::new(ChatRole::User, "ping")], 1)
        .await;
    let ms = started.elapsed().as_millis();
    match result {
        // One token may well be nothing after clean-up; the server did answer.
        Ok(_) | Err(LlmError::Empty) => Outcome::ok(format!("{what} answered in {ms} ms")),
        Err(e) => Outcome::failed(
            format!("{what}: {e}"),
            advice::llm(&e, &base_url, &model, api_key_env),
        ),
    }
}

/// How a handshake attempt ended.
pub(crate) enum Link {
    Ready(Arc<LocalNode>),
    Down(DownReason),
    /// The link closed, or its task ended, before it was ready or down.
    Ended(&'static str),
    /// Still connecting or handshaking when the check gave up.
    Stuck(LinkState),
}

/// Connects to the node, waits for the handshake to finish and closes the link again (only
/// when no running meshai holds it: `held::radio`).
pub async fn radio(config: &Config) -> Outcome {
    let r = &config.radio;
    let what = format!("radio {}", r.transport);
    match handshake(r).await {
        Link::Ready(local) => Outcome {
            ok: true,
            line: format!(
                "{what}: node {} \"{}\", firmware {}, hop limit {}, {} in its node DB{}",
                local.num,
                format::printable(&local.names.long_name),
                format::printable(&local.firmware_version),
                local.hop_limit,
                match local.known_nodes {
                    1 => "1 node".to_string(),
                    n => format!("{n} nodes"),
                },
                if local.licensed {
                    ", licensed (ham) mode"
                } else {
                    ""
                }
            ),
            advice: local.licensed.then(advice::licensed),
        },
        Link::Down(reason) => {
            let advice = advice::radio(&reason, &r.transport);
            Outcome::failed(format!("{what}: {reason}"), advice)
        }
        Link::Ended(why) => Outcome::failed(format!("{what}: {why}"), None),
        Link::Stuck(LinkState::Handshaking) => Outcome::failed(
            format!(
                "{what}: connected, but no handshake within {} s",
                r.handshake_timeout.as_secs()
            ),
            Some(advice::handshake()),
        ),
        Link::Stuck(_) => Outcome::failed(
            format!(
                "{what}: could not connect within {} s",
                (r.handshake_timeout + RADIO_MARGIN).as_secs()
            ),
            Some(advice::handshake()),
        ),
    }
}

/// Connects with `r`, waits for the handshake (at most its timeout plus a margin) and closes
/// the link again, politely (`ToRadio.disconnect`). Shared with `meshai init`.
pub(crate) async fn handshake(r: &RadioConfig) -> Link {
    let (inbound_tx, mut inbound_rx) = mpsc::channel(INBOUND_QUEUE);
    // Messages that arrive during the check are not ours to answer; keep the link unblocked.
    let drain = tokio::spawn(async move { while inbound_rx.recv().await.is_some() {} });
    let radio = Radio::spawn(r.clone(), inbound_tx);
    let link = wait_ready(&radio, r.handshake_timeout + RADIO_MARGIN).await;
    radio.close(Duration::ZERO).await;
    drain.abort();
    link
}

/// Waits for the first `Ready` or `Down` the link publishes, at most `limit`.
async fn wait_ready(radio: &Radio, limit: Duration) -> Link {
    let mut state = radio.state();
    let deadline = Instant::now() + limit;
    loop {
        let now = state.borrow_and_update().clone();
        match now {
            LinkState::Ready { local, .. } => return Link::Ready(local),
            LinkState::Down { reason, .. } => return Link::Down(reason),
            LinkState::Closed => return Link::Ended("the radio link closed"),
            LinkState::Connecting | LinkState::Handshaking => {}
        }
        match tokio::time::timeout_at(deadline, state.changed()).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return Link::Ended("the radio link task ended"),
            Err(_) => return Link::Stuck(now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_marks_and_advice() {
        let check = |o: Outcome, want: &str| assert_eq!(o.render(), want);
        check(Outcome::ok("database x".into()), "✓ database x\n");
        check(
            Outcome::failed("llm y: timed out".into(), Some("raise it".into())),
            "✗ llm y: timed out\n  → raise it\n",
        );
        check(
            Outcome::failed("config: bad".into(), None),
            "✗ config: bad\n",
        );
    }
}
