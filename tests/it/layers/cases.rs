//! The layer check on small made-up crates: it finds what it must (a circle of two, a loop of
//! three, an upward or sideways import, one through a re-export, a path in code, a room that
//! imports a higher room or its folder's `mod.rs`) and leaves alone what is allowed (a child
//! using its parent outside a folder of rooms, test code, text in strings and comments).

use std::collections::{BTreeMap, HashMap};

use super::{Report, check, layers_from_doc};

/// Layers for the made-up crates: `low` and `side` at the bottom, then `high`, `lib.rs`, `cli`.
fn layers() -> HashMap<String, u32> {
    [
        ("low", 1),
        ("side", 1),
        ("high", 2),
        ("lib.rs", 3),
        ("cli", 4),
    ]
    .into_iter()
    .map(|(m, n)| (m.to_string(), n))
    .collect()
}

/// Checks a crate of `(path under src/, text)` files; `lib.rs` declares `low`, `side`, `high`
/// and `cli` unless given.
fn run(files: &[(&str, &str)]) -> Report {
    let mut map: BTreeMap<String, String> = [
        (
            "lib.rs",
            "pub mod low;\npub mod side;\npub mod high;\npub mod cli;\n",
        ),
        ("low.rs", ""),
        ("side.rs", ""),
        ("high.rs", ""),
        ("cli.rs", ""),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect();
    for (p, t) in files {
        map.insert(p.to_string(), t.to_string());
    }
    check(&map, &layers())
}

/// The circles found, each as its sorted member list.
fn circles(r: &Report) -> Vec<Vec<String>> {
    r.circles
        .iter()
        .map(|c| c.members().into_iter().collect())
        .collect()
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn two_siblings_that_import_each_other_are_a_circle() {
    let r = run(&[
        ("low.rs", "mod a;\nmod b;\n"),
        ("low/a.rs", "use super::b::B;\npub struct A;\n"),
        ("low/b.rs", "use crate::low::a::A;\npub struct B;\n"),
    ]);
    assert_eq!(
        circles(&r),
        [strings(&["crate::low::a", "crate::low::b"])],
        "{r:?}"
    );
    let text = r.circles[0].to_string();
    assert!(
        text.contains("low/a.rs:1") && text.contains("low/b.rs:1"),
        "{text}"
    );
    assert!(r.problems.is_empty(), "{:?}", r.problems);
}

#[test]
fn a_loop_of_three_is_one_circle() {
    // a → b by `use`, b → c by a path in code, c → a by a path through a grandchild.
    let r = run(&[
        ("low.rs", "mod a;\nmod b;\nmod c;\n"),
        ("low/a.rs", "use super::b;\nfn f() { b::g() }\n"),
        ("low/b.rs", "pub fn g() { crate::low::c::h() }\n"),
        ("low/c/mod.rs", "mod deep;\npub fn h() {}\n"),
        ("low/c/deep.rs", "use super::super::a as first;\n"),
    ]);
    assert_eq!(
        circles(&r),
        [strings(&[
            "crate::low::a",
            "crate::low::b",
            "crate::low::c"
        ])]
    );
}

#[test]
fn a_child_may_use_its_parent_and_a_chain_is_not_a_circle() {
    let r = run(&[
        (
            "low.rs",
            "mod a;\nmod b;\npub struct Shared;\npub fn f() { a::g(); b::h(); }\n",
        ),
        ("low/a.rs", "use super::{Shared, b::h};\npub fn g() {}\n"),
        ("low/b.rs", "use crate::low::Shared;\npub fn h() {}\n"),
    ]);
    assert!(r.circles.is_empty(), "{:?}", r.circles);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    assert_eq!(r.modules, 7);
}

#[test]
fn a_name_reached_through_the_parent_counts_where_it_comes_from() {
    // `a` takes `B` from the parent, which re-exports it from `b`; `b` uses `a`.
    let r = run(&[
        ("low.rs", "mod a;\nmod b;\npub use b::B;\n"),
        ("low/a.rs", "use super::B;\npub fn f() {}\n"),
        ("low/b.rs", "pub struct B;\nfn g() { super::a::f() }\n"),
    ]);
    assert_eq!(circles(&r), [strings(&["crate::low::a", "crate::low::b"])]);
}

#[test]
fn a_function_named_like_an_imported_module_is_the_function() {
    // `ops` imports the module `facts` and defines `fn facts`; `ops::facts()` in `store` is
    // the function, so the arrow `store → facts` is made by `ops`'s import.
    let r = run(&[
        ("low.rs", "mod facts;\nmod store;\n"),
        (
            "low/facts.rs",
            "pub fn key() {}\nfn f() { super::store::g() }\n",
        ),
        (
            "low/store.rs",
            "mod ops;\npub fn g() {}\nfn h() {\n    ops::facts();\n}\n",
        ),
        (
            "low/store/ops.rs",
            "use crate::low::facts;\npub fn facts() {\n    facts::key();\n}\n",
        ),
    ]);
    let text: Vec<String> = r.circles.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 1, "{text:?}");
    assert!(
        text[0].contains("store → facts (low/store/ops.rs:1)"),
        "{text:?}"
    );
}

#[test]
fn imports_from_a_higher_or_the_same_layer_are_refused() {
    let r = run(&[
        ("low.rs", "use crate::high::Thing;\n"),
        ("side.rs", "fn f() {\n    crate::low::g();\n}\n"),
        ("high.rs", "use crate::low::X;\nuse crate::cli::advice;\n"),
        ("cli.rs", "use crate::high::Thing;\nuse crate::run;\n"),
    ]);
    let want = [
        "high.rs:2: crate::high (high, layer 2) imports crate::cli::advice (cli, layer 4)",
        "low.rs:1: crate::low (low, layer 1) imports crate::high::Thing (high, layer 2)",
        "side.rs:2: crate::side (side, layer 1) imports crate::low::g (low, layer 1)",
    ];
    let mut got = r.problems.clone();
    got.sort();
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(want) {
        assert!(g.starts_with(w), "{g:?} is not {w:?}…");
    }
}

#[test]
fn the_crate_root_may_not_import_the_command_line() {
    let r = run(&[(
        "lib.rs",
        "pub mod low;\npub mod cli;\nuse crate::low::X;\n\npub fn run() {\n    cli::advice::database();\n    crate::cli::advice::database();\n}\n",
    )]);
    // A child module's bare name counts like a `crate::` path.
    assert_eq!(r.problems.len(), 2, "{:?}", r.problems);
    for (p, line) in r.problems.iter().zip([6, 7]) {
        let want = format!("lib.rs:{line}: crate (lib.rs, layer 3) imports crate::cli::advice");
        assert!(p.starts_with(&want), "{p:?} is not {want:?}…");
    }
}

#[test]
fn a_module_without_a_layer_or_a_file_is_reported() {
    let r = run(&[
        ("lib.rs", "pub mod low;\npub mod extra;\npub mod gone;\n"),
        ("extra.rs", "use crate::low::X;\n"),
    ]);
    let mut got = r.problems.clone();
    got.sort();
    assert_eq!(
        got,
        [
            "crate::gone: declared, but no file",
            "extra.rs:1: module extra has no layer in docs/architecture.md",
        ]
    );
}

#[test]
fn test_code_comments_and_strings_are_not_imports() {
    let low = r##"mod a;
#[cfg(test)]
mod tests;
fn brace() -> char { '{' }
/* crate::high::X in a comment, /* nested */ still one */
const S: &str = "crate::high::X }";
const R: &str = r#"use crate::high::X; "}"#;
fn label<'a>(x: &'a str) -> &'a str { x }
#[cfg(test)]
#[allow(unused)]
mod more_tests {
    use crate::high::Y;
    fn f() { let _ = ('}', "}"); }
}
#[cfg(test)]
use crate::high::Z;
pub fn after() {
    crate::high::after();
}
"##;
    let r = run(&[
        ("low.rs", low),
        ("low/a.rs", "mod tests {\n    use crate::high::X;\n}\n"),
        ("low/tests.rs", "use crate::high::X;\n"),
    ]);
    // Only the last function's path counts: the check found its line after all the rest.
    assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
    assert!(
        r.problems[0].starts_with("low.rs:18: crate::low (low, layer 1) imports crate::high"),
        "{:?}",
        r.problems
    );
}

#[test]
fn inline_modules_resolve_super_from_themselves() {
    // `super::b` inside `mod inner` of `low/a.rs` is `crate::low::a::b`, a child: no circle.
    let r = run(&[
        ("low.rs", "mod a;\nmod b;\n"),
        (
            "low/a.rs",
            "mod b {}\nmod inner {\n    use super::b;\n}\nuse super::b as real;\n",
        ),
        ("low/b.rs", "pub fn f() {}\n"),
    ]);
    assert!(r.circles.is_empty(), "{:?}", r.circles);
    assert_eq!(r.modules, 9);
}

#[test]
fn a_room_imports_only_lower_rooms_and_never_its_folders_mod_rs() {
    let mut layers = layers();
    for (room, n) in [("high::base", 1), ("high::mid", 2), ("high::top", 3)] {
        layers.insert(room.to_string(), n);
    }
    let files: BTreeMap<String, String> = [
        ("lib.rs", "pub mod low;\npub mod high;\n"),
        ("low.rs", "pub struct X;\n"),
        (
            "high.rs",
            "mod base;\nmod mid;\nmod top;\nmod extra;\npub struct Hub;\npub use base::B;\n",
        ),
        // Down, through the folder's re-export, and out of the folder: all allowed.
        (
            "high/base.rs",
            "use crate::low::X;\npub struct B;\nfn f() { super::top::t() }\n",
        ),
        ("high/mid.rs", "use super::B;\nuse super::Hub;\n"),
        // A room's own files use its mod.rs freely.
        (
            "high/top/mod.rs",
            "mod deep;\npub fn t() {}\npub struct T;\n",
        ),
        ("high/top/deep.rs", "use super::T;\nuse crate::high::mid;\n"),
        ("high/extra.rs", "use super::base::B;\n"),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect();
    let r = check(&files, &layers);
    let mut got = r.problems.clone();
    got.sort();
    let want = [
        "high/base.rs:3: crate::high::base (room base, layer 1) imports crate::high::top (room \
         top, layer 3)",
        "high/extra.rs:1: room crate::high::extra has no layer",
        "high/mid.rs:2: crate::high::mid imports from crate::high's mod.rs",
    ];
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(want) {
        assert!(g.starts_with(w), "{g:?} is not {w:?}…");
    }
}

#[test]
fn the_layer_table_is_read_from_the_doc() {
    let doc = "# Arch\n\n## Layers\n\nBottom up.\n\n| layer | modules | what |\n|---|---|---|\n\
               | 3 | `main.rs` | the binary |\n| 2 | `lib.rs` | run |\n| 1 | `node`, `secret` | leaves |\n\n\
               Rooms:\n\n| room layer | rooms |\n|---|---|\n| 1 | `high::room` |\n\n\
               ## Codemap\n\n| 9 | `nope` | not a layer |\n";
    let got = layers_from_doc(doc);
    let mut got: Vec<(String, u32)> = got.into_iter().collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("high::room".to_string(), 1),
            ("lib.rs".to_string(), 2),
            ("node".to_string(), 1),
            ("secret".to_string(), 1)
        ]
    );
}
