//! The hub check: a folder's `mod.rs` re-exports names for the code outside the folder, and
//! no file inside the folder imports a name through it; each imports it from the file that
//! defines it (`use super::handle::Store`, not `use super::Store`). Otherwise `mod.rs` is a
//! hub every file leans on, which hides who uses whom (the layer check counts such an import
//! as one of the defining file, so it cannot tell).
//!
//! Unlike the layer check, this one reads test code too (`tests/`, `mod tests { … }`): a test
//! file that reaches through the hub keeps the re-export alive as much as any other.
//!
//! Read with the layer check's tokens: the names `mod.rs` imports at its top level (any
//! `use`: a child can reach every one of them through `super::`), then every `use` tree and
//! every `crate::`/`super::`/`self::` path in the folder's other files, resolved from the
//! module it is written in. A path that lands on one of those names in the folder's own
//! module, or a glob of it (`use super::*` where `super` is the folder), is reported.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::lex::{Tok, lex, tok};
use super::read::{Scopes, is_path_start, path_at, use_tree};

/// Folders under `src/` whose files must not import through their `mod.rs`.
const HUBS: &[&str] = &["store"];

#[test]
fn files_in_a_folder_import_each_name_from_where_it_is_defined() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = BTreeMap::new();
    super::read_tree(&root.join("src"), "", &mut files);
    let mut problems = Vec::new();
    for hub in HUBS {
        let found = check(&files, hub);
        // The check saw the folder: a reader that found nothing would pass anything.
        assert!(found.names > 20, "{hub}/mod.rs: only {} names", found.names);
        assert!(found.files > 30, "{hub}/: only {} files read", found.files);
        problems.extend(found.problems);
    }
    assert!(
        problems.is_empty(),
        "files import through their folder's mod.rs (tests/it/layers/hub.rs):\n{}",
        problems.join("\n")
    );
}

#[test]
fn a_name_taken_through_the_folders_mod_rs_is_reported() {
    let files: BTreeMap<String, String> = [
        (
            "store/mod.rs",
            "//! use super::Thing in a comment is no import.\nmod a;\nmod b;\nmod c;\n\
             pub use a::Thing;\npub(crate) use b::{Other, f as g};\n",
        ),
        ("store/a.rs", "pub struct Thing;\n"),
        (
            "store/b.rs",
            "use super::Thing;\nuse super::a::Thing as T;\npub struct Other;\n\
             pub fn f() { let _ = crate::store::g(); let _ = \"super::Thing\"; }\n\
             #[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::Other;\n}\n",
        ),
        (
            "store/c/mod.rs",
            "mod d;\nuse super::*;\nuse super::b::{Other, f};\n",
        ),
        ("store/c/d.rs", "use crate::store::{a::Thing, Other};\n"),
        ("other.rs", "use crate::store::Thing;\n"),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect();
    let found = check(&files, "store");
    assert_eq!(found.names, 3);
    assert_eq!(found.files, 4);
    let at: Vec<&str> = found
        .problems
        .iter()
        .map(|p| p.split(' ').next().unwrap_or_default())
        .collect();
    assert_eq!(
        at,
        [
            "store/b.rs:1:",
            "store/b.rs:4:",
            "store/b.rs:8:",
            "store/c/d.rs:1:",
            "store/c/mod.rs:2:"
        ],
        "{:#?}",
        found.problems
    );
}

/// What the check found in one folder.
#[derive(Debug, Default)]
pub struct Found {
    /// One line per import through `mod.rs`: `file:line: …`.
    pub problems: Vec<String>,
    /// How many names `mod.rs` imports, and how many other files were read.
    pub names: usize,
    pub files: usize,
}

/// Checks the files under `hub/` (paths relative to `src/`) against the names `hub/mod.rs`
/// imports.
pub fn check(files: &BTreeMap<String, String>, hub: &str) -> Found {
    let mut found = Found::default();
    let Some(mod_rs) = files.get(&format!("{hub}/mod.rs")) else {
        found.problems.push(format!("{hub}/mod.rs: no such file"));
        return found;
    };
    let names = reexported(mod_rs, hub, &mut found.problems);
    found.names = names.len();
    let hub_path: Vec<String> = hub.split('/').map(str::to_string).collect();
    for (file, text) in files {
        let Some(module) = module_of(file, hub) else {
            continue;
        };
        found.files += 1;
        for (line, path, glob) in paths(text, module) {
            let through = path.len() > hub_path.len()
                && path[..hub_path.len()] == hub_path[..]
                && names.contains(&path[hub_path.len()]);
            if through {
                found.problems.push(format!(
                    "{file}:{line}: `crate::{}` takes `{}` through {hub}/mod.rs: import it from \
                     the file that defines it",
                    path.join("::"),
                    path[hub_path.len()]
                ));
            } else if glob && path == hub_path {
                found.problems.push(format!(
                    "{file}:{line}: `use crate::{}::*` takes everything {hub}/mod.rs imports: \
                     name each item from the file that defines it",
                    path.join("::")
                ));
            }
        }
    }
    found
}

/// The names `mod.rs` brings in with a `use` at its top level (the name, or its alias).
fn reexported(text: &str, hub: &str, problems: &mut Vec<String>) -> BTreeSet<String> {
    let t = lex(text);
    let mut names = BTreeSet::new();
    let (mut i, mut depth) = (0, 0usize);
    while let Some(k) = tok(&t, i) {
        match k {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => depth = depth.saturating_sub(1),
            Tok::Ident(w) if w == "use" && depth == 0 => {
                let line = t[i].1;
                let mut leaves = Vec::new();
                i = use_tree(&t, i + 1, Vec::new(), &mut leaves);
                for (_, name) in leaves {
                    match name {
                        Some(name) => {
                            names.insert(name);
                        }
                        None => problems.push(format!(
                            "{hub}/mod.rs:{line}: a glob `use`: the check cannot tell its names"
                        )),
                    }
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    names
}

/// The module a file under `hub/` other than `hub/mod.rs` is (`store/tests/mod.rs` is
/// `store::tests`), as its path below the crate root; `None` for any other file.
fn module_of(file: &str, hub: &str) -> Option<Vec<String>> {
    let inside = file.strip_prefix(hub)?.strip_prefix('/')?;
    if inside == "mod.rs" {
        return None;
    }
    let mut module: Vec<String> = file
        .strip_suffix(".rs")?
        .split('/')
        .map(str::to_string)
        .collect();
    if module.last().is_some_and(|m| m == "mod") {
        module.pop();
    }
    Some(module)
}

/// Every `use` leaf and every `crate::`/`super::`/`self::` path in a file of `module`, as
/// (line, the path from the crate root, whether it is a glob). Inline modules (`mod tests
/// { … }`) count for `super` and `self`; other paths (a local name, another crate) are left
/// out.
fn paths(text: &str, module: Vec<String>) -> Vec<(usize, Vec<String>, bool)> {
    let t = lex(text);
    let mut out = Vec::new();
    let mut scopes = Scopes::new(module);
    let mut i = 0;
    while let Some(k) = tok(&t, i) {
        let here = scopes.module();
        match k {
            Tok::Punct('{') => scopes.open(),
            Tok::Punct('}') => scopes.close(),
            Tok::Ident(w) if w == "mod" => {
                if let (Some(Tok::Ident(name)), Some(Tok::Punct('{'))) =
                    (tok(&t, i + 1), tok(&t, i + 2))
                {
                    scopes.enter(name);
                    i += 3;
                    continue;
                }
            }
            Tok::Ident(w) if w == "use" => {
                let line = t[i].1;
                let mut leaves = Vec::new();
                i = use_tree(&t, i + 1, Vec::new(), &mut leaves);
                for (segs, name) in leaves {
                    if let Some(path) = absolute(&here, &segs) {
                        out.push((line, path, name.is_none()));
                    }
                }
                continue;
            }
            Tok::Ident(w)
                if matches!(w.as_str(), "crate" | "super" | "self") && is_path_start(&t, i) =>
            {
                let line = t[i].1;
                let (segs, next) = path_at(&t, i);
                i = next;
                if let Some(path) = absolute(&here, &segs) {
                    out.push((line, path, false));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// `segs`, written in `module`, from the crate root; `None` unless it starts with `crate`,
/// `super` or `self`.
fn absolute(module: &[String], segs: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = match segs.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("self" | "super") => module.to_vec(),
        _ => return None,
    };
    let mut rest = &segs[1..];
    if segs[0] == "super" {
        base.pop()?;
        while rest.first().is_some_and(|s| s == "super") {
            base.pop()?;
            rest = &rest[1..];
        }
    }
    base.extend(rest.iter().cloned());
    Some(base)
}
