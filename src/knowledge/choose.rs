//! Which of the passages a search found go to the prompt, pure: the search's candidates are
//! ranked (bm25, grown when the question names a passage's heading) and judged one by one — a
//! weak match (under `min_score`), one far below the best, or one that covers too little of
//! the question stays out, then the best ones go while there is room (at most
//! `max_passages`, their text within `max_chars`). And when a question is a follow-up, to be
//! read with the message before it.

use crate::memory::store::{KnowledgeHit, content_words};

/// A passage must match at least this share of the question's weight (each of its words
/// weighs its inverse document frequency over the passages, so a word most passages have
/// counts for little and a word none has for nothing): a passage that shares only "club" with
/// "When does the club meet?" stays out. Lower than the memory's 50 %: a question about a
/// document is often worded unlike it ("Where do we get together for the monthly club
/// evening?" shares only "monthly" and "club" with "Monthly club night"), and the model is
/// told to use a note only when it answers the question; docs/benchmarks.md has the figures.
pub const MIN_COVERAGE: f64 = 0.25;

/// A question with fewer words worth searching for than this is a follow-up ("And where?",
/// "Und am Sonntag?", "What do I need to bring?"): it is searched together with the message
/// before it. Counting words rather than looking for pronouns works in any language; a short
/// question on a new topic still finds its passages, whose rarer words outrank the earlier
/// message's.
pub const FOLLOW_UP_WORDS: usize = 3;

/// How many candidates a search brings to be judged.
pub const CANDIDATES: usize = 12;

/// How many passages a turn may get, and how much of them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub max_passages: usize,
    /// Characters of passage text (headings not counted).
    pub max_chars: usize,
    /// The [`rank`] a passage must reach (its score, grown by a heading the question names).
    pub min_score: f64,
}

/// What became of one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// In the prompt.
    Chosen,
    /// Its [`rank`] is under `min_score`.
    Weak,
    /// It covers less than [`MIN_COVERAGE`] of the question.
    Partial,
    /// It ranks under [`NEAR_BEST`] of the best candidate.
    Distant,
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
            Verdict::Distant => "left out: far below the best match",
            Verdict::Surplus => "left out: max_passages better ones",
            Verdict::OverBudget => "left out: over max_chars",
        }
    }
}

/// How much a passage's rank grows when the question names its heading: its score times
/// `1 + TOPIC_BOOST × topic`. A question about "club night" then finds the section
/// "Monthly club night" before the sections that only mention club nights.
pub const TOPIC_BOOST: f64 = 1.0;

/// A passage whose heading the question names more than half of (two of "Monthly club
/// night", not one of "Code of conduct") is about the question, whatever share of the
/// question's words it matches.
pub const ON_TOPIC: f64 = 0.6;

/// The rank of a passage: its score, grown by how much of its heading the question names.
pub fn rank(hit: &KnowledgeHit) -> f64 {
    hit.score * (1.0 + TOPIC_BOOST * hit.topic)
}

/// `hits` in the order they are judged: best [`rank`] first.
pub fn ranked(mut hits: Vec<KnowledgeHit>) -> Vec<KnowledgeHit> {
    hits.sort_by(|a, b| rank(b).total_cmp(&rank(a)));
    hits
}

/// A passage ranked under this share of the best one is left out: next to a passage that
/// matches the question well, one that matches it far less is a distraction a small model
/// takes its answer from ("Which colour code is set on the DMR repeater?" answered from the
/// repeater list's introduction).
pub const NEAR_BEST: f64 = 0.5;

/// The verdict on each of `hits` (best [`rank`] first), in the same order.
pub fn judge(hits: &[KnowledgeHit], bounds: &Bounds) -> Vec<Verdict> {
    let mut chosen = 0;
    let mut chars = 0;
    let best = hits.first().map_or(0.0, rank);
    hits.iter()
        .map(|hit| {
            let len = hit.text.chars().count();
            if rank(hit) < bounds.min_score {
                Verdict::Weak
            } else if rank(hit) < best * NEAR_BEST {
                Verdict::Distant
            } else if hit.coverage < MIN_COVERAGE && hit.topic < ON_TOPIC {
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
            topic: 0.0,
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
            // Partial, the two best of the rest, one more, one far below the best.
            (
                &[
                    (5.0, 0.2, 10),
                    (4.5, 0.5, 10),
                    (3.0, 0.4, 10),
                    (2.6, 1.0, 10),
                    (2.4, 1.0, 10),
                ],
                &[Partial, Chosen, Chosen, Surplus, Distant],
            ),
            // Under min_score is weak before anything else.
            (&[(0.5, 1.0, 10)], &[Weak]),
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
