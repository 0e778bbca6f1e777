//! Which passages go in: the value a passage must hold, the bounds, the other pieces of a
//! section, the fusion with the search by meaning, and follow-ups.

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
