//! The direction between the shell and its panes, checked from the source:
//! a pane never reaches into the shell's dialog keys, and the shell's
//! routing files reach a pane only through `panes::{ALL, of, owner}`, the
//! components' registry. Read at test time so a new file is covered too.

use std::path::{Path, PathBuf};

/// The shell files that route to panes through the component interface.
const ROUTERS: [&str; 3] = ["dialog_keys.rs", "update.rs", "view.rs"];

/// What the shell may name under `panes::`.
const REGISTRY: [&str; 3] = ["ALL", "of", "owner"];

fn app_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The first pane module a shell file names other than through the
/// registry (`panes::queue`, `panes::{graph, …}`), if any.
fn names_a_pane(src: &str) -> Option<String> {
    src.match_indices("panes::").find_map(|(at, _)| {
        let rest = &src[at + "panes::".len()..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        (!REGISTRY.contains(&name.as_str())).then(|| rest.chars().take(40).collect())
    })
}

#[test]
fn panes_do_not_import_the_shells_dialog_keys() {
    let mut files = Vec::new();
    rust_files(&app_dir().join("panes"), &mut files);
    assert!(files.len() > 20, "the panes' sources were not found");
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f)
                .expect("a source file")
                .contains("dialog_keys")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(offenders.is_empty(), "panes naming dialog_keys: {offenders:?}");
}

#[test]
fn the_shell_reaches_panes_only_through_their_components() {
    for file in ROUTERS {
        let src = std::fs::read_to_string(app_dir().join(file)).expect("a shell file");
        for pane in ["queue", "graph", "query", "projection"] {
            assert!(!src.contains(&format!("panes::{pane}")), "{file} names panes::{pane}");
        }
        assert_eq!(names_a_pane(&src), None, "{file} names a pane past the registry");
    }
}

/// The twin: the check does catch a pane named directly or in a group.
#[test]
fn the_direction_check_can_fail() {
    assert!(names_a_pane("use super::panes::queue::update::open_editor;").is_some());
    assert!(names_a_pane("use super::panes::{graph, query};").is_some());
    assert_eq!(
        names_a_pane("panes::of(state.pane).key(state, k, fx); panes::ALL"),
        None
    );
}

/// Where a pane's source names another pane (`panes::graph::…` in a file
/// of the Queue pane), tests aside: `(file, the line)`. What panes hand one
/// another (a projection's subject) lives below them (`app::subject`).
fn crossings(files: &[PathBuf]) -> Vec<(String, String)> {
    const PANES: [&str; 4] = ["queue", "graph", "query", "projection"];
    let mut out = Vec::new();
    for f in files {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.ends_with("tests.rs") {
            continue;
        }
        let own = PANES.iter().find(|p| f.components().any(|c| c.as_os_str() == **p));
        let src = std::fs::read_to_string(f).expect("a source file");
        for line in src.lines() {
            let other = PANES
                .iter()
                .filter(|p| Some(*p) != own)
                .any(|p| line.contains(&format!("panes::{p}")));
            if other && !line.contains("testkit") {
                out.push((f.display().to_string(), line.trim().to_owned()));
            }
        }
    }
    out
}

/// A pane never calls another pane: it returns `Effect::Go` and the shell
/// routes it through the other's component.
#[test]
fn panes_never_call_one_another() {
    let mut files = Vec::new();
    rust_files(&app_dir().join("panes"), &mut files);
    assert!(files.len() > 20, "the panes' sources were not found");
    assert_eq!(crossings(&files), Vec::<(String, String)>::new());
    // The twin: a call across is caught.
    let dir = tempfile::tempdir().unwrap();
    let queue = dir.path().join("queue");
    std::fs::create_dir(&queue).unwrap();
    let planted = queue.join("update.rs");
    std::fs::write(&planted, "crate::app::panes::graph::update::open(state, &name, fx);\n").unwrap();
    assert_eq!(crossings(&[planted]).len(), 1);
}
