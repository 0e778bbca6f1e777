//! [`LlmPool`]: the primary server and its `[[llm.fallback]]` servers, tried in order within
//! one time budget, each with its [`Health`]; and the background probe that brings a skipped
//! server back.
//!
//! Invariants:
//! - One budget per call: the primary's `timeout_secs` bounds the whole call across
//!   failovers; a fallback gets what is left (or its own `timeout_secs`, if shorter).
//! - Only a failure that another server could avoid moves on to the next one (see
//!   [`health::fails_over`]); a 400 or 401 is returned as it is.
//! - A llama.cpp slot id belongs to the primary: fallbacks never get one.
//! - Skipped servers are left out while another one is usable; when every server is
//!   skipped, all are tried in order anyway (better than a notice without trying).

use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::health::{self, Health};
use super::{ChatMessage, ChatStream, Completion, LlmClient, LlmError};

/// How long a probe may take.
const PROBE_WAIT: Duration = Duration::from_secs(10);

/// No server answered yet.
const NONE: usize = usize::MAX;

/// The servers of the failover chain, the primary first.
#[derive(Debug)]
pub struct LlmPool {
    entries: Vec<Entry>,
    /// The entry that answered last ([`NONE`] before the first answer), for `!status`.
    last: AtomicUsize,
    /// Wakes the probe task when a server gets skipped.
    skipped: Notify,
}

#[derive(Debug)]
struct Entry {
    client: LlmClient,
    health: Mutex<Health>,
}

/// Which server of the chain a streamed answer came from, to report how it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Server(usize);

impl LlmPool {
    /// The chain `primary, fallbacks…`; a failing server is first skipped for `skip`.
    pub fn new(primary: LlmClient, fallbacks: Vec<LlmClient>, skip: Duration) -> LlmPool {
        let entries = std::iter::once(primary)
            .chain(fallbacks)
            .map(|client| Entry {
                client,
                health: Mutex::new(Health::new(skip)),
            })
            .collect();
        LlmPool {
            entries,
            last: AtomicUsize::new(NONE),
            skipped: Notify::new(),
        }
    }

    /// How many servers the chain has, the primary included.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The primary server's client (slot detection, the model check at start).
    pub(crate) fn primary(&self) -> &LlmClient {
        &self.entries[0].client
    }

    /// The budget for one whole call across the chain: the primary's timeout.
    pub(crate) fn timeout(&self) -> Duration {
        self.primary().timeout()
    }

    /// Whether answers are streamed (`[llm] stream`, one setting for the whole chain).
    pub(crate) fn streams(&self) -> bool {
        self.primary().streams()
    }

    /// See [`LlmClient::retry_delay`]; the policy is the same for every server.
    pub(crate) fn retry_delay(
        &self,
        attempt: u32,
        error: &LlmError,
        deadline: Instant,
    ) -> Option<Duration> {
        self.primary().retry_delay(attempt, error, deadline)
    }

    /// Which server answered last, for `!status`: "primary (model x)", "fallback 1
    /// (model y)", or `None` before the first answer.
    pub(crate) fn last_answered(&self) -> Option<String> {
        let i = self.last.load(Ordering::Relaxed);
        let entry = self.entries.get(i)?;
        Some(format!("{} (model {})", label(i), entry.client.model()))
    }

    /// Asks the chain within the primary's budget; see [`LlmClient::complete_in`]. `slot`
    /// goes to the primary only.
    pub(crate) async fn complete_in(
        &self,
        slot: Option<u32>,
        messages: &[ChatMessage],
        max_tokens: u32,
    ) -> Result<Completion, LlmError> {
        let deadline = Instant::now() + self.timeout();
        let (done, server) = self
            .first_that_answers(0, slot, deadline, |client, slot, until| {
                client.complete_by(slot, messages, max_tokens, until)
            })
            .await?;
        self.report(server, Ok(()));
        Ok(done)
    }

    /// Opens a streamed answer on the first server (after `after`, when given) that takes
    /// it, before `deadline`; see [`LlmClient::stream`]. The caller reports how the answer ended with
    /// [`LlmPool::report`] (a stream that opened is not yet a good answer).
    pub(crate) async fn stream(
        &self,
        slot: Option<u32>,
        messages: &[ChatMessage],
        max_tokens: u32,
        deadline: Instant,
        after: Option<Server>,
    ) -> Result<(ChatStream, Server), LlmError> {
        let first = after.map_or(0, |s| s.0 + 1);
        self.first_that_answers(first, slot, deadline, |client, slot, until| {
            client.stream(slot, messages, max_tokens, until)
        })
        .await
    }

    /// Calls the usable servers from index `first` on, in order, each within its share of
    /// `deadline`, until one answers. A failure another server could avoid is reported and
    /// moves on; any other failure ends the call. `slot` goes to the primary only. Reporting
    /// a success is the caller's: a stream that opened is not yet a good answer.
    async fn first_that_answers<'a, T, F, Fut>(
        &'a self,
        first: usize,
        slot: Option<u32>,
        deadline: Instant,
        mut call: F,
    ) -> Result<(T, Server), LlmError>
    where
        F: FnMut(&'a LlmClient, Option<u32>, Instant) -> Fut,
        Fut: Future<Output = Result<T, LlmError>>,
    {
        let mut last_error = LlmError::Timeout;
        for i in self.order().into_iter().filter(|&i| i >= first) {
            let Some(until) = self.until(i, deadline) else {
                break;
            };
            let slot = slot.filter(|_| i == 0);
            match call(&self.entries[i].client, slot, until).await {
                Ok(answer) => return Ok((answer, Server(i))),
                Err(error) => {
                    self.report(Server(i), Err(&error));
                    if !health::fails_over(&error) {
                        return Err(error);
                    }
                    last_error = error;
                }
            }
        }
        Err(last_error)
    }

    /// Whether the chain has a server to try after `server`.
    pub(crate) fn has_after(&self, server: Server) -> bool {
        self.order().into_iter().any(|i| i > server.0)
    }

    /// How an answer from `server` ended: counts towards its health, and a good answer
    /// makes it the one `!status` names.
    pub(crate) fn report(&self, server: Server, outcome: Result<(), &LlmError>) {
        let Some(entry) = self.entries.get(server.0) else {
            return;
        };
        if self.entries.len() == 1 {
            // No chain: nothing to skip to, and no probe runs.
            if outcome.is_ok() {
                self.last.store(0, Ordering::Relaxed);
            }
            return;
        }
        let mut health = entry.health.lock().unwrap_or_else(|e| e.into_inner());
        match outcome {
            Ok(()) => {
                health.succeeded();
                self.last.store(server.0, Ordering::Relaxed);
            }
            Err(error) => {
                if health::fails_over(error) {
                    warn!(server = %label(server.0), %error, "LLM server failed");
                }
                if health.failed(error, Instant::now()) {
                    warn!(
                        server = %label(server.0),
                        model = entry.client.model(),
                        "LLM server failed {} times in a row: skipped until a probe succeeds",
                        health::FAILS_TO_SKIP
                    );
                    self.skipped.notify_one();
                }
            }
        }
    }

    /// Probes skipped servers when they are due, until `stop`; one probe at a time, each
    /// bounded. Only useful with more than one server, but harmless with one.
    pub(crate) async fn probe_loop(&self, stop: CancellationToken) {
        loop {
            let due = self
                .entries
                .iter()
                .filter_map(|e| {
                    e.health
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .probe_at()
                })
                .min();
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = self.skipped.notified() => continue,
                _ = async {
                    match due {
                        Some(at) => tokio::time::sleep_until(at).await,
                        None => std::future::pending().await,
                    }
                } => {}
            }
            for (i, entry) in self.entries.iter().enumerate() {
                let due = entry
                    .health
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .probe_at()
                    .is_some_and(|at| at <= Instant::now());
                if !due {
                    continue;
                }
                let wait = PROBE_WAIT.min(entry.client.timeout());
                let result = tokio::select! {
                    _ = stop.cancelled() => return,
                    r = entry.client.probe(wait) => r,
                };
                match &result {
                    Ok(()) => {
                        info!(server = %label(i), "LLM server answers again: back in the chain")
                    }
                    Err(error) => {
                        warn!(server = %label(i), %error, "LLM server still failing: skipped for longer")
                    }
                }
                entry
                    .health
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .probed(result.is_ok(), Instant::now());
            }
        }
    }

    /// The servers to try, in order: the usable ones, or all when none is.
    fn order(&self) -> Vec<usize> {
        let usable: Vec<usize> = (0..self.entries.len())
            .filter(|&i| {
                self.entries[i]
                    .health
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .usable()
            })
            .collect();
        if usable.is_empty() {
            (0..self.entries.len()).collect()
        } else {
            usable
        }
    }

    /// The deadline for server `i` within the call's `deadline`: its own timeout if that
    /// is shorter, `None` when the budget is spent.
    fn until(&self, i: usize, deadline: Instant) -> Option<Instant> {
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        Some(deadline.min(now + self.entries[i].client.timeout()))
    }
}

/// "primary", "fallback 1", …
fn label(i: usize) -> String {
    if i == 0 {
        "primary".into()
    } else {
        format!("fallback {i}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::LlmSettings;

    fn client(model: &str) -> LlmClient {
        LlmClient::new(LlmSettings {
            base_url: "http://127.0.0.1:9/v1".into(),
            model: model.into(),
            api_key: None,
            timeout: Duration::from_secs(5),
            max_tokens: 50,
            temperature: 0.5,
            stream: true,
        })
        .unwrap()
    }

    fn pool(n: usize) -> LlmPool {
        let fallbacks = (1..n).map(|i| client(&format!("m{i}"))).collect();
        LlmPool::new(client("m0"), fallbacks, Duration::from_secs(60))
    }

    fn fail_three_times(pool: &LlmPool, server: usize) {
        let error = LlmError::Connect("refused".into());
        for _ in 0..health::FAILS_TO_SKIP {
            pool.report(Server(server), Err(&error));
        }
    }

    #[test]
    fn skipped_servers_are_left_out_unless_all_are() {
        let p = pool(3);
        assert_eq!(p.order(), [0, 1, 2]);
        fail_three_times(&p, 0);
        assert_eq!(p.order(), [1, 2]);
        assert!(p.has_after(Server(0)));
        fail_three_times(&p, 2);
        assert_eq!(p.order(), [1]);
        assert!(!p.has_after(Server(1)), "the skipped last one is not next");
        fail_three_times(&p, 1);
        assert_eq!(p.order(), [0, 1, 2], "all skipped: all tried");
    }

    #[test]
    fn config_errors_do_not_skip_and_status_names_the_last_good_server() {
        let p = pool(2);
        assert_eq!(p.last_answered(), None);
        let bad_key = LlmError::Status {
            status: 401,
            body: String::new(),
            retry_after: None,
        };
        for _ in 0..5 {
            p.report(Server(0), Err(&bad_key));
        }
        assert_eq!(p.order(), [0, 1]);
        p.report(Server(1), Ok(()));
        assert_eq!(p.last_answered().as_deref(), Some("fallback 1 (model m1)"));
        p.report(Server(0), Ok(()));
        assert_eq!(p.last_answered().as_deref(), Some("primary (model m0)"));
    }

    #[test]
    fn a_single_server_is_never_skipped() {
        let p = pool(1);
        fail_three_times(&p, 0);
        assert!(p.entries[0].health.lock().unwrap().usable());
    }
}
