//! [`TurnCore`]: one LLM turn's decisions, sans-IO — what to read, whether to answer now, how
//! many parts, which notice. The driver (`turn/mod.rs`) performs each [`Action`] and feeds
//! what came of it back as an [`Event`]; it decides nothing. Every turn goes through it: a DM
//! with its node's memory ([`Kind::Node`]), a DM without it ([`Kind::Without`]) and a channel
//! mention ([`Kind::Channel`]) differ only in what they read and keep.
//!
//! The order, and why:
//! - A DM's turn is checked first ([`Action::Check`]): one displaced or expired while it
//!   waited in its node's queue ends there, its text stored when it is the node's own. A
//!   mention's turn was admitted just before by its own worker.
//! - With memory, the node's last message says whether the message starts a conversation
//!   (then it carries who is asking, [`SenderIntro`]) and whether `!more` has a cut answer to
//!   continue (else [`Notice::NothingMore`], and no model). Then the message is stored,
//!   before the LLM is asked — with the node's messages queued before it that the turn
//!   answers too ([`Start::earlier`]), each stored in order, as the conversation stores it; a damaged store leaves the turn without memory, any other store
//!   failure ends it with [`Notice::StoreFailed`].
//! - The airtime budget may hold the reply ([`Action::Airtime`]) before the LLM gate, so a
//!   held reply holds no slot; a DM's turn gets that wait back ([`Action::Extend`]).
//! - At the backlog's hard cap the fold runs before the reply ([`Action::Fold`]).
//! - The memory is read once the slot is the turn's ([`Action::Slot`]): a summary saved while
//!   it waited is used, but one whose model call ends while it waits is saved after its read
//!   (the driver holds the node's memory from asking for the slot until reading it), so the
//!   reply continues the prompt the server's slot still holds. A turn given up at the gate is counted ([`Action::GiveUp`]); a known or
//!   proven node whose turn expired gets [`Notice::TooBusy`].
//! - The answer's parts: the airtime budget's, fewer for a new node's DM (with a note that
//!   says so). The knowledge folder is searched with the question, or, for a short follow-up,
//!   with the asker's message before it; `!more` searches with the question it continues.
//! - A question about the documents' world that no passage answers (`knowledge::local`) gets
//!   the daemon's "Not in my notes." ([`Action::Reply`]) when the mesh has no facts for it.
//! - A lookup the mesh view answers for sure (`mesh::lookup`), a node it does not know, or
//!   any mesh question where no radio feeds the view (`meshai chat`), gets the daemon's own
//!   answer ([`Action::Reply`]), stored like the model's; no model.
//! - A DM answered with its memory starts the background summary when it is over
//!   ([`End::Summarize`]).

mod steps;

use std::collections::VecDeque;
use std::time::Duration;

use tracing::warn;

use crate::chunk::CutMark;
use crate::knowledge::local::Decision;
use crate::lang::{Lang, Part, Say, fill, part, say};
use crate::llm::ChatRole;
use crate::mesh::Answer;
use crate::mesh::matcher::{fold, words};
use crate::node::Standing;
use crate::responder::budget::Budget;
use crate::responder::commands::{self, Parsed};
use crate::responder::schedule::fair;
use crate::responder::schedule::turns::Unanswered;
use crate::responder::sender::{self, Grounding, SenderIntro};
use crate::responder::turn::knowledge::{self, Note, Passages};
use crate::store::{Context, Role, Said};

#[cfg(test)]
pub(crate) use steps::PUBLIC_NOTE;
pub(crate) use steps::{
    Action, End, Event, History, Kind, Last, Limits, ModelCall, Notice, Read, Search, Slot, Start,
    Stored, Wants,
};

/// Where the turn stands: the outcome each phase waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Checking,
    /// Storing the text of a turn found over; then the give-up.
    Keeping(Unanswered),
    /// Counting a turn the gate gave up; then maybe its notice, then this end.
    GivingUp(Unanswered, End),
    /// Sending a notice; then this end.
    Noticing(End),
    ReadingLast,
    /// Storing a message before the turn's last one; then the next.
    StoringEarlier,
    Storing,
    Budgeting,
    Extending,
    Counting,
    Folding,
    Waiting,
    Reading,
    Searching,
    /// Asking the mesh view, the documents' note found.
    Meshing,
    Answering,
    Over,
}

/// One turn's decisions.
#[derive(Debug)]
pub(super) struct TurnCore {
    start: Start,
    phase: Phase,
    /// The stored message's id (with memory, once stored).
    user: Option<i64>,
    /// The message as the model sees it.
    message: String,
    /// The messages still to store, in order (the last is the turn's own).
    pending: VecDeque<Said>,
    budget: Option<Budget>,
    history: History,
    /// The memory was read for this turn: a summary may follow.
    used: bool,
    /// The documents' note, while the mesh view is asked.
    documents: Option<Note>,
    /// The question the documents were searched with: what the person asked, without the
    /// header of who is asking that `message` may carry.
    searched: Option<String>,
}

impl TurnCore {
    pub(super) fn new(start: Start) -> TurnCore {
        TurnCore {
            start,
            phase: Phase::Over,
            user: None,
            message: String::new(),
            pending: VecDeque::new(),
            budget: None,
            history: History::Memory(Context::default()),
            used: false,
            documents: None,
            searched: None,
        }
    }

    /// The first action.
    pub(super) fn start(&mut self) -> Action {
        match self.start.kind {
            Kind::Channel => self.airtime(),
            Kind::Node(_) | Kind::Without => self.then(Phase::Checking, Action::Check),
        }
    }

    /// Takes what the last action came to; returns the next. An event that does not answer
    /// the last action (a bug in the driver) ends the turn.
    pub(super) fn on(&mut self, event: Event) -> Action {
        let phase = std::mem::replace(&mut self.phase, Phase::Over);
        match (phase, event) {
            (Phase::Checking, Event::Checked(Ok(()))) => self.checked(),
            (Phase::Checking, Event::Checked(Err(why))) => self.not_reached(why),
            (Phase::Keeping(why), Event::Done) => self.give_up(why, End::Over),
            (Phase::GivingUp(why, end), Event::Done) => self.gave_up(why, end),
            (Phase::Noticing(end), Event::Done) => Action::End(end),
            (Phase::ReadingLast, Event::Last { last, now }) => self.last(last, now),
            (Phase::StoringEarlier, Event::Stored(_)) => self.store_next(),
            (Phase::Storing, Event::Stored(stored)) => self.stored(stored),
            (Phase::Budgeting, Event::Budget { budget, held }) => self.budgeted(budget, held),
            (Phase::Extending, Event::Done) => self.backlog(),
            (Phase::Counting, Event::Backlog(n)) => self.counted(n),
            (Phase::Folding, Event::Done) => self.slot(),
            (Phase::Waiting, Event::Slot(Ok(()))) => self.read(),
            (Phase::Waiting, Event::Slot(Err(why))) => self.no_slot(why),
            (Phase::Reading, Event::Read(read)) => self.memory(read),
            (Phase::Searching, Event::Found(note)) => self.found(note),
            (Phase::Meshing, Event::Mesh(answer)) => self.meshed(answer),
            (Phase::Answering, Event::Answered(size)) => self.answered(size),
            (phase, event) => {
                warn!(
                    ?phase,
                    event = event.name(),
                    "a turn's event out of order ends it"
                );
                Action::End(End::Over)
            }
        }
    }

    fn then(&mut self, phase: Phase, action: Action) -> Action {
        self.phase = phase;
        action
    }

    fn notice(&mut self, notice: Notice, end: End) -> Action {
        self.then(Phase::Noticing(end), Action::Notice(notice))
    }

    /// The end when the turn gives up after its message was stored: a summary may still be
    /// due.
    fn stored_end(&self) -> End {
        match self.start.kind {
            Kind::Node(_) => End::Summarize(None),
            Kind::Without | Kind::Channel => End::Over,
        }
    }

    fn checked(&mut self) -> Action {
        match (self.start.kind, self.start.wants) {
            (Kind::Node(_), _) => self.then(Phase::ReadingLast, Action::ReadLast),
            // Without memory there is no answer to continue.
            (_, Wants::More) => self.notice(Notice::NothingMore, End::Over),
            (_, Wants::Text) => self.airtime(),
        }
    }

    /// A turn found over before its message was stored: the node's own text is stored,
    /// unanswered.
    fn not_reached(&mut self, why: Unanswered) -> Action {
        match (self.start.kind, self.start.wants) {
            (Kind::Node(_), Wants::Text) => self.then(Phase::Keeping(why), Action::KeepUnanswered),
            _ => self.give_up(why, End::Over),
        }
    }

    fn give_up(&mut self, why: Unanswered, end: End) -> Action {
        self.then(Phase::GivingUp(why, end), Action::GiveUp(why))
    }

    /// Forged ids are free and every notice costs airtime: only a known or proven node hears
    /// that its turn waited too long.
    fn gave_up(&mut self, why: Unanswered, end: End) -> Action {
        match why {
            Unanswered::Expired if self.start.standing > Standing::New => {
                self.notice(Notice::TooBusy, end)
            }
            Unanswered::Expired | Unanswered::Displaced => Action::End(end),
        }
    }

    /// The node's last message: whether `!more` has an answer to continue, and whether the
    /// message starts a conversation (then it says who is asking, and is stored so).
    fn last(&mut self, last: Last, now: i64) -> Action {
        let (at, cut) = match last {
            Last::Unknown => (None, false),
            Last::Known { at, cut } => (at, cut),
        };
        if self.start.wants == Wants::More && !cut {
            return self.notice(Notice::NothingMore, End::Over);
        }
        let starts = match last {
            Last::Unknown => true,
            Last::Known { .. } => sender::starts_conversation(at, now),
        };
        if !starts {
            self.start.intro = SenderIntro::default();
        }
        // Each message as the conversation stores it: who is asking heads the first.
        let texts: Vec<(&str, &str)> = match self.start.wants {
            Wants::Text => self
                .start
                .earlier
                .iter()
                .chain([&self.start.text])
                .map(|t| (t.as_str(), t.as_str()))
                .collect(),
            Wants::More => vec![(
                commands::more::STORED,
                part(self.start.lang, Part::Continue),
            )],
        };
        let mut pending = VecDeque::new();
        for (i, (text, prompt)) in texts.into_iter().enumerate() {
            let prompt = match i {
                0 => self.start.intro.message(prompt),
                _ => prompt.to_string(),
            };
            pending.push_back(Said::with_prompt(text, prompt));
        }
        self.message = pending
            .back()
            .map(|said: &Said| said.prompt.clone().unwrap_or_else(|| said.text.clone()))
            .unwrap_or_default();
        self.pending = pending;
        self.store_next()
    }

    /// Stores the next message of the turn, the turn's own last.
    fn store_next(&mut self) -> Action {
        let Some(said) = self.pending.pop_front() else {
            return self.airtime();
        };
        let phase = if self.pending.is_empty() {
            Phase::Storing
        } else {
            Phase::StoringEarlier
        };
        self.then(phase, Action::Store(said))
    }

    /// Every message the turn answers, as written, one per line (for a search, and for a
    /// turn without memory, whose prompt has no conversation to carry the earlier ones).
    fn all_text(&self) -> String {
        let mut all = self.start.earlier.join("\n");
        if !all.is_empty() {
            all.push('\n');
        }
        all.push_str(&self.start.text);
        all
    }

    fn stored(&mut self, stored: Stored) -> Action {
        match stored {
            Stored::Id(id) => self.user = Some(id),
            Stored::Damaged => {}
            Stored::Failed => return self.notice(Notice::StoreFailed, End::Summarize(None)),
        }
        self.airtime()
    }

    fn airtime(&mut self) -> Action {
        if self.message.is_empty() {
            self.message = self.start.intro.message(&self.all_text());
        }
        self.then(Phase::Budgeting, Action::Airtime)
    }

    /// A held reply's wait has its own bound: a DM's turn gets it back.
    fn budgeted(&mut self, budget: Budget, held: Duration) -> Action {
        self.budget = Some(budget);
        match self.start.kind {
            Kind::Channel => self.slot(),
            Kind::Node(_) | Kind::Without => self.then(Phase::Extending, Action::Extend(held)),
        }
    }

    fn backlog(&mut self) -> Action {
        match (self.start.kind, self.user) {
            (Kind::Node(_), Some(id)) => self.then(Phase::Counting, Action::Backlog(id)),
            _ => self.slot(),
        }
    }

    /// Background summaries could not keep up (or kept failing): at the hard cap the fold
    /// runs now, before the reply, so the prompt stays bounded.
    fn counted(&mut self, unsummarized: Option<usize>) -> Action {
        match (unsummarized, self.user) {
            (Some(n), Some(before)) if n >= self.start.limits.hard_cap => self.then(
                Phase::Folding,
                Action::Fold {
                    before,
                    unsummarized: n,
                },
            ),
            _ => self.slot(),
        }
    }

    fn slot(&mut self) -> Action {
        self.then(Phase::Waiting, Action::Slot)
    }

    fn no_slot(&mut self, why: Unanswered) -> Action {
        match self.start.kind {
            // A mention's `from` proves nothing: it is not counted, nor told.
            Kind::Channel => Action::End(End::Over),
            Kind::Node(_) | Kind::Without => {
                let end = self.stored_end();
                self.give_up(why, end)
            }
        }
    }

    /// The memory is read once the slot is the turn's.
    fn read(&mut self) -> Action {
        match (self.start.kind, self.user) {
            (Kind::Node(_), Some(user_id)) => {
                let query = match self.start.wants {
                    Wants::Text => self.all_text(),
                    // `!more` has no query of its own.
                    Wants::More => String::new(),
                };
                self.then(Phase::Reading, Action::ReadMemory { user_id, query })
            }
            (Kind::Channel, _) => self.then(Phase::Reading, Action::ReadThread),
            _ => self.search(),
        }
    }

    fn memory(&mut self, read: Read) -> Action {
        match read {
            Read::Memory(ctx) => {
                self.used = true;
                self.history = History::Memory(ctx);
            }
            Read::Thread(thread) => self.history = History::Thread(thread),
            Read::Damaged => {}
            Read::Failed => return self.notice(Notice::StoreFailed, End::Summarize(None)),
        }
        self.search()
    }

    /// The operator's documents for this question: a DM's short follow-up is read with the
    /// asker's message before it, and `!more` searches with the question whose answer it
    /// continues; a mention's follow-up with the thread's last mention.
    fn search(&mut self) -> Action {
        let text = self.all_text();
        let (question, previous, passages) = match (&self.history, self.start.kind) {
            (History::Memory(ctx), Kind::Node(passages)) => {
                let mut before = asked_before(ctx);
                let (question, previous) = match self.start.wants {
                    Wants::More => (before.next(), None),
                    Wants::Text => (Some(text), before.next()),
                };
                (question, previous, passages)
            }
            (History::Thread(thread), _) => (Some(text), last_question(thread), Passages::Public),
            (History::Memory(_), _) => (Some(text), None, Passages::Public),
        };
        self.searched = question.clone();
        match question {
            Some(question) => self.then(
                Phase::Searching,
                Action::Search(Search {
                    question,
                    previous,
                    passages,
                }),
            ),
            None => self.found(None),
        }
    }

    /// The documents' note is in: the mesh view is asked about a text (not `!more`, which
    /// continues an answer), when `[mesh]` is on.
    fn found(&mut self, documents: Option<Note>) -> Action {
        match (self.start.mesh, self.start.wants) {
            (true, Wants::Text) => {
                self.documents = documents;
                let text = self.start.text.clone();
                self.then(Phase::Meshing, Action::Mesh(text))
            }
            (false, Wants::Text) => self.documented(documents),
            // `!more` continues an answer: nothing to decline.
            (_, Wants::More) => self.model_call(documents, None),
        }
    }

    /// What the mesh has for the question: the daemon's own reply, the readout for the model,
    /// or nothing (then the documents decide). A guess gives way to documents that have
    /// passages about the question or decline it: they know the place a node word named
    /// ("the fire station where we meet").
    fn meshed(&mut self, answer: Option<Answer>) -> Action {
        // Names written: only passages that write each of them know what they name.
        let theirs = |names: &[String]| {
            self.documents.as_ref().is_some_and(|n| {
                let folded = fold(&n.text);
                let written = words(&folded);
                if names.is_empty() {
                    n.grounded || n.decision == Decision::NotInNotes
                } else {
                    n.grounded && names.iter().all(|name| written.contains(&name.as_str()))
                }
            })
        };
        let answer = match answer {
            Some(Answer::Guess { names, .. }) if theirs(&names) => None,
            Some(Answer::Guess { answer, .. }) => Some(*answer),
            answer => answer,
        };
        let lang = self.start.lang;
        match answer {
            Some(Answer::UnknownNode) => self.reply(say(lang, Say::UnknownNode).to_string()),
            Some(Answer::NoRadio) => self.reply(say(lang, Say::NoRadio).to_string()),
            Some(Answer::Said(text)) => self.reply(text),
            Some(Answer::Readout(text)) => {
                let documents = self.documents.take();
                self.model_call(documents, Some(text))
            }
            // Not nested: a guess holds one of the others.
            Some(Answer::Guess { .. }) | None => {
                let documents = self.documents.take();
                self.documented(documents)
            }
        }
    }

    /// No mesh facts: a question about the documents' world they do not answer gets the
    /// daemon's "Not in my notes." (`knowledge::local`), anything else the model.
    fn documented(&mut self, documents: Option<Note>) -> Action {
        match documents {
            Some(note) if note.decision == Decision::NotInNotes => {
                let text = say(self.start.lang, Say::NotInNotes).to_string();
                self.reply(text)
            }
            documents => self.model_call(documents, None),
        }
    }

    /// The question, its notes and its budget. The mesh facts, when there are any, come
    /// last (nearest the question), and, like the documents, leave out the asker's radio and
    /// time notes: the model answered "how busy is the channel?" with the asker's own line.
    fn model_call(&mut self, documents: Option<Note>, mesh: Option<String>) -> Action {
        let budget = self.budget.unwrap_or_default();
        let chunk = self.start.limits.chunk;
        let lang = self.start.lang;
        let (limits, extra) = match self.start.kind {
            Kind::Node(_) | Kind::Without => fair::budget(
                lang,
                budget.limits(chunk),
                self.start.standing,
                self.start.limits.new_node_parts,
            ),
            Kind::Channel => (
                budget.limits(chunk),
                Some(part(lang, Part::PublicNote).to_string()),
            ),
        };
        let grounding = match &mesh {
            Some(_) => Grounding::Mesh,
            None => knowledge::grounding(documents.as_ref()),
        };
        // Checked when the documents came with a note and the mesh with no facts, but for an
        // everyday question.
        let checked = match (&documents, &mesh) {
            (Some(n), None) if !n.text.is_empty() && n.check_values => Some(n.text.clone()),
            _ => None,
        };
        // What the person asked, without the header of who is asking: the check's question
        // (a first message's "[Ann (ANN)] Who …?" does not start with "who").
        let question = self.searched.take().unwrap_or_else(|| self.all_text());
        // An everyday question the model declines is asked again without the documents'
        // rule (`answer`): with the passages alone, when it has any.
        let everyday = mesh.is_none() && crate::knowledge::local::everyday(&question);
        let mut notes = self.start.intro.notes(grounding);
        notes.extend(together(lang, self.start.earlier.len()));
        notes.extend(budget.note(lang, &chunk));
        notes.extend(extra);
        let again = everyday.then(|| {
            let mut again = notes.clone();
            again.extend(documents.as_ref().and_then(|n| n.passages.clone()));
            again
        });
        notes.extend(documents.map(|n| n.text).filter(|t| !t.is_empty()));
        let stored = match self.start.kind {
            Kind::Node(_) => self.user,
            Kind::Without | Kind::Channel => None,
        };
        let call = ModelCall {
            history: std::mem::replace(&mut self.history, History::Memory(Context::default())),
            message: std::mem::take(&mut self.message),
            notes,
            broadcast: mesh,
            limits,
            // The rest of a cut answer can be asked for only where the conversation is kept.
            mark: if stored.is_some() {
                CutMark::More(lang)
            } else {
                CutMark::Ellipsis
            },
            // Without the node's memory, its slot's cache is left be.
            slot: match self.start.kind {
                Kind::Node(_) => Slot::Node,
                Kind::Without | Kind::Channel => Slot::Any,
            },
            stored,
            checked,
            question,
            again,
            lang,
        };
        self.then(Phase::Answering, Action::Answer(Box::new(call)))
    }

    /// The daemon's own answer instead of the model's (a mesh lookup, a node it does not
    /// know): stored after the message like any answer, so the conversation stays whole.
    fn reply(&mut self, text: String) -> Action {
        let end = self.answered_end();
        let stored = match self.start.kind {
            Kind::Node(_) => self.user,
            Kind::Without | Kind::Channel => None,
        };
        self.then(Phase::Noticing(end), Action::Reply { text, stored })
    }

    /// The end of a turn the daemon answered itself, after the memory was read.
    fn answered_end(&self) -> End {
        match (self.start.kind, self.used) {
            (Kind::Node(_), true) => End::Summarize(None),
            _ => End::Over,
        }
    }

    fn answered(&mut self, size: Option<usize>) -> Action {
        match (self.start.kind, self.used) {
            (Kind::Node(_), true) => Action::End(End::Summarize(size)),
            _ => Action::End(End::Over),
        }
    }
}

/// The per-turn note of a turn that answers `earlier` messages before its own: answer them
/// all, in this one reply.
fn together(lang: Lang, earlier: usize) -> Option<String> {
    (earlier > 0).then(|| {
        let n = (earlier + 1).to_string();
        fill(part(lang, Part::Together), &[("n", &n)])
    })
}

/// The node's earlier questions in its memory, newest first (a `!more` is none).
fn asked_before(ctx: &Context) -> impl Iterator<Item = String> + '_ {
    ctx.window
        .iter()
        .rev()
        .filter(|m| m.role == Role::User && commands::parse(&m.text) != Parsed::More)
        .map(|m| m.text.clone())
}

/// The thread's last mention, for a follow-up.
fn last_question(thread: &[(ChatRole, String)]) -> Option<String> {
    thread
        .iter()
        .rev()
        .find(|(role, _)| *role == ChatRole::User)
        .map(|(_, text)| text.clone())
}

#[cfg(test)]
mod tests;
