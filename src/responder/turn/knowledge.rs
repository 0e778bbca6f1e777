//! The knowledge folder in a turn: who may get private passages (the identity verdict and
//! `[knowledge]`'s lists), and the per-turn note with the passages a question finds. Only
//! with `[knowledge] dir` set; best-effort like retrieval: a search that fails leaves the
//! turn without notes. The note is a per-turn note like the asker line: never stored,
//! summarised or kept as a fact.

use tracing::{debug, warn};

use crate::config::AccessConfig;
use crate::knowledge::local::{self, Decision};
use crate::knowledge::search::Meaning;
use crate::knowledge::{Embedder, KnowledgeConfig, Sender, search};
use crate::lang::Lang;
use crate::node::NodeId;
use crate::radio::TextMessage;
use crate::responder::identity::Verdict;
use crate::responder::sender::Grounding;
use crate::responder::system_prompt::SystemPrompt;
use crate::store::Store;

/// The knowledge folder as a turn reaches it: its passages searched, public or private as
/// [`Passages`] says, and nothing else of the store (its fields are this file's alone).
pub(crate) struct Documents {
    store: Store,
    knowledge: KnowledgeConfig,
    /// The embedding model's client for `[knowledge.embeddings]`; `None` without it.
    embedder: Option<Embedder>,
    /// Whether the index holds passages now (`SystemPrompt::knowledge`).
    system_prompt: SystemPrompt,
}

impl Documents {
    pub(crate) fn new(
        store: Store,
        knowledge: KnowledgeConfig,
        embedder: Option<Embedder>,
        system_prompt: SystemPrompt,
    ) -> Documents {
        Documents {
            store,
            knowledge,
            embedder,
            system_prompt,
        }
    }
}

/// Which of the knowledge folder's passages a turn may get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passages {
    /// The private ones too.
    Private,
    /// Public ones only.
    Public,
}

/// Which passages the DM `msg`, judged `verdict`, may get.
pub(crate) fn passages_for(
    knowledge: &KnowledgeConfig,
    access: &AccessConfig,
    msg: &TextMessage,
    verdict: Verdict,
) -> Passages {
    let sender = match verdict {
        // A key was checked against the pinned one (or pinned now): a PKI DM proves its node.
        Verdict::Own if msg.public_key.is_some() => Sender::Proven,
        Verdict::Own => Sender::Claimed,
        _ => Sender::Unknown,
    };
    let node: NodeId = msg.from;
    let listed = access.allow.contains(&node);
    if knowledge.private_for(node, listed, sender) {
        Passages::Private
    } else {
        Passages::Public
    }
}

/// The per-turn note of the operator's documents for one question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Note {
    /// Empty when the search found nothing to say but the daemon declines the question.
    pub(crate) text: String,
    /// It holds passages (not only "no note matches").
    pub(crate) grounded: bool,
    /// Whether the model answers, or the daemon says "Not in my notes." (`knowledge::local`).
    pub(crate) decision: Decision,
    /// The model's answer is checked for values the prompt does not hold (`knowledge::check`).
    /// Not for an everyday question (a how-to, advice: `local::everyday`): the model answers
    /// it from what it knows, with or without documents, and its values are its own ("a 6 W
    /// panel"); "Not in my notes." there is a refusal of a question the bot should answer.
    pub(crate) check_values: bool,
    /// The passages without the rule that closes them in `text`: what an everyday question
    /// the model declined is asked again with (`None`: no passage was chosen).
    pub(crate) passages: Option<String>,
}

/// Whether `note` answers the turn: it holds passages.
pub(crate) fn grounding(note: Option<&Note>) -> Grounding {
    match note {
        Some(n) if n.grounded => Grounding::Documents,
        _ => Grounding::Nothing,
    }
}

/// The note of passages for `question` (with `previous`, the asker's message before it, for
/// a follow-up); `None` without a knowledge folder or while its index holds no passage, for a
/// message without words to search, or when the search failed.
pub(crate) async fn note(
    docs: &Documents,
    question: &str,
    previous: Option<&str>,
    passages: Passages,
    lang: Lang,
) -> Option<Note> {
    let private = passages == Passages::Private;
    let k = &docs.knowledge;
    if !docs.system_prompt.knowledge() {
        return None;
    }
    let embedder = docs.embedder.as_ref();
    let ask = search::Ask {
        question,
        previous,
        private,
        lang,
    };
    match search::search(&docs.store, &k.bounds, embedder, &ask).await {
        Ok(found) => {
            let chosen = found.chosen();
            if let Meaning::Failed(why) = &found.meaning {
                debug!(error = %why, "knowledge: no search by meaning for this turn");
            }
            debug!(
                by_meaning = found.meaning == Meaning::Searched,
                candidates = found.hits.len(),
                passages = chosen.len(),
                chars = chosen.iter().map(|h| h.text.chars().count()).sum::<usize>(),
                follow_up = found.with_previous,
                private,
                "knowledge searched"
            );
            let decision = local::decide(question, &found, &k.about);
            let check_values = !local::everyday(question);
            if decision == Decision::NotInNotes {
                debug!("knowledge: a question about the documents' world they do not answer");
            }
            match (found.block(lang, &k.about), decision) {
                // An everyday question no passage was chosen for is answered as without
                // documents: the "no note matches … reply exactly: Not in my notes." block
                // only misleads the model there (the Polish knowledge bench's "Jak duży panel
                // słoneczny potrzebuje mały węzeł?" was answered with that block recited).
                (Some(_), Decision::Model) if !check_values && chosen.is_empty() => None,
                (Some(text), _) => Some(Note {
                    text,
                    grounded: !chosen.is_empty(),
                    decision,
                    check_values,
                    passages: found.passages(lang),
                }),
                (None, Decision::NotInNotes) => Some(Note {
                    text: String::new(),
                    grounded: false,
                    decision,
                    check_values,
                    passages: None,
                }),
                (None, Decision::Model) => None,
            }
        }
        Err(e) if e.damage().is_some() => {
            debug!(error = %e, "knowledge search failed: answering without notes");
            None
        }
        Err(e) => {
            warn!(error = %e, "knowledge search failed: answering without notes");
            None
        }
    }
}
