//! One question's passages: the store's full-text search, the candidates judged by
//! `choose`, and the follow-up rule (a question with few words worth searching for is
//! searched together with the asker's message before it). The daemon's turns and `meshai knowledge
//! search` both come through here, so the command shows what a turn gets.

use super::choose::{self, Bounds, Verdict};
use super::render;
use crate::memory::store::{KnowledgeHit, Store, StoreError, content_words};

/// What a search found for one question.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Found {
    /// The question had words worth searching for.
    pub searched: bool,
    /// It was searched together with the message before it (a follow-up).
    pub with_previous: bool,
    /// The candidates, best first, and the verdict on each.
    pub hits: Vec<KnowledgeHit>,
    pub verdicts: Vec<Verdict>,
}

impl Found {
    /// The passages for the prompt, in the order it gets them: best first.
    pub fn chosen(&self) -> Vec<&KnowledgeHit> {
        self.hits
            .iter()
            .zip(&self.verdicts)
            .filter(|(_, v)| **v == Verdict::Chosen)
            .map(|(h, _)| h)
            .collect()
    }

    /// The per-turn block (see [`render::knowledge_block`]; `about` is `[knowledge] about`).
    pub fn block(&self, about: &str) -> Option<String> {
        render::knowledge_block(self.searched, &self.chosen(), about)
    }
}

/// The passages for `question` within `bounds`, private ones only when `private`;
/// `previous` is the asker's message before it: a follow-up ([`choose::is_follow_up`]) is
/// searched together with it, so "And where?" finds what the question before it was about.
pub async fn search(
    store: &Store,
    bounds: &Bounds,
    question: &str,
    previous: Option<&str>,
    private: bool,
) -> Result<Found, StoreError> {
    match previous {
        Some(previous) if choose::is_follow_up(question) => {
            let both = once(store, bounds, &format!("{previous}\n{question}"), private).await?;
            Ok(Found {
                with_previous: true,
                ..both
            })
        }
        _ => once(store, bounds, question, private).await,
    }
}

async fn once(
    store: &Store,
    bounds: &Bounds,
    text: &str,
    private: bool,
) -> Result<Found, StoreError> {
    if content_words(text) == 0 {
        return Ok(Found::default());
    }
    let hits = choose::ranked(
        store
            .knowledge_search(text, private, choose::CANDIDATES)
            .await?,
    );
    let verdicts = choose::judge(&hits, bounds);
    Ok(Found {
        searched: true,
        with_previous: false,
        hits,
        verdicts,
    })
}
