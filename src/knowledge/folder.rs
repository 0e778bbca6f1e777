//! The knowledge folder on disk: which files it holds (a walk that reads metadata only) and
//! one file's text (read and checked). Blocking: `sync` calls these on tokio's blocking
//! pool, never on an async worker.
//!
//! Markdown (`.md`, `.markdown`) and plain text (`.txt`, `.text`) are read; that is what
//! operators write their handbooks and lists in. Anything else — a PDF, a Word file, a
//! spreadsheet — is listed as skipped with the advice to convert it (`pdftotext`, `pandoc`):
//! parsing those would need large libraries for a text meshai can take in a form the operator
//! can check. Hidden files and folders (`.git`, editor swap files) and backups ending in `~`
//! are not looked at. A file inside a folder named `private` (at any depth) is private.

use std::fmt;
use std::io::Read as _;
use std::path::{Component, Path};
use std::time::UNIX_EPOCH;

use super::split::Format;
use crate::store::fnv1a;

/// A file larger than this is skipped: 1 MiB of text is about 1,700 passages, more than any
/// handbook, and likely a dump or a log rather than notes.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// How deep the walk goes below the folder (symbolic links are followed, so this also ends a
/// link loop).
const MAX_DEPTH: usize = 16;

/// At most this many files are looked at; the rest are not listed (and a warning says so).
pub const MAX_FILES: usize = 10_000;

/// The name of a folder whose files are private.
pub const PRIVATE_FOLDER: &str = "private";

/// A file the walk found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Relative to the folder, `/`-separated.
    pub path: String,
    pub size: u64,
    /// Modification time, nanoseconds since 1970 (0 when unknown).
    pub mtime_ns: i64,
    /// How to read it, or why it is skipped without being read.
    pub format: Result<Format, Skip>,
    /// Inside a `private` folder.
    pub private: bool,
}

/// Why a file is not indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// Not a format meshai reads; the extension as found (empty for none).
    Format(String),
    /// Its name is not UTF-8 (shown with replacement characters).
    Name,
    /// Larger than [`MAX_FILE_BYTES`].
    TooLarge(u64),
    /// It holds NUL bytes: not text.
    Binary,
    /// Not valid UTF-8 from this byte on.
    NotUtf8 { at: usize },
    /// It could not be opened or read (what the system said).
    Unreadable(String),
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::Format(ext) if ext.is_empty() => {
                f.write_str("not Markdown or plain text (no extension): name it .md or .txt")
            }
            Skip::Format(ext) => write!(
                f,
                "not Markdown or plain text (.{ext}): convert it to .md or .txt (pdftotext, pandoc)"
            ),
            Skip::Name => f.write_str("its name is not UTF-8: rename it"),
            Skip::TooLarge(size) => write!(
                f,
                "larger than 1 MiB ({:.1} MiB): split it into smaller files",
                *size as f64 / (1024.0 * 1024.0)
            ),
            Skip::Binary => f.write_str("binary, not text (it holds NUL bytes)"),
            Skip::NotUtf8 { at } => write!(
                f,
                "not UTF-8 text (an invalid byte at offset {at}): save it as UTF-8"
            ),
            Skip::Unreadable(why) => write!(f, "cannot be read: {why}"),
        }
    }
}

/// A file's text, read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub text: String,
    /// [`hash`] of its bytes.
    pub hash: u64,
}

/// Every file under `dir`, sorted by path, at most [`MAX_FILES`] (and whether there were
/// more). Fails only when `dir` itself cannot be read; a subfolder that cannot be read is
/// logged and left out.
pub fn walk(dir: &Path) -> std::io::Result<(Vec<Found>, bool)> {
    std::fs::read_dir(dir)?;
    let mut found = Vec::new();
    let mut more = false;
    visit(dir, "", false, 0, &mut found, &mut more);
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((found, more))
}

fn visit(
    dir: &Path,
    prefix: &str,
    private: bool,
    depth: usize,
    out: &mut Vec<Found>,
    more: &mut bool,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            tracing::warn!(folder = %dir.display(), error = %e, "knowledge: a folder cannot be read; its files are left out");
            return;
        }
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let shown = name.to_string_lossy();
        if shown.starts_with('.') || shown.ends_with('~') {
            continue;
        }
        let path = entry.path();
        // Follows symbolic links: a linked file or folder counts as its target.
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        let rel = format!("{prefix}{shown}");
        if meta.is_dir() {
            if depth + 1 < MAX_DEPTH {
                let private = private || shown.eq_ignore_ascii_case(PRIVATE_FOLDER);
                visit(&path, &format!("{rel}/"), private, depth + 1, out, more);
            }
            continue;
        }
        if !meta.is_file() {
            continue;
        }
        if out.len() == MAX_FILES {
            *more = true;
            return;
        }
        let size = meta.len();
        let format = if name.to_str().is_none() {
            Err(Skip::Name)
        } else if size > MAX_FILE_BYTES {
            Err(Skip::TooLarge(size))
        } else {
            format_of(&path)
        };
        out.push(Found {
            path: rel,
            size,
            mtime_ns: meta.modified().ok().map_or(0, |t| {
                t.duration_since(UNIX_EPOCH)
                    .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
            }),
            format,
            private,
        });
    }
}

/// The format a file's extension names.
fn format_of(path: &Path) -> Result<Format, Skip> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" => Ok(Format::Markdown),
        "txt" | "text" => Ok(Format::Text),
        _ => Err(Skip::Format(ext)),
    }
}

/// Reads the file at `rel` under `dir`: at most [`MAX_FILE_BYTES`], UTF-8 without NUL bytes.
pub fn read(dir: &Path, rel: &str) -> Result<Text, Skip> {
    let path = rel
        .split('/')
        .fold(dir.to_path_buf(), |p, part| p.join(part));
    // A path from the walk has only normal parts; anything else is not read.
    if !path
        .strip_prefix(dir)
        .is_ok_and(|p| p.components().all(|c| matches!(c, Component::Normal(_))))
    {
        return Err(Skip::Unreadable("not a file inside the folder".into()));
    }
    let file = std::fs::File::open(&path).map_err(|e| Skip::Unreadable(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Skip::Unreadable(e.to_string()))?;
    check(bytes)
}

/// `bytes` as a file's text, or why they are not text.
pub fn check(bytes: Vec<u8>) -> Result<Text, Skip> {
    let len = bytes.len() as u64;
    if len > MAX_FILE_BYTES {
        return Err(Skip::TooLarge(len));
    }
    if bytes.contains(&0) {
        return Err(Skip::Binary);
    }
    // The content hash that tells an edited file from a touched one (its size or time
    // changed, its text did not).
    let hash = fnv1a(&bytes);
    let text = String::from_utf8(bytes).map_err(|e| Skip::NotUtf8 {
        at: e.utf8_error().valid_up_to(),
    })?;
    Ok(Text { text, hash })
}

#[cfg(test)]
mod tests {
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
        let (found, more) = walk(root).unwrap();
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
        assert!(walk(&root.join("missing")).is_err());
    }
}
