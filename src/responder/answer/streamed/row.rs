//! [`ReplyRow`]: a streamed reply's row in memory while the answer streams. It is written
//! with the first parts the outbox takes and rewritten with each later handing, so what went
//! on air survives a crash (SIGKILL, a power cut) and the next turn's prompt knows it. One
//! row per reply across the answer's attempts: parts the outbox took back (none went on air)
//! are dropped from it, a retry's parts replace them, and a row none of whose parts went on
//! air is deleted when the answer gives up.

use tracing::{debug, warn};

use crate::clock::unix_now;
use crate::llm::Usage;
use crate::node::NodeId;
use crate::responder::reply::Stored;
use crate::store::{Said, Store, StoreError};

/// The stored reply of one streamed answer.
#[derive(Debug)]
pub(crate) struct ReplyRow {
    node: NodeId,
    /// The node's memory and the stored user message it answers; `None` when the turn runs
    /// without memory (a channel, or the database is damaged): then nothing is written.
    kept: Option<(Store, i64)>,
    /// The row, once written.
    id: Option<i64>,
    /// What the row should say: the bodies of the parts on air or on their way, in order.
    parts: Vec<String>,
    /// The row cannot be written (the user message or the row is gone: a reset meanwhile).
    gone: bool,
    /// The answer as the model wrote it, once it is complete and went out whole.
    written: Option<String>,
}

impl ReplyRow {
    pub fn new(node: NodeId, kept: Option<(Store, i64)>) -> ReplyRow {
        ReplyRow {
            node,
            kept,
            id: None,
            parts: Vec::new(),
            gone: false,
            written: None,
        }
    }

    /// The outbox took `parts`: the row is written with them (the first time) or rewritten.
    pub(crate) async fn handed(&mut self, parts: &[String]) {
        self.parts.extend(parts.iter().cloned());
        self.write(None).await;
    }

    /// The row as written, with the parts it holds, for cutting it back to what went on air
    /// once the radio's report is in (`reply::Outbound::watch_report`); `None` when none was written.
    pub(crate) fn stored(&self) -> Option<Stored> {
        let id = self.id.filter(|_| !self.gone)?;
        Some(Stored {
            node: self.node,
            id,
            parts: self.parts.clone(),
        })
    }

    /// The outbox took the attempt's parts back: none of them went on air. The row keeps its
    /// text until a retry's parts replace it or [`ReplyRow::discard`] deletes it.
    pub(crate) fn taken_back(&mut self) {
        self.parts.clear();
    }

    /// The answer is over with its parts on air: the tokens it cost, when the server said,
    /// and the answer as the model wrote it when the next prompt should repeat that (it went
    /// out whole).
    pub(crate) async fn finish(&mut self, usage: Option<Usage>, written: Option<&str>) {
        self.written = written.map(str::to_string);
        if usage.is_some() || self.written.is_some() {
            self.write(usage).await;
        }
    }

    /// The answer gave up with nothing on air: a row written for parts that were taken back
    /// goes.
    pub(crate) async fn discard(&mut self) {
        let Some(id) = self.id.take() else { return };
        let Some((store, _)) = &self.kept else { return };
        if let Err(e) = store.delete_reply(self.node, id).await {
            log(&e, "could not delete a reply that never went on air");
        }
    }

    async fn write(&mut self, usage: Option<Usage>) {
        let Some((store, user_id)) = self.kept.as_ref().filter(|_| !self.gone) else {
            return;
        };
        let (store, user_id) = (store.clone(), *user_id);
        if self.parts.is_empty() {
            return;
        }
        let text = self.parts.join(" ");
        let said = match &self.written {
            Some(raw) => Said::with_prompt(text, raw.as_str()),
            None => Said::plain(text),
        };
        let written = match self.id {
            None => store
                .append_reply(self.node, user_id, said, unix_now(), usage)
                .await
                .map(|id| self.id = Some(id)),
            Some(id) => store.update_reply(self.node, id, said, usage).await,
        };
        if let Err(e) = written {
            if matches!(
                e,
                StoreError::NoSuchUserMessage { .. } | StoreError::NoSuchReply { .. }
            ) {
                self.gone = true;
            }
            log(&e, "could not store the reply");
        }
    }
}

/// A store failure, at debug when it is expected (a reset meanwhile) or already logged (the
/// store logs a damaged file once).
fn log(e: &StoreError, what: &str) {
    match e {
        StoreError::NoSuchUserMessage { .. } | StoreError::NoSuchReply { .. } => {
            debug!(error = %e, "{what}: forgotten meanwhile")
        }
        e if e.damage().is_some() => debug!(error = %e, "{what}"),
        e => warn!(error = %e, "{what}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: NodeId = NodeId(0xa1b2_c3d4);

    fn parts(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    async fn replies(store: &Store) -> Vec<String> {
        let history = store.history(A, 10).await.unwrap_or_default();
        history
            .into_iter()
            .filter(|m| m.role == crate::store::Role::Assistant)
            .map(|m| m.text)
            .collect()
    }

    #[tokio::test]
    async fn one_row_follows_the_parts_across_a_retry_and_goes_if_none_went_on_air() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("m.db")).expect("open");
        let user = store.append_user(A, "q".into(), 1).await.expect("user");

        let mut row = ReplyRow::new(A, Some((store.clone(), user)));
        row.finish(None, None).await;
        assert!(
            replies(&store).await.is_empty(),
            "nothing handed, nothing stored"
        );
        row.handed(&parts(&["one"])).await;
        assert_eq!(replies(&store).await, ["one"]);
        row.handed(&parts(&["two", "three"])).await;
        assert_eq!(replies(&store).await, ["one two three"]);
        // Taken back, then a retry's parts replace them in the same row.
        row.taken_back();
        row.handed(&parts(&["retry"])).await;
        assert_eq!(replies(&store).await, ["retry"]);
        let usage = Usage {
            prompt_tokens: 10,
            completion_tokens: 4,
        };
        row.finish(Some(usage), Some("**retry**")).await;
        let stats = store.stats().await.expect("stats");
        assert_eq!((stats[0].llm_calls, stats[0].completion_tokens), (1, 4));
        // The answer as the model wrote it goes with the row, for the next prompt.
        let ctx = store
            .context(A, i64::MAX, 10, "", 0)
            .await
            .expect("context");
        let written: Vec<&str> = ctx.window.iter().map(|m| m.prompt_text()).collect();
        assert_eq!(written, ["q", "**retry**"]);

        // An answer that gives up with nothing on air leaves no row.
        let user = store.append_user(A, "q2".into(), 5).await.expect("user");
        let mut row = ReplyRow::new(A, Some((store.clone(), user)));
        row.handed(&parts(&["never sent"])).await;
        row.taken_back();
        row.discard().await;
        assert_eq!(replies(&store).await, ["retry"]);

        // A reset meanwhile: nothing is written, and nothing fails.
        let user = store.append_user(A, "q3".into(), 9).await.expect("user");
        let mut row = ReplyRow::new(A, Some((store.clone(), user)));
        store.reset(A).await.expect("reset");
        row.handed(&parts(&["late"])).await;
        row.handed(&parts(&["later"])).await;
        assert!(replies(&store).await.is_empty());

        // Without memory, nothing is written.
        let mut row = ReplyRow::new(A, None);
        row.handed(&parts(&["x"])).await;
        assert!(replies(&store).await.is_empty());
        store.close().await.expect("close");
    }
}
