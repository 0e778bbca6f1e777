//! The summary cursor: pending work and compare-and-swap saves.

use super::*;
use crate::store::types::{FoldRule, SummarySave};

fn rule(keep: usize, threshold: usize, max_batch: usize) -> FoldRule {
    FoldRule {
        keep,
        threshold,
        now: false,
        min_now_chars: 0,
        max_batch,
        max_chars: usize::MAX,
    }
}

#[tokio::test]
async fn a_stored_flood_is_folded_and_carried_within_a_bound_of_characters() {
    let (_dir, store) = open_temp();
    let text = "x".repeat(100);
    for i in 0..500 {
        store.append_user(A, text.clone(), i).await.unwrap();
    }
    let last = store.append_user(A, "now?".into(), 600).await.unwrap();
    // The fold takes the oldest, no more than 1,000 characters of them.
    let job = store
        .pending_fold(
            A,
            last,
            FoldRule {
                max_chars: 1_000,
                ..rule(2, 10, 31)
            },
        )
        .await
        .unwrap()
        .expect("due");
    assert_eq!(job.evicted.len(), 10);
    // The prompt carries the newest that fit in 2,000 characters.
    let window = crate::store::types::Window {
        messages: 42,
        chars: 2_000,
    };
    let ctx = store.context(A, last, window, "", 0).await.unwrap();
    assert_eq!(ctx.window.len(), 20);
    assert_eq!(ctx.unsummarized, 500);
    // The newest one always, however long.
    let one = crate::store::types::Window {
        messages: 42,
        chars: 10,
    };
    assert_eq!(
        store
            .context(A, last, one, "", 0)
            .await
            .unwrap()
            .window
            .len(),
        1
    );
    store.close().await.unwrap();
}

#[tokio::test]
async fn pending_fold_keeps_the_newest_and_starts_them_with_a_question() {
    let (_dir, store) = open_temp();
    let mut all = Vec::new();
    for i in 0..5 {
        let (u, a) = exchange(&store, A, &format!("q{i}"), &format!("r{i}"), i * 2).await;
        all.extend([u, a]);
    }
    exchange(&store, B, "other", "node", 100).await;
    let end = i64::MAX;
    // (before, keep, threshold, max batch) -> folded ids; 10 unsummarised messages of A.
    type Case<'a> = ((i64, usize, usize, usize), Option<&'a [i64]>);
    let cases: &[Case] = &[
        // Not more than keep + threshold: nothing due.
        ((end, 4, 6, 100), None),
        ((end, 10, 1, 100), None),
        // All but the newest 4.
        ((end, 4, 5, 100), Some(&all[..6])),
        // All but the newest 3 would keep a reply first: one more is folded.
        ((end, 3, 1, 100), Some(&all[..8])),
        ((end, 0, 1, 100), Some(&all[..])),
        // The batch bound.
        ((end, 4, 1, 3), Some(&all[..3])),
        ((end, 4, 1, 0), Some(&all[..1])),
        // Only messages before `before` count (the new message is not folded).
        ((all[9], 4, 4, 100), Some(&all[..6])),
        ((all[9], 4, 5, 100), None),
    ];
    for ((before, keep, threshold, batch), want) in cases {
        let got = store
            .pending_fold(A, *before, rule(*keep, *threshold, *batch))
            .await
            .unwrap()
            .map(|j| ids(&j.evicted));
        assert_eq!(
            got.as_deref(),
            *want,
            "before {before} keep {keep} threshold {threshold} batch {batch}"
        );
    }

    // After saving through the third message, only the later ones count.
    assert!(
        store
            .save_summary(A, save("s1", all[2], None))
            .await
            .unwrap()
    );
    assert_eq!(store.unsummarized(A, end).await.unwrap(), 7);
    let job = store
        .pending_fold(A, end, rule(4, 1, 100))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        job.previous
            .as_ref()
            .map(|s| (s.text.as_str(), s.through_id)),
        Some(("s1", all[2]))
    );
    assert_eq!(ids(&job.evicted), all[3..6]);
    assert_eq!(
        store.pending_fold(A, end, rule(4, 3, 100)).await.unwrap(),
        None
    );
    // A fold due now (the prompt reached its token budget) takes all but `keep`, whatever
    // the threshold, but never the messages kept.
    let now = |keep| FoldRule {
        now: true,
        ..rule(keep, 100, 100)
    };
    let job = store.pending_fold(A, end, now(4)).await.unwrap().unwrap();
    assert_eq!(ids(&job.evicted), all[3..6]);
    let job = store.pending_fold(A, end, now(2)).await.unwrap().unwrap();
    assert_eq!(ids(&job.evicted), all[3..8]);
    assert_eq!(store.pending_fold(A, end, now(7)).await.unwrap(), None);
    // ...unless what it would take is too little to be worth a fold: then it waits (for more
    // messages, or the count backstop).
    let folded: usize = job
        .evicted
        .iter()
        .map(|m| m.prompt_text().chars().count())
        .sum();
    let at_least = |min_now_chars| FoldRule {
        min_now_chars,
        ..now(2)
    };
    assert!(
        store
            .pending_fold(A, end, at_least(folded))
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        store
            .pending_fold(A, end, at_least(folded + 1))
            .await
            .unwrap(),
        None
    );
    assert!(
        store
            .pending_fold(B, end, rule(0, 1, 10))
            .await
            .unwrap()
            .is_some()
    );
    // The prompt's context starts right after the cursor.
    let ctx = store.context(A, end, 100, "", 0).await.unwrap();
    assert_eq!(ids(&ctx.window), all[3..]);
    assert_eq!(ctx.unsummarized, 7);
    let ctx = store.context(A, end, 2, "", 0).await.unwrap();
    assert_eq!(ids(&ctx.window), all[8..]);
    assert_eq!(ctx.unsummarized, 7);
}

#[tokio::test]
async fn facts_are_saved_with_the_summary_deduplicated_and_bounded() {
    let (_dir, store) = open_temp();
    let (u1, a1) = exchange(&store, A, "I am Ann", "Hi Ann", 1).await;
    let (u2, a2) = exchange(&store, A, "My dog is Rex", "Hi Rex", 3).await;
    let (_, a3) = exchange(&store, A, "later", "ok", 5).await;
    let with = |text: &str, through, expected, facts: &[(&str, i64)], max| SummarySave {
        facts: facts.iter().map(|(f, id)| (f.to_string(), *id)).collect(),
        facts_max: max,
        ..save(text, through, expected)
    };
    // A refused save (stale cursor) keeps no facts either.
    assert!(
        !store
            .save_summary(A, with("x", a1, Some(1), &[("I am Ann", u1)], 5))
            .await
            .unwrap()
    );
    assert!(store.facts(A).await.unwrap().is_empty());
    assert!(
        store
            .save_summary(A, with("s1", a1, None, &[("I am Ann", u1)], 5))
            .await
            .unwrap()
    );
    // A restated fact moves to the end; the list keeps the newest `max`.
    assert!(
        store
            .save_summary(
                A,
                with(
                    "s2",
                    a2,
                    Some(a1),
                    &[("My dog is Rex", u2), ("i am ann!", u2)],
                    5
                )
            )
            .await
            .unwrap()
    );
    assert_eq!(
        store.facts(A).await.unwrap(),
        ["My dog is Rex", "i am ann!"]
    );
    // Over the bound, a statement that names nothing ("i am ann!") goes before one that
    // does ("Rex"), though it is newer.
    assert!(
        store
            .save_summary(A, with("s3", a3, Some(a2), &[], 1))
            .await
            .unwrap()
    );
    assert_eq!(store.facts(A).await.unwrap(), ["My dog is Rex"]);
    let ctx = store.context(A, i64::MAX, 10, "", 0).await.unwrap();
    assert_eq!(ctx.facts, ["My dog is Rex"]);
    assert!(store.facts(B).await.unwrap().is_empty());
    store.reset(A).await.unwrap();
    assert!(store.facts(A).await.unwrap().is_empty());
}

#[tokio::test]
async fn save_summary_is_compare_and_swap() {
    let (_dir, store) = open_temp();
    let (u1, a1) = exchange(&store, A, "q1", "r1", 1).await;
    let (u2, _) = exchange(&store, A, "q2", "r2", 3).await;
    let (ub, _) = exchange(&store, B, "qb", "rb", 3).await;

    assert!(
        !store
            .save_summary(A, save("x", a1, Some(u1)))
            .await
            .unwrap()
    );
    assert!(
        !store.save_summary(A, save("x", ub, None)).await.unwrap(),
        "B's message"
    );
    assert!(
        !store.save_summary(A, save("x", 9999, None)).await.unwrap(),
        "no such message"
    );
    assert_eq!(store.summary(A).await.unwrap(), None);

    assert!(
        store
            .save_summary(A, save("first", a1, None))
            .await
            .unwrap()
    );
    assert!(
        !store
            .save_summary(A, save("stale", u2, None))
            .await
            .unwrap()
    );
    assert!(
        !store
            .save_summary(A, save("backwards", u1, Some(a1)))
            .await
            .unwrap()
    );
    assert!(
        store
            .save_summary(A, save("second", u2, Some(a1)))
            .await
            .unwrap()
    );
    let s = store.summary(A).await.unwrap().unwrap();
    assert_eq!((s.text.as_str(), s.through_id), ("second", u2));
    assert!(s.updated_at > 1_600_000_000);

    // A reset while a summary was being computed: the save must not resurrect memory.
    store.reset(A).await.unwrap();
    assert!(
        !store
            .save_summary(A, save("ghost", u2, Some(u2)))
            .await
            .unwrap()
    );
    assert!(
        !store
            .save_summary(A, save("ghost", u2, None))
            .await
            .unwrap()
    );
    assert_eq!(store.summary(A).await.unwrap(), None);
}

/// A fact a new one corrects leaves the kept facts, is listed as retired with what replaced
/// it, and the saved summary loses its sentence with the old value; retrieval does not bring
/// the old statement back either.
#[tokio::test]
async fn a_correction_retires_the_fact_it_replaces() {
    let (_dir, store) = open_temp();
    let (u1, _) = exchange(&store, A, "My callsign is SP9QRZ.", "Noted", 1).await;
    let (u2, a2) = exchange(&store, A, "My friend's callsign is DL1ABC.", "Ok", 3).await;
    let (u3, a3) = exchange(&store, A, "Update: my callsign is SP2KWT now.", "Ok", 5).await;
    let with = |text: &str, through, expected, facts: &[(&str, i64)]| SummarySave {
        facts: facts.iter().map(|(f, id)| (f.to_string(), *id)).collect(),
        facts_max: 5,
        ..save(text, through, expected)
    };
    let first = with(
        "Tomasz has the callsign SP9QRZ.",
        a2,
        None,
        &[
            ("My callsign is SP9QRZ.", u1),
            ("My friend's callsign is DL1ABC.", u2),
        ],
    );
    assert!(store.save_summary(A, first).await.unwrap());
    assert!(store.retired_facts(A).await.unwrap().is_empty());
    let second = with(
        "Tomasz has the callsign SP9QRZ. He likes yagis.",
        a3,
        Some(a2),
        &[("Update: my callsign is SP2KWT now.", u3)],
    );
    assert!(store.save_summary(A, second).await.unwrap());
    assert_eq!(
        store.facts(A).await.unwrap(),
        [
            "My friend's callsign is DL1ABC.",
            "Update: my callsign is SP2KWT now."
        ]
    );
    let retired = store.retired_facts(A).await.unwrap();
    assert_eq!(retired.len(), 1);
    assert_eq!(retired[0].text, "My callsign is SP9QRZ.");
    assert_eq!(
        retired[0].replaced_by.as_deref(),
        Some("Update: my callsign is SP2KWT now.")
    );
    assert!(retired[0].retired_at > 0);
    let summary = store.summary(A).await.unwrap().unwrap();
    assert_eq!(summary.text, "He likes yagis.");
    let new = store
        .append_user(A, "What is my callsign?".into(), 9)
        .await
        .unwrap();
    let ctx = store
        .context(A, new, 0, "My callsign is what?", 4)
        .await
        .unwrap();
    let users: Vec<&str> = ctx.retrieved.iter().map(|e| e.user.as_str()).collect();
    assert!(!users.contains(&"My callsign is SP9QRZ."), "{users:?}");
    // A reset forgets the record too.
    store.reset(A).await.unwrap();
    assert!(store.retired_facts(A).await.unwrap().is_empty());
}

/// The record of corrections is bounded like the facts: the oldest retired ones go first,
/// and a retired one whose replacement is gone says so.
#[tokio::test]
async fn retired_facts_are_bounded() {
    let (_dir, store) = open_temp();
    let mut expected = None;
    for (i, call) in ["SP1AAA", "SP2BBB", "SP3CCC", "SP4DDD"].iter().enumerate() {
        let at = 10 * i as i64;
        let (u, a) = exchange(&store, A, &format!("My callsign is {call}."), "Ok", at).await;
        let s = SummarySave {
            facts: vec![(format!("My callsign is {call}."), u)],
            facts_max: 2,
            ..save("s", a, expected)
        };
        assert!(store.save_summary(A, s).await.unwrap());
        expected = Some(a);
    }
    assert_eq!(store.facts(A).await.unwrap(), ["My callsign is SP4DDD."]);
    let retired: Vec<String> = store
        .retired_facts(A)
        .await
        .unwrap()
        .into_iter()
        .map(|r| format!("{} → {}", r.text, r.replaced_by.unwrap_or_default()))
        .collect();
    assert_eq!(
        retired,
        [
            "My callsign is SP2BBB. → My callsign is SP3CCC.",
            "My callsign is SP3CCC. → My callsign is SP4DDD."
        ]
    );
}

/// A plan made from fact rows that changed before its write (another save: the admin CLI's
/// process writes the same file) is not written; `save_summary` reads the rows and plans
/// again, so the correction still retires the old fact and nothing is kept twice.
#[tokio::test]
async fn a_plan_made_from_rows_that_changed_is_not_written() {
    use crate::facts::saving;
    use crate::store::summaries::{Written, fact_rows, write_summary};
    let (_dir, store) = open_temp();
    let (u1, a1) = exchange(&store, A, "My callsign is SP9QRZ.", "Noted", 1).await;
    let (u2, a2) = exchange(&store, A, "Update: my callsign is SP2KWT now.", "Ok", 3).await;
    let rows = store.call(move |c| fact_rows(c, A)).await.unwrap();
    assert!(rows.is_empty());
    let first = SummarySave {
        facts: vec![("My callsign is SP9QRZ.".into(), u1)],
        facts_max: 5,
        ..save("s1", a1, None)
    };
    assert!(store.save_summary(A, first).await.unwrap());
    // Planned from the rows read before that save, the correction retires nothing.
    let correction = vec![("Update: my callsign is SP2KWT now.".to_string(), u2)];
    let stale = saving::plan(&rows, &correction, "s2", 5);
    assert!(stale.retire.is_empty());
    let written = store
        .call(move |c| write_summary(c, A, (a2, Some(a1)), &rows, &stale))
        .await
        .unwrap();
    assert_eq!(written, Written::FactsChanged);
    assert_eq!(store.facts(A).await.unwrap(), ["My callsign is SP9QRZ."]);
    let second = SummarySave {
        facts: correction,
        facts_max: 5,
        ..save("s2", a2, Some(a1))
    };
    assert!(store.save_summary(A, second).await.unwrap());
    assert_eq!(
        store.facts(A).await.unwrap(),
        ["Update: my callsign is SP2KWT now."]
    );
    assert_eq!(store.retired_facts(A).await.unwrap().len(), 1);
}
