//! Markdown docs: headings and repeated bold terms as concepts, and plain
//! sentences that state a relation between known names.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;

use super::text::{clip, first_sentence, regex, rel_string, sentences, slug, strip_markdown};
use super::walk::{Budget, files, ignored_dir, read_text};
use super::{Draft, EdgeKind, Findings, Rank};
use crate::model::Name;

/// Confidence of everything read from docs.
const CONFIDENCE: f64 = 0.5;
/// Most markdown files read.
const MAX_FILES: usize = 500;
/// Longest concept name made from a heading or bold term.
const MAX_SLUG: usize = 64;

/// Headings that name a kind of section, not a concept (compared lowercase).
const GENERIC: &[&str] = &[
    "overview",
    "introduction",
    "intro",
    "usage",
    "installation",
    "install",
    "license",
    "licence",
    "licensing",
    "contents",
    "table of contents",
    "toc",
    "examples",
    "example",
    "tests",
    "testing",
    "getting started",
    "quick start",
    "quickstart",
    "contributing",
    "changelog",
    "faq",
    "see also",
    "references",
    "notes",
    "summary",
    "todo",
    "requirements",
    "prerequisites",
    "acknowledgements",
    "acknowledgments",
    "credits",
    "authors",
    "development",
    "setup",
    "building",
];

/// A `#` or `##` heading that may become a concept.
struct Heading {
    slug: String,
    text: String,
    source: String,
    description: Option<String>,
}

/// One `**bold**` occurrence.
struct Bold {
    slug: String,
    source: String,
    /// The slug of the `#`/`##` section it is in.
    section: Option<String>,
    /// The sentence that explains it, if one does.
    sentence: Option<String>,
}

/// A sentence `X <relation> Y`, as written.
struct Said {
    from: String,
    relation: String,
    to: String,
}

/// Everything read from the docs, before names are settled.
#[derive(Default)]
struct Reading {
    headings: Vec<Heading>,
    bolds: Vec<Bold>,
    said: Vec<Said>,
}

/// Reads one document as `infer` does and settles what it found (fuzzing).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn read_one(text: &str) -> usize {
    let mut reading = Reading::default();
    read_doc(text, "fuzz.md", &mut reading);
    let n = reading.headings.len() + reading.bolds.len() + reading.said.len();
    let mut found = Findings::default();
    settle(reading, &|_| true, &mut found);
    n
}

/// Reads the repository's markdown and records concepts and edges.
pub(super) fn scan(root: &Path, exists: &dyn Fn(&str) -> bool, found: &mut Findings) {
    let skip = |_: &Path, name: &str| ignored_dir(name);
    let keep = |name: &str| name.to_ascii_lowercase().ends_with(".md");
    let (list, more) = files(root, Path::new(""), &skip, &keep, MAX_FILES);
    if more {
        found.note(format!(
            "only the first {MAX_FILES} markdown files were read (the limit)"
        ));
    }
    let mut budget = Budget::new(MAX_FILES, "markdown files");
    let mut reading = Reading::default();
    for rel in list {
        if let Some(text) = read_text(root, &rel, &mut budget, found) {
            read_doc(&text, &rel_string(&rel), &mut reading);
        }
    }
    settle(reading, exists, found);
}

/// Turns what was read into nodes and edges.
fn settle(reading: Reading, exists: &dyn Fn(&str) -> bool, found: &mut Findings) {
    let concept = |description: String, source: &str| {
        let mut properties = BTreeMap::new();
        properties.insert("source".to_owned(), source.to_owned());
        Draft {
            rank: Rank::Doc,
            node_type: "concept",
            description,
            properties,
            confidence: CONFIDENCE,
        }
    };
    // Earlier findings (crates, modules, earlier headings) keep their names.
    for h in &reading.headings {
        if let Ok(name) = Name::new(&h.slug) {
            let description = h
                .description
                .clone()
                .unwrap_or_else(|| format!("Section \"{}\" of {}", h.text, h.source));
            found.add_node(name, concept(description, &h.source));
        }
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for b in &reading.bolds {
        *counts.entry(&b.slug).or_default() += 1;
    }
    for b in reading
        .bolds
        .iter()
        .filter(|b| counts.get(b.slug.as_str()).is_some_and(|n| *n >= 2))
    {
        let Ok(name) = Name::new(&b.slug) else { continue };
        if !found.has_node(&name) {
            let description = b
                .sentence
                .clone()
                .unwrap_or_else(|| format!("A term emphasised in {}", b.source));
            found.add_node(name.clone(), concept(description, &b.source));
        }
        if let Some(section) = b.section.as_deref().and_then(|s| Name::new(s).ok()) {
            found.add_edge(&section, "related-to", &name, EdgeKind::Doc, CONFIDENCE);
        }
    }
    for s in &reading.said {
        let known = |raw: &str| {
            let raw = raw.to_ascii_lowercase();
            [raw.clone(), raw.replace('_', "-")]
                .into_iter()
                .filter_map(|r| Name::new(&r).ok())
                .find(|n| found.has_node(n) || exists(n.as_str()))
        };
        let (Some(from), Some(to)) = (known(&s.from), known(&s.to)) else {
            continue;
        };
        let words: Vec<&str> = s.relation.split_whitespace().collect();
        match words.as_slice() {
            ["depends", "on"] => found.add_edge(&from, "depends-on", &to, EdgeKind::Doc, CONFIDENCE),
            ["uses"] => found.add_edge(&from, "uses", &to, EdgeKind::Doc, CONFIDENCE),
            ["contains"] => found.add_edge(&from, "contains", &to, EdgeKind::Doc, CONFIDENCE),
            ["is", "part", "of"] => found.add_edge(&to, "contains", &from, EdgeKind::Doc, CONFIDENCE),
            ["supersedes"] => found.add_edge(&from, "supersedes", &to, EdgeKind::Doc, CONFIDENCE),
            _ => {}
        }
    }
}

/// Reads one document's headings, bold terms and relation sentences.
fn read_doc(text: &str, source: &str, reading: &mut Reading) {
    static BOLD: OnceLock<Option<Regex>> = OnceLock::new();
    static SAID: OnceLock<Option<Regex>> = OnceLock::new();
    let bold_re = regex(&BOLD, r"\*\*([^*]+?)\*\*");
    let said_re = regex(
        &SAID,
        concat!(
            r"(?i)(?:^|[^A-Za-z0-9._-])([A-Za-z0-9][A-Za-z0-9._-]*)",
            r"\s+(depends\s+on|uses|contains|is\s+part\s+of|supersedes)\s+",
            r"([A-Za-z0-9][A-Za-z0-9._-]*)",
        ),
    );
    let mut section: Option<String> = None;
    let mut awaiting: Option<usize> = None;
    for block in blocks(text) {
        match block {
            Block::Heading(level, raw) => {
                awaiting = None;
                if level > 2 {
                    continue;
                }
                section = None;
                let text = strip_markdown(&raw);
                let s = slug(&text, MAX_SLUG);
                let generic = GENERIC.contains(&text.trim_end_matches(':').to_lowercase().as_str());
                if generic || s.is_empty() {
                    continue;
                }
                section = Some(s.clone());
                awaiting = Some(reading.headings.len());
                reading.headings.push(Heading {
                    slug: s,
                    text,
                    source: source.to_owned(),
                    description: None,
                });
            }
            Block::Text { text, prose } => {
                let plain = strip_markdown(&text);
                if prose
                    && let Some(i) = awaiting.take()
                    && let Some(h) = reading.headings.get_mut(i)
                {
                    let sentence = first_sentence(&plain);
                    h.description = (!sentence.is_empty()).then(|| clip(&sentence, 300));
                }
                for g in bold_re.into_iter().flat_map(|re| re.captures_iter(&text)) {
                    let Some((term, s)) = g.get(1).and_then(|m| bold_term(m.as_str())) else {
                        continue;
                    };
                    reading.bolds.push(Bold {
                        slug: s,
                        source: source.to_owned(),
                        section: section.clone(),
                        sentence: explaining(&plain, &term),
                    });
                }
                for c in said_re.into_iter().flat_map(|re| re.captures_iter(&plain)) {
                    if let (Some(from), Some(relation), Some(to)) = (c.get(1), c.get(2), c.get(3)) {
                        let trim = |s: &str| s.trim_end_matches(['.', '-', '_']).to_owned();
                        reading.said.push(Said {
                            from: trim(from.as_str()),
                            relation: relation.as_str().to_ascii_lowercase(),
                            to: trim(to.as_str()),
                        });
                    }
                }
            }
        }
    }
}

/// A bold span as a term and its slug, if it looks like a name: 2 to 40
/// characters, at most 5 words, with a letter.
fn bold_term(raw: &str) -> Option<(String, String)> {
    let term = strip_markdown(raw);
    let term = term.trim_end_matches(['.', ':', ',', ';', '!', '?']).trim().to_owned();
    let chars = term.chars().count();
    let ok = (2..=40).contains(&chars) && term.split_whitespace().count() <= 5 && term.chars().any(char::is_alphabetic);
    let s = slug(&term, MAX_SLUG);
    (ok && !s.is_empty()).then_some((term, s))
}

/// The sentence of `plain` that explains `term`: the first one naming it,
/// or the one after it when the term stands alone (`**Term.** Meaning.`).
fn explaining(plain: &str, term: &str) -> Option<String> {
    let lower = term.to_lowercase();
    let all = sentences(plain);
    let i = all.iter().position(|s| s.to_lowercase().contains(&lower))?;
    let alone = all[i].trim_end_matches(['.', ':', '!', '?']).trim().to_lowercase() == lower;
    let sentence = if alone { all.get(i + 1)? } else { &all[i] };
    Some(clip(sentence, 300))
}

/// A block of a markdown document outside code.
enum Block {
    /// A heading: its level and raw text.
    Heading(usize, String),
    /// A paragraph, list item or table row, lines joined; only paragraphs
    /// describe a heading.
    Text { text: String, prose: bool },
}

/// Splits a document into headings and text blocks, dropping code blocks,
/// front matter, HTML lines and rules.
fn blocks(text: &str) -> Vec<Block> {
    static HEADING: OnceLock<Option<Regex>> = OnceLock::new();
    static ITEM: OnceLock<Option<Regex>> = OnceLock::new();
    let (Some(heading_re), Some(item_re)) = (
        regex(&HEADING, r"^(#{1,6})(?:[ \t]+(.*))?$"),
        regex(&ITEM, r"^(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$"),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // The open paragraph or list item, and whether it is a paragraph.
    let mut para: Option<(String, bool)> = None;
    let flush = |para: &mut Option<(String, bool)>, out: &mut Vec<Block>| {
        if let Some((text, prose)) = para.take() {
            out.push(Block::Text { text, prose });
        }
    };
    let mut fence: Option<(char, usize)> = None;
    let mut lines = text.lines().peekable();
    if lines.peek().is_some_and(|l| l.trim_end() == "---") {
        lines.next();
        for l in lines.by_ref() {
            if matches!(l.trim_end(), "---" | "...") {
                break;
            }
        }
    }
    for line in lines {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let trimmed = trimmed.trim_end();
        if let Some((ch, n)) = fence {
            let run = trimmed.chars().take_while(|c| *c == ch).count();
            if indent <= 3 && run >= n && trimmed.chars().all(|c| c == ch) {
                fence = None;
            }
            continue;
        }
        if indent <= 3 && (trimmed.starts_with("```") || trimmed.starts_with("~~~")) {
            flush(&mut para, &mut out);
            let ch = trimmed.chars().next().unwrap_or('`');
            fence = Some((ch, trimmed.chars().take_while(|c| *c == ch).count()));
            continue;
        }
        if trimmed.is_empty() {
            flush(&mut para, &mut out);
            continue;
        }
        if para.is_none() && indent >= 4 {
            continue; // an indented code block
        }
        if indent <= 3
            && let Some(c) = heading_re.captures(trimmed)
        {
            flush(&mut para, &mut out);
            let level = c.get(1).map_or(1, |m| m.len());
            out.push(Block::Heading(level, heading_text(c.get(2).map_or("", |m| m.as_str()))));
            continue;
        }
        let rule = trimmed.len() >= 3 && trimmed.chars().all(|c| matches!(c, '-' | '=' | '*' | '_' | ' '));
        if rule || trimmed.starts_with('<') {
            flush(&mut para, &mut out);
            continue;
        }
        if trimmed.starts_with('|') {
            flush(&mut para, &mut out);
            out.push(Block::Text {
                text: trimmed.to_owned(),
                prose: false,
            });
            continue;
        }
        let content = trimmed.trim_start_matches('>').trim_start();
        if let Some(c) = item_re.captures(content) {
            flush(&mut para, &mut out);
            para = Some((c.get(1).map_or("", |m| m.as_str()).to_owned(), false));
            continue;
        }
        match &mut para {
            Some((p, _)) => {
                p.push(' ');
                p.push_str(content);
            }
            None => para = Some((content.to_owned(), true)),
        }
    }
    flush(&mut para, &mut out);
    out
}

/// A heading's text without a closing `#` sequence.
fn heading_text(raw: &str) -> String {
    let t = raw.trim();
    let stripped = t.trim_end_matches('#');
    if stripped.is_empty() || stripped.ends_with([' ', '\t']) {
        stripped.trim().to_owned()
    } else {
        t.to_owned()
    }
}
