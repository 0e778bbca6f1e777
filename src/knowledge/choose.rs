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
    // Any passage may name a place.
    let Some(kind) = kind.filter(|k| *k != Kind::Place) else {
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
mod tests;
