//! The doc check: `docs/architecture.md` stays short and names only what exists. Every
//! backticked path in it is looked for: one from the top of the repository (`src/…`,
//! `tests/…`, `docs/…`) as it is written; one inside a codemap row (`handle.rs`, `core/`)
//! under the folders that row's first column names, at any depth (`send.rs` in the
//! `src/radio/outbox/` row is `core/send.rs`), or beside them. And the names the "How to add a
//! command" steps tell a newcomer to use (`COMMANDS`, `Takes`, `answer!`, `store_failed`,
//! `recognises_commands`) are each defined somewhere under `src/`, so the steps cannot go
//! stale without this failing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most lines the doc may have: a newcomer reads it whole.
const MAX_LINES: usize = 250;

/// Where a path without a folder of its own can start.
const ROOTS: &[&str] = &[
    "src/",
    "tests/",
    "benches/",
    "docs/",
    "scripts/",
    "examples/",
    "fuzz/",
    "systemd/",
    "debian/",
    ".ci/",
];

#[test]
fn the_architecture_doc_names_what_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/architecture.md"))
        .expect("docs/architecture.md is readable");
    let lines = doc.lines().count();
    assert!(
        lines <= MAX_LINES,
        "docs/architecture.md is {lines} lines, over {MAX_LINES}"
    );
    let missing = missing_paths(root, &doc);
    assert!(
        missing.is_empty(),
        "docs/architecture.md names paths that do not exist:\n{}",
        missing.join("\n")
    );
    let mut sources = BTreeMap::new();
    super::read_tree(&root.join("src"), "", &mut sources);
    let undefined = undefined_names(&section(&doc, "## How to add a command"), &sources);
    assert!(
        undefined.is_empty(),
        "\"How to add a command\" names what src/ does not define: {undefined:?}"
    );
}

#[test]
fn the_doc_check_finds_a_stale_path_and_a_stale_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = "Intro `src/lib.rs` and `src/gone.rs`.\n\n\
               | Where | What |\n|---|---|\n\
               | `src/store/` | `handle.rs` (`Store`), `vanished.rs`, `tests/` |\n";
    assert_eq!(
        missing_paths(root, doc),
        ["`src/gone.rs`", "`vanished.rs` (row `src/store/`)"]
    );
    let mut sources = BTreeMap::new();
    sources.insert(
        "x.rs".to_string(),
        "pub(crate) const COMMANDS: [u8; 0] = [];\nmacro_rules! answer { () => {} }\n".to_string(),
    );
    assert_eq!(
        undefined_names(
            "its `COMMANDS`, `answer!(f)`, `Gone`, `a::b::Missing`",
            &sources
        ),
        ["Gone", "Missing"]
    );
}

/// The backticked paths of `doc` that do not exist under `root`, each as the doc has it.
fn missing_paths(root: &Path, doc: &str) -> Vec<String> {
    let mut missing = Vec::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').collect();
        // A codemap row: `| where | what |`, its folders in the first cell.
        let row_dirs: Vec<PathBuf> = match cells.as_slice() {
            ["", first, _, ..] if first.contains('`') => folders(root, first),
            _ => Vec::new(),
        };
        for token in ticked(line).filter(|t| is_path(t)) {
            let found = if ROOTS.iter().any(|r| token.starts_with(r)) {
                root.join(token).exists()
            } else {
                row_dirs.iter().any(|d| under(d, token))
            };
            if !found && (ROOTS.iter().any(|r| token.starts_with(r)) || !row_dirs.is_empty()) {
                let label = match cells.get(1) {
                    Some(first) if !ROOTS.iter().any(|r| token.starts_with(r)) => {
                        let first = ticked(first).next().unwrap_or_default();
                        format!("`{token}` (row `{first}`)")
                    }
                    _ => format!("`{token}`"),
                };
                missing.push(label);
            }
        }
    }
    missing
}

/// The folders a codemap row's first cell names: a folder as it is, a file's folder; a
/// name without a root is beside the first (`src/config.rs`, `config/`). Each with its
/// parent, where a row's names may also sit (`turn/`'s row names `answer/`).
fn folders(root: &Path, cell: &str) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut base: Option<PathBuf> = None;
    for token in ticked(cell) {
        let path = match &base {
            Some(b) if !ROOTS.iter().any(|r| token.starts_with(r)) => b.join(token),
            _ => root.join(token),
        };
        let dir = if path.is_dir() {
            path
        } else {
            path.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        if base.is_none() {
            base = Some(dir.clone());
        }
        if let Some(parent) = dir.parent() {
            dirs.push(parent.to_path_buf());
        }
        dirs.push(dir);
    }
    dirs
}

/// Whether `name` (`handle.rs`, `core/`, `words/en.rs`) is `dir`'s or one of its folders'.
fn under(dir: &Path, name: &str) -> bool {
    let name = name.trim_end_matches('/');
    if dir.join(name).exists() {
        return true;
    }
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .any(|p| under(&p, name))
    })
}

/// The backticked spans of `text`.
fn ticked(text: &str) -> impl Iterator<Item = &str> {
    text.split('`').skip(1).step_by(2)
}

/// Whether a backticked span is a path: no spaces, and a folder (`core/`) or a file of the
/// repository's kinds; a Rust path (`store::Store`) or a URL is not.
fn is_path(token: &str) -> bool {
    let file = [".rs", ".md", ".sh", ".toml", ".py", ".tsv", ".service"]
        .iter()
        .any(|ext| token.ends_with(ext));
    !token.contains([' ', ':', '*', '{', '…', '(']) && (file || token.ends_with('/'))
}

/// Rust's words a span may hold (`pub(crate)`): no name of ours.
const KEYWORDS: &[&str] = &[
    "pub", "fn", "async", "impl", "mod", "use", "crate", "self", "super",
];

/// The names in `text`'s backticked spans that no file of `sources` defines: a span that is
/// one identifier, a path (`identity::Ask`: its last name) or a macro (`answer!(f)`).
fn undefined_names(text: &str, sources: &BTreeMap<String, String>) -> Vec<String> {
    let mut names: Vec<String> = ticked(text)
        .filter_map(|t| {
            let t = t
                .split('(')
                .next()
                .unwrap_or_default()
                .trim_end_matches('!');
            let last = t.rsplit("::").next().unwrap_or_default();
            let ident = !last.is_empty()
                && last.chars().all(|c| c.is_alphanumeric() || c == '_')
                && !last.starts_with(|c: char| c.is_numeric());
            (ident && !t.contains(' ') && !KEYWORDS.contains(&last)).then(|| last.to_string())
        })
        .collect();
    names.dedup();
    names
        .into_iter()
        .filter(|n| !sources.values().any(|text| defines(text, n)))
        .collect()
}

/// Whether `text` defines `name`: a fn, type, trait, const, static, module, enum variant,
/// field or macro of that name.
fn defines(text: &str, name: &str) -> bool {
    let heads = [
        "fn ",
        "struct ",
        "enum ",
        "trait ",
        "type ",
        "const ",
        "static ",
        "mod ",
        "macro_rules! ",
    ];
    text.lines().any(|line| {
        let line = line.trim_start();
        heads.iter().any(|h| {
            line.split(h).skip(1).any(|rest| {
                rest.strip_prefix(name).is_some_and(|after| {
                    !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            })
        }) || {
            // A field or a variant: the line starts with it (after `pub(…)`).
            let line = match line.strip_prefix("pub") {
                Some(rest) => rest.split_once(' ').map_or(rest, |(_, r)| r),
                None => line,
            };
            line.strip_prefix(name)
                .is_some_and(|after| after.starts_with([':', ',', ' ', '(', '{']))
        }
    })
}

/// The text of `doc` from the heading `head` to the next heading of its level.
fn section(doc: &str, head: &str) -> String {
    doc.split("\n## ")
        .find(|s| s.starts_with(head.trim_start_matches("## ")))
        .unwrap_or_default()
        .to_string()
}
