//! A folder in step with the index: added, changed, touched, removed and skipped files, in a
//! real folder and a real database.

use std::path::Path;
use std::time::{Duration, SystemTime};

use super::*;
use crate::lang::Lang;
use crate::store::Passages;

fn write(dir: &Path, rel: &str, bytes: &[u8]) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, bytes).unwrap();
}

/// Moves a file's modification time by `secs`, as a touch or an editor's save would.
fn retime(dir: &Path, rel: &str, secs: u64) {
    let f = std::fs::File::options()
        .write(true)
        .open(dir.join(rel))
        .unwrap();
    f.set_modified(SystemTime::now() + Duration::from_secs(secs))
        .unwrap();
}

/// (added, changed, touched, removed, unchanged, skipped paths).
fn counts(r: &Report) -> (usize, usize, usize, usize, usize, Vec<&str>) {
    let skipped = r.skipped.iter().map(|(p, _)| p.as_str()).collect();
    (
        r.added,
        r.changed,
        r.touched,
        r.removed,
        r.unchanged,
        skipped,
    )
}

/// Checks the index's files as (path, private, passages, skipped).
async fn check_rows(store: &Store, want: &[(&str, bool, usize, bool)]) {
    let files = store.knowledge_files().await.unwrap();
    let rows: Vec<(&str, bool, usize, bool)> = files
        .iter()
        .map(|f| (f.path.as_str(), f.private, f.passages, f.skipped.is_some()))
        .collect();
    assert_eq!(rows, want);
}

async fn search(store: &Store, text: &str) -> Vec<String> {
    store
        .knowledge_search(text, Lang::En, Passages::WithPrivate, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|h| format!("{}: {}", h.path, h.text))
        .collect()
}

#[tokio::test]
async fn the_index_follows_the_folder() {
    let notes = tempfile::tempdir().unwrap();
    let dir = notes.path();
    let db = tempfile::tempdir().unwrap();
    let store = Store::open(&db.path().join("meshai.db")).unwrap();
    write(
        dir,
        "handbook.md",
        b"# Club\n## Meetings\nFirst Tuesday at the Old Fire Station.\n",
    );
    write(dir, "repeaters.txt", b"GB3KV 145.7125 MHz, tone 77.0 Hz.");
    write(dir, "logo.png", b"\x89PNG\r\n");
    write(dir, "photo.md", b"\x89PNG\x00\x00");
    write(dir, "private/wifi.md", b"Password kestrel.");
    write(
        dir,
        "secret.md",
        b"---\nprivate: true\n---\nKey safe code 4711.",
    );

    let r = sync(&store, dir).await.unwrap();
    assert_eq!(r.files, 6);
    assert_eq!(counts(&r), (4, 0, 0, 0, 0, vec!["logo.png", "photo.md"]));
    assert_eq!(r.passages, 4);
    check_rows(
        &store,
        &[
            ("handbook.md", false, 1, false),
            ("logo.png", false, 0, true),
            ("photo.md", false, 0, true),
            ("private/wifi.md", true, 1, false),
            ("repeaters.txt", false, 1, false),
            ("secret.md", true, 1, false),
        ],
    )
    .await;
    assert_eq!(
        store.knowledge_index().await.unwrap().last.map(|(d, _)| d),
        Some(dir.display().to_string())
    );

    // Nothing changed: nothing read, nothing skipped again.
    let r = sync(&store, dir).await.unwrap();
    assert_eq!(counts(&r), (0, 0, 0, 0, 6, vec![]));
    assert!(!r.changed_anything());

    // An edit, a touch, a removal, a new file, a broken one fixed.
    write(
        dir,
        "handbook.md",
        b"# Club\n## Meetings\nFirst Wednesday at the library.\n",
    );
    retime(dir, "handbook.md", 10);
    retime(dir, "repeaters.txt", 20);
    std::fs::remove_file(dir.join("private/wifi.md")).unwrap();
    write(dir, "events.md", b"# Events\nField day on 14 June.");
    write(dir, "photo.md", b"Now text.");
    retime(dir, "photo.md", 30);
    let r = sync(&store, dir).await.unwrap();
    assert_eq!(counts(&r), (1, 2, 1, 1, 2, vec![]));
    assert_eq!(
        search(&store, "meetings").await,
        ["handbook.md: First Wednesday at the library."]
    );
    assert!(search(&store, "password kestrel").await.is_empty());
    assert_eq!(
        search(&store, "field day").await,
        ["events.md: Field day on 14 June."]
    );
    assert_eq!(search(&store, "GB3KV").await.len(), 1);

    // A file that turns into something unreadable loses its passages, with the reason.
    write(dir, "events.md", b"caf\xe9");
    retime(dir, "events.md", 40);
    let r = sync(&store, dir).await.unwrap();
    assert_eq!(counts(&r).5, vec!["events.md"]);
    assert_eq!(r.skipped[0].1, Skip::NotUtf8 { at: 3 });
    assert!(search(&store, "field day").await.is_empty());

    // A new splitter splits every indexed file again, changed or not.
    store
        .knowledge_indexed(dir.display().to_string(), 0, split::VERSION + 1)
        .await
        .unwrap();
    let r = sync(&store, dir).await.unwrap();
    assert_eq!(counts(&r), (0, 4, 0, 0, 2, vec![]));
    assert_eq!(
        store.knowledge_index().await.unwrap().splitter,
        Some(split::VERSION)
    );

    // A folder that is gone leaves the index as it was.
    let gone = dir.join("nowhere");
    assert!(matches!(
        sync(&store, &gone).await,
        Err(SyncError::Folder { .. })
    ));
    assert_eq!(search(&store, "GB3KV").await.len(), 1);
    store.close().await.unwrap();
}

#[tokio::test]
async fn links_are_indexed_as_their_target_and_never_out_of_the_folder() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", b"The vault code is 8812.");
    let notes = tempfile::tempdir().unwrap();
    let dir = notes.path();
    let db = tempfile::tempdir().unwrap();
    let store = Store::open(&db.path().join("meshai.db")).unwrap();
    write(dir, "private/wifi.md", b"Password kestrel.");
    std::os::unix::fs::symlink("private/wifi.md", dir.join("wifi.md")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.join("vault.md")).unwrap();

    let r = sync(&store, dir).await.unwrap();
    assert_eq!(counts(&r), (1, 0, 0, 0, 0, vec!["vault.md"]));
    assert!(
        matches!(&r.skipped[0].1, Skip::Outside(target) if target.ends_with("secret.md")),
        "{:?}",
        r.skipped
    );
    check_rows(
        &store,
        &[
            ("private/wifi.md", true, 1, false),
            ("vault.md", false, 0, true),
        ],
    )
    .await;
    assert!(search(&store, "vault code").await.is_empty());
    assert_eq!(
        store
            .knowledge_search("password kestrel", Lang::En, Passages::Public, 10)
            .await
            .unwrap()
            .len(),
        0,
        "the link does not make the private file public"
    );
    // Unchanged since: the skipped link is not reported (logged) again.
    let r = sync(&store, dir).await.unwrap();
    assert_eq!(counts(&r), (0, 0, 0, 0, 2, vec![]));
    store.close().await.unwrap();
}
