//! Folding a node's older messages into its summary: the memory limits derived from
//! `[memory]`, the background summary started after a reply is queued, and the rounds of
//! folds (also run by the worker before a reply once the backlog reaches its hard cap).
//!
//! One fold at a time per node (the lock in [`SummaryState`]). A fold yields its LLM slot to
//! a reply at most once: the next try is protected. The summary text, its cursor and the
//! facts found in the folded messages are saved in one store call; a failed or refused
//! summary changes nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::{Mutex, OwnedMutexGuard, OwnedRwLockReadGuard, RwLock};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{Instrument, debug, info, warn};

use crate::config::MemoryConfig;
use crate::facts;
use crate::llm::{ChatMessage, LlmPool};
use crate::memory::layout;
use crate::memory::summary;
use crate::node::NodeId;
use crate::responder::counters::Counters;
use crate::responder::language::Languages;
use crate::responder::schedule::gate::{LlmGate, Protection};
use crate::responder::schedule::slots::SlotMap;
use crate::responder::system_prompt::SystemPrompt;
use crate::store::{Context, FoldRule, Store, SummaryJob, SummarySave, Window};
use crate::store::{Role, StoredMessage};

/// What a fold may touch: the node's memory in the store, the model (through the gate's
/// summary lane, on the summary slot when the server has slots), the counters, the
/// conversation's language and its system prompt (the request continues the reply's prompt),
/// and the tasks a background fold runs among.
pub(super) struct FoldCtx {
    pub(super) store: Store,
    pub(super) llm: Arc<LlmPool>,
    pub(super) gate: LlmGate,
    /// Which server slot each call names, when the server is llama.cpp (shared with the turns).
    pub(super) slots: Option<Arc<std::sync::Mutex<SlotMap>>>,
    pub(super) counters: Arc<Counters>,
    pub(super) languages: Arc<Languages>,
    pub(super) system_prompt: SystemPrompt,
    pub(super) memory: MemoryConfig,
    pub(super) tracker: TaskTracker,
    pub(super) stop: CancellationToken,
}

/// Summary rounds per trigger: a backlog larger than this many batches waits for later turns.
const SUMMARY_ROUNDS: usize = 3;

/// A model input (a reply's prompt or a fold's request) carries at most this many times
/// `fold_tokens` of the node's messages...
pub(super) const INPUT_FOLDS: usize = 4;

/// ...counted as this many characters per token (a generous rate: English runs near 4, most
/// other languages fewer characters per token, so the bound in tokens is lower still).
pub(super) const CHARS_PER_TOKEN: usize = 4;

/// A fold the token budget calls for takes at least `1 / MIN_FOLD_SHARE` of `fold_tokens`'
/// worth of messages (120 tokens, 480 characters on the defaults), or waits for more: a fold
/// makes the server read the memory block and the kept messages again (100–250 tokens), so
/// folding two short messages costs more than it saves. Where the fixed parts of the prompt
/// fill most of the budget — a German or Spanish prompt's system prompt and facts take 60–80
/// tokens more than English — the budget was reached after nearly every reply and folded
/// one exchange each time (docs/benchmarks.md, issue 28).
const MIN_FOLD_SHARE: usize = 4;

/// A node's summaries: one at a time (the lock), whether the current fold already yielded to
/// a reply once (then it is not cancelled again), and the node's turn reading its memory
/// (a fold saves only once that read is done).
#[derive(Debug, Default)]
pub(super) struct SummaryState {
    lock: Arc<Mutex<()>>,
    yielded: AtomicBool,
    reading: Arc<RwLock<()>>,
}

impl SummaryState {
    /// Waits for the node's summary running in the background, if any, and holds the lock.
    pub(super) async fn lock(&self) -> OwnedMutexGuard<()> {
        self.lock.clone().lock_owned().await
    }

    /// Held by the node's turn from when it asks for its LLM slot until it has read the
    /// memory: a fold whose model call ends meanwhile saves after that read ([`fold`]).
    pub(super) async fn reading(&self) -> OwnedRwLockReadGuard<()> {
        self.reading.clone().read_owned().await
    }

    /// Whether the node's summary runs (or waits) now.
    pub(super) fn busy(&self) -> bool {
        self.lock.try_lock().is_err()
    }

    /// A fold that yielded once is protected.
    fn protection(&self) -> Protection {
        if self.yielded.load(Ordering::SeqCst) {
            Protection::Protected
        } else {
            Protection::Yields
        }
    }
}

/// Memory limits derived from `[memory]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Limits {
    /// Messages kept verbatim after a fold.
    pub(super) keep: usize,
    /// A fold is due when more than `keep + threshold` messages are unsummarised (a backstop:
    /// the token budget decides first).
    pub(super) threshold: usize,
    /// A fold is due once the conversation's prompt reaches this many tokens.
    pub(super) fold_tokens: usize,
    /// At this many unsummarised messages the fold runs before the reply.
    pub(super) hard_cap: usize,
    /// The prompt never carries more unsummarised messages than this (only reached when
    /// summaries keep failing).
    pub(super) max_prompt: usize,
    /// Messages folded in one summary call at most.
    pub(super) max_batch: usize,
    /// Characters of messages a reply's prompt or a fold's request carries at most
    /// (`INPUT_FOLDS × fold_tokens` tokens: 7,680 on the defaults); a fold folds at most half
    /// of that at once. What a flood stored stays in the database, folded a batch at a time.
    pub(super) input_chars: usize,
}

impl Limits {
    pub(super) fn of(m: &MemoryConfig) -> Limits {
        let (keep, threshold) = (m.window_messages, m.summarize_threshold.max(1));
        Limits {
            keep,
            threshold,
            fold_tokens: m.fold_tokens,
            hard_cap: keep + 3 * threshold,
            max_prompt: keep + 4 * threshold,
            max_batch: 3 * threshold + 1,
            input_chars: m.fold_tokens.saturating_mul(INPUT_FOLDS * CHARS_PER_TOKEN),
        }
    }

    /// How many of `ctx`'s first messages the last fold left verbatim (their answers go into
    /// the prompt cut short): `keep` once there is a summary.
    pub(super) fn kept(&self, ctx: &Context) -> usize {
        if ctx.summary.is_some() {
            self.keep
        } else {
            ctx.kept
        }
    }

    /// The part of the unsummarised conversation a reply's prompt carries at most.
    pub(super) fn window(&self) -> Window {
        Window {
            messages: self.max_prompt,
            chars: self.input_chars,
        }
    }

    /// What a fold takes, when it is `due`.
    fn rule(&self, due: Due) -> FoldRule {
        FoldRule {
            keep: self.keep,
            threshold: self.threshold,
            now: due == Due::Now,
            min_now_chars: self.input_chars / (INPUT_FOLDS * MIN_FOLD_SHARE),
            max_batch: self.max_batch,
            max_chars: self.input_chars / 2,
        }
    }
}

/// When a fold is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Due {
    /// Once the unsummarised messages pass the count backstop.
    Backstop,
    /// Now, whatever the count: the prompt reached its token budget.
    Now,
}

/// What rounds of folds to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Rounds {
    /// Only messages before this one are folded.
    pub(super) before: i64,
    /// Whether the folds give their slot to a reply (a fold that yielded once is protected
    /// anyway).
    pub(super) protection: Protection,
    /// When the first round's fold is due; later rounds wait for the backstop.
    pub(super) due: Due,
}

/// Starts the background summary for this node unless one is already running: a fold now
/// when `size` (the tokens of the last prompt and its reply) reached the token budget,
/// else only if the unsummarised messages passed the count backstop. Only messages before
/// `before` are folded (the turn's own message and those before it).
pub(super) fn start_summary(
    ctx: &Arc<FoldCtx>,
    node: NodeId,
    state: &Arc<SummaryState>,
    size: Option<usize>,
    before: i64,
) {
    let limits = Limits::of(&ctx.memory);
    let due = if size.is_some_and(|tokens| tokens >= limits.fold_tokens) {
        Due::Now
    } else {
        Due::Backstop
    };
    let Ok(guard) = state.lock.clone().try_lock_owned() else {
        return;
    };
    let ctx2 = ctx.clone();
    let state = state.clone();
    ctx.tracker.spawn(
        async move {
            let rounds = Rounds {
                before,
                protection: state.protection(),
                due,
            };
            tokio::select! {
                _ = ctx2.stop.cancelled() => {}
                _ = async {
                    if fold_rounds(&ctx2, node, rounds, &state, &guard).await {
                        warm(&ctx2, node).await;
                    }
                } => {}
            }
            drop(guard);
        }
        .in_current_span(),
    );
}

/// How one fold ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fold {
    Saved,
    /// A reply needed the LLM slot; retried after the next reply, protected.
    Yielded,
    /// The LLM failed or the summary was refused twice, or the store failed.
    Failed,
    /// The history changed meanwhile (reset, another save).
    Discarded,
}

/// Folds due messages into the node's summary, one batch per round, while folds are due
/// (see [`Rounds`]). The caller holds the node's summary lock (`_guard`). Whether a fold
/// was saved: the background fold then warms the server's cache ([`warm`]); the fold before
/// a reply (the hard cap) needs no warm-up, the reply reads its prompt itself.
pub(super) async fn fold_rounds(
    ctx: &FoldCtx,
    node: NodeId,
    rounds: Rounds,
    state: &SummaryState,
    _guard: &OwnedMutexGuard<()>,
) -> bool {
    let limits = Limits::of(&ctx.memory);
    let c = &ctx.counters;
    let mut saved = false;
    for round in 0..SUMMARY_ROUNDS {
        let due = if round == 0 {
            rounds.due
        } else {
            Due::Backstop
        };
        let job = match ctx
            .store
            .pending_fold(node, rounds.before, limits.rule(due))
            .await
        {
            Ok(Some(job)) => job,
            Ok(None) => break,
            Err(e) => {
                warn!(error = %e, "could not load messages to summarize");
                break;
            }
        };
        let protection = match rounds.protection {
            Protection::Protected => Protection::Protected,
            Protection::Yields => state.protection(),
        };
        c.summaries_started.fetch_add(1, Ordering::Relaxed);
        match fold(ctx, node, &job, protection, state).await {
            Fold::Saved => {
                c.summaries.fetch_add(1, Ordering::Relaxed);
                state.yielded.store(false, Ordering::SeqCst);
                saved = true;
            }
            Fold::Yielded => {
                c.summaries_cancelled.fetch_add(1, Ordering::Relaxed);
                state.yielded.store(true, Ordering::SeqCst);
                break;
            }
            Fold::Failed => {
                c.summary_failures.fetch_add(1, Ordering::Relaxed);
                break;
            }
            Fold::Discarded => break,
        }
    }
    saved
}

/// After a saved fold, has the server read the node's next prompt up to its new message (the
/// system prompt, the new memory block, the kept messages) while the slot is idle, so the
/// next reply evaluates only its message.
///
/// Why: a fold rewrites the memory block, and everything after it was read again by the next
/// reply — on a Pi-shaped server (1 thread, one slot) 100–230 tokens, one to two seconds
/// more before its first packet, four times in 28 turns (issue 37). Read while nobody waits,
/// that work no longer delays an answer.
///
/// Only where summaries share the replies' slots (a one-slot server; with a slot of their
/// own the fold never touched the conversation's) and `[memory] warm_after_fold` is on. It
/// takes the summary lane, so it waits until no reply waits and yields to one that comes
/// (that reply then reads the rest itself). And only when the conversation is at rest: its
/// newest message is the bot's answer. A turn under way (its message stored, its answer
/// still going out) would find its prompt in the slot, and the prefill would overwrite what
/// the server wrote after it, the answer the next prompt repeats. The server's one token is
/// thrown away; a failure costs the next reply only what it cost before.
async fn warm(ctx: &FoldCtx, node: NodeId) {
    if !ctx.memory.warm_after_fold || ctx.gate.has_summary_lane() {
        return;
    }
    let lane = ctx.gate.summary(Protection::Yields).await;
    let limits = Limits::of(&ctx.memory);
    let memory = match ctx
        .store
        .context(node, i64::MAX, limits.window(), "", 0)
        .await
    {
        Ok(memory) => memory,
        Err(e) => {
            debug!(error = %e, "no warm-up: the memory could not be read");
            return;
        }
    };
    if memory
        .window
        .last()
        .is_none_or(|m| m.role != Role::Assistant)
    {
        debug!("no warm-up: a turn is under way");
        return;
    }
    let lang = ctx.languages.of(node);
    let messages = layout::conversation(
        lang,
        ctx.system_prompt.current(lang),
        memory.summary.as_ref(),
        &memory.facts,
        &memory.window,
        limits.kept(&memory),
    );
    let slot = ctx.slots.as_ref().map(|map| match map.lock() {
        Ok(mut map) => map.for_node(node),
        Err(poisoned) => poisoned.into_inner().for_node(node),
    });
    let started = tokio::time::Instant::now();
    tokio::select! {
        _ = lane.token().cancelled() => debug!("the warm-up yielded to a reply"),
        r = ctx.llm.primary().prefill(slot, &messages) => match r {
            Ok(read) => {
                ctx.counters.warm_ups.fetch_add(1, Ordering::Relaxed);
                debug!(
                    read,
                    ms = started.elapsed().as_millis() as u64,
                    "the next prompt is in the server's cache"
                );
            }
            Err(e) => debug!(error = %e, "the warm-up failed; the next reply reads it"),
        },
    }
}

/// One summary call (two attempts) for `job`, and the save of the summary with the facts
/// found in the folded messages.
async fn fold(
    ctx: &FoldCtx,
    node: NodeId,
    job: &SummaryJob,
    protection: Protection,
    state: &SummaryState,
) -> Fold {
    let m = &ctx.memory;
    let max_tokens = (m.summary_max_chars as u32 / 2).max(64);
    let Some(through) = job.evicted.last().map(|m| m.id) else {
        return Fold::Discarded;
    };
    let previous = job.previous.as_ref().map(|s| s.text.as_str());
    let messages = request(ctx, node, job);
    let slot = ctx.slots.as_ref().map(|map| match map.lock() {
        Ok(map) => map.summary_slot(),
        Err(poisoned) => poisoned.into_inner().summary_slot(),
    });
    // The conversation the request carried: a candidate that only copies its answers back
    // is refused (`summary::accept_summary`).
    let carried: Vec<StoredMessage> = job.evicted.iter().chain(&job.kept).cloned().collect();
    // Set when a candidate held nothing worth keeping: then, after the last attempt, the
    // previous summary stays and the facts are saved all the same (a small model that cannot
    // write notes must not keep the prompt from ever shrinking).
    let mut fallback: Option<String> = None;
    for attempt in 1..=2 {
        let lane = ctx.gate.summary(protection).await;
        let started = tokio::time::Instant::now();
        let result = tokio::select! {
            // Dropping the call closes its connection: llama.cpp's server then stops
            // generating (its log says "cancel task").
            _ = lane.token().cancelled() => {
                info!(folded = job.evicted.len(), "summary yielded to a reply; it runs again after it");
                return Fold::Yielded;
            }
            r = ctx.llm.complete_in(slot, &messages, max_tokens) => r,
        };
        let text = match result {
            Ok(done) => summary::accept_summary(
                &done.text,
                m.summary_max_chars,
                previous,
                &job.facts,
                &carried,
            )
            .map_err(|e| {
                warn!(attempt, error = %e, "summary rejected");
                if e.holds_nothing() {
                    fallback = Some(previous.unwrap_or_default().trim().to_string());
                }
            })
            .ok(),
            Err(e) => {
                warn!(attempt, error = %e, "summary call failed");
                None
            }
        };
        let text = match (text, attempt, fallback.take()) {
            (Some(text), _, _) => text,
            (None, 2, Some(previous)) => {
                info!("no notes from the model: the previous summary stays, the facts are saved");
                previous
            }
            (None, _, kept) => {
                fallback = kept;
                continue;
            }
        };
        let saved = SummarySave {
            text,
            through_id: through,
            expected_previous: job.previous.as_ref().map(|s| s.through_id),
            facts: picked_facts(job, m.facts_max),
            facts_max: m.facts_max,
        };
        // The slot goes to a reply that waited for this call: it reads the memory as it was,
        // so its prompt continues the one the slot holds (this request began with it) and it
        // evaluates only what is new; the save waits for that read. The new memory block is
        // read into the slot after the reply, while nobody waits ([`warm`]). Saved while the
        // reply waited, the fold made that reply read its prompt again from the memory block
        // on (issue 37: 100–230 tokens, four times in 28 turns on a one-slot server).
        drop(lane);
        let _saving = state.reading.write().await;
        return save(ctx, node, job, saved, started).await;
    }
    Fold::Failed
}

/// The summary request for `job`. It goes on from the node's whole conversation (the messages
/// it folds and those it keeps), as the node's last prompt and reply have it: on a one-slot
/// server the slot then holds that conversation still, whether the fold is saved or yields.
fn request(ctx: &FoldCtx, node: NodeId, job: &SummaryJob) -> Vec<ChatMessage> {
    let m = &ctx.memory;
    // The messages folded, then as many of those kept as the input bound leaves room for,
    // in order: a stored flood cannot make the request larger.
    let mut chars = 0usize;
    let bound = Limits::of(m).input_chars;
    let conversation: Vec<_> = job
        .evicted
        .iter()
        .chain(&job.kept)
        .enumerate()
        .take_while(|(i, msg)| {
            chars = chars.saturating_add(msg.prompt_text().chars().count());
            *i < job.evicted.len() || chars <= bound
        })
        .map(|(_, msg)| msg.clone())
        .collect();
    let kept = if job.previous.is_some() {
        m.window_messages
    } else {
        0
    };
    // In the conversation's language, as its reply prompts are: the same prefix, and notes
    // in the language the node writes in.
    let lang = ctx.languages.of(node);
    summary::summary_prompt(
        lang,
        ctx.system_prompt.current(lang),
        job.previous.as_ref(),
        &job.facts,
        &conversation,
        kept,
        m.summary_max_chars,
    )
}

/// Saves the summary, its cursor and the facts in one store call, unless the history changed
/// meanwhile. Called while no turn of the node reads its memory (the store reads the fact
/// rows, plans (`facts::saving`) and writes; a turn reads before or after, never between).
async fn save(
    ctx: &FoldCtx,
    node: NodeId,
    job: &SummaryJob,
    saved: SummarySave,
    started: tokio::time::Instant,
) -> Fold {
    let (kept, through) = (saved.facts.len(), saved.through_id);
    match ctx.store.save_summary(node, saved).await {
        Ok(true) => {
            info!(
                folded = job.evicted.len(),
                through,
                facts = kept,
                ms = started.elapsed().as_millis() as u64,
                "summary updated"
            );
            Fold::Saved
        }
        Ok(false) => {
            debug!("history changed meanwhile; summary discarded");
            Fold::Discarded
        }
        Err(e) => {
            warn!(error = %e, "could not save the summary");
            Fold::Failed
        }
    }
}

/// The user's statements about themselves in the folded messages, with their message ids.
fn picked_facts(job: &SummaryJob, max: usize) -> Vec<(String, i64)> {
    if max == 0 {
        return Vec::new();
    }
    job.evicted
        .iter()
        .filter(|m| m.role == Role::User)
        .flat_map(|m| {
            facts::statements(&m.text)
                .into_iter()
                .map(move |f| (f, m.id))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoredMessage;

    fn memory(window_messages: usize, summarize_threshold: usize) -> MemoryConfig {
        MemoryConfig {
            window_messages,
            summarize_threshold,
            summary_max_chars: 600,
            retrieve_exchanges: 2,
            facts_max: 8,
            fold_tokens: 480,
            warm_after_fold: true,
        }
    }

    #[test]
    fn limits_follow_the_window_and_the_threshold() {
        // (window, threshold) → (keep, threshold, hard cap, max in prompt, max batch)
        let cases = [
            ((12, 6), (12, 6, 30, 36, 19)),
            ((0, 1), (0, 1, 3, 4, 4)),
            // A zero threshold would fold nothing; it counts as one.
            ((10, 0), (10, 1, 13, 14, 4)),
        ];
        for ((window, threshold), want) in cases {
            let l = Limits::of(&memory(window, threshold));
            let got = (l.keep, l.threshold, l.hard_cap, l.max_prompt, l.max_batch);
            assert_eq!(got, want, "window {window}, threshold {threshold}");
        }
    }

    #[test]
    fn facts_come_from_the_users_messages_only_with_their_ids() {
        let said = |id, role, text: &str| StoredMessage {
            id,
            role,
            text: text.into(),
            at: 0,
            prompt: None,
        };
        let job = SummaryJob {
            previous: None,
            facts: Vec::new(),
            kept: Vec::new(),
            evicted: vec![
                said(3, Role::User, "My name is Ann."),
                said(4, Role::Assistant, "My name is meshai."),
                said(5, Role::User, "What is LoRa?"),
            ],
        };
        let picked = picked_facts(&job, 8);
        assert!(!picked.is_empty());
        assert!(picked.iter().all(|(_, id)| *id == 3), "{picked:?}");
        assert!(picked_facts(&job, 0).is_empty());
    }
}
