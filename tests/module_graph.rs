//! No import circle among the core crate's modules: the graph drawn
//! from the code's own `crate::` paths must be acyclic, so that the layers
//! can be read bottom up (the edges, the browser module's included, are
//! crates of their own, crates/, which Cargo already keeps acyclic). A new
//! circle fails here, naming the modules and the files that close it. The
//! same holds inside the browser crate (crates/browser/src/), whose modules
//! are siblings that name one another by `super::`.
//!
//! How the graph is drawn, from the source (a scan, so that every `cfg` is
//! seen at once):
//! - a node is a top-level module of `src/`: `limits` for `src/limits.rs`,
//!   `json` for everything in `src/json/`; `lib.rs` (the root, which only
//!   declares and re-exports) and the binary (`main.rs`, `main/`) are not
//!   nodes;
//! - an edge is a path `crate::name…` in a module's code, in a `use` or
//!   inline, including each name of a group `crate::{a::X, b::{Y, Z}}`;
//!   comments (`//` to the end of a line) are not code;
//! - a macro's `$crate::name…` paths are edges of each module that invokes
//!   it (`spelled_enum!` in `error` makes `error -> spelling`), not of the
//!   module that defines it;
//! - not counted: the unit tests at the end of a file (`#[cfg(test)] mod
//!   tests`), which may reach anywhere.
//!
//! A path through the root's re-exports (`crate::Target`, `crate::*`) would
//! hide its module, so none is allowed: each names the module it uses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
const BROWSER_SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/browser/src");

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's code: without its unit tests at the end and its comments.
fn code_of(text: &str) -> String {
    let mut end = text.len();
    for start in text.match_indices("#[cfg(test)]").map(|(i, _)| i) {
        let after = text[start + "#[cfg(test)]".len()..].trim_start();
        let after = after.strip_prefix("pub(crate) ").unwrap_or(after);
        if after.starts_with("mod tests") {
            end = start;
            break;
        }
    }
    text[..end].lines().map(|line| line.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The module names a `crate::` path starts with, and the root paths
/// (`crate::Upper`, `crate::*`) found, from a file's code.
fn crate_paths(code: &str) -> (BTreeSet<String>, Vec<String>) {
    paths_after(code, "crate::")
}

/// The module names a path beginning `prefix` (`crate::`, or `super::` in a
/// crate whose modules are the root's children) starts with, and the root
/// paths (`prefix` then an upper-case name or `*`).
fn paths_after(code: &str, prefix: &str) -> (BTreeSet<String>, Vec<String>) {
    let (mut modules, mut root) = (BTreeSet::new(), Vec::new());
    for (at, _) in code.match_indices(prefix) {
        // `$crate::` is a macro body's: counted where the macro is expanded.
        // `backend_targets::`-like longer names are not `crate::`.
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c == '$' || c == '_' || c.is_alphanumeric()) {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The top-level names of a group, at depth 1.
            let (mut depth, mut expect_name, mut name) = (1, true, String::new());
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 1 => break,
                    '}' => depth -= 1,
                    ',' if depth == 1 => expect_name = true,
                    c if depth == 1 && expect_name && (c.is_alphanumeric() || c == '_' || c == '*') => name.push(c),
                    _ if !name.is_empty() => {
                        modules.insert(std::mem::take(&mut name));
                        expect_name = false;
                    }
                    _ => {}
                }
            }
            if !name.is_empty() {
                modules.insert(name);
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '*').collect();
            modules.insert(name);
        }
    }
    modules.retain(|name| {
        let is_module = name.chars().next().is_some_and(|c| c.is_ascii_lowercase());
        if !is_module {
            root.push(format!("{prefix}{name}"));
        }
        is_module
    });
    (modules, root)
}

/// Each `macro_rules!` in a file's code: its name and its body.
fn macros(code: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("macro_rules!") {
        let rest = &code[at + "macro_rules!".len()..];
        let name: String = rest.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let Some(open) = rest.find('{') else { continue };
        let mut depth = 0;
        let mut end = rest.len();
        for (index, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + index;
                        break;
                    }
                }
                _ => {}
            }
        }
        found.push((name, rest[open..end].to_string()));
    }
    found
}

/// The modules a macro body's `$crate::name…` paths start with.
fn dollar_crate_modules(body: &str) -> BTreeSet<String> {
    body.match_indices("$crate::")
        .map(|(at, _)| body[at + "$crate::".len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
        .filter(|name: &String| name.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
        .collect()
}

/// The library's module graph: each module, the modules it uses and from
/// which files.
fn graph() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(Path::new(SRC), &mut files);
    let mut sources = Vec::new();
    for path in files {
        let name = path.strip_prefix(SRC).unwrap().to_string_lossy().replace('\\', "/");
        if name == "lib.rs" || name == "main.rs" || name.starts_with("main/") {
            continue;
        }
        let module = name.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        sources.push((name, module, code_of(&std::fs::read_to_string(&path).unwrap())));
    }
    // Every macro's `$crate::` modules, for the modules that invoke it.
    let expansions: Vec<(String, BTreeSet<String>)> = sources
        .iter()
        .flat_map(|(_, _, code)| macros(code))
        .map(|(name, body)| (format!("{name}!"), dollar_crate_modules(&body)))
        .collect();
    let mut graph: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut root_paths = Vec::new();
    for (name, module, code) in &sources {
        let (mut uses, root) = crate_paths(code);
        for (invocation, modules) in &expansions {
            if code.contains(invocation.as_str()) {
                uses.extend(modules.iter().cloned());
            }
        }
        root_paths.extend(root.into_iter().map(|p| format!("src/{name}: {p}")));
        let edges = graph.entry(module.clone()).or_default();
        for used in uses.into_iter().filter(|used| used != module) {
            edges.entry(used).or_default().insert(format!("src/{name}"));
        }
    }
    assert!(root_paths.is_empty(), "paths through the root's re-exports hide their module:\n{}", root_paths.join("\n"));
    graph
}

/// The browser crate's module graph (`super::` paths between the root's
/// child modules; `lib.rs` only declares them).
fn browser_graph() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(Path::new(BROWSER_SRC), &mut files);
    let mut graph: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for path in files {
        let name = path.strip_prefix(BROWSER_SRC).unwrap().to_string_lossy().replace('\\', "/");
        if name == "lib.rs" {
            continue;
        }
        let module = name.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        let (uses, _) = paths_after(&code_of(&std::fs::read_to_string(&path).unwrap()), "super::");
        let edges = graph.entry(module.clone()).or_default();
        for used in uses.into_iter().filter(|used| *used != module) {
            edges.entry(used).or_default().insert(format!("crates/browser/src/{name}"));
        }
    }
    graph
}

/// Panics naming the circle in `graph`, if there is one.
fn assert_no_circle(graph: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) {
    for (module, edges) in graph {
        eprintln!("{module} -> {}", edges.keys().cloned().collect::<Vec<_>>().join(", "));
    }
    if let Some(circle) = find_circle(graph) {
        let steps: Vec<String> = circle
            .windows(2)
            .map(|pair| {
                let files = graph[&pair[0]][&pair[1]].iter().cloned().collect::<Vec<_>>().join(", ");
                format!("{} -> {} ({files})", pair[0], pair[1])
            })
            .collect();
        panic!("an import circle:\n{}", steps.join("\n"));
    }
}

/// A circle in `graph`, as the modules around it, if there is one.
fn find_circle(graph: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) -> Option<Vec<String>> {
    // Depth-first, with the path on the stack: an edge back into the path closes a circle.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|n| n == node) {
            let mut circle = path[start..].to_vec();
            circle.push(node.to_string());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flat_map(|edges| edges.keys()) {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_modules_import_one_another_without_a_circle() {
    assert_no_circle(&graph());
}

#[test]
fn the_browser_crate_s_modules_import_one_another_without_a_circle() {
    let graph = browser_graph();
    // The scan sees the edges it must: the probe calls the verification,
    // both take the host's helpers, and the verification never the probe.
    let uses = |from: &str, to: &str| graph.get(from).is_some_and(|edges| edges.contains_key(to));
    assert!(uses("probe", "verify") && uses("probe", "host") && uses("verify", "host"), "{graph:?}");
    assert!(uses("planning", "api") && uses("probe", "api"), "{graph:?}");
    assert!(!uses("verify", "probe"), "verify -> probe would close a circle");
    let mut circular = graph.clone();
    circular.entry("verify".into()).or_default().entry("probe".into()).or_default();
    assert!(find_circle(&circular).is_some(), "a circle is found");
    assert_no_circle(&graph);
}

#[test]
fn the_scan_sees_the_layers_it_must() {
    // The scan reads what it should: known edges of the core are there
    // (groups, nested groups and inline paths alike), and the two circles
    // the modules once had (limits and request, error and json) are each
    // one way now.
    let graph = graph();
    let uses = |from: &str, to: &str| graph.get(from).is_some_and(|edges| edges.contains_key(to));
    assert!(uses("request", "limits") && !uses("limits", "request"), "request -> limits, one way");
    assert!(uses("json", "error") && !uses("error", "json"), "json -> error, one way");
    // Through a macro: vocab's enums (spelled_enum!) name error::Error; error
    // uses the macro from spelling, not from vocab.
    assert!(uses("vocab", "error") && uses("error", "spelling") && !uses("error", "vocab"), "vocab -> error, one way");
    assert!(graph.get("spelling").is_some_and(BTreeMap::is_empty), "spelling is a leaf");
    let (name, body) =
        macros("macro_rules! m { ($x:ident) => { $crate::a::f(); { $crate::b::G } }; }\nfn after() {}").pop().unwrap();
    assert_eq!(
        (name.as_str(), dollar_crate_modules(&body).into_iter().collect::<Vec<_>>()),
        ("m", vec!["a".into(), "b".into()])
    );
    assert!(uses("entry_points", "request") && uses("planner", "capsule") && uses("probe", "webgpu"));
    assert!(!graph.contains_key("wasm"), "the browser module is a crate of its own (crates/browser)");
    assert!(graph.len() >= 18, "{} modules", graph.len());
    // The reader itself, on the forms it must read.
    let (modules, root) = crate_paths(
        "use crate::{a::X, b::{c::Y, Z}, d};\nlet x = crate::e::f();\n$crate::g::H;\nbackend_crate::i;\nuse crate::*;",
    );
    assert_eq!(modules.into_iter().collect::<Vec<_>>(), ["a", "b", "d", "e"]);
    assert_eq!(root, ["crate::*"]);
    let mut circular = graph.clone();
    circular.entry("limits".into()).or_default().entry("request".into()).or_default();
    assert!(find_circle(&circular).is_some(), "a circle is found");
}
