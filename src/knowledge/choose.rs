//! Which of the passages a search found go to the prompt, pure: the search's candidates,
//! best first, are judged one by one — a weak match (under `min_score`) or one that covers
//! too little of the question stays out, then the best ones go while there is room (at most
//! `max_passages`, their text within `max_chars`). And when a question is a follow-up whose
//! words are better read with the message before it.

use crate::memory::store::{KnowledgeHit, content_words};

/// A passage must match at least this share of the question's weight (each of its words
/// weighs its inverse document frequency over the passages, so a word most passages have
/// counts for little and a word none has for nothing): "When do we meet?" does not bring a
/// passage that shares only "club".
pub const MIN_COVERAGE: f64 = 0.4;

/// A question with fewer words worth searching for than this is a follow-up ("And where?",
/// "Und am Sonntag?"): when it finds nothing by itself, it is searched again together with
/// the message before it. Counting words rather than looking for pronouns works in any
/// language.
pub const FOLLOW_UP_WORDS: usize = 3;

/// How many candidates a search brings to be judged.
pub const CANDIDATES: usize = 12;

/// How many passages a turn may get, and how much of them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub max_passages: usize,
    /// Characters of passage text (headings not counted).
    pub max_chars: usize,
    /// bm25 score (higher is better) a passage must reach.
    pub min_score: f64,
}

/// What became of one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// In the prompt.
    Chosen,
    /// Its score is under `min_score`.
    Weak,
    /// It covers less than [`MIN_COVERAGE`] of the question.
    Partial,
    /// `max_passages` better ones were chosen.
    Surplus,
    /// Its text did not fit in what `max_chars` left.
    OverBudget,
}

impl Verdict {
    /// A few words for `meshai knowledge search`.
    pub fn describe(self) -> &'static str {
        match self {
            Verdict::Chosen => "in the prompt",
            Verdict::Weak => "left out: score under min_score",
            Verdict::Partial => "left out: matches too little of the question",
            Verdict::Surplus => "left out: max_passages better ones",
            Verdict::OverBudget => "left out: over max_chars",
        }
    }
}

/// The verdict on each of `hits` (best first), in the same order.
pub fn judge(hits: &[KnowledgeHit], bounds: &Bounds) -> Vec<Verdict> {
    let mut chosen = 0;
    let mut chars = 0;
    hits.iter()
        .map(|hit| {
            let len = hit.text.chars().count();
            if hit.score < bounds.min_score {
                Verdict::Weak
            } else if hit.coverage < MIN_COVERAGE {
                Verdict::Partial
            } else if chosen == bounds.max_passages {
                Verdict::Surplus
            } else if chars + len > bounds.max_chars {
                Verdict::OverBudget
            } else {
                chosen += 1;
                chars += len;
                Verdict::Chosen
            }
        })
        .collect()
}

/// Whether `question` is short enough to be read as a follow-up.
pub fn is_follow_up(question: &str) -> bool {
    content_words(question) < FOLLOW_UP_WORDS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(score: f64, coverage: f64, chars: usize) -> KnowledgeHit {
        KnowledgeHit {
            path: "a.md".into(),
            heading: String::new(),
            text: "x".repeat(chars),
            private: false,
            score,
            coverage,
        }
    }

    #[test]
    fn the_best_passages_within_the_bounds() {
        use Verdict::*;
        let bounds = Bounds {
            max_passages: 2,
            max_chars: 500,
            min_score: 1.0,
        };
        // (score, coverage, characters) of each candidate, and the verdicts.
        type Case<'a> = (&'a [(f64, f64, usize)], &'a [Verdict]);
        let cases: &[Case<'_>] = &[
            (&[], &[]),
            (&[(5.0, 1.0, 100)], &[Chosen]),
            // Weak, then partial, then the two best of the rest.
            (
                &[
                    (0.5, 1.0, 10),
                    (5.0, 0.2, 10),
                    (4.0, 0.5, 10),
                    (3.0, 0.4, 10),
                    (2.0, 1.0, 10),
                ],
                &[Weak, Partial, Chosen, Chosen, Surplus],
            ),
            // A long one that does not fit leaves room for a shorter one after it.
            (
                &[(5.0, 1.0, 300), (4.0, 1.0, 300), (3.0, 1.0, 200)],
                &[Chosen, OverBudget, Chosen],
            ),
            (&[(5.0, 1.0, 501)], &[OverBudget]),
        ];
        for (hits, want) in cases {
            let hits: Vec<KnowledgeHit> = hits.iter().map(|&(s, c, n)| hit(s, c, n)).collect();
            assert_eq!(judge(&hits, &bounds), *want, "{hits:?}");
        }
    }

    #[test]
    fn few_words_make_a_follow_up() {
        let cases = [
            ("And where?", true),
            ("What about Saturday?", true),
            ("Und am Sonntag?", true),
            ("ok", true),
            ("Where do we meet every month?", false),
            ("Which tone opens the Beacon Hill repeater?", false),
            ("Wo trifft sich der Verein jeden Monat?", false),
        ];
        for (q, want) in cases {
            assert_eq!(is_follow_up(q), want, "{q:?}");
        }
    }
}
