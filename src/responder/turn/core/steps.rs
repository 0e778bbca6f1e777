//! What goes in and out of the turn's core: what a turn starts from ([`Start`]), what the
//! driver saw ([`Event`]) and what it does next ([`Action`]), with the values they carry.

use std::time::Duration;

use crate::chunk::{ChunkLimits, CutMark};
use crate::lang::Lang;
use crate::llm::ChatRole;
use crate::node::Standing;
use crate::responder::budget::Budget;
use crate::responder::schedule::turns::Unanswered;
use crate::responder::sender::SenderIntro;
use crate::responder::turn::knowledge::{Note, Passages};
use crate::store::{Context, Said};

/// The per-turn note that says a mention's answer is public.
#[cfg(test)]
pub(crate) const PUBLIC_NOTE: &str = "This message came on a public channel: everyone on it \
reads your answer, and you know nothing private about the sender.";
// (`PUBLIC_NOTE` is `lang::Part::PublicNote` in English, for the tests: the turn uses the
// catalogue's, in the mention's language.)

/// What a turn's memory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A DM with its node's memory: the message stored, the memory read, a summary after;
    /// the passages it may get.
    Node(Passages),
    /// A DM without the node's memory: nothing stored or read, public passages only.
    Without,
    /// A channel mention: the channel's public thread, nothing stored, public passages only.
    Channel,
}

/// What a turn wants answered: the message, or more of the last answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wants {
    /// The message, as written.
    Text,
    /// `!more`: the continuation of the node's last answer, when it was cut at the budget.
    More,
}

/// The limits a turn's answer is made within.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// `[reply]`'s parts.
    pub(crate) chunk: ChunkLimits,
    /// A new node's answer has at most this many parts.
    pub(crate) new_node_parts: usize,
    /// At this many unsummarised messages the fold runs before the reply.
    pub(crate) hard_cap: usize,
}

/// What a turn starts from.
#[derive(Debug, Clone)]
pub(crate) struct Start {
    pub(crate) kind: Kind,
    pub(crate) wants: Wants,
    /// The message as written.
    pub(crate) text: String,
    /// The node's messages before it that this turn answers too, in order (queued behind
    /// each other while the turn waited): stored before it, each as the conversation stores
    /// it, and answered in the same reply.
    pub(crate) earlier: Vec<String>,
    /// Who is asking, as the first message of a conversation says it.
    pub(crate) intro: SenderIntro,
    pub(crate) standing: Standing,
    pub(crate) limits: Limits,
    /// The mesh view is asked about the message (`[mesh] enabled`).
    pub(crate) mesh: bool,
    /// The language the turn speaks: its prompt's fixed parts and its notices.
    pub(crate) lang: Lang,
}

/// The node's last stored message, as far as a turn needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Last {
    /// The store could not say.
    Unknown,
    /// `at`: when it was stored, Unix seconds (`None`: the node has no message); `cut`: it is
    /// an answer cut at the budget, which `!more` continues.
    Known { at: Option<i64>, cut: bool },
}

/// The message, as the store took it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stored {
    /// Stored with this id.
    Id(i64),
    /// The database is damaged: the turn goes on without memory.
    Damaged,
    /// The store failed otherwise.
    Failed,
}

/// What a turn read of its memory.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Read {
    /// The node's memory for the message.
    Memory(Context),
    /// The channel's public thread: its mentions and answers, oldest first.
    Thread(Vec<(ChatRole, String)>),
    /// The database is damaged: the turn goes on without memory.
    Damaged,
    /// The store failed otherwise.
    Failed,
}

/// What the driver saw.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// The turn may go on, or is over ([`Action::Check`]).
    Checked(Result<(), Unanswered>),
    /// The node's last message, and the time now in Unix seconds ([`Action::ReadLast`]).
    Last { last: Last, now: i64 },
    /// [`Action::Store`]'s outcome.
    Stored(Stored),
    /// The answer's airtime budget, and how long the reply was held for it
    /// ([`Action::Airtime`]).
    Budget { budget: Budget, held: Duration },
    /// The unsummarised messages before the turn's, `None` when the store could not say
    /// ([`Action::Backlog`]).
    Backlog(Option<usize>),
    /// The LLM slot is the turn's, or why it gets none ([`Action::Slot`]).
    Slot(Result<(), Unanswered>),
    /// [`Action::ReadMemory`]'s or [`Action::ReadThread`]'s outcome.
    Read(Read),
    /// The passages found, as a note ([`Action::Search`]).
    Found(Option<Note>),
    /// What the mesh view says to the message, when it asks about the mesh
    /// ([`Action::Mesh`]).
    Mesh(Option<crate::mesh::Answer>),
    /// The answer went out, with its prompt's and reply's tokens, or none did
    /// ([`Action::Answer`]).
    Answered(Option<usize>),
    /// An action without an outcome of its own is done.
    Done,
}

/// One packet instead of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Notice {
    /// `!more` without a cut answer to continue.
    NothingMore,
    /// The store failed (not damaged).
    StoreFailed,
    /// A known or proven node's turn waited too long.
    TooBusy,
}

/// Where the knowledge folder is searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Search {
    pub(crate) question: String,
    /// The asker's message before it, for a follow-up.
    pub(crate) previous: Option<String>,
    pub(crate) passages: Passages,
}

/// What the prompt is made of, besides the system prompt.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum History {
    /// A DM's: its node's memory (empty without it).
    Memory(Context),
    /// A mention's: the channel's public thread.
    Thread(Vec<(ChatRole, String)>),
}

/// Which llama.cpp server slot the answer names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The node's own: it holds the node's conversation.
    Node,
    /// None: the answer's prompt is not the node's conversation.
    Any,
}

/// The question for the model, and the answer's shape.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ModelCall {
    pub(crate) history: History,
    /// The message as the model sees it.
    pub(crate) message: String,
    /// The per-turn notes, in order.
    pub(crate) notes: Vec<String>,
    /// What nodes broadcast that the question asks about (the mesh facts: names and
    /// readings anyone on the mesh sets): a user-role note after the notes, never in a
    /// system message (issue 39: a stranger's node name in a system message was obeyed).
    pub(crate) broadcast: Option<String>,
    pub(crate) limits: ChunkLimits,
    pub(crate) mark: CutMark,
    pub(crate) slot: Slot,
    /// The stored message the answer is stored after (`None`: it is not stored).
    pub(crate) stored: Option<i64>,
    /// The documents' note the answer is checked against before it goes (`knowledge::check`:
    /// no number, date or name its prompt does not hold); such an answer is held until
    /// complete, not streamed.
    pub(crate) checked: Option<String>,
    /// What the person asked, as the documents were searched with it: without the header of
    /// who is asking that `message` carries on a conversation's first message. The answer is
    /// checked against it.
    pub(crate) question: String,
    /// For an everyday question (`knowledge::local::everyday`) without mesh facts: the notes
    /// it is asked again with when the model declines it while the system prompt carries the
    /// documents' rule — these notes, with the chosen passages but not the rule that closes
    /// them.
    pub(crate) again: Option<Vec<String>>,
    /// The turn's language.
    pub(crate) lang: Lang,
}

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// A DM answered with its memory, or one whose message was stored: the background summary
    /// starts, a fold now when the answer's tokens (when it went out) reached the budget.
    Summarize(Option<usize>),
    /// Nothing follows.
    Over,
}

/// What the driver does next.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    /// Ask the gate whether the turn may still go on: [`Event::Checked`].
    Check,
    /// Store the text, unanswered: [`Event::Done`].
    KeepUnanswered,
    /// Count and log a turn the gate gave up: [`Event::Done`].
    GiveUp(Unanswered),
    /// Send this one packet (after letting go of the LLM slot): [`Event::Done`].
    Notice(Notice),
    /// Send the daemon's own answer (after letting go of the LLM slot), stored after
    /// message `stored` as the model's would be: [`Event::Done`].
    Reply { text: String, stored: Option<i64> },
    /// Read the node's last message: [`Event::Last`].
    ReadLast,
    /// Store the message with the node's names: [`Event::Stored`].
    Store(Said),
    /// Wait for the airtime budget: [`Event::Budget`].
    Airtime,
    /// The turn's wait does not count the time its reply was held: [`Event::Done`].
    Extend(Duration),
    /// Count the unsummarised messages before message `id`: [`Event::Backlog`].
    Backlog(i64),
    /// Fold the backlog before the reply, up to message `before`: [`Event::Done`].
    Fold { before: i64, unsummarized: usize },
    /// Wait for an LLM slot: [`Event::Slot`].
    Slot,
    /// Read the node's memory for message `user_id`, retrieving by `query`: [`Event::Read`].
    ReadMemory { user_id: i64, query: String },
    /// Read the channel's public thread: [`Event::Read`].
    ReadThread,
    /// Search the knowledge folder: [`Event::Found`].
    Search(Search),
    /// Ask the mesh view about this message: [`Event::Mesh`].
    Mesh(String),
    /// Ask the model and send the answer: [`Event::Answered`].
    Answer(Box<ModelCall>),
    /// The turn is over.
    End(End),
}

impl Event {
    /// The event's name, for the log: an event may carry a message's text.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Event::Checked(_) => "checked",
            Event::Last { .. } => "last",
            Event::Stored(_) => "stored",
            Event::Budget { .. } => "budget",
            Event::Backlog(_) => "backlog",
            Event::Slot(_) => "slot",
            Event::Read(_) => "read",
            Event::Found(_) => "found",
            Event::Mesh(_) => "mesh",
            Event::Answered(_) => "answered",
            Event::Done => "done",
        }
    }
}
