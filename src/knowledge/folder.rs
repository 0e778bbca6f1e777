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
//!
//! Only the folder is read: a symbolic link counts as its target when that lies inside the
//! folder (listed once, under the target's own path, private by where the target is), and
//! is listed as skipped when it leads out of it (a shared folder must not hand out whatever
//! the daemon's user can read). Paths are compared canonical, folders are walked once (by
//! device and inode), and a walk ends as soon as its caller gives up on it.

use std::collections::HashSet;
use std::fmt;
use std::io::Read as _;
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

use tokio_util::sync::CancellationToken;

use super::split::Format;
use crate::store::fnv1a;

/// A file larger than this is skipped: 1 MiB of text is about 1,700 passages, more than any
/// handbook, and likely a dump or a log rather than notes.
pub(crate) const MAX_FILE_BYTES: u64 = 1 << 20;

/// How deep the walk goes below the folder, counted along a file's own path.
const MAX_DEPTH: usize = 16;

/// At most this many files are looked at; the rest are not listed (and a warning says so).
pub(crate) const MAX_FILES: usize = 10_000;

/// The name of a folder whose files are private.
pub(crate) const PRIVATE_FOLDER: &str = "private";

/// A file the walk found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// Relative to the folder, `/`-separated.
    pub(crate) path: String,
    pub(crate) size: u64,
    /// Modification time, nanoseconds since 1970 (0 when unknown).
    pub(crate) mtime_ns: i64,
    /// How to read it, or why it is skipped without being read.
    pub(crate) format: Result<Format, Skip>,
    /// Inside a `private` folder.
    pub(crate) private: bool,
}

/// Why a file is not indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Skip {
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
    /// A symbolic link to this target, outside the folder: never read.
    Outside(String),
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
            Skip::Outside(target) => write!(
                f,
                "a link to {target}, outside the folder: not read (copy the file into the \
                 folder if it belongs there)"
            ),
        }
    }
}

/// A file's text, read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Text {
    pub(crate) text: String,
    /// [`hash`] of its bytes.
    pub(crate) hash: u64,
}

/// Every file under `dir`, each under its own path inside it, sorted by path, at most
/// [`MAX_FILES`] (and whether there were more). Fails only when `dir` itself cannot be read,
/// or with [`std::io::ErrorKind::Interrupted`] once `stop` is cancelled (the walk checks it
/// at every entry, so an abandoned walk ends at once); a subfolder that cannot be read is
/// logged and left out.
///
/// A symbolic link counts as its target: a file or folder inside `dir` is listed under its
/// own path (once, however many links lead to it, and private by where it is, not by where a
/// link to it is); a target outside `dir` is listed as skipped ([`Skip::Outside`]) and never
/// read. A folder is walked once (by device and inode), so a link loop ends.
pub(crate) fn walk(dir: &Path, stop: &CancellationToken) -> std::io::Result<(Vec<Found>, bool)> {
    let root = std::fs::canonicalize(dir)?;
    let meta = std::fs::metadata(&root)?;
    std::fs::read_dir(&root)?;
    let mut walker = Walker {
        root,
        stop,
        found: Vec::new(),
        files: HashSet::new(),
        folders: HashSet::from([(meta.dev(), meta.ino())]),
        more: false,
    };
    let root = walker.root.clone();
    walker.visit(&root, "")?;
    let Walker {
        mut found, more, ..
    } = walker;
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((found, more))
}

/// One walk's state.
struct Walker<'a> {
    /// The folder, canonical: every path listed is relative to it.
    root: PathBuf,
    stop: &'a CancellationToken,
    found: Vec<Found>,
    /// The paths listed, so that a file a link leads to is listed once.
    files: HashSet<String>,
    /// The folders walked (device, inode), so that a link back to one ends there.
    folders: HashSet<(u64, u64)>,
    more: bool,
}

/// Where an entry of a walked folder leads.
enum Entry {
    /// A file or folder inside the folder: its own path (relative, `/`-separated), whether
    /// that path is UTF-8 (else it is shown with replacement characters), its metadata.
    Inside(String, bool, std::fs::Metadata),
    /// A link out of the folder: the target, and the link's own metadata.
    Outside(PathBuf, std::fs::Metadata),
    /// A broken link, or gone since the folder was listed.
    Gone,
}

impl Walker<'_> {
    /// Lists the files of `dir` (canonical, `prefix` its path relative to the root, ending in
    /// `/` unless empty), and walks its folders.
    fn visit(&mut self, dir: &Path, prefix: &str) -> std::io::Result<()> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                tracing::warn!(folder = %dir.display(), error = %e, "knowledge: a folder cannot be read; its files are left out");
                return Ok(());
            }
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            if self.stop.is_cancelled() {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            if self.more {
                return Ok(());
            }
            let name = entry.file_name();
            let shown = name.to_string_lossy();
            if hidden(&shown) {
                continue;
            }
            let at = format!("{prefix}{shown}");
            let (rel, utf8, meta) = match self.entry(&entry.path(), &at, name.to_str().is_some()) {
                Entry::Inside(rel, utf8, meta) => (rel, utf8, meta),
                Entry::Outside(target, meta) => {
                    let skip = Skip::Outside(target.display().to_string());
                    let private = private(&at);
                    self.push(at, &meta, Err(skip), private);
                    continue;
                }
                Entry::Gone => continue,
            };
            // A file or folder under a hidden one: only a link leads there.
            if rel.split('/').any(hidden) {
                continue;
            }
            if meta.is_dir() {
                let depth = rel.split('/').count();
                if depth < MAX_DEPTH && self.folders.insert((meta.dev(), meta.ino())) {
                    let path = self.root.join(&rel);
                    self.visit(&path, &format!("{rel}/"))?;
                }
                continue;
            }
            if !meta.is_file() || !self.files.insert(rel.clone()) {
                continue;
            }
            let size = meta.len();
            let format = if !utf8 {
                Err(Skip::Name)
            } else if size > MAX_FILE_BYTES {
                Err(Skip::TooLarge(size))
            } else {
                format_of(Path::new(&rel))
            };
            let private = private(&rel);
            self.push(rel, &meta, format, private);
        }
        Ok(())
    }

    /// Where the entry at `path` (`at` relative to the root, `utf8` whether its name is)
    /// leads: itself, or a link's target.
    fn entry(&self, path: &Path, at: &str, utf8: bool) -> Entry {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            return Entry::Gone;
        };
        if !meta.file_type().is_symlink() {
            return Entry::Inside(at.to_string(), utf8, meta);
        }
        let Ok(target) = std::fs::canonicalize(path) else {
            return Entry::Gone;
        };
        let Ok(inside) = target.strip_prefix(&self.root) else {
            return Entry::Outside(target, meta);
        };
        let rel = inside
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        match std::fs::metadata(&target) {
            Ok(meta) => Entry::Inside(rel, inside.to_str().is_some(), meta),
            Err(_) => Entry::Gone,
        }
    }

    /// Lists a file, unless [`MAX_FILES`] are listed already.
    fn push(
        &mut self,
        path: String,
        meta: &std::fs::Metadata,
        format: Result<Format, Skip>,
        private: bool,
    ) {
        if self.found.len() == MAX_FILES {
            self.more = true;
            return;
        }
        self.found.push(Found {
            path,
            size: meta.len(),
            mtime_ns: meta.modified().ok().map_or(0, |t| {
                t.duration_since(UNIX_EPOCH)
                    .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
            }),
            format,
            private,
        });
    }
}

/// A name the walk does not look at: hidden (`.git`, editor swap files) or a backup (`~`).
fn hidden(name: &str) -> bool {
    name.starts_with('.') || name.ends_with('~')
}

/// Whether the file at `rel` is inside a folder named [`PRIVATE_FOLDER`] (at any depth).
fn private(rel: &str) -> bool {
    let mut folders = rel.split('/');
    folders.next_back();
    folders.any(|f| f.eq_ignore_ascii_case(PRIVATE_FOLDER))
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
/// Only the file at that path inside the folder is read: a link put in its place (or in
/// place of a folder on its way) since the walk is not followed, and checked on the file
/// opened, so no swap between the check and the read gets past it.
pub(crate) fn read(dir: &Path, rel: &str) -> Result<Text, Skip> {
    let root = std::fs::canonicalize(dir).map_err(|e| Skip::Unreadable(e.to_string()))?;
    let path = rel
        .split('/')
        .fold(root.to_path_buf(), |p, part| p.join(part));
    // A path from the walk has only normal parts; anything else is not read.
    if !path
        .strip_prefix(&root)
        .is_ok_and(|p| p.components().all(|c| matches!(c, Component::Normal(_))))
    {
        return Err(Skip::Unreadable("not a file inside the folder".into()));
    }
    let file = std::fs::File::open(&path).map_err(|e| Skip::Unreadable(e.to_string()))?;
    let opened = opened_path(&file)
        .or_else(|| std::fs::canonicalize(&path).ok())
        .ok_or_else(|| Skip::Unreadable("its path cannot be resolved".into()))?;
    if opened != path {
        return Err(match opened.strip_prefix(&root) {
            Ok(other) => Skip::Unreadable(format!(
                "it became a link to {} since the folder was walked",
                other.display()
            )),
            Err(_) => Skip::Outside(opened.display().to_string()),
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Skip::Unreadable(e.to_string()))?;
    check(bytes)
}

/// The path of the file `file` is open on, as the kernel has it (`/proc/self/fd`); `None`
/// without `/proc`.
fn opened_path(file: &std::fs::File) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

/// `bytes` as a file's text, or why they are not text.
pub(crate) fn check(bytes: Vec<u8>) -> Result<Text, Skip> {
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
mod tests;
