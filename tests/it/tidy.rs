//! Invariants of the source tree, enforced by reading it (no emulator): the stack engine's
//! files and functions stay small (at most [`MAX_FILE_LINES`] lines a file and
//! [`MAX_FN_LINES`] a function under `src/cloudformation/` and in the CloudFormation wire
//! module), and the file-level graph of `use crate::…` / `use super::…` / `use self::…`
//! imports under `src/` has no cycle. Each failure names the file, the function or the cycle.
//!
//! The source is read through a small lexer ([`code_only`]) that blanks comments, strings and
//! character literals, so braces and `use` inside them do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Longest file allowed (style.md: files under ~1,000 lines).
const MAX_FILE_LINES: usize = 1000;
/// Longest function allowed, signature to closing brace (style.md: under ~120 lines).
const MAX_FN_LINES: usize = 120;

/// Where the size limits apply.
const SIZED: &[&str] = &["src/cloudformation/", "src/protocol/wire/cloudformation"];

/// Parts of `SIZED` the limits do not cover yet.
const SIZE_EXCLUSIONS: &[&str] = &[
    // The SAM transform (branch `sam`, issue 12) keeps its own limits.
    "src/cloudformation/transform/",
];

/// Import cycles known and being removed elsewhere: each is the exact set of files of one
/// strongly connected component.
const KNOWN_CYCLES: &[&[&str]] = &[];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read source dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The path of `file` relative to the repository, with `/`.
fn relative(file: &Path) -> String {
    file.strip_prefix(root())
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/")
}

/// `source` with comments, string literals and character literals replaced by spaces (line
/// breaks kept, so line numbers hold).
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if let Some(len) = raw_string_len(&chars, i) {
            for &ch in &chars[i..i + len] {
                out.push(blank(ch));
            }
            i += len;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let skip = if chars[i] == '\\' { 2 } else { 1 };
                for &ch in chars.iter().skip(i).take(skip) {
                    out.push(blank(ch));
                }
                i += skip;
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && is_char_literal(&chars, i) {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                let skip = if chars[i] == '\\' { 2 } else { 1 };
                out.push_str(&" ".repeat(skip));
                i += skip;
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The length of the raw string literal (`r"…"`, `r#"…"#`, `br"…"`) starting at `i`, if one
/// does.
fn raw_string_len(chars: &[char], i: usize) -> Option<usize> {
    let prev_ident = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    if prev_ident {
        return None;
    }
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|c| **c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    let closing: Vec<char> = std::iter::once('"')
        .chain(std::iter::repeat_n('#', hashes))
        .collect();
    while j < chars.len() {
        if chars[j..].starts_with(&closing) {
            return Some(j + closing.len() - i);
        }
        j += 1;
    }
    Some(chars.len() - i)
}

/// Whether the `'` at `i` opens a character literal (not a lifetime or a label).
fn is_char_literal(chars: &[char], i: usize) -> bool {
    match chars.get(i + 1) {
        Some('\\') => true,
        Some(_) => chars.get(i + 2) == Some(&'\''),
        None => false,
    }
}

/// A word or one punctuation character of code, with its line (1-based).
#[derive(Clone, Debug, PartialEq)]
struct Token {
    text: String,
    line: usize,
}

fn tokens(code: &str) -> Vec<Token> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut word = String::new();
        for c in line.chars() {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
                continue;
            }
            if !word.is_empty() {
                out.push(Token {
                    text: std::mem::take(&mut word),
                    line: n + 1,
                });
            }
            if !c.is_whitespace() {
                out.push(Token {
                    text: c.to_string(),
                    line: n + 1,
                });
            }
        }
        if !word.is_empty() {
            out.push(Token {
                text: word,
                line: n + 1,
            });
        }
    }
    out
}

/// Every function with a body: (name, first line, last line).
fn functions(tokens: &[Token]) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if t.text != "fn" {
            continue;
        }
        let Some(name) = tokens.get(i + 1).filter(|n| is_ident(&n.text)) else {
            continue;
        };
        // The body opens at the first `{` outside parentheses and brackets; a `;` first
        // means a declaration without body.
        let mut depth = 0i32;
        let mut open = None;
        for (j, u) in tokens.iter().enumerate().skip(i + 2) {
            match u.text.as_str() {
                "(" | "[" => depth += 1,
                ")" | "]" => depth -= 1,
                ";" if depth == 0 => break,
                "{" if depth == 0 => {
                    open = Some(j);
                    break;
                }
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let mut braces = 0i32;
        for u in &tokens[open..] {
            match u.text.as_str() {
                "{" => braces += 1,
                "}" => {
                    braces -= 1;
                    if braces == 0 {
                        out.push((name.text.clone(), t.line, u.line));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

fn is_ident(text: &str) -> bool {
    text.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

fn sized(rel: &str) -> bool {
    SIZED.iter().any(|p| rel.starts_with(p)) && !SIZE_EXCLUSIONS.iter().any(|p| rel.starts_with(p))
}

#[test]
fn cloudformation_files_and_functions_stay_small() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in rust_files(&root().join("src")) {
        let rel = relative(&file);
        if !sized(&rel) {
            continue;
        }
        checked += 1;
        let source = std::fs::read_to_string(&file).expect("read source");
        let lines = source.lines().count();
        if lines > MAX_FILE_LINES {
            problems.push(format!(
                "{rel}: {lines} lines (at most {MAX_FILE_LINES}; split it by what its parts serve)"
            ));
        }
        for (name, first, last) in functions(&tokens(&code_only(&source))) {
            let len = last - first + 1;
            if len > MAX_FN_LINES {
                problems.push(format!(
                    "{rel}:{first}: fn {name} has {len} lines (at most {MAX_FN_LINES})"
                ));
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} files checked: is the source tree there?"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ------------------------------------------------------------------------------------------
// The import graph
// ------------------------------------------------------------------------------------------

/// The module path of a file under `src/` (`cloudformation/engine/mod.rs` →
/// `["cloudformation", "engine"]`); `None` for the binary's root (`main.rs`, its own crate).
fn module_of(rel_to_src: &str) -> Option<Vec<String>> {
    if rel_to_src == "main.rs" {
        return None;
    }
    let stem = rel_to_src.strip_suffix(".rs")?;
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    Some(parts)
}

/// The paths a `use` tree names, each as its segments (`a::{b, c::d}` → `a::b`, `a::c::d`;
/// `a::{self, b}` → `a`, `a::b`; renames and globs keep their path).
fn use_paths(tree: &[String]) -> Vec<Vec<String>> {
    fn parse(tree: &[String], prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        let mut i = 0;
        while i < tree.len() {
            match tree[i].as_str() {
                ":" => {}
                "{" => {
                    // Split the group's top-level items at commas.
                    let mut depth = 0;
                    let mut start = i + 1;
                    let mut j = i + 1;
                    while j < tree.len() {
                        match tree[j].as_str() {
                            "{" => depth += 1,
                            "}" if depth == 0 => break,
                            "}" => depth -= 1,
                            "," if depth == 0 => {
                                parse(&tree[start..j], &path, out);
                                start = j + 1;
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    parse(&tree[start..j.min(tree.len())], &path, out);
                    return;
                }
                "as" | "*" => break,
                "self" if i > 0 || !prefix.is_empty() => {}
                word => path.push(word.to_string()),
            }
            i += 1;
        }
        if path.len() > prefix.len() || tree.iter().any(|t| t == "self") {
            out.push(path);
        }
    }
    let mut out = Vec::new();
    parse(tree, &[], &mut out);
    out
}

/// The files each file imports with `use crate::…` / `use super::…` / `use self::…` (inline
/// `mod x { … }` blocks, `#[cfg(test)] mod tests` included, move `super` and `self`).
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = root().join("src");
    let files: BTreeMap<Vec<String>, String> = rust_files(&src)
        .into_iter()
        .filter_map(|f| {
            let rel = relative(&f);
            let rel = rel.strip_prefix("src/")?.to_string();
            Some((module_of(&rel)?, rel))
        })
        .collect();
    let mut graph = BTreeMap::new();
    for (module, rel) in &files {
        let source = std::fs::read_to_string(src.join(rel)).expect("read source");
        let toks = tokens(&code_only(&source));
        let mut edges = BTreeSet::new();
        // Inline modules open at a brace depth; `scope` is the module path at each token.
        let mut scope: Vec<(String, i32)> = Vec::new();
        let mut depth = 0i32;
        let mut i = 0;
        while i < toks.len() {
            match toks[i].text.as_str() {
                "{" => depth += 1,
                "}" => {
                    depth -= 1;
                    while scope.last().is_some_and(|(_, d)| *d > depth) {
                        scope.pop();
                    }
                }
                "mod" if toks.get(i + 2).is_some_and(|t| t.text == "{") => {
                    scope.push((toks[i + 1].text.clone(), depth + 1));
                }
                "use" => {
                    let end = toks[i..]
                        .iter()
                        .position(|t| t.text == ";")
                        .map_or(toks.len(), |p| i + p);
                    let tree: Vec<String> =
                        toks[i + 1..end].iter().map(|t| t.text.clone()).collect();
                    let here: Vec<String> = module
                        .iter()
                        .cloned()
                        .chain(scope.iter().map(|(m, _)| m.clone()))
                        .collect();
                    for path in use_paths(&tree) {
                        if let Some(target) = resolve(&files, &here, &path) {
                            if &target != rel {
                                edges.insert(target);
                            }
                        }
                    }
                    i = end;
                }
                _ => {}
            }
            i += 1;
        }
        graph.insert(rel.clone(), edges);
    }
    graph
}

/// The file a `use` path imports from, seen from module `here`: the longest prefix of the
/// absolute path that is a file's module. Paths not starting with `crate`, `super` or `self`
/// (other crates, `std`) import no file of ours.
fn resolve(
    files: &BTreeMap<Vec<String>, String>,
    here: &[String],
    path: &[String],
) -> Option<String> {
    let mut absolute: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("self") => here.to_vec(),
        Some("super") => here.to_vec(),
        _ => return None,
    };
    let mut rest = &path[1..];
    if path[0] == "super" {
        absolute.pop();
        while rest.first().is_some_and(|s| s == "super") {
            absolute.pop();
            rest = &rest[1..];
        }
    }
    absolute.extend(rest.iter().cloned());
    (0..=absolute.len())
        .rev()
        .find_map(|n| files.get(&absolute[..n]).cloned())
}

/// The strongly connected components with more than one file (Tarjan), each sorted.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.out.push(component);
                }
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out
}

/// One cycle through `component`, as `a → b → … → a`, to name it.
fn one_cycle(graph: &BTreeMap<String, BTreeSet<String>>, component: &[String]) -> String {
    let inside: BTreeSet<&str> = component.iter().map(String::as_str).collect();
    let start = component[0].as_str();
    // Breadth-first from the start's successors back to the start, inside the component.
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !inside.contains(w) || came_from.contains_key(w) {
                continue;
            }
            came_from.insert(w, v);
            if w == start {
                queue.clear();
                break;
            }
            queue.push_back(w);
        }
    }
    let mut path = vec![start];
    let mut at = came_from.get(start).copied();
    while let Some(v) = at {
        path.push(v);
        if v == start {
            break;
        }
        at = came_from.get(v).copied();
    }
    path.reverse();
    path.join(" → ")
}

#[test]
fn the_import_graph_has_no_cycle() {
    let graph = import_graph();
    assert!(
        graph
            .get("cloudformation/stacks.rs")
            .is_some_and(|e| e.contains("cloudformation/prepare.rs")),
        "the graph misses a known edge: {:#?}",
        graph.get("cloudformation/stacks.rs")
    );
    let found = cycles(&graph);
    let unknown: Vec<String> = found
        .iter()
        .filter(|c| !KNOWN_CYCLES.iter().any(|k| k.iter().eq(c.iter())))
        .map(|c| format!("{} ({})", one_cycle(&graph, c), c.join(", ")))
        .collect();
    assert!(
        unknown.is_empty(),
        "import cycles between files under src/:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn the_lexer_and_the_use_parser_read_rust_as_rustc_does() {
    let code = code_only("let s = \"{ fn x() {\"; // fn y() {\nlet c = '{'; let r = r#\"}\"#; fn z<'a>(x: &'a str) {}\n");
    assert_eq!(
        functions(&tokens(&code)),
        vec![("z".to_string(), 2, 2)],
        "{code}"
    );
    let tree: Vec<String> = tokens("super::{a::{self, B}, c as d, e::*}")
        .into_iter()
        .map(|t| t.text)
        .collect();
    let paths: Vec<String> = use_paths(&tree).iter().map(|p| p.join("::")).collect();
    assert_eq!(paths, ["super::a", "super::a::B", "super::c", "super::e"]);
    let files = BTreeMap::from([
        (vec!["a".to_string()], "a/mod.rs".to_string()),
        (vec!["a".to_string(), "b".to_string()], "a/b.rs".to_string()),
    ]);
    let here = vec!["a".to_string(), "b".to_string(), "tests".to_string()];
    let resolved = |p: &str| {
        resolve(
            &files,
            &here,
            &p.split("::").map(str::to_string).collect::<Vec<_>>(),
        )
    };
    assert_eq!(resolved("super::X"), Some("a/b.rs".to_string()));
    assert_eq!(resolved("super::super::X"), Some("a/mod.rs".to_string()));
    assert_eq!(resolved("crate::a::b::c"), Some("a/b.rs".to_string()));
    assert_eq!(resolved("std::fmt"), None);
    let graph = BTreeMap::from([
        ("x".to_string(), BTreeSet::from(["y".to_string()])),
        ("y".to_string(), BTreeSet::from(["x".to_string()])),
        ("z".to_string(), BTreeSet::from(["x".to_string()])),
    ]);
    let found = cycles(&graph);
    assert_eq!(found, vec![vec!["x".to_string(), "y".to_string()]]);
    assert_eq!(one_cycle(&graph, &found[0]), "x → y → x");
}
