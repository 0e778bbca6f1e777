//! Reading the crate for the check: its modules (from the `mod` declarations), every path each
//! one names (`use` trees and paths in code), and the module each path lands in, followed
//! through `use`s and re-exports.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::lex::{Tok, lex, tok};
use super::{ModPath, show};

/// One path as written in a module: a `use` tree's leaf or a `crate::`/`super::` path in code.
#[derive(Debug)]
pub struct Ref {
    pub module: ModPath,
    pub file: String,
    pub line: usize,
    pub segs: Vec<String>,
}

/// The crate's modules, every path they name, and the names each module's `use`s bring in.
#[derive(Debug, Default)]
pub struct Crate {
    pub modules: BTreeSet<ModPath>,
    pub refs: Vec<Ref>,
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
    pub fn read(files: &BTreeMap<String, String>, problems: &mut Vec<String>) -> Crate {
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
        let mut scopes = Scopes::new(file_module.clone());
        let mut i = 0;
        while i < t.len() {
            let module = scopes.module();
            if let Some(after) = cfg_test(t, i) {
                i = skip_item(t, skip_attributes(t, after));
                continue;
            }
            match &t[i].0 {
                Tok::Punct('{') => scopes.open(),
                Tok::Punct('}') => scopes.close(),
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
                                self.modules.insert(scopes.enter(name));
                                i += 3;
                                continue;
                            }
                            _ => {}
                        }
                    }
                }
                Tok::Ident(k) if scopes.at_top() && ITEMS.iter().any(|(word, _)| word == k) => {
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
                Tok::Ident(_) if is_path_start(t, i) => {
                    let (segs, j) = path_at(t, i);
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
    pub fn absolute(&self, module: &ModPath, segs: &[String], depth: usize) -> Option<Vec<String>> {
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
    pub fn target(&self, path: &[String], depth: usize) -> Option<ModPath> {
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

/// The modules open at a token of a file: the file's own, then each inline `mod x { … }`
/// around the token, each with the brace depth inside it.
pub struct Scopes {
    stack: Vec<(ModPath, usize)>,
    depth: usize,
}

impl Scopes {
    pub fn new(file_module: ModPath) -> Scopes {
        Scopes {
            stack: vec![(file_module, 0)],
            depth: 0,
        }
    }

    /// The innermost open module.
    pub fn module(&self) -> ModPath {
        self.stack
            .last()
            .map(|(m, _)| m.clone())
            .unwrap_or_default()
    }

    /// Whether the token is in the module's own body, not inside an item's braces.
    pub fn at_top(&self) -> bool {
        self.stack.last().is_some_and(|(_, d)| *d == self.depth)
    }

    /// A `{` that opens no module.
    pub fn open(&mut self) {
        self.depth += 1;
    }

    /// A `}`, which closes the inline module it ends.
    pub fn close(&mut self) {
        if self.stack.len() > 1 && self.at_top() {
            self.stack.pop();
        }
        self.depth = self.depth.saturating_sub(1);
    }

    /// The `{` of inline module `name`: returns the module it opens.
    pub fn enter(&mut self, name: &str) -> ModPath {
        let child = [self.module(), vec![name.to_string()]].concat();
        self.depth += 1;
        self.stack.push((child.clone(), self.depth));
        child
    }
}

/// The path in code that starts at token `i` (`a::b::c`), and the index after it.
pub fn path_at(t: &[(Tok, usize)], mut i: usize) -> (Vec<String>, usize) {
    let mut segs = Vec::new();
    if let Some(Tok::Ident(first)) = tok(t, i) {
        segs.push(first.clone());
        i += 1;
        while let (Some(Tok::Sep), Some(Tok::Ident(s))) = (tok(t, i), tok(t, i + 1)) {
            segs.push(s.clone());
            i += 2;
        }
    }
    (segs, i)
}

/// Whether token `i` starts a path in code (`name::`): not the middle of one, not `$crate::`
/// in a macro, not the `crate` of `pub(in crate::x)`. Which of them lead into the crate
/// (`crate::`, `super::`, a child module, a name a `use` brought in) is found later.
pub fn is_path_start(t: &[(Tok, usize)], i: usize) -> bool {
    let prev = i.checked_sub(1).and_then(|p| tok(t, p));
    tok(t, i + 1) == Some(&Tok::Sep)
        && !matches!(prev, Some(Tok::Sep | Tok::Punct('$')))
        && !matches!(prev, Some(Tok::Ident(p)) if p == "in")
}

/// One `use` tree from `i`, its leaves added to `out` as (path, name it brings in; `None`
/// for a glob). Returns the index after the tree.
pub fn use_tree(
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
