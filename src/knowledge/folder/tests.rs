//! The walk and the read on a real folder: formats, privacy, links in and out, loops.

use super::*;

#[test]
fn text_is_checked() {
    let cases: Vec<(Vec<u8>, Result<&str, Skip>)> = vec![
        (b"# Club\nhello".to_vec(), Ok("# Club\nhello")),
        (Vec::new(), Ok("")),
        ("Grüße".as_bytes().to_vec(), Ok("Grüße")),
        (b"PK\x03\x04\x00\x00".to_vec(), Err(Skip::Binary)),
        (b"caf\xe9 au lait".to_vec(), Err(Skip::NotUtf8 { at: 3 })),
        (
            vec![b'a'; MAX_FILE_BYTES as usize + 1],
            Err(Skip::TooLarge(MAX_FILE_BYTES + 1)),
        ),
    ];
    for (bytes, want) in cases {
        let got = check(bytes.clone()).map(|t| t.text);
        assert_eq!(got.as_deref().map_err(Clone::clone), want, "{bytes:?}");
    }
}

#[test]
fn skip_reasons_say_what_to_do() {
    let cases = [
        (
            Skip::Format("pdf".into()),
            "(.pdf): convert it to .md or .txt",
        ),
        (Skip::Format(String::new()), "no extension"),
        (Skip::TooLarge(3 * 1024 * 1024), "(3.0 MiB): split it"),
        (Skip::NotUtf8 { at: 7 }, "offset 7): save it as UTF-8"),
        (Skip::Binary, "NUL bytes"),
    ];
    for (skip, want) in cases {
        assert!(skip.to_string().contains(want), "{skip}");
    }
}

#[test]
fn the_walk_lists_files_with_their_format_and_privacy() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |rel: &str, bytes: &[u8]| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    };
    write("handbook.md", b"# H");
    write("notes.TXT", b"x");
    write("scan.pdf", b"%PDF");
    write("README", b"x");
    write(".hidden.md", b"x");
    write("draft.md~", b"x");
    write(".git/config.md", b"x");
    write("private/wifi.md", b"pw");
    write("club/Private/keys.txt", b"k");
    write("club/list.markdown", b"l");
    std::fs::write(
        root.join("huge.md"),
        vec![b'a'; MAX_FILE_BYTES as usize + 1],
    )
    .unwrap();
    let (found, more) = walk(root, &CancellationToken::new()).unwrap();
    assert!(!more);
    let got: Vec<(&str, Result<Format, Skip>, bool)> = found
        .iter()
        .map(|f| (f.path.as_str(), f.format.clone(), f.private))
        .collect();
    assert_eq!(
        got,
        [
            ("README", Err(Skip::Format(String::new())), false),
            ("club/Private/keys.txt", Ok(Format::Text), true),
            ("club/list.markdown", Ok(Format::Markdown), false),
            ("handbook.md", Ok(Format::Markdown), false),
            ("huge.md", Err(Skip::TooLarge(MAX_FILE_BYTES + 1)), false),
            ("notes.TXT", Ok(Format::Text), false),
            ("private/wifi.md", Ok(Format::Markdown), true),
            ("scan.pdf", Err(Skip::Format("pdf".into())), false),
        ]
    );
    assert!(found.iter().all(|f| f.mtime_ns > 0));
    assert_eq!(
        read(root, "private/wifi.md")
            .map(|t| t.text)
            .ok()
            .as_deref(),
        Some("pw")
    );
    assert!(matches!(read(root, "gone.md"), Err(Skip::Unreadable(_))));
    assert!(matches!(read(root, "../x.md"), Err(Skip::Unreadable(_))));
    assert!(walk(&root.join("missing"), &CancellationToken::new()).is_err());
}

/// The walk's files as (path, format, private).
fn listed(root: &Path) -> Vec<(String, Result<Format, Skip>, bool)> {
    let (found, more) = walk(root, &CancellationToken::new()).unwrap();
    assert!(!more);
    found
        .into_iter()
        .map(|f| (f.path, f.format, f.private))
        .collect()
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

fn link(root: &Path, rel: &str, target: impl AsRef<Path>) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, p).unwrap();
}

#[test]
fn links_count_as_their_target_inside_the_folder_only() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", b"s3cret");
    write(outside.path(), "more/notes.md", b"n");
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    write(root, "handbook.md", b"# H");
    write(root, "private/wifi.md", b"pw");
    write(root, "club/list.md", b"l");
    write(root, ".git/config.md", b"c");
    let secret = outside.path().join("secret.md").canonicalize().unwrap();
    let more = outside.path().join("more").canonicalize().unwrap();
    // Out of the folder: a file (absolute and relative links) and a folder.
    link(root, "secret.md", &secret);
    let beside = outside.path().file_name().unwrap().to_str().unwrap();
    link(root, "up.md", format!("../{beside}/secret.md"));
    link(root, "club/shared", &more);
    // Into it: a file in `private/` from outside it, a folder, a file twice, a hidden one.
    link(root, "wifi.md", "private/wifi.md");
    link(root, "public/wifi.md", "../private/wifi.md");
    link(root, "members", "club");
    link(root, "handbook-copy.md", "handbook.md");
    link(root, "git.md", ".git/config.md");
    let outside_of = |target: &Path| Err(Skip::Outside(target.display().to_string()));
    let got = listed(root);
    let want = [
        ("club/list.md".to_string(), Ok(Format::Markdown), false),
        ("club/shared".to_string(), outside_of(&more), false),
        ("handbook.md".to_string(), Ok(Format::Markdown), false),
        ("private/wifi.md".to_string(), Ok(Format::Markdown), true),
        ("secret.md".to_string(), outside_of(&secret), false),
        ("up.md".to_string(), outside_of(&secret), false),
    ];
    assert_eq!(got, want);
}

#[test]
fn link_loops_end_and_each_file_is_listed_once() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    write(root, "a.md", b"a");
    write(root, "sub/b.md", b"b");
    for name in ["x", "y", "z"] {
        link(root, name, ".");
    }
    link(root, "sub/back", "..");
    link(root, "sub/self", ".");
    link(root, "sub/deeper/loop", "../..");
    let got: Vec<String> = listed(root).into_iter().map(|(p, ..)| p).collect();
    assert_eq!(got, ["a.md", "sub/b.md"]);
}

#[test]
fn a_folder_given_through_a_link_is_walked_as_itself() {
    let place = tempfile::tempdir().unwrap();
    write(place.path(), "real/notes.md", b"n");
    link(place.path(), "knowledge", "real");
    link(
        place.path(),
        "real/again.md",
        place.path().join("knowledge/notes.md"),
    );
    let got: Vec<String> = listed(&place.path().join("knowledge"))
        .into_iter()
        .map(|(p, ..)| p)
        .collect();
    assert_eq!(got, ["notes.md"]);
}

#[test]
fn a_walk_given_up_on_stops() {
    let folder = tempfile::tempdir().unwrap();
    write(folder.path(), "a.md", b"a");
    let stop = CancellationToken::new();
    stop.cancel();
    let walked = walk(folder.path(), &stop);
    assert_eq!(
        walked.map_err(|e| e.kind()),
        Err(std::io::ErrorKind::Interrupted)
    );
}

#[test]
fn a_file_that_became_a_link_since_the_walk_is_not_read() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", b"s3cret");
    let secret = outside.path().join("secret.md").canonicalize().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    write(root, "a.md", b"a");
    write(root, "b.md", b"b");
    write(root, "d.md", b"d");
    write(root, "sub/c.md", b"c");
    assert_eq!(listed(root).len(), 4);
    std::fs::remove_file(root.join("a.md")).unwrap();
    link(root, "a.md", &secret);
    std::fs::remove_file(root.join("b.md")).unwrap();
    link(root, "b.md", "d.md");
    std::fs::remove_dir_all(root.join("sub")).unwrap();
    link(root, "sub", outside.path());
    write(outside.path(), "c.md", b"elsewhere");
    assert_eq!(
        read(root, "a.md"),
        Err(Skip::Outside(secret.display().to_string()))
    );
    assert!(
        matches!(read(root, "b.md"), Err(Skip::Unreadable(why)) if why.contains("became a link")),
        "a link inside the folder, to another file: read under that file's own path"
    );
    assert!(
        matches!(read(root, "sub/c.md"), Err(Skip::Outside(_))),
        "a folder on the way that became a link out"
    );
}
