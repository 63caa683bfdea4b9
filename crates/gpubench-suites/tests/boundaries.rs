//! A suite is one folder that imports the engine and the harness's kit, never another suite:
//! what two suites share belongs in the kit. This walks every suite folder and fails on a path
//! into a sibling (`crate::other_suite`), comments included, since a doc link is a dependency
//! too. Nor does any module of any crate reach a module that reaches back to it, directly or
//! round a longer loop: two modules that need each other are one piece split in the wrong
//! place. That check takes each module's paths into its own crate in code (`crate::a::b`,
//! `super::a`; comments and its `tests` module left out, as tests may reach any sibling).

mod common;

use common::{rust_files, scan};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The modules `text` reaches as `crate::NAME`.
fn crate_paths(text: &str) -> Vec<String> {
    text.match_indices("crate::")
        .map(|(at, _)| {
            text[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn no_suite_reaches_into_another() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders = Vec::new();
    for entry in std::fs::read_dir(&src).expect("src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            folders.push(path);
        }
    }
    assert!(folders.len() >= 9, "the suite folders: {folders:?}");
    let mut crossings = Vec::new();
    for folder in &folders {
        let own = folder
            .file_name()
            .expect("name")
            .to_string_lossy()
            .to_string();
        let mut files = Vec::new();
        rust_files(folder, &mut files);
        crossings.extend(scan(&files, |text| {
            crate_paths(text)
                .into_iter()
                .filter(|target| *target != own)
                .map(|target| format!(" -> crate::{target}"))
                .collect()
        }));
    }
    assert!(
        crossings.is_empty(),
        "suites reaching into others: {crossings:#?}"
    );
}

#[test]
fn a_crossing_is_seen() {
    assert_eq!(
        crate_paths("use crate::stream::Stream; // crate::matmul"),
        ["stream", "matmul"]
    );
}

/// The module a source file defines, as a path within its crate (`datapath::stage`; the crate
/// root is ``), and the module its `super` names.
fn module_of(src: &Path, file: &Path) -> (String, String) {
    let rel = file
        .strip_prefix(src)
        .expect("below src")
        .with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    let module = parts.join("::");
    let parent = parts[..parts.len().saturating_sub(1)].join("::");
    (module, parent)
}

/// The paths `text` reaches as `crate::…` or `super::…`, made absolute within the crate, with
/// its tests module and anything after `//` on a line left out.
fn paths_in(text: &str, parent: &str) -> Vec<String> {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    let mut paths = Vec::new();
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or(line);
        for (prefix, base) in [("crate::", ""), ("super::", parent)] {
            for (at, _) in line.match_indices(prefix) {
                let tail: String = line[at + prefix.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                let tail = tail.trim_end_matches(':');
                paths.push(if base.is_empty() {
                    tail.to_string()
                } else {
                    format!("{base}::{tail}")
                });
            }
        }
    }
    paths
}

/// Each module's edges: the modules (other than itself and its ancestors) its paths lead into,
/// each path counted for the longest module it names.
fn edges(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<String, String> = files
        .iter()
        .map(|f| {
            let (module, parent) = module_of(src, f);
            let text = std::fs::read_to_string(f).expect("readable");
            (module, paths_in(&text, &parent).join("\n"))
        })
        .collect();
    let mut graph = BTreeMap::new();
    for (module, paths) in &modules {
        let mut out = BTreeSet::new();
        for path in paths.lines() {
            let parts: Vec<&str> = path.split("::").collect();
            let target = (1..=parts.len())
                .rev()
                .map(|k| parts[..k].join("::"))
                .find(|candidate| modules.contains_key(candidate));
            if let Some(target) = target
                .filter(|t| t != module && !module.starts_with(&format!("{t}::")) && !t.is_empty())
            {
                out.insert(target);
            }
        }
        graph.insert(module.clone(), out);
    }
    graph
}

/// The modules of `graph` that reach themselves again, each loop as one sorted list.
fn loops(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<&String> = graph[from].iter().collect();
        while let Some(next) = todo.pop() {
            if seen.insert(next.clone()) {
                todo.extend(graph.get(next).into_iter().flatten());
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut found: BTreeSet<Vec<String>> = BTreeSet::new();
    for (module, seen) in &reached {
        if seen.contains(*module) {
            let mut members: Vec<String> = seen
                .iter()
                .filter(|other| reached[other].contains(*module))
                .cloned()
                .collect();
            members.sort();
            found.insert(members);
        }
    }
    found.into_iter().collect()
}

#[test]
fn no_module_reaches_one_that_reaches_it_back() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut all = Vec::new();
    for entry in std::fs::read_dir(&crates).expect("crates") {
        let src = entry.expect("entry").path().join("src");
        if src.is_dir() {
            let name = src.parent().and_then(Path::file_name).expect("a crate");
            let name = name.to_string_lossy().to_string();
            all.extend(loops(&edges(&src)).into_iter().map(|l| (name.clone(), l)));
        }
    }
    assert!(all.is_empty(), "modules that reach each other: {all:#?}");
}

#[test]
fn a_loop_is_seen_and_a_chain_is_not() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in pairs {
            g.entry(from.to_string())
                .or_default()
                .insert(to.to_string());
            g.entry(to.to_string()).or_default();
        }
        g
    };
    let chain = graph(&[("a", "b"), ("b", "c")]);
    assert!(loops(&chain).is_empty());
    let round = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]);
    assert_eq!(loops(&round), [["a", "b", "c"]]);
    // `super::` from a file module is its parent; from mod.rs, the folder's parent.
    assert_eq!(
        paths_in("use super::stage::Stage; // crate::x", "datapath"),
        ["datapath::stage::Stage"]
    );
    assert_eq!(
        module_of(Path::new("src"), Path::new("src/datapath/mod.rs")),
        ("datapath".to_string(), String::new())
    );
}
