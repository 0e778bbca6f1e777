//! The prompt's fixed parts in each of meshai's languages: the default system prompt and
//! meshai's own sentences in it, the memory block's labels, the per-turn notes, the fold's
//! request. A 0.5B model answers in the language it reads most (measured: with English
//! labels and notes around a German conversation, 4 of 8 answers began in English), so the
//! prompt speaks the conversation's language. Each part is short and plain: what it says and
//! why is documented where it is used (`memory::layout`, `memory::summary`, `lib.rs`, the
//! responder's notes); the English texts are byte-identical to what they were before.
//!
//! A part with a placeholder (`{chars}`, `{n}`, …) is filled by [`super::fill`].

use super::Lang;
#[cfg(doc)]
use super::Plural;

texts! {
    /// One fixed part of a prompt.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Part {
        /// The default `[llm] system_prompt` (an operator's own stays as written).
        DefaultSystem,
        /// meshai's guidance at the end of the system prompt.
        Guidance,
        /// The budget sentence for one part; `{chars}`.
        BudgetOne,
        /// The budget sentence for several; `{chars}` a part, `{total}` in all.
        BudgetMany,
        /// The mesh sentence (`[mesh] enabled`).
        MeshHint,
        /// The knowledge sentence; `{about}`.
        KnowledgeHint,
        /// The default `[knowledge] about`.
        DefaultAbout,
        /// Opens the memory block.
        MemoryIntro,
        /// Introduces the kept facts.
        FactsIntro,
        /// Introduces the summary.
        SummaryIntro,
        /// Introduces the retrieved exchanges.
        RetrievedIntro,
        /// A retrieved exchange; `{user}`: what they wrote.
        TheyWrote,
        /// A retrieved exchange's answer; `{answer}`.
        YouAnswered,
        /// Opens the per-turn block.
        NotesIntro,
        /// The fold's request; `{max_chars}`. Starts with [`Part::SummaryStart`].
        SummaryRequest,
        /// How the fold's request starts (tests and benches recognise it).
        SummaryStart,
        /// What `!more` asks the model.
        Continue,
        /// Several messages answered in one turn; `{n}`.
        Together,
        /// "one short sentence".
        OneSentence,
        /// "{n} short sentences".
        Sentences,
        /// A new node's first answer; `{sentences}`, `{chars}`.
        FirstMessage,
        /// Why answers are short now: the channel is busy.
        ChannelBusy,
        /// Why answers are short now: the duty cycle.
        DutyCycle,
        /// A shortened answer's note; `{state}`, `{sentences}`, `{chars}`.
        Shorten,
        /// A mention's note: the channel reads the answer.
        PublicNote,
        /// When the message was sent; `{time}`.
        SentAt,
        /// How the message came; `{items}`.
        RadioDetails,
        /// A radio detail: no hop.
        HeardDirectly,
        /// A radio detail: one hop.
        OneHop,
        /// A radio detail; `{n}` hops, a count of the many form ([`Plural::Many`]).
        Hops,
        /// The same for a count of the few form (Polish 2–4, 22–24, …); elsewhere as `Hops`.
        HopsFew,
        /// Opens the documents' passages.
        KnowledgeIntro,
        /// Closes them, when one is squarely about the question.
        KnowledgeOutro,
        /// Closes them otherwise; `{about}`.
        KnowledgeOutroScoped,
        /// Documents on topic, no passage good enough; `{about}`.
        NoNotes,
        /// Opens the mesh facts.
        MeshIntro,
        /// Closes the mesh facts.
        MeshClosing,
    }
}

/// "one short sentence" or "`n` short sentences" in `lang`, for the budget notes.
pub(crate) fn sentences(lang: Lang, n: usize) -> String {
    match n {
        1 => super::part(lang, Part::OneSentence).to_string(),
        n => super::fill(super::part(lang, Part::Sentences), &[("n", &n.to_string())]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::part;

    fn placeholders(text: &str) -> Vec<&str> {
        let mut out: Vec<&str> = text
            .match_indices('{')
            .filter_map(|(i, _)| text[i..].find('}').map(|j| &text[i..=i + j]))
            .collect();
        out.sort_unstable();
        out
    }

    #[test]
    fn every_part_in_every_language_has_its_own_words_and_the_same_placeholders() {
        for lang in Lang::ALL.into_iter().skip(1) {
            for p in Part::ALL {
                let (en, it) = (part(Lang::En, p), part(lang, p));
                assert_eq!(placeholders(en), placeholders(it), "{lang} {p:?}");
                assert!(!it.trim().is_empty(), "{lang} {p:?}");
                assert_ne!(en, it, "{lang} {p:?} is the English text");
            }
            assert!(
                part(lang, Part::SummaryRequest).starts_with(part(lang, Part::SummaryStart)),
                "{lang}"
            );
        }
        assert!(
            part(Lang::En, Part::SummaryRequest).starts_with(part(Lang::En, Part::SummaryStart))
        );
    }
}
