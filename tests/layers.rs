//! The layering of `src/` that ARCHITECTURE.md describes: every module of
//! the library only uses modules of the layers below its own. Read from the
//! sources, the same way a reader would: each `crate::module` path (or a
//! name the crate root re-exports from a module) outside comments and test
//! code is a use of that module.
//!
//! A new top-level module must be given a layer here and in ARCHITECTURE.md.

include!("../src/versions.rs");

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, top first; a module may use those of any later layer.
const LAYERS: &[&[&str]] = &[
    &["async_writer"],
    &["writer"],
    &["hybrid"],
    &["sink"],
    &["factory"],
    &["column"],
    &["validate"],
    &["leaf"],
    &["cdc"],
    &["page"],
    &["encoding"],
    &["chunk"],
    &["levels"],
    &["plan"],
    &["values"],
    &[
        "arrays", "compat", "cpu", "memory", "pool", "schema", "spill",
    ],
];

/// Files of `src/` that are not library modules, or only test code.
fn skipped(rel: &Path) -> bool {
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or("");
    rel.starts_with("bin")
        || rel.components().any(|c| c.as_os_str() == "tests")
        || matches!(name, "lib.rs" | "versions.rs" | "smoke_tests.rs")
        || name.ends_with("tests.rs")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file: comments dropped, and everything from the first
/// `#[cfg(test)]` module on (test code may use anything).
fn code(text: &str) -> String {
    let mut kept = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim_start().starts_with("#[cfg(test)]")
            && let Some(next) = lines.peek()
            && next.trim_start().starts_with("mod ")
        {
            if next.trim_end().ends_with(';') {
                // A test module in a file of its own (skipped as a file).
                lines.next();
                continue;
            }
            break;
        }
        let line = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        kept.push_str(line);
        kept.push('\n');
    }
    kept
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first name of each item of the `{...}` group at the start of `s`.
fn group_heads(s: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut item_start = Some(1);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => item_start = Some(i + 1),
            _ => {}
        }
        if let Some(start) = item_start
            && depth == 1
            && i >= start
            && !c.is_whitespace()
        {
            heads.push(ident_at(&s[i..]));
            item_start = None;
        }
    }
    heads
}

/// The names each `crate::` path of `code` starts with.
fn crate_paths(code: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        if rest.starts_with('{') {
            names.extend(group_heads(rest));
        } else {
            names.push(ident_at(rest));
        }
    }
    names
}

/// The names the crate root re-exports, with the module each comes from.
fn root_exports(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for statement in code(lib).split(';') {
        let Some(at) = statement.find("pub use ") else {
            continue;
        };
        let path = &statement[at + "pub use ".len()..];
        let module = ident_at(path);
        let names = path[module.len()..].trim_start_matches("::");
        let names = names.trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',') {
            let name = name.trim().rsplit("::").next().unwrap_or("");
            let name = name.rsplit(" as ").next().unwrap_or(name).trim();
            if !name.is_empty() {
                map.insert(name.to_string(), module.to_string());
            }
        }
    }
    map
}

#[test]
fn modules_only_use_the_layers_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let layer_of = |module: &str| LAYERS.iter().position(|l| l.contains(&module));
    let exports = root_exports(&fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        if skipped(rel) {
            continue;
        }
        let first = rel.components().next().unwrap().as_os_str();
        let module = first.to_str().unwrap().trim_end_matches(".rs");
        let Some(own) = layer_of(module) else {
            problems.push(format!("{}: module `{module}` has no layer", rel.display()));
            continue;
        };
        checked += 1;
        let text = fs::read_to_string(file).unwrap();
        for name in crate_paths(&code(&text)) {
            let used = match exports.get(name) {
                Some(from) => from.as_str(),
                None => name,
            };
            if used == module {
                continue;
            }
            match layer_of(used) {
                Some(layer) if layer > own => {}
                Some(_) => problems.push(format!(
                    "{}: `{module}` uses `{used}`, which is not below it",
                    rel.display()
                )),
                None if src.join(format!("{used}.rs")).exists() || src.join(used).is_dir() => {
                    problems.push(format!("{}: module `{used}` has no layer", rel.display()))
                }
                // An item of the crate root itself (a constant), or one it
                // re-exports from another crate.
                None => {}
            }
        }
    }
    assert!(checked > 50, "only {checked} files were checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The checker itself: an upward use, a grouped import and a re-exported
/// name are each found; comments and test code are not read.
#[test]
fn the_checker_reads_paths_groups_and_exports() {
    let text = "use crate::values::X;\n\
                use crate::{page::Y, encoding, ArrowWriter};\n\
                // crate::writer in a comment\n\
                let a = crate::cdc::f(); // and crate::hybrid here\n\
                #[cfg(test)]\nmod tests;\n\
                use crate::leaf::Z;\n\
                #[cfg(test)]\nmod more {\n use crate::sink;\n}\n";
    assert_eq!(
        crate_paths(&code(text)),
        ["values", "page", "encoding", "ArrowWriter", "cdc", "leaf"]
    );
    let lib = "pub use writer::{ArrowWriter, ArrowWriterOptions};\n\
               #[cfg(feature = \"async\")]\npub use plan::ColumnPlan;\n\
               // pub use hidden::Nothing;\n";
    let exports = root_exports(lib);
    assert_eq!(exports["ArrowWriter"], "writer");
    assert_eq!(exports["ArrowWriterOptions"], "writer");
    assert_eq!(exports["ColumnPlan"], "plan");
    assert_eq!(exports.len(), 3);
}
