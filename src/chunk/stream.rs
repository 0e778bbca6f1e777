//! The chunker for an answer that is still being written, and the numbering of its parts as
//! they go on air. Pure, like the batch chunker.
//!
//! [`StreamChunker`] hands out a part as soon as its cut is certain: the text after it has
//! begun (so it is not the last part) and no text still to come could move the cut (the word
//! it ends at, or the next word it measures, is complete). It uses the batch chunker's own
//! cut rule (`take`) with the batch layout's part budgets, so when the answer fits, or is cut
//! at the budget, the parts are the ones [`chunk`](super::chunk) makes of the whole text.
//! Two cases differ, because a part already on air cannot be laid out again:
//! - a text that fits `max_chunks` parts only when cut at word boundaries, not at sentence
//!   ends: the batch chunker drops the sentence cuts, the stream keeps them and cuts the last
//!   part with `…`;
//! - `max_chunks` ≥ 10 with an answer of at most 9 parts: the batch chunker sizes parts for
//!   ` i/9` markers, the stream for ` i/NN` (one character less per part).
//!
//! Once the last allowed part is cut with `…` the chunker is full: the caller stops the model.
//!
//! [`Numbering`] gives each part its marker when it is sent: ` i/n` as for a batch reply when
//! every part is known before the first goes out; otherwise ` i/?`, and ` n/n` on the last.
//!
//! How long part 1 waits for the rest: not at all beyond what the radio imposes. It is handed
//! over as soon as it is certain, and the outbox sends it as soon as the link, the 2 s gap and
//! the replies before it allow; if the whole answer is in by then (a fast server, a busy radio,
//! a server that answers in one JSON body) every part knows the total. Holding it longer
//! would cost every slow answer its head start to prettify the numbering of fast ones. The
//! last part is never handed over before the answer ends, so ` n/n` is always right.

use super::{Budget, ChunkLimits, CutMark, Ends, Text, marker, marker_len, take, take_with};

/// What a piece of text completed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Parts {
    /// Part texts without markers, in order.
    pub(crate) parts: Vec<String>,
    /// The last of `parts` is the reply's last part: the answer ended, or the budget is full.
    pub(crate) last: bool,
}

/// Splits an answer into parts while it streams in.
#[derive(Debug, Clone)]
pub(crate) struct StreamChunker {
    limits: ChunkLimits,
    /// Text not in a part yet, whitespace collapsed, never starting with a space.
    rest: String,
    /// Whitespace came after `rest`: a space goes before the next word.
    space: bool,
    /// Parts handed out so far.
    handed: usize,
    /// The last part is out (the answer ended or the budget is full).
    done: bool,
    truncated: bool,
    /// What ends the last part when the budget fills.
    mark: CutMark,
}

impl StreamChunker {
    #[cfg(test)]
    pub fn new(limits: &ChunkLimits) -> StreamChunker {
        StreamChunker::with_mark(limits, CutMark::Ellipsis)
    }

    /// A chunker whose last part ends with `mark` when the budget fills.
    pub(crate) fn with_mark(limits: &ChunkLimits, mark: CutMark) -> StreamChunker {
        StreamChunker {
            limits: limits.sane(),
            rest: String::new(),
            space: false,
            handed: 0,
            done: false,
            truncated: false,
            mark,
        }
    }

    /// Takes more cleaned text; returns the parts it completed.
    pub(crate) fn push(&mut self, text: &str) -> Parts {
        if self.done {
            return Parts::default();
        }
        for c in text.chars() {
            if c.is_whitespace() {
                self.space = !self.rest.is_empty();
            } else {
                if std::mem::take(&mut self.space) {
                    self.rest.push(' ');
                }
                self.rest.push(c);
            }
        }
        let mut out = Parts::default();
        while !self.done {
            match self.next_part(false) {
                Some(part) => out.parts.push(part),
                None => break,
            }
        }
        out.last = self.done;
        out
    }

    /// The answer is complete: the parts left, the last one marked as such. Empty when the
    /// answer had no text at all (or the budget was already full).
    pub(crate) fn finish(&mut self) -> Parts {
        let mut out = Parts::default();
        while !self.done && !self.rest.is_empty() {
            match self.next_part(true) {
                Some(part) => out.parts.push(part),
                None => break,
            }
        }
        self.done = true;
        out.last = !out.parts.is_empty();
        out
    }

    /// Forgets the text not handed out yet (the model's reasoning turned out to end here).
    /// Only before the first part: parts handed out may already be on air.
    pub(crate) fn restart(&mut self) -> bool {
        if self.handed > 0 {
            return false;
        }
        self.rest.clear();
        self.space = false;
        true
    }

    /// Parts handed out so far.
    #[cfg(test)]
    pub(crate) fn handed(&self) -> usize {
        self.handed
    }

    /// The budget is full: the last part was cut (with its mark) and nothing more is taken.
    pub(crate) fn is_full(&self) -> bool {
        self.done && self.truncated
    }

    /// Cuts the next part off `rest` if its cut is certain. `complete`: no text follows.
    fn next_part(&mut self, complete: bool) -> Option<String> {
        let limits = self.limits;
        let n = self.handed + 1;
        let last = limits.max_chunks;
        let fits = |b: Budget, s: &str| b.fits(s.chars().count(), s.len());
        let whole = Budget::new(&limits, 0);
        if n == 1 && fits(whole, &self.rest) {
            // Maybe a single unnumbered part.
            return complete.then(|| self.take_all());
        }
        let budget = if last == 1 {
            whole
        } else {
            Budget::new(&limits, marker_len(n, last))
        };
        if n == last {
            if fits(budget, &self.rest) {
                return complete.then(|| self.take_all());
            }
            let room = budget.less(self.mark.room());
            let cut = if complete {
                take(&self.rest, room, Ends::Word)
            } else {
                take_with(&self.rest, room, Ends::Word, Text::Growing)?
            };
            let mut part = self.rest.get(..cut.end).unwrap_or("").to_owned();
            part.push_str(self.mark.text());
            self.rest.clear();
            self.handed += 1;
            self.done = true;
            self.truncated = true;
            return Some(part);
        }
        let cut = if complete {
            take(&self.rest, budget, Ends::Sentence)
        } else {
            take_with(&self.rest, budget, Ends::Sentence, Text::Growing)?
        };
        let part = self.rest.get(..cut.end).unwrap_or("").to_owned();
        self.rest.drain(..cut.next.min(self.rest.len()));
        self.handed += 1;
        if complete && self.rest.is_empty() {
            self.done = true;
        }
        Some(part)
    }

    fn take_all(&mut self) -> String {
        self.handed += 1;
        self.done = true;
        std::mem::take(&mut self.rest)
    }
}

/// Numbers the parts of one streamed reply as they are sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Numbering {
    /// A part went out before the answer was complete: the reply is numbered ` i/?`.
    open: bool,
}

impl Numbering {
    /// The marker of part `index` (from 0), sent now; `total` is the number of parts once the
    /// answer is complete, `None` while it is not.
    pub(crate) fn marker(&mut self, index: usize, total: Option<usize>) -> String {
        let i = index + 1;
        match total {
            Some(n) if !self.open => marker(i, n),
            Some(n) if i == n => format!(" {n}/{n}"),
            _ => {
                self.open = true;
                format!(" {i}/?")
            }
        }
    }
}

#[cfg(test)]
mod tests;
