//! Cargo manifests: the workspace's crates, what kind of crate each is, and
//! the path dependencies between them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::text::{clip, ident_name, normalize, rel_string};
use super::walk::{Budget, ignored_dir, read_text, resolves_inside};
use super::{Draft, EdgeKind, Findings, Rank};
use crate::model::Name;

/// Confidence of crate nodes and of the dependency edges between them.
const CONFIDENCE: f64 = 0.7;

/// A workspace crate, as the module reader needs it.
pub(super) struct Crate {
    /// The crate's node name.
    pub(super) name: Name,
    /// Crate root files (library, then binaries) that exist, relative to the root.
    pub(super) roots: Vec<PathBuf>,
    /// Workspace crates this one depends on: (identifier in code, crate index).
    pub(super) deps: Vec<(String, usize)>,
}

/// A member's manifest, read.
struct Member {
    package: String,
    dir: PathBuf,
    manifest: Table,
}

/// The workspace's crates, recorded as nodes and `depends-on` edges.
pub(super) fn crates(root: &Path, budget: &mut Budget, found: &mut Findings) -> Vec<Crate> {
    if !root.join("Cargo.toml").is_file() {
        return Vec::new();
    }
    let Some(top) = manifest(root, Path::new(""), budget, found) else {
        return Vec::new();
    };
    let workspace = top.get("workspace").and_then(Value::as_table);
    let mut dirs: BTreeSet<PathBuf> = BTreeSet::new();
    if top.contains_key("package") {
        dirs.insert(PathBuf::new());
    }
    for pattern in strings(workspace.and_then(|w| w.get("members"))) {
        dirs.extend(expand(root, pattern));
    }
    for pattern in strings(workspace.and_then(|w| w.get("exclude"))) {
        for d in expand(root, pattern) {
            dirs.remove(&d);
        }
    }
    dirs.retain(|d| {
        !d.iter()
            .any(|c| c.to_str().is_none_or(|c| ignored_dir(c) || c == "fuzz"))
    });

    let mut members: Vec<Member> = Vec::new();
    for dir in dirs {
        // A member may be a link; one leading out of the tree is not read
        // (nor are its sources: every read checks the same).
        if !resolves_inside(root, &dir) {
            found.note(format!(
                "{}: not read (a symbolic link leads outside the tree)",
                rel_string(&dir)
            ));
            continue;
        }
        let table = if dir.as_os_str().is_empty() {
            Some(top.clone())
        } else {
            manifest(root, &dir, budget, found)
        };
        let Some(table) = table else { continue };
        let package = table
            .get("package")
            .and_then(Value::as_table)
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str);
        match package {
            Some(p) => members.push(Member {
                package: p.to_owned(),
                dir,
                manifest: table,
            }),
            None => found.note(format!("{}: no [package] name; skipped", manifest_path(&dir))),
        }
    }

    let mut crates: Vec<Crate> = Vec::new();
    let mut kept: Vec<&Member> = Vec::new();
    for m in &members {
        let Some(name) = ident_name(&m.package) else {
            found.note(format!(
                "{}: package name {:?} is not a valid node name",
                manifest_path(&m.dir),
                m.package
            ));
            continue;
        };
        if crates.iter().any(|c| c.name == name) {
            found.note(format!(
                "{}: a crate named {name} was already read",
                manifest_path(&m.dir)
            ));
            continue;
        }
        let binary = has_binary(root, m);
        let description = description(m, workspace);
        let mut properties = std::collections::BTreeMap::new();
        properties.insert("path".to_owned(), rel_string(&m.dir));
        properties.insert("language".to_owned(), "rust".to_owned());
        found.add_node(
            name.clone(),
            Draft {
                rank: Rank::Crate,
                node_type: if binary { "service" } else { "module" },
                description,
                properties,
                confidence: CONFIDENCE,
            },
        );
        crates.push(Crate {
            name,
            roots: roots(root, m),
            deps: Vec::new(),
        });
        kept.push(m);
    }

    for (i, m) in kept.iter().enumerate() {
        let deps = dependencies(m, workspace, &kept);
        for (_, j) in &deps {
            let (from, to) = (crates[i].name.clone(), crates[*j].name.clone());
            found.add_edge(&from, "depends-on", &to, EdgeKind::Code, CONFIDENCE);
        }
        crates[i].deps = deps;
    }
    crates
}

/// Reads and parses `<dir>/Cargo.toml`, noting why when it cannot.
fn manifest(root: &Path, dir: &Path, budget: &mut Budget, found: &mut Findings) -> Option<Table> {
    let text = read_text(root, &dir.join("Cargo.toml"), budget, found)?;
    match text.parse::<Table>() {
        Ok(t) => Some(t),
        Err(e) => {
            let reason = e.message().to_owned();
            found.note(format!("{}: not valid TOML ({reason}); skipped", manifest_path(dir)));
            None
        }
    }
}

fn manifest_path(dir: &Path) -> String {
    rel_string(&dir.join("Cargo.toml"))
}

/// The strings of a TOML array (others ignored).
fn strings(v: Option<&Value>) -> impl Iterator<Item = &str> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// Member directories matching a pattern such as `crates/*`, relative to
/// the root; only directories holding a `Cargo.toml`.
fn expand(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut current = vec![PathBuf::new()];
    for seg in pattern.split(['/', '\\']) {
        if seg.is_empty() || seg == "." {
            continue;
        }
        if !seg.contains(['*', '?']) {
            current = current.into_iter().filter_map(|c| normalize(&c.join(seg))).collect();
            continue;
        }
        let mut next = Vec::new();
        for c in &current {
            let Ok(entries) = std::fs::read_dir(root.join(c)) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                .filter(|n| !n.starts_with('.') && wildcard(seg.as_bytes(), n.as_bytes()))
                .collect();
            names.sort();
            next.extend(names.into_iter().map(|n| c.join(n)));
        }
        current = next;
    }
    current.retain(|d| root.join(d).join("Cargo.toml").is_file());
    current
}

/// Glob matching with `*` and `?` within one path segment.
fn wildcard(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == b'?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

fn package_table(m: &Member) -> Option<&Table> {
    m.manifest.get("package").and_then(Value::as_table)
}

/// `package.description`, inherited from `[workspace.package]` when asked,
/// or a sentence naming the crate.
fn description(m: &Member, workspace: Option<&Table>) -> String {
    let own = package_table(m).and_then(|p| p.get("description"));
    let text = match own {
        Some(Value::String(s)) => Some(s.as_str()),
        Some(Value::Table(t)) if t.get("workspace").and_then(Value::as_bool) == Some(true) => workspace
            .and_then(|w| w.get("package"))
            .and_then(Value::as_table)
            .and_then(|p| p.get("description"))
            .and_then(Value::as_str),
        _ => None,
    };
    let text = text.map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "));
    match text {
        Some(t) if !t.is_empty() => clip(&t, 1000),
        _ => format!("Rust crate {} at {}", m.package, rel_string(&m.dir)),
    }
}

/// Whether the crate builds a binary: `[[bin]]`, `src/main.rs` or `src/bin/`.
fn has_binary(root: &Path, m: &Member) -> bool {
    let dir = root.join(&m.dir);
    let declared = m
        .manifest
        .get("bin")
        .and_then(Value::as_array)
        .is_some_and(|b| !b.is_empty());
    let bin_dir = std::fs::read_dir(dir.join("src/bin")).is_ok_and(|mut d| d.next().is_some());
    declared || dir.join("src/main.rs").is_file() || bin_dir
}

/// The crate root files that exist: `[lib] path` (or `src/lib.rs`), the
/// `[[bin]]` paths and `src/main.rs`.
fn roots(root: &Path, m: &Member) -> Vec<PathBuf> {
    let lib = m
        .manifest
        .get("lib")
        .and_then(Value::as_table)
        .and_then(|l| l.get("path"))
        .and_then(Value::as_str)
        .unwrap_or("src/lib.rs");
    let bins = m
        .manifest
        .get("bin")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| b.get("path").and_then(Value::as_str));
    let mut out: Vec<PathBuf> = Vec::new();
    for p in std::iter::once(lib).chain(bins).chain(["src/main.rs"]) {
        if let Some(rel) = normalize(&m.dir.join(p))
            && root.join(&rel).is_file()
            && !out.contains(&rel)
        {
            out.push(rel);
        }
    }
    out
}

/// How code names a crate when the dependency is not renamed.
fn lib_ident(m: &Member) -> String {
    m.manifest
        .get("lib")
        .and_then(Value::as_table)
        .and_then(|l| l.get("name"))
        .and_then(Value::as_str)
        .unwrap_or(&m.package)
        .replace('-', "_")
}

/// The members `m` depends on (normal and build dependencies, also
/// target-specific ones), with the identifier code uses for each.
fn dependencies(m: &Member, workspace: Option<&Table>, members: &[&Member]) -> Vec<(String, usize)> {
    let shared = workspace.and_then(|w| w.get("dependencies")).and_then(Value::as_table);
    let targets = m
        .manifest
        .get("target")
        .and_then(Value::as_table)
        .into_iter()
        .flat_map(|t| t.values().filter_map(Value::as_table));
    let mut out: Vec<(String, usize)> = Vec::new();
    for table in std::iter::once(&m.manifest).chain(targets) {
        for section in ["dependencies", "build-dependencies"] {
            let Some(deps) = table.get(section).and_then(Value::as_table) else {
                continue;
            };
            for (key, spec) in deps {
                let Some((path, package)) = locate(&m.dir, key, spec, shared) else {
                    continue;
                };
                let by_dir = members.iter().position(|o| o.dir == path);
                let by_name = || members.iter().position(|o| o.package == package);
                let Some(j) = by_dir.or_else(by_name) else {
                    continue;
                };
                if members[j].dir == m.dir {
                    continue;
                }
                let ident = if package != *key {
                    key.replace('-', "_")
                } else {
                    lib_ident(members[j])
                };
                if !out.iter().any(|(i, k)| *k == j && *i == ident) {
                    out.push((ident, j));
                }
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// A path dependency's directory (relative to the root) and package name;
/// `None` for registry or git dependencies.
fn locate(dir: &Path, key: &str, spec: &Value, shared: Option<&Table>) -> Option<(PathBuf, String)> {
    let spec = spec.as_table()?;
    let package = |t: &Table| t.get("package").and_then(Value::as_str).unwrap_or(key).to_owned();
    if spec.get("workspace").and_then(Value::as_bool) == Some(true) {
        let inherited = shared?.get(key)?.as_table()?;
        let path = normalize(Path::new(inherited.get("path")?.as_str()?))?;
        return Some((path, package(inherited)));
    }
    let path = normalize(&dir.join(spec.get("path")?.as_str()?))?;
    Some((path, package(spec)))
}
