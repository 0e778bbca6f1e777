//! One question's passages: the store's full-text search (and, with an embedding model, the
//! nearest passages by meaning, fused with it), the candidates judged by `choose`, and the
//! follow-up rule (a question with few words worth searching for is
//! searched together with the asker's message before it). The daemon's turns and `meshai knowledge
//! search` both come through here, so the command shows what a turn gets.

use super::check::{self, asked::Kind};
use super::choose::{self, Bounds, Verdict};
use super::embed::Embedder;
use super::render;
use crate::lang::{self, Lang};
use crate::mesh::matcher::{fold, words};
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

    /// The chosen passages without the block's closing rule ([`render::passages_block`]).
    pub(crate) fn passages(&self, lang: crate::lang::Lang) -> Option<String> {
        render::passages_block(lang, &self.chosen())
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
    let question = about(ask.question);
    let kind = check::asked::kind(&fold(ask.question));
    match ask.previous {
        Some(previous) if choose::is_follow_up(ask.question) => {
            let text = format!("{previous}\n{question}");
            let both = once(store, bounds, embedder, &text, lang, ask.private, kind).await?;
            if !both.chosen().is_empty() {
                return Ok(Found {
                    with_previous: true,
                    ..both
                });
            }
            // Short, but on a new topic: the message before it only diluted its words
            // ("Where does the club meet?" after "Why do LoRa signals reach further from a
            // hill?" chose nothing together, and the daemon declined it as a question about
            // the club its notes do not answer).
            let alone = once(store, bounds, embedder, &question, lang, ask.private, kind).await?;
            Ok(match alone.chosen().is_empty() {
                false => alone,
                true => Found {
                    with_previous: true,
                    ..both
                },
            })
        }
        _ => once(store, bounds, embedder, &question, lang, ask.private, kind).await,
    }
}

/// `question` without the words that only say a day or a time is asked
/// (`check::asked::cue_words`, and a start's verb in such a question, `start_words`; each
/// once, where it first stands): "quel jour de la semaine", "hoe laat", "que horas", "begint"
/// say what kind of answer is wanted, not what it is about. Searched
/// for, they outweighed the subject: "C'est quel jour de la semaine, la soirée du club ?"
/// brought the equipment loans ("deux semaines") before the monthly club evening, which
/// then matched too little of the question to go in (issue 38).
fn about(question: &str) -> String {
    let folded = fold(question);
    let mut cue = check::asked::cue_words(&folded);
    cue.extend(check::asked::start_words(&folded));
    let kept: Vec<&str> = question
        .split_whitespace()
        .filter(|token| {
            let folded = fold(token);
            let ws = words(&folded);
            let only_cue = !ws.is_empty() && ws.iter().all(|w| cue.iter().any(|c| c == w));
            if only_cue {
                for w in ws {
                    if let Some(i) = cue.iter().position(|c| c == w) {
                        cue.remove(i);
                    }
                }
            }
            !only_cue
        })
        .collect();
    kept.join(" ")
}

/// The passages for `text`; one that holds no value of `kind` (what the question asks for)
/// is left out (`choose::holding`).
async fn once(
    store: &Store,
    bounds: &Bounds,
    embedder: Option<&Embedder>,
    text: &str,
    lang: Lang,
    private: bool,
    kind: Option<Kind>,
) -> Result<Found, StoreError> {
    if content_words(text) == 0 {
        return Ok(Found::default());
    }
    let passages = if private {
        Passages::WithPrivate
    } else {
        Passages::Public
    };
    let (fts, mut lacking) = choose::holding(
        choose::ranked(
            store
                .knowledge_search(text, lang, passages, choose::CANDIDATES)
                .await?,
        ),
        kind,
    );
    let Some(embedder) = embedder else {
        let verdicts = choose::judge(&fts, bounds, valued(kind));
        return Ok(with_lacking(
            Found {
                searched: true,
                with_previous: false,
                hits: fts,
                verdicts,
                meaning: Meaning::Off,
            },
            lacking,
        ));
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
    let (similar, also) = choose::holding(similar, kind);
    lacking.extend(also);
    let (hits, verdicts) = choose::fuse(
        fts,
        similar,
        bounds,
        embedder.min_similarity(),
        valued(kind),
    );
    Ok(with_lacking(
        Found {
            searched: true,
            with_previous: false,
            hits,
            verdicts,
            meaning,
        },
        lacking,
    ))
}

/// Whether a question asking for a value of `kind` may take a passage whose heading it names
/// nothing of on a quarter of its words ([`choose::MIN_COVERAGE`]) rather than half: the
/// passages that hold no such value are already out ([`choose::holding`]), so what is left
/// holds what is asked ("¿Qué noche toca la rueda semanal del repetidor?" and the nets, at
/// 42 %). Not for a price: money is written in many passages, and "How much does parking
/// cost at Crane Farm?" took club night's (docs/benchmarks.md). Nor for a place: no passage
/// is left out for holding none.
fn valued(kind: Option<Kind>) -> bool {
    kind.is_some_and(|k| !matches!(k, Kind::Price | Kind::Place))
}

/// `found` with the passages that hold no value of the kind asked after its own, each once.
fn with_lacking(mut found: Found, lacking: Vec<KnowledgeHit>) -> Found {
    for hit in lacking {
        if !found.hits.iter().any(|h| h.id == hit.id) {
            found.hits.push(hit);
            found.verdicts.push(Verdict::Lacks);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::about;

    #[test]
    fn a_question_is_searched_without_the_words_that_ask_for_a_day_or_a_time() {
        let cases = [
            (
                "C'est quel jour de la semaine, la soirée du club ?",
                "C'est la soirée du club ?",
            ),
            (
                "¿Qué día de la semana es la noche del club?",
                "es la noche del club?",
            ),
            (
                "W jaki dzień tygodnia jest wieczór klubowy?",
                "jest wieczór klubowy?",
            ),
            // A start's verb too, in a question asking a time ("Hoe laat begint de
            // clubavond?" found the nets' "begint met CHECK-IN" before the club night).
            ("What time does club night begin?", "does club night"),
            ("Hoe laat begint de clubavond?", "de clubavond?"),
            ("Que horas começa a noite do clube?", "a noite do clube?"),
            // The day of "Field Day" is what the question is about: only the asking phrase
            // goes, once.
            ("When is Field Day next year?", "is Field Day next year?"),
            ("Which day is Field Day?", "is Field Day?"),
            // Nothing asks for a day or a time: the question as it is.
            (
                "Who do I ask to lend me the antenna analyser?",
                "Who do I ask to lend me the antenna analyser?",
            ),
        ];
        for (question, want) in cases {
            assert_eq!(about(question), want, "{question}");
        }
    }
}
