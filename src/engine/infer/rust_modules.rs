//! Rust modules: the top-level `mod` declarations of each crate root, their
//! `//!` docs, and the `crate::` and dependency paths between them. Line-based
//! regular expressions, not a parser: good enough for a draft a person reviews.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;

use super::cargo::Crate;
use super::text::{clip, first_sentence, ident_name, regex, rel_string, strip_markdown};
use super::walk::{Budget, files, ignored_dir, read_text};
use super::{Draft, EdgeKind, Findings, Rank};
use crate::model::Name;

/// Confidence of module nodes and of the edges read from code.
const CONFIDENCE: f64 = 0.6;
/// Most files looked at under one module directory.
const MAX_MODULE_FILES: usize = 5_000;

/// A top-level module of a crate.
struct Module {
    ident: String,
    name: Name,
    /// The file declaring the module's contents (`x.rs` or `x/mod.rs`).
    file: PathBuf,
    /// The module's directory, when it has one.
    dir: Option<PathBuf>,
}

/// Records the modules of every crate and the edges between them.
pub(super) fn scan(root: &Path, crates: &[Crate], budget: &mut Budget, found: &mut Findings) {
    for krate in crates {
        let modules = modules(root, krate, budget, found);
        let by_ident: BTreeMap<&str, &Name> = modules.iter().map(|m| (m.ident.as_str(), &m.name)).collect();
        let dep_re = dependency_regex(krate);
        for m in &modules {
            let Some(main) = read_text(root, &m.file, budget, found) else {
                continue;
            };
            let mut properties = BTreeMap::new();
            let shown = if m.file.ends_with("mod.rs") {
                m.dir.as_ref()
            } else {
                None
            };
            properties.insert("path".to_owned(), rel_string(shown.unwrap_or(&m.file)));
            let description = match module_doc(&main) {
                Some(d) => d,
                None => format!("Module {} of crate {}", m.ident, krate.name),
            };
            let draft = Draft {
                rank: Rank::Module,
                node_type: "module",
                description,
                properties,
                confidence: CONFIDENCE,
            };
            if !found.add_node(m.name.clone(), draft) {
                continue;
            }
            let owner = Some(m.name.clone());
            found.add_owned_edge(&krate.name, "contains", &m.name, EdgeKind::Code, CONFIDENCE, owner);

            let mut internal: BTreeSet<String> = BTreeSet::new();
            let mut external: BTreeSet<String> = BTreeSet::new();
            let mut texts = vec![main];
            for file in module_files(root, m) {
                texts.extend(read_text(root, &file, budget, found));
            }
            for text in &texts {
                let code = without_test_tail(text);
                crate_paths(code, &mut internal);
                if let Some(re) = &dep_re {
                    external.extend(
                        re.captures_iter(code)
                            .filter_map(|c| c.get(1))
                            .map(|g| g.as_str().to_owned()),
                    );
                }
            }
            for other in internal.iter().filter_map(|i| by_ident.get(i.as_str())) {
                found.add_edge(&m.name, "depends-on", other, EdgeKind::Code, CONFIDENCE);
            }
            for ident in &external {
                for (_, j) in krate.deps.iter().filter(|(i, _)| i == ident) {
                    if let Some(dep) = crates.get(*j) {
                        found.add_edge(&m.name, "depends-on", &dep.name, EdgeKind::Code, CONFIDENCE);
                    }
                }
            }
        }
    }
}

/// The modules the crate roots declare with `mod x;`, without test modules.
fn modules(root: &Path, krate: &Crate, budget: &mut Budget, found: &mut Findings) -> Vec<Module> {
    let mut out: Vec<Module> = Vec::new();
    for crate_root in &krate.roots {
        let Some(text) = read_text(root, crate_root, budget, found) else {
            continue;
        };
        let base = crate_root.parent().map(Path::to_path_buf).unwrap_or_default();
        for decl in declarations(&text) {
            if out.iter().any(|m| m.ident == decl.ident) {
                continue;
            }
            let located = match &decl.path {
                Some(p) => super::text::normalize(&base.join(p)).map(|f| {
                    let dir = if f.ends_with("mod.rs") {
                        f.parent().map(Path::to_path_buf)
                    } else {
                        None
                    };
                    (f, dir)
                }),
                None => Some(locate(root, &base, &decl.ident)),
            };
            let Some((file, dir)) = located.filter(|(f, _)| root.join(f).is_file()) else {
                found.note(format!(
                    "{}: module {} has no file; skipped",
                    rel_string(crate_root),
                    decl.ident
                ));
                continue;
            };
            let Some(name) = ident_name(&decl.ident).and_then(|m| Name::new(&format!("{}.{m}", krate.name)).ok())
            else {
                continue;
            };
            out.push(Module {
                ident: decl.ident,
                name,
                file,
                dir,
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// `base/x.rs` or `base/x/mod.rs`, and the directory `base/x` if it exists.
fn locate(root: &Path, base: &Path, ident: &str) -> (PathBuf, Option<PathBuf>) {
    let dir = base.join(ident);
    let has_dir = root.join(&dir).is_dir();
    let flat = base.join(format!("{ident}.rs"));
    let file = if root.join(&flat).is_file() {
        flat
    } else {
        dir.join("mod.rs")
    };
    (file, has_dir.then_some(dir))
}

/// A `mod x;` line of a crate root.
struct Declaration {
    ident: String,
    /// A `#[path = "..."]` attribute's value.
    path: Option<String>,
}

/// The out-of-line module declarations of a file, skipping `#[cfg(test)]`
/// ones and modules named `tests`.
fn declarations(text: &str) -> Vec<Declaration> {
    static MOD: OnceLock<Option<Regex>> = OnceLock::new();
    static PATH: OnceLock<Option<Regex>> = OnceLock::new();
    let (Some(mod_re), Some(path_re)) = (
        regex(
            &MOD,
            r"^(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+(?:r#)?([A-Za-z_][A-Za-z0-9_]*)\s*;",
        ),
        regex(&PATH, r#"^#\[\s*path\s*=\s*"([^"]+)"\s*\]"#),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let (mut test_only, mut path) = (false, None);
    for line in text.lines() {
        let mut rest = line.trim();
        // Outer attributes, on their own lines or before the item.
        while rest.starts_with("#[") {
            let end = rest.find(']').map_or(rest.len(), |i| i + 1);
            let attr = &rest[..end];
            if attr.replace(' ', "").contains("cfg(test)") {
                test_only = true;
            }
            if let Some(c) = path_re.captures(attr).and_then(|c| c.get(1)) {
                path = Some(c.as_str().to_owned());
            }
            rest = rest[end..].trim_start();
        }
        if rest.is_empty() || rest.starts_with("//") {
            continue;
        }
        if let Some(ident) = mod_re.captures(rest).and_then(|c| c.get(1)) {
            let ident = ident.as_str().to_owned();
            if !test_only && ident != "tests" {
                out.push(Declaration {
                    ident,
                    path: path.take(),
                });
            }
        }
        (test_only, path) = (false, None);
    }
    out
}

/// The first sentence of a file's leading `//!` docs, headings skipped.
fn module_doc(text: &str) -> Option<String> {
    let mut para: Vec<&str> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let Some(doc) = line.strip_prefix("//!") else {
            let preamble =
                line.is_empty() || line.starts_with("#![") || (line.starts_with("//") && !line.starts_with("///"));
            if para.is_empty() && preamble {
                continue;
            }
            break;
        };
        let doc = doc.trim();
        if doc.starts_with('#') {
            continue;
        }
        if doc.is_empty() {
            if para.is_empty() {
                continue;
            }
            break;
        }
        para.push(doc);
    }
    let sentence = first_sentence(&strip_markdown(&para.join(" ")));
    (!sentence.is_empty()).then(|| clip(&sentence, 300))
}

/// The module's other files: everything under its directory, except test
/// code (`tests/`, `tests.rs`), build output, hidden directories and nested
/// crates.
fn module_files(root: &Path, m: &Module) -> Vec<PathBuf> {
    let Some(dir) = &m.dir else {
        return Vec::new();
    };
    let skip =
        |rel: &Path, name: &str| ignored_dir(name) || name == "tests" || root.join(rel).join("Cargo.toml").is_file();
    let keep = |name: &str| name.ends_with(".rs") && name != "tests.rs";
    let (list, _) = files(root, dir, &skip, &keep, MAX_MODULE_FILES);
    list.into_iter().filter(|f| *f != m.file).collect()
}

/// `text` up to a trailing `#[cfg(test)] mod x { ... }`.
fn without_test_tail(text: &str) -> &str {
    static TEST_MOD: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(re) = regex(
        &TEST_MOD,
        r"(?m)^[ \t]*#\[cfg\(test\)\]\s*(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+[A-Za-z_][A-Za-z0-9_]*\s*\{",
    ) else {
        return text;
    };
    re.find(text).map_or(text, |m| &text[..m.start()])
}

/// The first segments of `crate::` paths, including each item of
/// `crate::{a, b::c}` groups.
fn crate_paths(text: &str, out: &mut BTreeSet<String>) {
    static CRATE: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(re) = regex(&CRATE, r"(?:^|[^A-Za-z0-9_:])crate::(\{|(?:r#)?[A-Za-z_][A-Za-z0-9_]*)") else {
        return;
    };
    for c in re.captures_iter(text) {
        let Some(g) = c.get(1) else { continue };
        if g.as_str() == "{" {
            out.extend(group_heads(&text[g.end()..]));
        } else {
            out.insert(g.as_str().trim_start_matches("r#").to_owned());
        }
    }
}

/// The leading identifier of each top-level item of a `{...}` use group,
/// given the text after its `{`.
fn group_heads(rest: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut item = String::new();
    let mut depth = 0usize;
    let mut push = |item: &str| {
        let ident: String = item
            .trim()
            .trim_start_matches("r#")
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !ident.is_empty() && ident != "self" {
            heads.push(ident);
        }
    };
    for c in rest.chars().take(20_000) {
        match c {
            '{' => {
                depth += 1;
                item.push(c);
            }
            '}' if depth == 0 => {
                push(&item);
                break;
            }
            '}' => {
                depth -= 1;
                item.push(c);
            }
            ',' if depth == 0 => {
                push(&item);
                item.clear();
            }
            _ => item.push(c),
        }
    }
    heads
}

/// A regex matching `<ident>::` for the crate's workspace dependencies.
fn dependency_regex(krate: &Crate) -> Option<Regex> {
    if krate.deps.is_empty() {
        return None;
    }
    let idents: BTreeSet<String> = krate.deps.iter().map(|(i, _)| regex::escape(i)).collect();
    let alternatives: Vec<String> = idents.into_iter().collect();
    Regex::new(&format!(r"(?:^|[^A-Za-z0-9_:])({})::", alternatives.join("|"))).ok()
}
