//! The layer check: reads `src/` and fails on an import from a higher layer or a circle
//! between sibling modules. The layer order is the table under "Layers" in
//! `docs/architecture.md`, read from there, so the doc and the check cannot disagree; the rules
//! are stated there too.
//!
//! It follows the crate's `mod` declarations from `src/lib.rs` (`src/main.rs` is the binary at
//! the top: nothing is above it) and reads, with std only, every `use` tree and every path in
//! the code (`crate::x::f()`, `super::Y`, `child::g()`, `imported::h()`). Comments, strings
//! and character literals are skipped; so is every item under `#[cfg(test)]` (a
//! `mod tests { … }`, a `mod tests;` and the file it names) and any module named `tests`. A
//! name one module imports and another reaches through it (`pub use types::Context` in
//! `store/mod.rs`, then `super::Context`) counts as an import of where the name comes from.
//!
//! An import from module `S` of something in module `T` is checked twice:
//! - layers: when `S` and `T` are in different top modules (`crate::store::…`,
//!   `crate::radio::…`; `lib.rs` is the crate root), `T`'s top module must be in a lower layer;
//! - circles: when neither is the other's ancestor, the import is an arrow between the two
//!   sibling modules under their nearest common ancestor (`crate::store::conversations` →
//!   `crate::store::summaries` is `conversations → summaries` in `crate::store`). Sibling
//!   arrows must not form a loop of any length. An import of an ancestor (a child using its
//!   parent's `mod.rs`) is never an arrow: a parent that holds what its children share is
//!   fine.
//!
//! A folder whose children the table lists as well (`responder::intake`, a room of
//! `responder`) is checked the same way inside: a room imports only rooms of lower layers, and
//! no room imports from the folder's own `mod.rs`, which is above them all.
//!
//! Here: the rules and the report; `read`: the modules and the paths they name; `lex`: the
//! tokens; `cases`: the check on small made-up crates. `hub`: a second check, that no file
//! inside a folder (`store/`) imports what its `mod.rs` re-exports; `doc`: that
//! `docs/architecture.md` names only paths and names that exist.

mod cases;
mod doc;
mod hub;
mod lex;
mod read;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::path::Path;

use read::Crate;

/// Circles in `src/` today, each as its modules. Every other circle fails the check, and so
/// does an entry here that is no longer a circle (delete it then).
const KNOWN_CIRCLES: &[&[&str]] = &[];

#[test]
fn src_keeps_its_layers_and_has_no_circles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/architecture.md"))
        .expect("docs/architecture.md is readable");
    let layers = layers_from_doc(&doc);
    assert!(
        layers.len() > 5,
        "no layer table under \"## Layers\" in docs/architecture.md: {layers:?}"
    );
    let mut files = BTreeMap::new();
    read_tree(&root.join("src"), "", &mut files);
    let report = check(&files, &layers);
    let known: Vec<BTreeSet<String>> = KNOWN_CIRCLES
        .iter()
        .map(|c| c.iter().map(|m| m.to_string()).collect())
        .collect();
    let mut problems = report.problems.clone();
    for c in &report.circles {
        if !known.contains(&c.members()) {
            problems.push(c.to_string());
        }
    }
    for k in &known {
        if !report.circles.iter().any(|c| c.members() == *k) {
            problems.push(format!(
                "KNOWN_CIRCLES lists {k:?}, which is no longer a circle: delete the entry"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "the layer check failed (docs/architecture.md, \"Layers\"):\n{}",
        problems.join("\n")
    );
    // The check saw the crate: a reader that found nothing would pass anything.
    assert!(report.modules > 50, "only {} modules read", report.modules);
    assert!(report.imports > 300, "only {} imports read", report.imports);
}

/// Every `.rs` file under `dir`, by its path relative to `src/` (`store/conversations.rs`).
fn read_tree(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let entry = entry.expect("a readable directory entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if path.is_dir() {
            read_tree(&path, &format!("{prefix}{name}/"), out);
        } else if name.ends_with(".rs") {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            out.insert(format!("{prefix}{name}"), text);
        }
    }
}

/// The layer of each top module, and of each room (`responder::intake`), from the tables under
/// `## Layers`: rows `| n | `a` `b` | … |`. `lib.rs` stands for the crate root; `main.rs` (the
/// binary) is skipped.
pub fn layers_from_doc(doc: &str) -> HashMap<String, u32> {
    let mut layers = HashMap::new();
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("Layers"))
        .unwrap_or_default();
    for row in section.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.split('|').collect();
        let (Some(n), Some(names)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Ok(n) = n.trim().parse::<u32>() else {
            continue;
        };
        for name in names.split('`').skip(1).step_by(2) {
            if name != "main.rs" {
                layers.insert(name.to_string(), n);
            }
        }
    }
    layers
}

/// What the check found.
#[derive(Debug, Default)]
pub struct Report {
    /// Upward or sideways imports, unknown modules, missing files: one line each.
    pub problems: Vec<String>,
    pub circles: Vec<Circle>,
    /// How many modules and resolved imports were read.
    pub modules: usize,
    pub imports: usize,
}

/// Sibling modules that import each other, directly or in a loop.
#[derive(Debug, Clone)]
pub struct Circle {
    /// The folder (common parent), e.g. `crate::store`.
    pub parent: String,
    /// The loop's arrows, each with one import that makes it (`file:line`).
    pub arrows: Vec<(String, String, String)>,
}

impl Circle {
    /// The modules in the loop, as full paths.
    pub fn members(&self) -> BTreeSet<String> {
        self.arrows
            .iter()
            .map(|(from, _, _)| format!("{}::{from}", self.parent))
            .collect()
    }
}

impl fmt::Display for Circle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "circle in {}:", self.parent)?;
        for (from, to, at) in &self.arrows {
            write!(f, " {from} → {to} ({at});")?;
        }
        Ok(())
    }
}

/// A module path: `["crate"]`, `["crate", "store", "knowledge"]`.
type ModPath = Vec<String>;

fn show(m: &[String]) -> String {
    m.join("::")
}

/// Checks the crate in `files` (paths relative to `src/`, from `lib.rs`) against `layers`.
pub fn check(files: &BTreeMap<String, String>, layers: &HashMap<String, u32>) -> Report {
    let mut report = Report::default();
    let krate = Crate::read(files, &mut report.problems);
    let rooms = Rooms::from(layers);
    report.modules = krate.modules.len();
    // Arrows between siblings, by their parent: (from, to) → where.
    let mut arrows: BTreeMap<ModPath, BTreeMap<(String, String), String>> = BTreeMap::new();
    for r in &krate.refs {
        let Some(path) = krate.absolute(&r.module, &r.segs, 0) else {
            continue;
        };
        let Some(target) = krate.target(&path, 0) else {
            continue;
        };
        report.imports += 1;
        let at = format!("{}:{}", r.file, r.line);
        let (from_top, to_top) = (top(&r.module), top(&target));
        if from_top != to_top {
            match (layers.get(from_top), layers.get(to_top)) {
                (Some(a), Some(b)) if b < a => {}
                (Some(a), Some(b)) => report.problems.push(format!(
                    "{at}: {} ({from_top}, layer {a}) imports {} ({to_top}, layer {b}): only \
                     lower layers may be imported",
                    show(&r.module),
                    show(&path)
                )),
                (None, _) | (_, None) => {
                    let missing = if layers.contains_key(from_top) {
                        to_top
                    } else {
                        from_top
                    };
                    report.problems.push(format!(
                        "{at}: module {missing} has no layer in docs/architecture.md"
                    ));
                }
            }
        }
        if let Some(problem) = rooms.check(&r.module, &target) {
            report.problems.push(format!("{at}: {problem}"));
        }
        if target.starts_with(&r.module) || r.module.starts_with(&target) {
            continue;
        }
        let common = r
            .module
            .iter()
            .zip(&target)
            .take_while(|(a, b)| a == b)
            .count();
        let parent = r.module[..common].to_vec();
        arrows
            .entry(parent)
            .or_default()
            .entry((r.module[common].clone(), target[common].clone()))
            .or_insert(at);
    }
    for (parent, edges) in &arrows {
        report.circles.extend(circles(parent, edges));
    }
    report.problems.dedup();
    report
}

/// The folders whose children have layers of their own (rows like `responder::intake` in the
/// table): their rooms. Inside such a folder a room imports only rooms of lower layers, and
/// no room imports the folder's own `mod.rs`, which sits above them all (it starts them); a
/// room's own files are free among themselves, like any folder's (circles aside).
struct Rooms {
    /// Folder (`["crate", "responder"]`) → its rooms' layers.
    folders: BTreeMap<ModPath, HashMap<String, u32>>,
}

impl Rooms {
    fn from(layers: &HashMap<String, u32>) -> Rooms {
        let mut folders: BTreeMap<ModPath, HashMap<String, u32>> = BTreeMap::new();
        for (name, n) in layers {
            let mut path: ModPath = std::iter::once("crate")
                .chain(name.split("::"))
                .map(str::to_string)
                .collect();
            if path.len() < 3 {
                continue;
            }
            let room = path.pop().unwrap_or_default();
            folders.entry(path).or_default().insert(room, *n);
        }
        Rooms { folders }
    }

    /// What is wrong with `from` importing from `to`, by the rooms' rules; `None` when
    /// nothing is (or no folder with rooms holds `from`).
    fn check(&self, from: &[String], to: &[String]) -> Option<String> {
        let (folder, rooms) = self
            .folders
            .iter()
            .find(|(f, _)| from.len() > f.len() && from.starts_with(f))?;
        let depth = folder.len();
        if to == folder.as_slice() {
            return Some(format!(
                "{} imports from {}'s mod.rs: a room imports only lower rooms, never the \
                 folder's own module",
                show(from),
                show(folder)
            ));
        }
        if to.len() <= depth || !to.starts_with(folder) || to[depth] == from[depth] {
            return None;
        }
        let (a, b) = (&from[depth], &to[depth]);
        let room = |r: &String| format!("{}::{r}", show(folder));
        match (rooms.get(a), rooms.get(b)) {
            (Some(la), Some(lb)) if lb < la => None,
            (Some(la), Some(lb)) => Some(format!(
                "{} (room {a}, layer {la}) imports {} (room {b}, layer {lb}): a room imports \
                 only rooms of lower layers",
                show(from),
                show(to)
            )),
            (None, _) => Some(format!(
                "room {} has no layer in docs/architecture.md",
                room(a)
            )),
            (_, None) => Some(format!(
                "room {} has no layer in docs/architecture.md",
                room(b)
            )),
        }
    }
}

/// The top module a module belongs to: `lib.rs` for the crate root.
fn top(m: &[String]) -> &str {
    m.get(1).map_or("lib.rs", String::as_str)
}

/// The loops among one folder's arrows: each set of modules that all reach one another,
/// shown as one loop through all of them.
fn circles(parent: &[String], edges: &BTreeMap<(String, String), String>) -> Vec<Circle> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().push(to);
    }
    let reach = |from: &str| -> BTreeSet<&str> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from];
        while let Some(m) = todo.pop() {
            for &n in next.get(m).into_iter().flatten() {
                if seen.insert(n) {
                    todo.push(n);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&str, BTreeSet<&str>> = next.keys().map(|&m| (m, reach(m))).collect();
    let mut done: BTreeSet<&str> = BTreeSet::new();
    let mut out = Vec::new();
    for (&m, r) in &reaches {
        if done.contains(m) || !r.contains(m) {
            continue;
        }
        let group: BTreeSet<&str> = r
            .iter()
            .copied()
            .filter(|n| reaches.get(n).is_some_and(|rn| rn.contains(m)))
            .collect();
        done.extend(group.iter().copied());
        // A walk through every member and back to the first, inside the group.
        let mut walk = vec![m];
        let mut left: BTreeSet<&str> = group.iter().copied().filter(|&n| n != m).collect();
        while let Some(&here) = walk.last() {
            let goal = left.first().copied().unwrap_or(m);
            let Some(path) = shortest(&next, &group, here, goal) else {
                break;
            };
            for step in path {
                left.remove(step);
                walk.push(step);
            }
            if walk.last() == Some(&m) {
                break;
            }
        }
        let arrows = walk
            .windows(2)
            .map(|w| {
                let at = edges
                    .get(&(w[0].to_string(), w[1].to_string()))
                    .cloned()
                    .unwrap_or_default();
                (w[0].to_string(), w[1].to_string(), at)
            })
            .collect();
        out.push(Circle {
            parent: show(parent),
            arrows,
        });
    }
    out
}

/// The steps from `from` to `to` (not including `from`) within `group`, fewest first.
fn shortest<'a>(
    next: &BTreeMap<&'a str, Vec<&'a str>>,
    group: &BTreeSet<&'a str>,
    from: &'a str,
    to: &'a str,
) -> Option<Vec<&'a str>> {
    let mut came: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([from]);
    while let Some(m) = queue.pop_front() {
        for &n in next.get(m).into_iter().flatten() {
            if !group.contains(n) || came.contains_key(n) {
                continue;
            }
            came.insert(n, m);
            if n == to {
                let mut path = vec![n];
                let mut at = n;
                while let Some(&prev) = came.get(at) {
                    if prev == from {
                        break;
                    }
                    path.push(prev);
                    at = prev;
                }
                path.reverse();
                return Some(path);
            }
            queue.push_back(n);
        }
    }
    None
}
