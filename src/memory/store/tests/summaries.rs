//! The summary cursor: pending work and compare-and-swap saves.

use super::*;

#[tokio::test]
async fn pending_summary_threshold_batch_and_cursor() {
    let (_dir, store) = open_temp();
    let mut all = Vec::new();
    for i in 0..5 {
        let (u, a) = exchange(&store, A, &format!("q{i}"), &format!("r{i}"), i * 2).await;
        all.extend([u, a]);
    }
    exchange(&store, B, "other", "node", 100).await;
    // 10 messages of A: a window of 4 leaves 6 evicted.
    let pending = |window, threshold, batch| store.pending_summary(A, window, threshold, batch);
    assert_eq!(pending(4, 7, 10).await.unwrap(), None);
    let job = pending(4, 6, 10).await.unwrap().unwrap();
    assert_eq!(job.previous, None);
    assert_eq!(ids(&job.evicted), all[..6]);
    let job = pending(4, 2, 3).await.unwrap().unwrap();
    assert_eq!(ids(&job.evicted), all[..3]);
    assert_eq!(pending(10, 1, 10).await.unwrap(), None);
    assert_eq!(pending(20, 1, 10).await.unwrap(), None);
    let job = pending(0, 0, 100).await.unwrap().unwrap();
    assert_eq!(ids(&job.evicted), all);
    assert_eq!(
        pending(9, 1, 0).await.unwrap().map(|j| ids(&j.evicted)),
        Some(vec![all[0]])
    );

    // After saving through the third message, only later evicted ones are pending.
    assert!(
        store
            .save_summary(A, "s1".into(), all[2], None)
            .await
            .unwrap()
    );
    let job = pending(4, 1, 10).await.unwrap().unwrap();
    assert_eq!(
        job.previous
            .as_ref()
            .map(|s| (s.text.as_str(), s.through_id)),
        Some(("s1", all[2]))
    );
    assert_eq!(ids(&job.evicted), all[3..6]);
    assert_eq!(pending(4, 4, 10).await.unwrap(), None);
    assert!(store.pending_summary(B, 0, 1, 10).await.unwrap().is_some());
}

#[tokio::test]
async fn save_summary_is_compare_and_swap() {
    let (_dir, store) = open_temp();
    let (u1, a1) = exchange(&store, A, "q1", "r1", 1).await;
    let (u2, _) = exchange(&store, A, "q2", "r2", 3).await;
    let (ub, _) = exchange(&store, B, "qb", "rb", 3).await;

    assert!(
        !store
            .save_summary(A, "x".into(), a1, Some(u1))
            .await
            .unwrap()
    );
    assert!(
        !store.save_summary(A, "x".into(), ub, None).await.unwrap(),
        "B's message"
    );
    assert!(
        !store.save_summary(A, "x".into(), 9999, None).await.unwrap(),
        "no such message"
    );
    assert_eq!(store.summary(A).await.unwrap(), None);

    assert!(
        store
            .save_summary(A, "first".into(), a1, None)
            .await
            .unwrap()
    );
    assert!(
        !store
            .save_summary(A, "stale".into(), u2, None)
            .await
            .unwrap()
    );
    assert!(
        !store
            .save_summary(A, "backwards".into(), u1, Some(a1))
            .await
            .unwrap()
    );
    assert!(
        store
            .save_summary(A, "second".into(), u2, Some(a1))
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
            .save_summary(A, "ghost".into(), u2, Some(u2))
            .await
            .unwrap()
    );
    assert!(
        !store
            .save_summary(A, "ghost".into(), u2, None)
            .await
            .unwrap()
    );
    assert_eq!(store.summary(A).await.unwrap(), None);
}
