//! Text helpers shared by the readers: node-name normalisation, slugs,
//! markdown stripping, first sentences and clipping.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;

use crate::model::Name;

/// A lazily compiled regex; `None` only if the pattern were invalid (it is a
/// constant, so in practice never), in which case the reader finds nothing.
pub(super) fn regex(cell: &'static OnceLock<Option<Regex>>, pattern: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(pattern).ok()).as_ref()
}

/// `path` with `/` separators, as recorded in `sources` and properties.
pub(super) fn rel_string(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// Resolves `.` and `..` lexically; `None` if the path is absolute or climbs
/// above its start.
pub(super) fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(s) => out.push(s),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// A crate or module identifier as a node name: lowercase, `_` and anything
/// else outside the name alphabet become `-`.
pub(super) fn ident_name(raw: &str) -> Option<Name> {
    let s: String = raw
        .trim_start_matches("r#")
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    Name::new(&s).ok()
}

/// A slug of free text: lowercase ASCII letters and digits, words joined by
/// `-`, a leading article dropped, at most `max` characters (cut at a word).
pub(super) fn slug(text: &str, max: usize) -> String {
    let mut s = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.is_empty() && !s.ends_with('-') {
            s.push('-');
        }
    }
    let mut s = s.trim_end_matches('-').to_owned();
    for article in ["the-", "a-", "an-"] {
        if let Some(rest) = s.strip_prefix(article)
            && !rest.is_empty()
        {
            s = rest.to_owned();
            break;
        }
    }
    if s.len() > max {
        let cut = &s[..max];
        let cut = match cut.rfind('-') {
            Some(i) if !s[max..].starts_with('-') && i > 0 => &cut[..i],
            _ => cut,
        };
        s = cut.trim_end_matches('-').to_owned();
    }
    s
}

/// Markdown reduced to plain text: links and images to their text, emphasis
/// marks removed outside code spans, backticks dropped, control characters
/// and runs of spaces collapsed.
pub(super) fn strip_markdown(text: &str) -> String {
    static LINK: OnceLock<Option<Regex>> = OnceLock::new();
    let linked = match regex(&LINK, r"!?\[([^\]\n]*)\](?:\([^)\n]*\)|\[[^\]\n]*\])?") {
        Some(re) => re.replace_all(text, "$1").into_owned(),
        None => text.to_owned(),
    };
    // Backticks split the text into prose (even pieces) and code (odd pieces,
    // kept as written).
    let plain: String = linked
        .split('`')
        .enumerate()
        .flat_map(|(i, piece)| piece.chars().filter(move |c| i % 2 == 1 || *c != '*'))
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    plain.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Words whose trailing `.` does not end a sentence.
const ABBREVIATIONS: &[&str] = &["e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "no", "fig"];

/// The sentences of plain text, in order.
pub(super) fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let at_break = chars.get(k + 1).is_none_or(|&(_, n)| n.is_whitespace());
        if !at_break {
            continue;
        }
        let word = text[start..i].rsplit(char::is_whitespace).next().unwrap_or("");
        let word = word
            .trim_start_matches(|ch: char| !ch.is_alphanumeric())
            .to_ascii_lowercase();
        if c == '.' && (ABBREVIATIONS.contains(&word.as_str()) || word.chars().count() == 1) {
            continue;
        }
        let end = i + c.len_utf8();
        let sentence = text[start..end].trim();
        if !sentence.is_empty() {
            out.push(sentence);
        }
        start = end;
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// The first sentence of plain text.
pub(super) fn first_sentence(text: &str) -> String {
    sentences(text).first().map(|s| (*s).to_owned()).unwrap_or_default()
}

/// `text` cut to at most `max` characters, at a word where possible, with an
/// ellipsis when cut.
pub(super) fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max.saturating_sub(1)).collect();
    let cut = match cut.rfind(char::is_whitespace) {
        Some(i) if i > cut.len() / 2 => &cut[..i],
        _ => cut.as_str(),
    };
    format!(
        "{}…",
        cut.trim_end_matches(|c: char| c.is_whitespace() || c == ',' || c == ';')
    )
}
