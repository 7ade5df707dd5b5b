//! The README and the guides beside it (`docs/*.md`) hold together: every
//! relative markdown link `[text](target)` between them (outside fenced code
//! blocks; `http(s)://` and `mailto:` targets aside) names a file that exists
//! and, when it has a `#anchor`, a heading of that file whose GitHub slug is
//! the anchor. The README stays an overview of at most 400 lines, and its
//! `## Two commands` section still holds the test command CI runs
//! (`cargo test --workspace`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

const README_MAX_LINES: usize = 400;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every `docs/*.md`, by absolute path.
fn documents() -> BTreeMap<PathBuf, String> {
    let root = root();
    let mut docs = BTreeMap::new();
    let readme = root.join("README.md");
    docs.insert(readme.clone(), std::fs::read_to_string(&readme).unwrap());
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&path).unwrap();
            docs.insert(path, text);
        }
    }
    docs
}

/// GitHub's anchor for a heading: lowercase, spaces to `-`, every character
/// other than letters, digits, `-` and `_` dropped (backticks, commas,
/// apostrophes, `&`, …).
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

/// The lines of `text` outside fenced code blocks, each with its number (from 1).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker: String = trimmed.chars().take_while(|&c| c == '`' || c == '~').collect();
        let is_fence = marker.len() >= 3 && marker.chars().all(|c| c == marker.chars().next().unwrap_or('`'));
        match &fence {
            Some(open) if is_fence && marker.starts_with(open.as_str()) => fence = None,
            Some(_) => {}
            None if is_fence => fence = Some(marker),
            None => out.push((i + 1, line)),
        }
    }
    out
}

/// The anchors a file offers: one per heading outside code blocks, with
/// GitHub's `-1`, `-2`, … for repeated headings.
fn anchors(text: &str) -> HashSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = HashSet::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(&line[hashes..]);
            let n = seen.entry(base.clone()).or_insert(0);
            out.insert(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
            *n += 1;
        }
    }
    out
}

/// Every link target in the prose of `text`, with the line it is on. Inline
/// code spans are blanked first, so `[--tier T](…)`-like text in code is no link.
fn links(text: &str) -> Vec<(usize, String)> {
    let lines = prose_lines(text);
    // The prose, with each character's line number.
    let mut chars: Vec<(char, usize)> = Vec::new();
    for (number, line) in lines {
        chars.extend(line.chars().map(|c| (c, number)));
        chars.push(('\n', number));
    }
    // Blank inline code spans (a run of n backticks up to the next run of n).
    let mut i = 0;
    while i < chars.len() {
        if chars[i].0 != '`' {
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|(c, _)| *c == '`').count();
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j].0 == '`' {
                let other = chars[j..].iter().take_while(|(c, _)| *c == '`').count();
                if other == run {
                    close = Some(j);
                    break;
                }
                j += other;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                for c in &mut chars[i..end + run] {
                    if c.0 != '\n' {
                        c.0 = 'x';
                    }
                }
                i = end + run;
            }
            None => i += run,
        }
    }
    let mut out = Vec::new();
    for (k, pair) in chars.windows(2).enumerate() {
        if pair[0].0 == ']' && pair[1].0 == '(' {
            let target: String = chars[k + 2..]
                .iter()
                .map(|(c, _)| *c)
                .take_while(|&c| c != ')' && !c.is_whitespace())
                .collect();
            out.push((pair[0].1, target));
        }
    }
    out
}

fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Checks every relative link of `docs`; returns how many links it checked
/// and each problem found.
fn check(docs: &BTreeMap<PathBuf, String>) -> (usize, Vec<String>) {
    let root = root();
    let mut checked = 0;
    let mut problems = Vec::new();
    for (path, text) in docs {
        let shown = path.strip_prefix(&root).unwrap_or(path).display().to_string();
        for (line, target) in links(text) {
            if ["http://", "https://", "mailto:"].iter().any(|p| target.starts_with(p)) {
                continue;
            }
            checked += 1;
            let (file, anchor) = match target.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (target.as_str(), None),
            };
            let dest = if file.is_empty() {
                path.clone()
            } else {
                normalise(&path.parent().unwrap().join(file))
            };
            let known = docs.get(&dest).cloned();
            if known.is_none() && !dest.exists() {
                problems.push(format!("{shown}:{line}: ({target}): no file {}", dest.display()));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            let body = match known {
                Some(body) => body,
                None => match std::fs::read_to_string(&dest) {
                    Ok(body) => body,
                    Err(e) => {
                        problems.push(format!("{shown}:{line}: ({target}): cannot read: {e}"));
                        continue;
                    }
                },
            };
            if !anchors(&body).contains(anchor) {
                problems.push(format!(
                    "{shown}:{line}: ({target}): no heading with the anchor #{anchor}"
                ));
            }
        }
    }
    (checked, problems)
}

#[test]
fn slugs_are_githubs() {
    assert_eq!(
        slug("The security model, in plain words"),
        "the-security-model-in-plain-words"
    );
    assert_eq!(slug("The record of an agent's work"), "the-record-of-an-agents-work");
    assert_eq!(slug("JSON-RPC as clients send it"), "json-rpc-as-clients-send-it");
    assert_eq!(slug("`graphex_query` & friends"), "graphex_query--friends");
    let repeated = anchors("# A\n## Setup\n```\n## Ignored\n```\n## Setup\n");
    let expected: HashSet<String> = ["a", "setup", "setup-1"].iter().map(|s| s.to_string()).collect();
    assert_eq!(repeated, expected);
}

#[test]
fn the_checker_finds_broken_links() {
    let mut docs = BTreeMap::new();
    docs.insert(
        root().join("docs/self-check.md"),
        "# Self check\n\n[fine](#self-check), [in `code`](../README.md), [broken\nanchor](#nope)\n\
         [missing](no-such-guide.md) and `[not](a-link.md)`\n```\n[ignored](#in-code)\n```\n"
            .to_string(),
    );
    let (checked, problems) = check(&docs);
    assert_eq!(checked, 4, "{problems:?}");
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].contains("#nope") && problems[0].contains(":4:"),
        "{problems:?}"
    );
    assert!(problems[1].contains("no-such-guide.md"), "{problems:?}");
}

#[test]
fn every_link_between_the_readme_and_the_guides_resolves() {
    let docs = documents();
    assert!(docs.len() >= 2, "docs/ holds no guide");
    let (checked, problems) = check(&docs);
    assert!(
        checked > 20,
        "only {checked} relative links found: is the link scanner broken?"
    );
    assert!(problems.is_empty(), "broken links:\n{}", problems.join("\n"));
}

#[test]
fn the_readme_is_an_overview_that_keeps_the_two_commands() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}"
    );
    let section: Vec<&str> = readme
        .lines()
        .skip_while(|l| l.trim_end() != "## Two commands")
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .collect();
    assert!(!section.is_empty(), "README.md has no `## Two commands` section");
    assert!(
        section.iter().any(|l| l.contains("cargo test --workspace")),
        "the `## Two commands` section no longer holds `cargo test --workspace`, which CI runs"
    );
}
