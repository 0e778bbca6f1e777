//! The layer check: reads `src/` and fails on an import from a higher layer or a circle
//! between sibling modules. The layer order is the table under "Layers" in
//! `docs/architecture.md`, read from there, so the doc and the check cannot disagree; the rules
//! are stated there too.
//!
//! It follows the crate's `mod` declarations from `src/lib.rs` (`src/main.rs` is the binary at
//! the top: nothing is above it) and reads, with std only, every `use` tree and every path in
//! the code (`crate::x::f()`, `super::Y`, `child::g()`, `imported::h()`). Comments, strings and character
//! literals are skipped; so is every item under `#[cfg(test)]` (a `mod tests { … }`, a
//! `mod tests;` and the file it names) and any module named `tests`. A name one module
//! imports and another reaches through it (`pub use store::Context` in `memory/mod.rs`, then
//! `super::Context`) counts as an import of where the name comes from.
//!
//! An import from module `S` of something in module `T` is checked twice:
//! - layers: when `S` and `T` are in different top modules (`crate::memory::…`,
//!   `crate::radio::…`; `lib.rs` is the crate root), `T`'s top module must be in a lower layer;
//! - circles: when neither is the other's ancestor, the import is an arrow between the two
//!   sibling modules under their nearest common ancestor (`crate::memory::store::ops` →
//!   `crate::memory::facts` is `store → facts` in `crate::memory`). Sibling arrows must not
//!   form a loop of any length. An import of an ancestor (a child using its parent's
//!   `mod.rs`) is never an arrow: a parent that holds what its children share is fine.

mod cases;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::path::Path;

/// Circles in `src/` today, each as its modules. Every other circle fails the check, and so
/// does an entry here that is no longer a circle (delete it then).
const KNOWN_CIRCLES: &[&[&str]] = &[
    // Removed by the responder split.
    &["crate::responder::answer", "crate::responder::turn"],
];

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

/// Every `.rs` file under `dir`, by its path relative to `src/` (`memory/store/ops.rs`).
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

/// The layer of each top module from the table under `## Layers`: rows `| n | `a` `b` | … |`.
/// `lib.rs` stands for the crate root; `main.rs` (the binary) is skipped.
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
    /// The folder (common parent), e.g. `crate::memory`.
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

/// A module path: `["crate"]`, `["crate", "memory", "store"]`.
type ModPath = Vec<String>;

fn show(m: &[String]) -> String {
    m.join("::")
}

/// Checks the crate in `files` (paths relative to `src/`, from `lib.rs`) against `layers`.
pub fn check(files: &BTreeMap<String, String>, layers: &HashMap<String, u32>) -> Report {
    let mut report = Report::default();
    let krate = Crate::read(files, &mut report.problems);
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

/// One path as written in a module: a `use` tree's leaf or a `crate::`/`super::` path in code.
#[derive(Debug)]
struct Ref {
    module: ModPath,
    file: String,
    line: usize,
    segs: Vec<String>,
}

/// The crate's modules, every path they name, and the names each module's `use`s bring in.
#[derive(Debug, Default)]
struct Crate {
    modules: BTreeSet<ModPath>,
    refs: Vec<Ref>,
    /// (module, name) → the path as written in that module's `use`.
    aliases: HashMap<(ModPath, String), Vec<String>>,
    /// Names a module defines itself: types (`struct`, `enum`, `trait`, `type`) and values
    /// (`fn`, `const`, `static`). A module may define `fn facts` and import `mod facts`:
    /// `ops::facts(…)` is the function, `ops::facts::key` would be the module.
    types: BTreeSet<(ModPath, String)>,
    values: BTreeSet<(ModPath, String)>,
}

/// How deep names may be followed through `use`s (a re-export of a re-export …).
const ALIAS_DEPTH: usize = 8;

/// The words that define a named item, and whether the item is a value.
const ITEMS: [(&str, bool); 8] = [
    ("fn", true),
    ("const", true),
    ("static", true),
    ("struct", false),
    ("enum", false),
    ("union", false),
    ("trait", false),
    ("type", false),
];

impl Crate {
    /// Follows the `mod` declarations from `lib.rs`; a declared module without a file is a
    /// problem.
    fn read(files: &BTreeMap<String, String>, problems: &mut Vec<String>) -> Crate {
        let mut krate = Crate::default();
        let mut todo: Vec<ModPath> = vec![vec!["crate".to_string()]];
        while let Some(module) = todo.pop() {
            let found = if module.len() == 1 {
                Some("lib.rs".to_string())
            } else {
                let dir = module[1..].join("/");
                [format!("{dir}.rs"), format!("{dir}/mod.rs")]
                    .into_iter()
                    .find(|f| files.contains_key(f))
            };
            let Some(file) = found else {
                problems.push(format!("{}: declared, but no file", show(&module)));
                continue;
            };
            krate.modules.insert(module.clone());
            let tokens = lex(&files[&file]);
            let children = krate.scan(&tokens, &module, &file);
            todo.extend(children);
        }
        krate
    }

    /// Reads one file's tokens: its `use`s and paths, inline modules, and the child modules
    /// it declares (returned, to be read from their files).
    fn scan(&mut self, t: &[(Tok, usize)], file_module: &ModPath, file: &str) -> Vec<ModPath> {
        let mut children = Vec::new();
        // Inline modules open here: the module and the brace depth inside it.
        let mut stack: Vec<(ModPath, usize)> = vec![(file_module.clone(), 0)];
        let mut depth = 0usize;
        let mut i = 0;
        while i < t.len() {
            let module = stack.last().map(|(m, _)| m.clone()).unwrap_or_default();
            if let Some(after) = cfg_test(t, i) {
                i = skip_item(t, skip_attributes(t, after));
                continue;
            }
            match &t[i].0 {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    if stack.len() > 1 && stack.last().is_some_and(|(_, d)| *d == depth) {
                        stack.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                Tok::Ident(k) if k == "mod" => {
                    if let Some(Tok::Ident(name)) = tok(t, i + 1) {
                        let child = [module.clone(), vec![name.clone()]].concat();
                        match tok(t, i + 2) {
                            Some(Tok::Punct(';')) if name != "tests" => children.push(child),
                            Some(Tok::Punct('{')) if name == "tests" => {
                                i = skip_item(t, i);
                                continue;
                            }
                            Some(Tok::Punct('{')) => {
                                self.modules.insert(child.clone());
                                depth += 1;
                                stack.push((child, depth));
                                i += 3;
                                continue;
                            }
                            _ => {}
                        }
                    }
                }
                Tok::Ident(k)
                    if stack.last().is_some_and(|(_, d)| *d == depth)
                        && ITEMS.iter().any(|(word, _)| word == k) =>
                {
                    let name = match (tok(t, i + 1), tok(t, i + 2)) {
                        (Some(Tok::Ident(f)), Some(Tok::Ident(n))) if f == "fn" || f == "mut" => n,
                        (Some(Tok::Ident(n)), _) => n,
                        _ => k,
                    };
                    let value = ITEMS.iter().any(|(word, v)| word == k && *v);
                    let set = if value {
                        &mut self.values
                    } else {
                        &mut self.types
                    };
                    set.insert((module.clone(), name.clone()));
                }
                Tok::Ident(k) if k == "use" => {
                    let mut leaves = Vec::new();
                    let mut end = use_tree(t, i + 1, Vec::new(), &mut leaves);
                    // Past the `;` that ends the declaration.
                    while tok(t, end).is_some_and(|k| *k != Tok::Punct(';')) {
                        end += 1;
                    }
                    end += 1;
                    for (segs, name) in leaves {
                        if let Some(name) = name.filter(|n| n != "_") {
                            self.aliases.insert((module.clone(), name), segs.clone());
                        }
                        self.refs.push(Ref {
                            module: module.clone(),
                            file: file.to_string(),
                            line: t[i].1,
                            segs,
                        });
                    }
                    i = end;
                    continue;
                }
                Tok::Ident(k) if is_path_start(t, i) => {
                    let mut segs = vec![k.clone()];
                    let mut j = i + 1;
                    while let (Some(Tok::Sep), Some(Tok::Ident(s))) = (tok(t, j), tok(t, j + 1)) {
                        segs.push(s.clone());
                        j += 2;
                    }
                    self.refs.push(Ref {
                        module,
                        file: file.to_string(),
                        line: t[i].1,
                        segs,
                    });
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        children
    }

    /// `segs` as written in `module`, made absolute (`crate::…`); `None` for paths into other
    /// crates (`std::…`, `tokio::…`) and local names that are not modules or imports.
    fn absolute(&self, module: &ModPath, segs: &[String], depth: usize) -> Option<Vec<String>> {
        let first = segs.first()?;
        match first.as_str() {
            "crate" => Some(segs.to_vec()),
            "super" => {
                let mut base = module.clone();
                let ups = segs.iter().take_while(|s| *s == "super").count();
                for _ in 0..ups {
                    if base.len() <= 1 {
                        return None;
                    }
                    base.pop();
                }
                base.extend(segs[ups..].iter().cloned());
                Some(base)
            }
            "self" => Some([module.clone(), segs[1..].to_vec()].concat()),
            name => {
                let child = [module.clone(), vec![name.to_string()]].concat();
                if self.modules.contains(&child) {
                    return Some([module.clone(), segs.to_vec()].concat());
                }
                let alias = self.aliases.get(&(module.clone(), name.to_string()))?;
                if depth >= ALIAS_DEPTH || alias.first().map(String::as_str) == Some(name) {
                    return None;
                }
                let base = self.absolute(module, alias, depth + 1)?;
                Some([base, segs[1..].to_vec()].concat())
            }
        }
    }

    /// The module an absolute path lands in: its longest prefix that is a module, followed
    /// through that module's `use` when the next name is an import there, not its own item.
    fn target(&self, path: &[String], depth: usize) -> Option<ModPath> {
        let k = (1..=path.len())
            .rev()
            .find(|&k| self.modules.contains(&path[..k]))?;
        let module = path[..k].to_vec();
        if let Some(name) = path.get(k)
            && depth < ALIAS_DEPTH
            && !self.types.contains(&(module.clone(), name.clone()))
            && !(k + 1 == path.len() && self.values.contains(&(module.clone(), name.clone())))
            && let Some(alias) = self.aliases.get(&(module.clone(), name.clone()))
            && let Some(base) = self.absolute(&module, alias, depth + 1)
        {
            let followed = [base, path[k + 1..].to_vec()].concat();
            return self.target(&followed, depth + 1).or(Some(module));
        }
        Some(module)
    }
}

/// Whether token `i` starts a path in code (`name::`): not the middle of one, not `$crate::`
/// in a macro, not the `crate` of `pub(in crate::x)`. Which of them lead into the crate
/// (`crate::`, `super::`, a child module, a name a `use` brought in) is found later.
fn is_path_start(t: &[(Tok, usize)], i: usize) -> bool {
    let prev = i.checked_sub(1).and_then(|p| tok(t, p));
    tok(t, i + 1) == Some(&Tok::Sep)
        && !matches!(prev, Some(Tok::Sep | Tok::Punct('$')))
        && !matches!(prev, Some(Tok::Ident(p)) if p == "in")
}

/// One `use` tree from `i`, its leaves added to `out` as (path, name it brings in; `None`
/// for a glob). Returns the index after the tree.
fn use_tree(
    t: &[(Tok, usize)],
    mut i: usize,
    mut segs: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    if tok(t, i) == Some(&Tok::Sep) {
        i += 1;
    }
    loop {
        match tok(t, i) {
            Some(Tok::Punct('{')) => {
                i += 1;
                loop {
                    match tok(t, i) {
                        Some(Tok::Punct('}')) => break i += 1,
                        Some(Tok::Punct(',')) => i += 1,
                        None => break,
                        Some(_) => {
                            let before = i;
                            i = use_tree(t, i, segs.clone(), out);
                            if i == before {
                                i += 1;
                            }
                        }
                    }
                }
                break i;
            }
            Some(Tok::Punct('*')) => {
                out.push((segs, None));
                break i + 1;
            }
            Some(Tok::Ident(s)) => {
                i += 1;
                // `self` in a group (`{self, …}`) is the path so far.
                if s != "self" || segs.is_empty() {
                    segs.push(s.clone());
                }
                if tok(t, i) == Some(&Tok::Sep) {
                    i += 1;
                    continue;
                }
                let mut name = segs.last().cloned();
                if let (Some(Tok::Ident(a)), Some(Tok::Ident(alias))) = (tok(t, i), tok(t, i + 1))
                    && a == "as"
                {
                    name = Some(alias.clone());
                    i += 2;
                }
                out.push((segs, name));
                break i;
            }
            _ => break i,
        }
    }
}

/// If `#[cfg(test)]` starts at `i`, the index after it.
fn cfg_test(t: &[(Tok, usize)], i: usize) -> Option<usize> {
    let want = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    let found = t.get(i..i + want.len())?;
    found
        .iter()
        .zip(&want)
        .all(|((a, _), b)| a == b)
        .then_some(i + want.len())
}

/// Past any further attributes (`#[…]`) from `i`.
fn skip_attributes(t: &[(Tok, usize)], mut i: usize) -> usize {
    while tok(t, i) == Some(&Tok::Punct('#')) && tok(t, i + 1) == Some(&Tok::Punct('[')) {
        let mut depth = 0usize;
        i += 1;
        while let Some(k) = tok(t, i) {
            i += 1;
            match k {
                Tok::Punct('[') => depth += 1,
                Tok::Punct(']') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    i
}

/// Past the item starting at `i`: its `;` at the top level, or the brace closing its body.
fn skip_item(t: &[(Tok, usize)], mut i: usize) -> usize {
    let mut depth = 0usize;
    while let Some(k) = tok(t, i) {
        i += 1;
        match k {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']') => depth = depth.saturating_sub(1),
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            Tok::Punct(';') if depth == 0 => break,
            _ => {}
        }
    }
    i
}

fn tok(t: &[(Tok, usize)], i: usize) -> Option<&Tok> {
    t.get(i).map(|(k, _)| k)
}

/// A token, as much as the check needs: names, `::` and single punctuation characters.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

/// The tokens of a Rust file with their line numbers; comments, strings (raw and byte ones
/// too), character literals, lifetimes and numbers are dropped.
fn lex(text: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = text.chars().collect();
    let at = |i: usize| c.get(i).copied();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    // Counts the newlines in `c[from..to]`.
    let lines = |from: usize, to: usize| {
        c[from..to.min(c.len())]
            .iter()
            .filter(|&&x| x == '\n')
            .count()
    };
    while let Some(ch) = at(i) {
        let start = i;
        match ch {
            '/' if at(i + 1) == Some('/') => {
                while at(i).is_some_and(|x| x != '\n') {
                    i += 1;
                }
            }
            '/' if at(i + 1) == Some('*') => {
                let mut depth = 0;
                while i < c.len() {
                    if at(i) == Some('/') && at(i + 1) == Some('*') {
                        depth += 1;
                        i += 2;
                    } else if at(i) == Some('*') && at(i + 1) == Some('/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            '"' => i = skip_string(&c, i + 1),
            '\'' => i = skip_quote(&c, i),
            x if x.is_alphabetic() || x == '_' => {
                while at(i).is_some_and(|x| x.is_alphanumeric() || x == '_') {
                    i += 1;
                }
                let word: String = c[start..i].iter().collect();
                match (word.as_str(), at(i)) {
                    ("r" | "br" | "cr", Some('"' | '#')) => {
                        let hashes = c[i..].iter().take_while(|&&x| x == '#').count();
                        if at(i + hashes) == Some('"') {
                            i = skip_raw(&c, i + hashes + 1, hashes);
                        } else {
                            // A raw identifier, `r#type`: the name follows.
                            i += hashes;
                        }
                    }
                    ("b" | "c", Some('"')) => i = skip_string(&c, i + 1),
                    ("b", Some('\'')) => i = skip_quote(&c, i),
                    _ => out.push((Tok::Ident(word), line)),
                }
            }
            x if x.is_ascii_digit() => {
                while at(i).is_some_and(|x| x.is_alphanumeric() || x == '_') {
                    i += 1;
                }
            }
            ':' if at(i + 1) == Some(':') => {
                out.push((Tok::Sep, line));
                i += 2;
            }
            x if x.is_whitespace() => i += 1,
            x => {
                out.push((Tok::Punct(x), line));
                i += 1;
            }
        }
        line += lines(start, i);
    }
    out
}

/// Past a string whose opening quote is just before `i`.
fn skip_string(c: &[char], mut i: usize) -> usize {
    while let Some(&x) = c.get(i) {
        i += 1;
        match x {
            '\\' => i += 1,
            '"' => break,
            _ => {}
        }
    }
    i
}

/// Past a raw string whose opening `"` is just before `i`, closed by `"` and `hashes` `#`s.
fn skip_raw(c: &[char], mut i: usize, hashes: usize) -> usize {
    while i < c.len() {
        if c[i] == '"'
            && c[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&x| x == '#')
                .count()
                == hashes
        {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

/// Past a character literal (`'x'`, `'\n'`, `'\u{1F600}'`) at `i`, or past the quote of a
/// lifetime or label (`'a`), whose name is then read as a word.
fn skip_quote(c: &[char], i: usize) -> usize {
    match (c.get(i + 1), c.get(i + 2)) {
        (Some('\\'), _) => {
            let mut j = i + 3;
            while c.get(j).is_some_and(|&x| x != '\'') {
                j += 1;
            }
            j + 1
        }
        (Some(_), Some('\'')) => i + 3,
        _ => i + 1,
    }
}
