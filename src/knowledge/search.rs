//! One question's passages: the store's full-text search (and, with an embedding model, the
//! nearest passages by meaning, fused with it), the candidates judged by `choose`, and the
//! follow-up rule (a question with few words worth searching for is
//! searched together with the asker's message before it). The daemon's turns and `meshai knowledge
//! search` both come through here, so the command shows what a turn gets.

use super::choose::{self, Bounds, Verdict};
use super::embed::Embedder;
use super::render;
use crate::lang::{self, Lang};
use crate::store::{KnowledgeHit, Passages, Store, StoreError, content_words};

/// What a search found for one question.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Found {
    /// The question had words worth searching for.
    pub(crate) searched: bool,
    /// It was searched together with the message before it (a follow-up).
    pub(crate) with_previous: bool,
    /// The candidates, best first, and the verdict on each.
    pub(crate) hits: Vec<KnowledgeHit>,
    pub(crate) verdicts: Vec<Verdict>,
    /// What became of the search by meaning.
    pub(crate) meaning: Meaning,
}

/// The search by meaning of one question.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Meaning {
    /// No embedding model is set, or the question had no words to search for.
    #[default]
    Off,
    /// The nearest passages were fused with the full-text ones.
    Searched,
    /// The question's vector could not be had (the server is down, slow or answered
    /// badly): full-text passages only. Why, for the log and `meshai knowledge search`.
    Failed(String),
}

impl Found {
    /// The passages for the prompt, in the order it gets them: best first.
    pub(crate) fn chosen(&self) -> Vec<&KnowledgeHit> {
        self.hits
            .iter()
            .zip(&self.verdicts)
            .filter(|(_, v)| **v == Verdict::Chosen)
            .map(|(h, _)| h)
            .collect()
    }

    /// The per-turn block (see [`render::knowledge_block`]; `about` is `[knowledge] about`).
    pub(crate) fn block(&self, lang: crate::lang::Lang, about: &str) -> Option<String> {
        let found = if !self.searched {
            render::Searched::No
        } else if self.hits.is_empty() {
            render::Searched::NothingMatched
        } else {
            render::Searched::OnTopic
        };
        render::knowledge_block(lang, found, &self.chosen(), about)
    }
}

/// What one search is asked: the question, where to look and in which language.
pub struct Ask<'a> {
    pub question: &'a str,
    /// The asker's message before it: a follow-up ([`choose::is_follow_up`]) is searched
    /// together with it, so "And where?" finds what the question before it was about.
    pub previous: Option<&'a str>,
    /// Private passages too.
    pub private: bool,
    /// The conversation's language: the question's words are searched as it inflects them
    /// (`lang::stem`) when the question itself is too short to tell ([`lang::detect`]).
    pub lang: Lang,
}

/// The passages for `ask` within `bounds`, found by meaning too when `embedder` is given.
pub async fn search(
    store: &Store,
    bounds: &Bounds,
    embedder: Option<&Embedder>,
    ask: &Ask<'_>,
) -> Result<Found, StoreError> {
    let lang = lang::detect(ask.question).unwrap_or(ask.lang);
    match ask.previous {
        Some(previous) if choose::is_follow_up(ask.question) => {
            let text = format!("{previous}\n{}", ask.question);
            let both = once(store, bounds, embedder, &text, lang, ask.private).await?;
            Ok(Found {
                with_previous: true,
                ..both
            })
        }
        _ => once(store, bounds, embedder, ask.question, lang, ask.private).await,
    }
}

async fn once(
    store: &Store,
    bounds: &Bounds,
    embedder: Option<&Embedder>,
    text: &str,
    lang: Lang,
    private: bool,
) -> Result<Found, StoreError> {
    if content_words(text) == 0 {
        return Ok(Found::default());
    }
    let passages = if private {
        Passages::WithPrivate
    } else {
        Passages::Public
    };
    let fts = choose::ranked(
        store
            .knowledge_search(text, lang, passages, choose::CANDIDATES)
            .await?,
    );
    let Some(embedder) = embedder else {
        let verdicts = choose::judge(&fts, bounds);
        return Ok(Found {
            searched: true,
            with_previous: false,
            hits: fts,
            verdicts,
            meaning: Meaning::Off,
        });
    };
    let (similar, meaning) = match embedder.question(text).await {
        Ok(vector) => (
            store
                .knowledge_nearest(
                    embedder.model().to_string(),
                    vector,
                    passages,
                    choose::CANDIDATES,
                )
                .await?,
            Meaning::Searched,
        ),
        Err(e) => (Vec::new(), Meaning::Failed(e.to_string())),
    };
    let (hits, verdicts) = choose::fuse(fts, similar, bounds, embedder.min_similarity());
    Ok(Found {
        searched: true,
        with_previous: false,
        hits,
        verdicts,
        meaning,
    })
}
