//! A channel's public thread: the memory of a mention's turn — its last few mentions and our
//! answers, in RAM only, forgotten after [`THREAD_IDLE`]. Nothing of it is ever stored.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use crate::llm::ChatRole;

/// The most messages (mentions and answers) a channel's thread keeps.
pub(crate) const THREAD_MESSAGES: usize = 6;

/// A thread idle this long is forgotten (and its worker retires).
pub(crate) const THREAD_IDLE: Duration = Duration::from_secs(30 * 60);

/// One channel's recent mentions and the answers to them: public, in RAM only.
#[derive(Debug, Default)]
pub(crate) struct Thread {
    messages: VecDeque<(ChatRole, String)>,
    last: Option<Instant>,
}

impl Thread {
    /// The thread as of `now`: emptied when it was idle for [`THREAD_IDLE`].
    pub(crate) fn current(&mut self, now: Instant) -> &VecDeque<(ChatRole, String)> {
        if self
            .last
            .is_some_and(|t| now.saturating_duration_since(t) >= THREAD_IDLE)
        {
            self.messages.clear();
            self.last = None;
        }
        &self.messages
    }

    /// Adds a mention and the answer to it, keeping the newest [`THREAD_MESSAGES`].
    pub(crate) fn push(&mut self, question: &str, answer: &str, now: Instant) {
        self.current(now);
        self.messages
            .push_back((ChatRole::User, question.to_string()));
        self.messages
            .push_back((ChatRole::Assistant, answer.to_string()));
        while self.messages.len() > THREAD_MESSAGES {
            self.messages.pop_front();
        }
        self.last = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents(thread: &mut Thread, now: Instant) -> Vec<String> {
        thread
            .current(now)
            .iter()
            .map(|(_, text)| text.clone())
            .collect()
    }

    #[test]
    fn the_thread_keeps_the_last_mentions_and_forgets_when_idle() {
        let t0 = Instant::now();
        let min = |m: u64| t0 + Duration::from_secs(60 * m);
        let mut thread = Thread::default();
        assert!(contents(&mut thread, min(0)).is_empty());
        for i in 0..4 {
            thread.push(&format!("q{i}"), &format!("a{i}"), min(i));
        }
        assert_eq!(
            contents(&mut thread, min(10)),
            ["q1", "a1", "q2", "a2", "q3", "a3"]
        );
        assert_eq!(
            thread.current(min(10)).front().map(|m| m.0),
            Some(ChatRole::User)
        );
        // 30 minutes after the last answer, the thread is gone.
        assert!(contents(&mut thread, min(3) + THREAD_IDLE).is_empty());
        thread.push("q5", "a5", min(40));
        assert_eq!(contents(&mut thread, min(41)), ["q5", "a5"]);
    }
}
