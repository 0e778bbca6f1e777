//! The knowledge index: files put, touched, replaced and removed; what a search finds (stemmed,
//! ranked, private passages only when asked, the coverage of each); the counts; the rebuild
//! after damage; the migration from the schema before it.

use super::*;
use crate::lang::Lang;
use crate::store::damage::Health;
use crate::store::knowledge::{
    Embedded, KnowledgeChange, KnowledgeFile, KnowledgeHit, KnowledgeIndex, NewPassage, Passages,
    embed_input,
};

fn file(path: &str, private: bool) -> KnowledgeFile {
    KnowledgeFile {
        path: path.into(),
        size: 10,
        mtime_ns: 1,
        hash: Some(42),
        private,
        passages: 0,
        skipped: None,
        indexed_at: 0,
    }
}

fn put(path: &str, private: bool, passages: &[(&str, &str)]) -> KnowledgeChange {
    KnowledgeChange::Put {
        file: file(path, private),
        passages: passages
            .iter()
            .map(|(heading, text)| NewPassage {
                heading: heading.to_string(),
                text: text.to_string(),
            })
            .collect(),
    }
}

/// A club's documents: meetings, repeaters, and a private wifi note.
async fn club(store: &Store) {
    store
        .knowledge_apply(
            vec![
                put(
                    "handbook.md",
                    false,
                    &[
                        ("Club > Meetings", "We meet on the first Tuesday of every month at the Old Fire Station."),
                        ("Club > Fees", "Membership costs 24 pounds a year, paid to the treasurer."),
                        ("Club > Nets", "The weekly net runs on Thursdays at 20:00 on the Beacon Hill repeater."),
                    ],
                ),
                put(
                    "repeaters.md",
                    false,
                    &[
                        ("Repeaters > Beacon Hill", "GB3KV transmits on 145.7125 MHz, shift -600 kHz, CTCSS tone 77.0 Hz."),
                        ("Repeaters > Town", "GB7AS is a DMR repeater on 439.4125 MHz, colour code 1."),
                    ],
                ),
                put("private/wifi.md", true, &[("Clubhouse", "The wifi password is kestrel-2024.")]),
            ],
            100,
        )
        .await
        .unwrap();
}

/// The paths and headings a search found, best first.
async fn found(store: &Store, text: &str, passages: Passages) -> Vec<String> {
    store
        .knowledge_search(text, Lang::En, passages, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|h| format!("{} {}", h.path, h.heading))
        .collect()
}

#[tokio::test]
async fn a_search_finds_stemmed_words_ranked_and_private_ones_only_when_asked() {
    let (_dir, store) = open_temp();
    assert!(
        found(&store, "meeting", Passages::WithPrivate)
            .await
            .is_empty(),
        "empty index"
    );
    club(&store).await;
    // "meetings" finds "meet" (porter), the heading counts too.
    assert_eq!(
        found(&store, "Where are the meetings?", Passages::Public).await[0],
        "handbook.md Club > Meetings"
    );
    // The file name is searched: "repeaters" ranks both repeater passages first.
    let r = found(
        &store,
        "which tone for the beacon hill repeater",
        Passages::Public,
    )
    .await;
    assert_eq!(r[0], "repeaters.md Repeaters > Beacon Hill", "{r:?}");
    // Private passages only when asked for.
    assert!(
        found(&store, "wifi password", Passages::Public)
            .await
            .is_empty()
    );
    assert_eq!(
        found(&store, "wifi password", Passages::WithPrivate).await,
        ["private/wifi.md Clubhouse"]
    );
    // Words that are not searched for (stop words, symbols) find nothing and fail nothing.
    assert!(
        found(&store, "what is the \"*\" NEAR(", Passages::WithPrivate)
            .await
            .is_empty()
    );

    let hits = store
        .knowledge_search("Thursday net repeater", Lang::En, Passages::Public, 10)
        .await
        .unwrap();
    assert!(
        hits.windows(2).all(|w| w[0].score >= w[1].score),
        "{hits:?}"
    );
    assert!(
        hits.iter()
            .all(|h| h.score > 0.0 && (0.0..=1.0).contains(&h.coverage))
    );
    // The net passage has all three words; the Beacon Hill one only "repeater".
    assert_eq!(hits[0].heading, "Club > Nets");
    assert!((hits[0].coverage - 1.0).abs() < 1e-9, "{hits:?}");
    assert!(hits.iter().any(|h| h.coverage < 0.5), "{hits:?}");
}

/// Outside English a question's words are searched as their light stems, as prefixes: the
/// inflected word finds the passage, names its heading and covers the question.
#[tokio::test]
async fn other_languages_find_inflected_words_by_their_stems() {
    let (_dir, store) = open_temp();
    store
        .knowledge_apply(
            vec![
                put(
                    "sicherheit.md",
                    false,
                    &[(
                        "Nächstes Krankenhaus",
                        "Ashby General, Notaufnahme rund um die Uhr.",
                    )],
                ),
                put(
                    "manuale.md",
                    false,
                    &[("Riunione mensile", "I soci si riuniscono il primo martedì.")],
                ),
            ],
            100,
        )
        .await
        .unwrap();
    let cases = [
        (
            Lang::De,
            "Welches Krankenhaus ist am nächsten?",
            "Nächstes Krankenhaus",
        ),
        (
            Lang::It,
            "Quando sono le riunioni mensili?",
            "Riunione mensile",
        ),
    ];
    for (lang, question, heading) in cases {
        let hits = store
            .knowledge_search(question, lang, Passages::Public, 10)
            .await
            .unwrap();
        assert_eq!(
            hits.first().map(|h| h.heading.as_str()),
            Some(heading),
            "{question}"
        );
        assert!((hits[0].topic - 1.0).abs() < 1e-9, "{question}: {hits:?}");
        assert!(
            (hits[0].coverage - 1.0).abs() < 1e-9,
            "{question}: {hits:?}"
        );
        // Searched as written (porter's English endings only), they miss the heading.
        let as_written = store
            .knowledge_search(question, Lang::En, Passages::Public, 10)
            .await
            .unwrap();
        assert!(
            as_written.iter().all(|h| h.topic < 1.0),
            "{question}: {as_written:?}"
        );
    }
}

#[tokio::test]
async fn a_job_is_found_by_the_everyday_words_it_is_asked_with() {
    let (_dir, store) = open_temp();
    store
        .knowledge_apply(
            vec![
                put(
                    "handbook.md",
                    false,
                    &[
                        (
                            "The committee",
                            "Role: Treasurer; Name: Priya Raman\nRole: Secretary; Name: Tom Okafor",
                        ),
                        (
                            "The club mesh",
                            "Ben Carrow looks after the fixed nodes of the club.",
                        ),
                    ],
                ),
                put(
                    "handbuch.md",
                    false,
                    &[("Der Vorstand", "Amt: Kassenwartin; Name: Priya Raman")],
                ),
                put(
                    "manuale.md",
                    false,
                    &[("Il direttivo", "Carica: Tesoriera; Nome: Priya Raman")],
                ),
            ],
            100,
        )
        .await
        .unwrap();
    let cases = [
        (
            Lang::En,
            "Who looks after the club's money?",
            "The committee",
        ),
        (
            Lang::De,
            "Wer verwaltet das Geld des Clubs?",
            "Der Vorstand",
        ),
        // "tiene" is a stop word (Spanish's): the job is searched for all the same.
        (Lang::It, "Chi tiene i soldi del club?", "Il direttivo"),
    ];
    for (lang, question, heading) in cases {
        let hits = store
            .knowledge_search(question, lang, Passages::Public, 10)
            .await
            .unwrap();
        assert_eq!(
            hits.first().map(|h| h.heading.as_str()),
            Some(heading),
            "{question}: {hits:?}"
        );
    }
    // Without a who, a verb of looking after names no job: the mesh's passage, which writes
    // it, comes first.
    let hits = store
        .knowledge_search(
            "What do the looks of the fixed nodes say?",
            Lang::En,
            Passages::Public,
            10,
        )
        .await
        .unwrap();
    assert_eq!(
        hits.first().map(|h| h.heading.as_str()),
        Some("The club mesh"),
        "{hits:?}"
    );
    assert!(
        hits.iter().all(|h| h.heading != "The committee"),
        "{hits:?}"
    );
}

#[tokio::test]
async fn an_abbreviation_is_searched_as_the_documents_spell_it_out() {
    let (_dir, store) = open_temp();
    store
        .knowledge_apply(
            vec![
                put(
                    "handbuch.md",
                    false,
                    &[(
                        "Vorstand",
                        "Der Vorstand wird im Dezember auf der Jahreshauptversammlung (JHV) gewählt.",
                    )],
                ),
                put(
                    "termine.md",
                    false,
                    &[
                        ("Termine > Jahreshauptversammlung", "Dienstag, 1. Dezember, 19:30 Uhr."),
                        ("Termine > Fuchsjagd", "Sonntag, 26. April."),
                    ],
                ),
                // Defined only where a stranger may not read.
                put(
                    "private/kasse.md",
                    true,
                    &[("Kasse", "Die Kassenprüfung (KP) ist im November.")],
                ),
                put("termine2.md", false, &[("Kassenprüfung", "Am 3. November.")]),
            ],
            100,
        )
        .await
        .unwrap();
    let headings =
        |hits: Vec<KnowledgeHit>| -> Vec<String> { hits.into_iter().map(|h| h.heading).collect() };
    let search = |q: &'static str, passages| {
        let store = &store;
        async move {
            store
                .knowledge_search(q, Lang::De, passages, 10)
                .await
                .unwrap()
        }
    };
    // "JHV" is searched as "Jahreshauptversammlung": the heading with the date comes first,
    // named whole.
    let hits = search("An welchem Datum ist die JHV?", Passages::Public).await;
    assert_eq!(
        hits.first().map(|h| h.heading.as_str()),
        Some("Termine > Jahreshauptversammlung"),
        "{hits:?}"
    );
    assert!((hits[0].topic - 1.0).abs() < 1e-9, "{hits:?}");
    // Not defined for a public search: "KP" stays "KP", which no heading has.
    let public = headings(search("Wann ist die KP?", Passages::Public).await);
    assert!(!public.contains(&"Kassenprüfung".to_string()), "{public:?}");
    let private = headings(search("Wann ist die KP?", Passages::WithPrivate).await);
    assert!(
        private.contains(&"Kassenprüfung".to_string()),
        "{private:?}"
    );
    // An abbreviation nothing defines is searched as it is.
    let none = headings(search("Wann ist das AGM?", Passages::WithPrivate).await);
    assert!(none.is_empty(), "{none:?}");
}

#[tokio::test]
async fn files_are_replaced_touched_and_removed_whole() {
    let (_dir, store) = open_temp();
    club(&store).await;
    let index = store.knowledge_index().await.unwrap();
    assert_eq!(
        (
            index.documents,
            index.passages,
            index.private_passages,
            index.skipped,
            index.last
        ),
        (3, 6, 1, 0, None)
    );
    store
        .knowledge_indexed("/srv/notes".into(), 200, 1)
        .await
        .unwrap();

    // A changed file: its old passages go, its new ones come.
    store
        .knowledge_apply(
            vec![put(
                "handbook.md",
                false,
                &[("Club > Meetings", "We meet on Wednesdays at the library.")],
            )],
            300,
        )
        .await
        .unwrap();
    assert!(
        found(&store, "Tuesday fire station", Passages::Public)
            .await
            .is_empty()
    );
    assert_eq!(
        found(&store, "library", Passages::Public).await,
        ["handbook.md Club > Meetings"]
    );
    // Touched: size and time change, the passages stay.
    store
        .knowledge_apply(
            vec![KnowledgeChange::Touch {
                path: "repeaters.md".into(),
                size: 99,
                mtime_ns: 77,
            }],
            400,
        )
        .await
        .unwrap();
    // A file that became binary: a row with the reason, no passages. A removed one: gone.
    let mut broken = file("repeaters.md", false);
    broken.skipped = Some("binary".into());
    broken.hash = None;
    store
        .knowledge_apply(
            vec![
                KnowledgeChange::Put {
                    file: broken,
                    passages: Vec::new(),
                },
                KnowledgeChange::Remove {
                    path: "private/wifi.md".into(),
                },
            ],
            500,
        )
        .await
        .unwrap();
    assert!(
        found(&store, "wifi GB3KV", Passages::WithPrivate)
            .await
            .is_empty()
    );
    let files = store.knowledge_files().await.unwrap();
    let rows: Vec<(&str, usize, Option<&str>, i64)> = files
        .iter()
        .map(|f| {
            (
                f.path.as_str(),
                f.passages,
                f.skipped.as_deref(),
                f.indexed_at,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("handbook.md", 1, None, 300),
            ("repeaters.md", 0, Some("binary"), 500)
        ]
    );
    let index = store.knowledge_index().await.unwrap();
    assert_eq!(
        (
            index.documents,
            index.passages,
            index.skipped,
            index.last,
            index.splitter
        ),
        (1, 1, 1, Some(("/srv/notes".to_string(), 200)), Some(1))
    );
    // The hash keeps its 64 bits through SQLite's signed integers.
    let mut big = file("big.md", false);
    big.hash = Some(u64::MAX - 1);
    store
        .knowledge_apply(
            vec![KnowledgeChange::Put {
                file: big,
                passages: Vec::new(),
            }],
            600,
        )
        .await
        .unwrap();
    let files = store.knowledge_files().await.unwrap();
    assert_eq!(
        files
            .iter()
            .find(|f| f.path == "big.md")
            .and_then(|f| f.hash),
        Some(u64::MAX - 1)
    );
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}

#[tokio::test]
async fn a_damaged_knowledge_index_is_rebuilt_from_the_passages() {
    let (_dir, path) = temp();
    let store = Store::open(&path).unwrap();
    club(&store).await;
    store.close().await.unwrap();
    damage_fts(&path, "knowledge_fts", "id > 10", 1);
    let store = Store::open(&path).unwrap();
    assert!(matches!(
        store.check().await.unwrap(),
        Health::IndexDamaged(_)
    ));
    store.rebuild_index().await.unwrap();
    assert_eq!(store.check().await.unwrap(), Health::Ok);
    assert_eq!(
        found(&store, "wifi password", Passages::WithPrivate).await,
        ["private/wifi.md Clubhouse"]
    );
    assert_eq!(
        found(&store, "Thursday net", Passages::Public).await[0],
        "handbook.md Club > Nets"
    );
}

#[tokio::test]
async fn a_database_from_before_the_knowledge_index_migrates() {
    let (_dir, path) = temp();
    let raw = at_version(&path, 4);
    raw.execute(
        "INSERT INTO messages(node, role, text, at) VALUES (1, 'user', 'kept', 5)",
        [],
    )
    .unwrap();
    drop(raw);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.history(NodeId(1), 5).await.unwrap().len(), 1);
    assert_eq!(
        store.knowledge_index().await.unwrap(),
        KnowledgeIndex::default()
    );
    club(&store).await;
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    store.close().await.unwrap();
    assert_eq!(user_version(&path), crate::store::schema::VERSION);
}

/// A vector for a test: `dims` zeros with a one at `at`.
fn axis(at: usize, dims: usize) -> Vec<f32> {
    (0..dims).map(|i| if i == at { 1.0 } else { 0.0 }).collect()
}

#[tokio::test]
async fn passages_are_embedded_once_per_text_and_model() {
    let (_dir, store) = open_temp();
    club(&store).await;
    // The same section in a second file: one text, one vector.
    let fees = (
        "Club > Fees",
        "Membership costs 24 pounds a year, paid to the treasurer.",
    );
    store
        .knowledge_apply(vec![put("copy.md", false, &[fees])], 101)
        .await
        .unwrap();
    let pending = store.knowledge_unembedded("m".into(), 100).await.unwrap();
    assert_eq!(pending.len(), 6, "{pending:?}");
    assert!(
        pending
            .iter()
            .any(|p| p.input == embed_input(fees.0, fees.1))
    );
    // A batch at a time, in passage order.
    let first = store.knowledge_unembedded("m".into(), 2).await.unwrap();
    assert_eq!(first, pending[..2].to_vec());
    let vectors: Vec<(i64, Vec<f32>)> = pending
        .iter()
        .enumerate()
        .map(|(i, p)| (p.key, axis(i, 8)))
        .collect();
    store
        .knowledge_put_vectors("m".into(), vectors)
        .await
        .unwrap();
    assert!(
        store
            .knowledge_unembedded("m".into(), 100)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.knowledge_embedded("m".into()).await.unwrap(),
        Embedded {
            embedded: 7,
            passages: 7
        }
    );

    // The nearest: both passages of the text, as similar as can be; the private one only
    // when asked for, whatever the question's vector.
    let at = |input: &str| pending.iter().position(|p| p.input == input).unwrap();
    let near = store
        .knowledge_nearest(
            "m".into(),
            axis(at(&embed_input(fees.0, fees.1)), 8),
            Passages::Public,
            3,
        )
        .await
        .unwrap();
    let paths: Vec<&str> = near.iter().take(2).map(|h| h.path.as_str()).collect();
    assert!(
        paths.contains(&"copy.md") && paths.contains(&"handbook.md"),
        "{near:?}"
    );
    assert!((near[0].similarity.unwrap() - 1.0).abs() < 1e-6, "{near:?}");
    let wifi = axis(
        at(&embed_input(
            "Clubhouse",
            "The wifi password is kestrel-2024.",
        )),
        8,
    );
    let public = store
        .knowledge_nearest("m".into(), wifi.clone(), Passages::Public, 10)
        .await
        .unwrap();
    assert_eq!(public.len(), 6);
    assert!(public.iter().all(|h| !h.private), "{public:?}");
    let private = store
        .knowledge_nearest("m".into(), wifi, Passages::WithPrivate, 1)
        .await
        .unwrap();
    assert_eq!(private[0].path, "private/wifi.md");
    // Another length (another model's vectors under this name) is passed over.
    assert!(
        store
            .knowledge_nearest("m".into(), axis(0, 4), Passages::WithPrivate, 10)
            .await
            .unwrap()
            .is_empty()
    );

    // One section of a file changes: only it needs a vector; the old one is pruned, and a
    // text another passage still has keeps its vector.
    store
        .knowledge_apply(
            vec![
                put(
                    "repeaters.md",
                    false,
                    &[("Repeaters > Town", "GB7AS moved to 439.5 MHz.")],
                ),
                KnowledgeChange::Remove {
                    path: "copy.md".into(),
                },
            ],
            102,
        )
        .await
        .unwrap();
    let pending = store.knowledge_unembedded("m".into(), 100).await.unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert!(pending[0].input.contains("439.5 MHz"));
    assert_eq!(store.knowledge_prune_vectors("m".into()).await.unwrap(), 2);
    assert_eq!(
        store.knowledge_embedded("m".into()).await.unwrap(),
        Embedded {
            embedded: 4,
            passages: 5
        }
    );
    // Another model embeds everything again, and its prune takes the old model's vectors.
    assert_eq!(
        store
            .knowledge_unembedded("other".into(), 100)
            .await
            .unwrap()
            .len(),
        5
    );
    assert_eq!(
        store.knowledge_prune_vectors("other".into()).await.unwrap(),
        4
    );
}

#[tokio::test]
async fn passages_indexed_before_embeddings_are_split_again() {
    let (_dir, path) = temp();
    let raw = at_version(&path, 6);
    raw.execute_batch(
        "INSERT INTO knowledge_files(id, path, size, mtime_ns, hash, private, indexed_at)
             VALUES (1, 'a.md', 5, 1, 7, 0, 1);
         INSERT INTO knowledge_passages(file_id, seq, heading, text) VALUES (1, 0, 'A', 'alpha');
         INSERT INTO knowledge_state(id, dir, indexed_at, splitter) VALUES (1, '/k', 1, 1);",
    )
    .unwrap();
    drop(raw);
    let store = Store::open(&path).unwrap();
    // No key yet, so nothing to embed; the splitter version is cleared, so the next indexing
    // splits (and keys) every file.
    assert!(
        store
            .knowledge_unembedded("m".into(), 10)
            .await
            .unwrap()
            .is_empty()
    );
    let index = store.knowledge_index().await.unwrap();
    assert_eq!((index.passages, index.splitter), (1, Some(0)));
    store.close().await.unwrap();
    assert_eq!(user_version(&path), crate::store::schema::VERSION);
}
