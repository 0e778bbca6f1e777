//! Which of the passages a search found go to the prompt, pure: the search's candidates are
//! ranked (bm25, grown when the question names a passage's heading) and judged one by one — a
//! weak match (under `min_score`), one far below the best, or one that covers too little of
//! the question (half of it, when the question names nothing of its heading) stays out, then
//! the best ones go while there is room (at most `max_passages`, their text within
//! `max_chars`). With embeddings (`[knowledge.embeddings]`)
//! the full-text candidates and the nearest passages by meaning are fused ([`fuse`]): a
//! passage may go in when either search vouches for it, in the order of both rankings. And
//! when a question is a follow-up, to be read with the message before it.

use super::check::asked::{self, Kind};
use crate::mesh::matcher::fold;
use crate::store::{KnowledgeHit, content_words};

/// A passage must match at least this share of the question's weight (each of its words
/// weighs its inverse document frequency over the passages, so a word most passages have
/// counts for little and a word none has for nothing): a passage that shares only "club" with
/// "When does the club meet?" stays out. Lower than the memory's 50 %: a question about a
/// document is often worded unlike it ("Where do we get together for the monthly club
/// evening?" shares only "monthly" and "club" with "Monthly club night"), and the model is
/// told to use a note only when it answers the question; docs/benchmarks.md has the figures.
pub(crate) const MIN_COVERAGE: f64 = 0.25;

/// A passage whose heading the question does not name at all must match at least this share
/// of the question's weight: sharing a few of its words ("find", "mesh", "club") is not being
/// about it. Without it, everyday questions brought passages they are not about ("How do I
/// keep a node working outside in the rain?" got the mesh etiquette and the antenna rules, at
/// 48 %), and a small model told to answer from the notes said "Not in my notes." to them;
/// the bench's covered questions keep every passage that answers them (the lowest, 50 %:
/// "Borrowing club equipment" for "Who do I ask to lend me the antenna analyser?"), and
/// uncovered ones that only shared words get the "no note" line instead (docs/benchmarks.md).
pub(crate) const UNNAMED_COVERAGE: f64 = 0.5;

/// A question with fewer words worth searching for than this is a follow-up ("And where?",
/// "Und am Sonntag?", "What do I need to bring?"): it is searched together with the message
/// before it. Counting words rather than looking for pronouns works in any language; a short
/// question on a new topic still finds its passages, whose rarer words outrank the earlier
/// message's.
pub(crate) const FOLLOW_UP_WORDS: usize = 3;

/// How many candidates a search brings to be judged.
pub(crate) const CANDIDATES: usize = 12;

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
pub(crate) enum Verdict {
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
    /// Found by meaning only, and less similar to the question than `min_similarity`.
    Unlike,
    /// It holds no value of the kind the question asks for (no time to "what time").
    Lacks,
}

impl Verdict {
    /// A few words for `meshai knowledge search`.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Verdict::Chosen => "in the prompt",
            Verdict::Weak => "left out: score under min_score",
            Verdict::Partial => "left out: matches too little of the question",
            Verdict::Distant => "left out: far below the best match",
            Verdict::Surplus => "left out: max_passages better ones",
            Verdict::OverBudget => "left out: over max_chars",
            Verdict::Unlike => "left out: similarity under min_similarity",
            Verdict::Lacks => "left out: holds no value of the kind asked (date, time, price…)",
        }
    }
}

/// How much a passage's rank grows when the question names its heading: its score times
/// `1 + TOPIC_BOOST × topic`. A question about "club night" then finds the section
/// "Monthly club night" before the sections that only mention club nights.
pub(crate) const TOPIC_BOOST: f64 = 1.0;

/// A passage whose heading the question names more than half of (two of "Monthly club
/// night", not one of "Code of conduct") is about the question, even when it matches less
/// than [`MIN_COVERAGE`] of the question's words — but not under [`ON_TOPIC_COVERAGE`].
pub(crate) const ON_TOPIC: f64 = 0.6;

/// What an on-topic passage must still match of the question: a heading of one common word
/// ("About the club") is named by every question about the club, and "Who designed the club
/// logo?" (5 % of its weight) brought that section in, from which Qwen-0.5B made up "the
/// secretary". The bench's on-topic passages that answer match 18 % and more
/// ("What time does club night begin?", "Who do I ask to lend me the antenna analyser?").
pub(crate) const ON_TOPIC_COVERAGE: f64 = 0.1;

/// The rank of a passage: its score, grown by how much of its heading the question names.
pub(crate) fn rank(hit: &KnowledgeHit) -> f64 {
    hit.score * (1.0 + TOPIC_BOOST * hit.topic)
}

/// `hits` in the order they are judged: best [`rank`] first.
pub(crate) fn ranked(mut hits: Vec<KnowledgeHit>) -> Vec<KnowledgeHit> {
    hits.sort_by(|a, b| rank(b).total_cmp(&rank(a)));
    hits
}

/// A passage ranked under this share of the best one is left out: next to a passage that
/// matches the question well, one that matches it far less is a distraction a small model
/// takes its answer from ("Which colour code is set on the DMR repeater?" answered from the
/// repeater list's introduction).
pub(crate) const NEAR_BEST: f64 = 0.5;

/// The verdict on each of `hits` (best [`rank`] first), in the same order.
/// `valued`: the question asks for a kind of value other than a price (see [`partial`]).
pub(crate) fn judge(hits: &[KnowledgeHit], bounds: &Bounds, valued: bool) -> Vec<Verdict> {
    within(hits, &standings(hits, bounds, valued), bounds)
}

/// The [`standing`] of each full-text candidate of `hits` (best [`rank`] first), the best's
/// other pieces let in when it goes and is squarely about the question ([`sibling`]).
fn standings(hits: &[KnowledgeHit], bounds: &Bounds, valued: bool) -> Vec<Option<Verdict>> {
    let Some(first) = hits.first() else {
        return Vec::new();
    };
    let best = rank(first);
    let first_goes = standing(first, best, bounds, valued).is_none() && squarely(first);
    hits.iter()
        .map(|h| match standing(h, best, bounds, valued) {
            Some(Verdict::Distant | Verdict::Partial) if first_goes && sibling(h, first) => None,
            s => s,
        })
        .collect()
}

/// Whether `hit` is another piece of the section `best` is a piece of: a long section is
/// split into passages, and what the question asks may stand in a piece that shares fewer of
/// its words ("¿A quién le pido prestado el analizador de antenas?" found the list of the
/// equipment lent, and the piece after it says who lends it). When the best is squarely
/// about the question ([`squarely`]), such a piece goes in if there is room, however far
/// below the best it ranks.
fn sibling(hit: &KnowledgeHit, best: &KnowledgeHit) -> bool {
    hit.id != best.id && hit.path == best.path && hit.heading == best.heading
}

/// Why a full-text candidate may not go in whatever the room (`None`: it may), next to the
/// `best` rank of its search.
fn standing(hit: &KnowledgeHit, best: f64, bounds: &Bounds, valued: bool) -> Option<Verdict> {
    if rank(hit) < bounds.min_score {
        Some(Verdict::Weak)
    } else if rank(hit) < best * NEAR_BEST {
        Some(Verdict::Distant)
    } else if partial(hit, valued) {
        Some(Verdict::Partial)
    } else {
        None
    }
}

/// Whether `hit` covers too little of the question: under [`MIN_COVERAGE`] unless the
/// question names its heading, and under [`UNNAMED_COVERAGE`] when it names nothing of it —
/// unless the question asks for a kind of value (`valued`, not a price): then only passages
/// holding one are left (`holding`), and a quarter is enough.
fn partial(hit: &KnowledgeHit, valued: bool) -> bool {
    let little =
        hit.coverage < MIN_COVERAGE && (hit.topic < ON_TOPIC || hit.coverage < ON_TOPIC_COVERAGE);
    let unnamed = !valued && hit.topic == 0.0 && hit.coverage < UNNAMED_COVERAGE;
    little || unnamed
}

/// Whether `hit` is squarely about the question: the question names its heading and it covers
/// at least [`UNNAMED_COVERAGE`] of it. The notes' closing rule ("reply exactly: Not in my
/// notes") then holds for any question (`render::notes_outro`).
pub(crate) fn squarely(hit: &KnowledgeHit) -> bool {
    hit.topic > 0.0 && hit.coverage >= UNNAMED_COVERAGE
}

/// The verdicts of `hits` in their order, given each one's `standing`: those that may go
/// in go while there is room.
fn within(hits: &[KnowledgeHit], standing: &[Option<Verdict>], bounds: &Bounds) -> Vec<Verdict> {
    let mut chosen = 0;
    let mut chars = 0;
    hits.iter()
        .zip(standing)
        .map(|(hit, standing)| {
            let len = hit.text.chars().count();
            if let Some(verdict) = standing {
                *verdict
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

/// Reciprocal rank fusion's constant: a passage at place `n` (from 1) of a ranking counts
/// `1 / (RRF_K + n)`. The usual 60 keeps one list's first place from outweighing a passage
/// both lists place well.
pub(crate) const RRF_K: f64 = 60.0;

/// A passage found by meaning only is left out when its similarity is this far under the
/// best one's: the nearest passage to "Who looks after the money?" is the treasurer's, and
/// the next ones, a little less similar, are the rest of the committee.
pub(crate) const SIMILAR_MARGIN: f64 = 0.1;

/// The full-text candidates `fts` (best [`rank`] first) and the nearest passages by meaning
/// `similar` (best similarity first) as one list, best first by reciprocal rank fusion, and
/// the verdict on each: a passage may go in when the full-text search vouches for it (as
/// [`judge`] would), or when its similarity reaches `min_similarity` and is near the best.
pub(crate) fn fuse(
    fts: Vec<KnowledgeHit>,
    similar: Vec<KnowledgeHit>,
    bounds: &Bounds,
    min_similarity: f64,
    valued: bool,
) -> (Vec<KnowledgeHit>, Vec<Verdict>) {
    let fts_standings = standings(&fts, bounds, valued);
    let best_similarity = similar.first().and_then(|h| h.similarity).unwrap_or(0.0);
    // (hit, fused score, full-text standing, by-meaning standing)
    type Entry = (
        KnowledgeHit,
        f64,
        Option<Option<Verdict>>,
        Option<Option<Verdict>>,
    );
    let mut all: Vec<Entry> = Vec::with_capacity(fts.len() + similar.len());
    for (n, (hit, standing)) in fts.into_iter().zip(fts_standings).enumerate() {
        all.push((hit, 1.0 / (RRF_K + n as f64 + 1.0), Some(standing), None));
    }
    for (n, hit) in similar.into_iter().enumerate() {
        let similarity = hit.similarity.unwrap_or(0.0);
        let standing = if similarity < min_similarity {
            Some(Verdict::Unlike)
        } else if similarity < best_similarity - SIMILAR_MARGIN {
            Some(Verdict::Distant)
        } else {
            None
        };
        let fused = 1.0 / (RRF_K + n as f64 + 1.0);
        match all.iter_mut().find(|(h, ..)| h.id == hit.id) {
            Some((h, score, _, by_meaning)) => {
                h.similarity = hit.similarity;
                *score += fused;
                *by_meaning = Some(standing);
            }
            None => all.push((hit, fused, None, Some(standing))),
        }
    }
    // Stable: a tie keeps the full-text order.
    all.sort_by(|a, b| b.1.total_cmp(&a.1));
    let standings: Vec<Option<Verdict>> = all
        .iter()
        .map(|(_, _, text, meaning)| match (text, meaning) {
            (Some(None), _) | (_, Some(None)) => None,
            (Some(Some(v)), _) | (None, Some(Some(v))) => Some(*v),
            (None, None) => Some(Verdict::Weak),
        })
        .collect();
    let hits: Vec<KnowledgeHit> = all.into_iter().map(|(h, ..)| h).collect();
    let verdicts = within(&hits, &standings, bounds);
    (hits, verdicts)
}

/// `hits` (in their order) split into those that may answer a question asking for a value of
/// `kind` — their heading or text holds one (`check::asked::holds`) — and those that cannot;
/// every hit may when the question asks for no kind. A passage without a clock time cannot
/// say when something starts: "Um wie viel Uhr geht der Clubabend los?" brought "Über den
/// Club" and the thunderstorm card ("geht", "los") before the club evening (issue 38).
pub(crate) fn holding(
    hits: Vec<KnowledgeHit>,
    kind: Option<Kind>,
) -> (Vec<KnowledgeHit>, Vec<KnowledgeHit>) {
    let Some(kind) = kind else {
        return (hits, Vec::new());
    };
    hits.into_iter().partition(|h| {
        let text = format!("{}\n{}", h.heading, h.text);
        let held = asked::holds(&text, &fold(&text));
        // A tone or an offset may be written as bare as a frequency ("Tone: 77", "Shift:
        // 0.6"); a passage with any number in hertz may hold it.
        let radio = matches!(kind, Kind::Frequency | Kind::Tone | Kind::Offset);
        held.answers(kind) > 0 || radio && (held.hertz || decimal(&text))
    })
}

/// Whether `text` writes a number with a decimal part ("on 145.600", "3,720"): documents
/// often give a frequency, a tone or an offset without its unit.
fn decimal(text: &str) -> bool {
    text.as_bytes()
        .windows(3)
        .any(|w| w[0].is_ascii_digit() && matches!(w[1], b'.' | b',') && w[2].is_ascii_digit())
}

/// Whether `question` is short enough to be read as a follow-up.
pub(crate) fn is_follow_up(question: &str) -> bool {
    content_words(question) < FOLLOW_UP_WORDS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A candidate whose heading the question names a little of.
    fn hit(score: f64, coverage: f64, chars: usize) -> KnowledgeHit {
        KnowledgeHit {
            id: 0,
            path: "a.md".into(),
            heading: String::new(),
            text: "x".repeat(chars),
            private: false,
            score,
            coverage,
            topic: 0.2,
            similarity: None,
        }
    }

    #[test]
    fn a_passage_without_the_value_asked_for_cannot_answer() {
        let passage = |heading: &str, text: &str| KnowledgeHit {
            heading: heading.into(),
            text: text.into(),
            ..hit(5.0, 0.5, 0)
        };
        let hits = || {
            vec![
                passage("Club > About the club", "The club was founded in 1978."),
                passage(
                    "Meetings > Monthly club night",
                    "First Tuesday, 19:30 to 22:00.",
                ),
                passage(
                    "Events 2026 > Fox hunt — Sunday 26 April",
                    "Meet at the car park.",
                ),
                passage("Repeaters > GB3KV", "Output: 145.7125 MHz"),
            ]
        };
        let texts = |hs: Vec<KnowledgeHit>| hs.into_iter().map(|h| h.text).collect::<Vec<_>>();
        let cases: &[(Option<Kind>, &[&str])] = &[
            (Some(Kind::Time), &["First Tuesday, 19:30 to 22:00."]),
            // The date in the heading counts.
            (
                Some(Kind::Day),
                &["First Tuesday, 19:30 to 22:00.", "Meet at the car park."],
            ),
            (Some(Kind::Frequency), &["Output: 145.7125 MHz"]),
            (Some(Kind::Price), &[]),
            // A question for no kind of value: every passage may answer.
            (
                None,
                &[
                    "The club was founded in 1978.",
                    "First Tuesday, 19:30 to 22:00.",
                    "Meet at the car park.",
                    "Output: 145.7125 MHz",
                ],
            ),
        ];
        // A frequency written without its unit may still be one.
        let bare = vec![passage(
            "Repeaters > Hill Top",
            "Bob keeps it running, on 145.600.",
        )];
        assert_eq!(holding(bare, Some(Kind::Frequency)).0.len(), 1);
        for (kind, want) in cases {
            let (may, lacking) = holding(hits(), *kind);
            assert_eq!(may.len() + lacking.len(), 4, "{kind:?}: none lost");
            assert_eq!(texts(may), *want, "{kind:?}");
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
            assert_eq!(judge(&hits, &bounds, false), *want, "{hits:?}");
        }
        // A heading the question names lets in a passage that matches less of it, but not
        // one that matches almost nothing ("About the club" for "Who designed the club
        // logo?").
        let on_topic = |coverage| KnowledgeHit {
            topic: 1.0,
            ..hit(5.0, coverage, 10)
        };
        assert_eq!(judge(&[on_topic(0.18)], &bounds, false), [Chosen]);
        assert_eq!(judge(&[on_topic(0.05)], &bounds, false), [Partial]);
        // A heading the question names nothing of: sharing some of its words is not enough
        // (the mesh etiquette for "How do I keep a node working outside in the rain?", 48 %).
        let unnamed = |coverage| KnowledgeHit {
            topic: 0.0,
            ..hit(5.0, coverage, 10)
        };
        assert_eq!(judge(&[unnamed(0.48)], &bounds, false), [Partial]);
        assert_eq!(judge(&[unnamed(0.5)], &bounds, false), [Chosen]);
        // A question that asks for a kind of value has only passages that hold one left: a
        // quarter of it is enough ("¿Qué noche toca la rueda semanal del repetidor?" and the
        // nets, 42 %), but not less.
        assert_eq!(judge(&[unnamed(0.42)], &bounds, true), [Chosen]);
        assert_eq!(judge(&[unnamed(0.2)], &bounds, true), [Partial]);
    }

    #[test]
    fn the_other_pieces_of_a_section_squarely_asked_about_go_in_too() {
        use Verdict::*;
        let bounds = Bounds {
            max_passages: 3,
            max_chars: 500,
            min_score: 1.0,
        };
        let piece = |id, heading: &str, score, coverage, topic| KnowledgeHit {
            id,
            heading: heading.into(),
            topic,
            ..hit(score, coverage, 10)
        };
        let lending = "Handbook > Borrowing club equipment";
        // "¿A quién le pido prestado el analizador de antenas?": the list of what is lent
        // matches best, the piece that says who lends it far less.
        let hits = [
            piece(1, lending, 22.0, 0.64, 0.33),
            piece(2, "Mesh guide > Antennas", 6.4, 0.16, 1.0),
            piece(3, lending, 7.9, 0.2, 0.33),
            piece(4, "Events > Fox hunt", 9.4, 0.36, 0.0),
        ];
        assert_eq!(
            judge(&hits, &bounds, false),
            [Chosen, Distant, Chosen, Distant]
        );
        // The best piece is not squarely about the question (it names none of its heading,
        // or covers under half of it): the others stay out as before.
        for (coverage, topic) in [(0.64, 0.0), (0.47, 0.33)] {
            let mut hits = hits.clone();
            hits[0] = piece(1, lending, 22.0, coverage, topic);
            assert_eq!(
                judge(&hits, &bounds, false)[2],
                Distant,
                "{coverage} {topic}"
            );
        }
        // A piece under min_score is weak all the same.
        let mut weak = hits.clone();
        weak[2] = piece(3, lending, 0.5, 0.2, 0.33);
        assert_eq!(judge(&weak, &bounds, false)[2], Weak);
    }

    #[test]
    fn either_search_may_vouch_for_a_passage_and_both_rank_it_first() {
        use Verdict::*;
        let bounds = Bounds {
            max_passages: 2,
            max_chars: 500,
            min_score: 1.0,
        };
        let text = |id: i64, score: f64, coverage: f64| KnowledgeHit {
            id,
            ..hit(score, coverage, 10)
        };
        let meaning = |id: i64, similarity: f64| KnowledgeHit {
            id,
            similarity: Some(similarity),
            ..hit(0.0, 0.0, 10)
        };
        // (full-text candidates, nearest by meaning, the fused order by id, its verdicts)
        type Case = (Vec<KnowledgeHit>, Vec<KnowledgeHit>, Vec<i64>, Vec<Verdict>);
        let cases: Vec<Case> = vec![
            // No word shared ("money" / "Treasurer"): the nearest by meaning goes in, the
            // next one too (within the margin), the third is far below the best.
            (
                vec![],
                vec![meaning(1, 0.62), meaning(2, 0.55), meaning(3, 0.51)],
                vec![1, 2, 3],
                vec![Chosen, Chosen, Distant],
            ),
            // Nothing similar enough: "not in my notes" stays possible.
            (vec![], vec![meaning(1, 0.30)], vec![1], vec![Unlike]),
            // A passage both place well outranks each list's first, and a full-text match
            // too partial by itself still goes in when its meaning is near enough.
            (
                vec![text(1, 5.0, 1.0), text(2, 4.0, 0.1)],
                vec![meaning(3, 0.6), meaning(2, 0.58)],
                vec![2, 1, 3],
                vec![Chosen, Chosen, Surplus],
            ),
            // Neither vouches: the full-text verdict is the one given.
            (
                vec![text(1, 0.5, 1.0)],
                vec![meaning(1, 0.2)],
                vec![1],
                vec![Weak],
            ),
        ];
        for (fts, similar, order, want) in cases {
            let (hits, verdicts) = fuse(fts.clone(), similar.clone(), &bounds, 0.5, false);
            let ids: Vec<i64> = hits.iter().map(|h| h.id).collect();
            assert_eq!((ids, verdicts), (order, want), "{fts:?} {similar:?}");
        }
        // The fused hit keeps both searches' figures.
        let (hits, _) = fuse(
            vec![text(7, 5.0, 1.0)],
            vec![meaning(7, 0.7)],
            &bounds,
            0.5,
            false,
        );
        assert_eq!((hits[0].score, hits[0].similarity), (5.0, Some(0.7)));
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
