//! No import circle among the native probe's modules, at any depth: the
//! modules of `src/` (`checks`, `isolate`, …) and, inside each, its own
//! (`isolate::channel`, `isolate::child`, the `signals` module inline in
//! `isolate.rs`, …) must each form layers that can be read bottom up. The
//! counterpart of the workspace's tests/module_graph.rs (the core crate and
//! crates/browser), for a crate whose modules name one another by
//! `super::`, `super::super::` and `crate::` paths, nested. A new circle
//! fails here, naming the modules and the files that close it.
//!
//! How the graph is drawn, from the source (a scan, so that every `cfg` is
//! seen at once, the Windows and macOS paths too):
//! - a node is a module: a file (`isolate.rs` is `isolate`,
//!   `isolate/child.rs` is `isolate::child`) or an inline `mod name { … }`
//!   (`isolate::signals`);
//! - an edge is a path `crate::…`, `super::…` or `self::…` in a module's
//!   code, in a `use` or inline, each name of a group
//!   (`super::{a::X, b::{Y, Z}}`) on its own, resolved from the module it is
//!   in and followed as deep as it names modules: `super::outcome::crashed`
//!   in `isolate/channel.rs` is `isolate::channel -> isolate::outcome`;
//!   comments (`//` to the end of a line) are not code;
//! - an edge between a module and one of its ancestors (either way) is not
//!   counted: a parent declares its children and re-exports them, and keeps
//!   what they share (the root, `lib.rs`, is every module's ancestor);
//! - each edge counts at the level where its two ends part: under their
//!   deepest common ancestor, between its two children that hold them (so
//!   `isolate::threads -> checks` is `isolate -> checks` among the root's
//!   modules);
//! - not counted: the unit tests at the end of a file (`#[cfg(test)] mod
//!   tests`), which may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// A module's path from the crate's root (`[]` for the root).
type Module = Vec<String>;

/// For each parent module, the graph among its children: each child, the
/// children it uses and from which files.
type Levels = BTreeMap<Module, BTreeMap<String, BTreeMap<String, BTreeSet<String>>>>;

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

/// The module a file is, from its path under `src/`.
fn module_of_file(name: &str) -> Module {
    let name = name.trim_end_matches(".rs");
    let mut parts: Vec<String> = name.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|last| last == "lib" || last == "mod") {
        parts.pop();
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Where the block that opens at `open` (a `{`) closes: strings and
/// character literals are skipped, so that their braces do not count.
fn block_end(code: &str, open: usize) -> usize {
    let bytes = code.as_bytes();
    let (mut depth, mut at) = (0usize, open);
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if at + 2 < bytes.len() && bytes[at + 2] == b'\'' => at += 2,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return at;
                }
            }
            _ => {}
        }
        at += 1;
    }
    bytes.len()
}

/// A module's code split into its own (inline modules blanked out) and each
/// inline `mod name { … }` it holds, nested ones included, with its path.
fn split_inline(code: &str, module: &Module) -> Vec<(Module, String)> {
    let mut own = code.to_string();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("mod ").map(|i| i + from) {
        from = at + 4;
        if code[..at].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        let rest = &code[at + 4..];
        let name: String = rest.trim_start().chars().take_while(|&c| is_ident(c)).collect();
        let after = rest.trim_start()[name.len()..].trim_start();
        if name.is_empty() || !after.starts_with('{') {
            continue;
        }
        let open = code.len() - after.len();
        let close = block_end(code, open);
        let mut inner = module.clone();
        inner.push(name);
        found.extend(split_inline(&code[open + 1..close], &inner));
        own.replace_range(open + 1..close, &" ".repeat(close - open - 1));
        from = close;
    }
    found.insert(0, (module.clone(), own));
    found
}

/// The paths a piece of code names from `crate::`, `super::` or `self::`,
/// each as its segments (`super`, `super`, `checks`, `Context`), a group's
/// names each on its own.
fn relative_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            // `$crate::` (a macro's) and `super::super::`'s second half are
            // not starts; `backend_crate::` is another name.
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c == '$' || c == ':' || is_ident(c)) {
                continue;
            }
            let mut found = Vec::new();
            parse_path(&code[at..], Vec::new(), &mut found);
            paths.extend(found);
        }
    }
    paths
}

/// Reads one path (`a::b::{c, d::e}`) at the start of `text`, each complete
/// path after `prefix` pushed to `out`; answers how many bytes it took.
fn parse_path(text: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut segments = prefix;
    let mut at = 0;
    loop {
        let rest = &text[at..];
        let skipped = rest.len() - rest.trim_start().len();
        at += skipped;
        let rest = &text[at..];
        if let Some(group) = rest.strip_prefix('{') {
            // Each comma-separated item of the group, read after the segments so far.
            let mut used = 1;
            let mut inner = group;
            loop {
                let taken = parse_path(inner, segments.clone(), out);
                used += taken;
                inner = &inner[taken..];
                let trimmed = inner.trim_start();
                used += inner.len() - trimmed.len();
                inner = trimmed;
                match inner.chars().next() {
                    Some(',') => {
                        used += 1;
                        inner = &inner[1..];
                        if inner.trim_start().starts_with('}') {
                            let trimmed = inner.trim_start();
                            used += inner.len() - trimmed.len() + 1;
                            return at + used;
                        }
                    }
                    Some('}') => return at + used + 1,
                    _ => return at + used,
                }
            }
        }
        let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
        if name.is_empty() {
            if !segments.is_empty() {
                out.push(segments);
            }
            return at;
        }
        at += name.len();
        segments.push(name);
        if text[at..].starts_with("::") {
            at += 2;
        } else {
            out.push(segments);
            return at;
        }
    }
}

/// The module `path` (its segments, read in `from`) names: the deepest
/// module of `known` it reaches.
fn resolve(path: &[String], from: &Module, known: &BTreeSet<Module>) -> Module {
    let mut segments = path.iter().peekable();
    let mut base: Module = match segments.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segments.next();
            Vec::new()
        }
        _ => from.clone(),
    };
    while let Some(segment) = segments.peek() {
        match segment.as_str() {
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => break,
        }
        segments.next();
    }
    for segment in segments {
        let mut deeper = base.clone();
        deeper.push(segment.clone());
        if !known.contains(&deeper) {
            break;
        }
        base = deeper;
    }
    base
}

/// The crate's module graph at every level, as drawn from the source at `src`.
fn levels(src: &Path) -> Levels {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut modules: Vec<(Module, String, String)> = Vec::new();
    for path in files {
        let name = path.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
        let code = code_of(&std::fs::read_to_string(&path).unwrap());
        for (module, code) in split_inline(&code, &module_of_file(&name)) {
            modules.push((module, code, format!("src/{name}")));
        }
    }
    let known: BTreeSet<Module> = modules.iter().map(|(module, _, _)| module.clone()).collect();
    let mut levels = Levels::new();
    for (module, code, file) in &modules {
        for path in relative_paths(code) {
            let used = resolve(&path, module, &known);
            let common = module.iter().zip(&used).take_while(|(a, b)| a == b).count();
            // The same module, or one of its ancestors or descendants.
            if common == module.len() || common == used.len() {
                continue;
            }
            let level = levels.entry(module[..common].to_vec()).or_default();
            let edges = level.entry(module[common].clone()).or_default();
            edges.entry(used[common].clone()).or_default().insert(file.clone());
        }
    }
    levels
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

/// Each circle in `levels`, one per level that has one, described with the
/// files that close it.
fn circles(levels: &Levels) -> Vec<String> {
    let mut found = Vec::new();
    for (parent, graph) in levels {
        let Some(circle) = find_circle(graph) else { continue };
        let name = |child: &str| parent.iter().map(String::as_str).chain([child]).collect::<Vec<_>>().join("::");
        let steps: Vec<String> = circle
            .windows(2)
            .map(|pair| {
                let files = graph[&pair[0]][&pair[1]].iter().cloned().collect::<Vec<_>>().join(", ");
                format!("{} -> {} ({files})", name(&pair[0]), name(&pair[1]))
            })
            .collect();
        found.push(steps.join("\n"));
    }
    found
}

fn print(levels: &Levels) {
    for (parent, graph) in levels {
        let parent = if parent.is_empty() { "crate".to_string() } else { parent.join("::") };
        for (module, edges) in graph {
            eprintln!("{parent}: {module} -> {}", edges.keys().cloned().collect::<Vec<_>>().join(", "));
        }
    }
}

#[test]
fn the_native_probe_s_modules_import_one_another_without_a_circle() {
    let levels = levels(Path::new(SRC));
    print(&levels);
    let circles = circles(&levels);
    assert!(circles.is_empty(), "import circles:\n{}", circles.join("\n\n"));
}

#[test]
fn the_scan_sees_the_layers_it_must() {
    let levels = levels(Path::new(SRC));
    let uses = |parent: &[&str], from: &str, to: &str| {
        let parent: Module = parent.iter().map(|s| s.to_string()).collect();
        levels.get(&parent).and_then(|graph| graph.get(from)).is_some_and(|edges| edges.contains_key(to))
    };
    // Known edges, through `super::`, `super::super::` and groups: the
    // processes run the channel, the channel reads a child's process, a
    // check's process and the channel report through the outcomes, and the
    // sweep of what a check detached reads the signals' state.
    assert!(uses(&["isolate"], "processes", "channel"), "{levels:#?}");
    assert!(uses(&["isolate"], "channel", "child") && uses(&["isolate"], "channel", "outcome"), "{levels:#?}");
    assert!(uses(&["isolate"], "child", "outcome") && uses(&["isolate"], "child", "signals"), "{levels:#?}");
    assert!(uses(&["isolate"], "subreaper", "signals"), "{levels:#?}");
    assert!(uses(&["isolate"], "windows", "outcome"), "the Windows path is scanned too: {levels:#?}");
    // One way each: what both sides of the answer channel share lies below both.
    assert!(!uses(&["isolate"], "outcome", "channel") && !uses(&["isolate"], "child", "channel"), "{levels:#?}");
    assert!(!uses(&["isolate"], "signals", "subreaper"), "{levels:#?}");
    // A nested module's edge out of its parent counts among the root's modules.
    assert!(uses(&[], "isolate", "checks") && uses(&[], "isolate", "protocol"), "{levels:#?}");
    // The reader itself, on the forms it must read.
    let mut paths = relative_paths(
        "use super::{a::X, b::{c::Y, Z}, d};\nlet x = super::super::e::f();\n$crate::g::H;\nbackend_crate::i;\n\
         use crate::j::{k, l,};\nself::m::n();",
    );
    paths.sort();
    let joined: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        joined,
        [
            "crate::j::k",
            "crate::j::l",
            "self::m::n",
            "super::a::X",
            "super::b::Z",
            "super::b::c::Y",
            "super::d",
            "super::super::e::f"
        ]
    );
    let known: BTreeSet<Module> =
        [vec!["a"], vec!["a", "b"], vec!["c"]].iter().map(|m| m.iter().map(|s| s.to_string()).collect()).collect();
    let from: Module = vec!["a".into(), "b".into()];
    let path = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
    assert_eq!(resolve(&path("super::super::c::f"), &from, &known), ["c"]);
    assert_eq!(resolve(&path("crate::a::b::X"), &from, &known), ["a", "b"]);
    assert_eq!(resolve(&path("super::Y"), &from, &known), ["a"]);
    let split = split_inline("fn f() {}\nmod inner { fn g() { let s = \"}\"; } mod deeper { } }\nfn h() {}", &vec![]);
    let names: Vec<String> = split.iter().map(|(m, _)| m.join("::")).collect();
    assert_eq!(names, ["", "inner", "inner::deeper"]);
    assert!(split[0].1.contains("fn h()") && !split[0].1.contains("fn g()"));
    // A circle is found where there is one.
    let mut circular = levels.clone();
    let isolate = circular.get_mut(&vec!["isolate".to_string()]).unwrap();
    isolate.entry("outcome".into()).or_default().entry("channel".into()).or_default();
    assert!(!circles(&circular).is_empty(), "a circle is found");
}
