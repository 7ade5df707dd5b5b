//! Hygiene for a program that holds decrypted keys and content.
//!
//! The process: no core dumps, and (on Linux) not dumpable, so a crash
//! leaves no memory image on disk and other processes of the same user
//! cannot attach to it and read its memory.
//!
//! Text: node text, proposals and reasons may be written by an agent, and an
//! agent's text is data. Before it reaches a screen, a card or a file a
//! person reads, every character that a terminal would act on (escape
//! sequences, C0 and C1 controls) or that would hide or reorder what is
//! shown (bidirectional overrides, zero-width characters) is replaced by a
//! visible escape such as `\x1b` or `\u{202e}`. One list, used by every
//! output, so no path forgets one.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::error::{Error, Result};

/// Turns core dumps off for this process. Call once, first thing.
pub fn harden_process() -> Result<()> {
    let fail = |what: &str, e: rustix::io::Errno| Error::integrity("process hardening", format!("{what}: {e}"));
    rustix::process::setrlimit(
        rustix::process::Resource::Core,
        rustix::process::Rlimit {
            current: Some(0),
            maximum: Some(0),
        },
    )
    .map_err(|e| fail("setting the core size limit to 0", e))?;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
        .map_err(|e| fail("marking the process not dumpable", e))?;
    Ok(())
}

/// True for a character that must never reach a reader raw: controls (C0,
/// DEL, C1; ESC starts every terminal escape sequence), bidirectional
/// marks, embeddings, overrides and isolates (they reorder what is shown),
/// zero-width and invisible characters (they hide text or make two names
/// look the same), and the Unicode line and paragraph separators.
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{00ad}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{206a}'..='\u{206f}'
                | '\u{feff}'
                | '\u{fff9}'..='\u{fffb}'
                // Combining grapheme joiner, Hangul fillers, variation
                // selectors and tag characters: invisible, and able to
                // carry text a reader never sees.
                | '\u{034f}'
                | '\u{115f}'..='\u{1160}'
                | '\u{3164}'
                | '\u{ffa0}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{e0000}'..='\u{e007f}'
                | '\u{e0100}'..='\u{e01ef}'
        )
}

fn escape_into(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c if u32::from(c) < 0x100 => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        c => {
            let _ = write!(out, "\\u{{{:04x}}}", u32::from(c));
        }
    }
}

fn replace(s: &str, hide: impl Fn(char) -> bool, with: fn(&mut String, char)) -> Cow<'_, str> {
    if !s.chars().any(&hide) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if hide(c) {
            with(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` safe to show on one line: every hidden character, line breaks and
/// tabs included, becomes a visible escape (`\x1b`, `\n`, `\u{202e}`).
pub fn visible_line(s: &str) -> Cow<'_, str> {
    replace(s, is_hidden, escape_into)
}

/// `s` safe to show as text of several lines: as [`visible_line`], but line
/// breaks and tabs are kept.
pub fn visible_text(s: &str) -> Cow<'_, str> {
    replace(s, |c| c != '\n' && c != '\t' && is_hidden(c), escape_into)
}

/// JSON text with every hidden character that the serializer leaves raw
/// (DEL, C1 controls, bidirectional and zero-width characters) written as a
/// `\uXXXX` escape: the same data once parsed, inert on a screen. Such
/// characters only occur inside JSON strings, where the escape is valid.
pub fn json_safe(json: &str) -> Cow<'_, str> {
    replace(
        json,
        |c| c != '\n' && is_hidden(c),
        |out, c| {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{u:04x}");
            }
        },
    )
}

/// The most spaces in a row shown as they are in agent text; a longer run
/// is shown as a count, so padding cannot push what follows off a screen.
const SPACE_RUN: usize = 8;

/// Agent text as lines for a card, where it must never look like the card's
/// own structure: each line made visible ([`visible_line`]), long runs of
/// spaces shown as `␣×N`, runs of blank lines kept as one, blank lines at
/// either end dropped, and at most `max` lines kept, the rest counted in a
/// last line "… (N more lines)". The caller draws each line behind a quote
/// gutter.
pub fn agent_lines(text: &str, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for raw in text.split('\n') {
        let line = squeeze_spaces(&visible_line(raw));
        let blank = line.trim().is_empty();
        if blank && lines.last().is_none_or(|l| l.is_empty()) {
            continue;
        }
        lines.push(if blank { String::new() } else { line });
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    if lines.len() > max {
        let more = lines.len() - max;
        lines.truncate(max);
        lines.push(format!("… ({more} more line{})", if more == 1 { "" } else { "s" }));
    }
    lines
}

fn squeeze_spaces(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut run = 0;
    let flush = |out: &mut String, run: usize| {
        if run > SPACE_RUN {
            let _ = write!(out, " ␣×{run} ");
        } else {
            out.extend(std::iter::repeat_n(' ', run));
        }
    };
    for c in line.chars() {
        if c == ' ' {
            run += 1;
        } else {
            flush(&mut out, run);
            run = 0;
            out.push(c);
        }
    }
    flush(&mut out, run);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_escapes_bidi_and_zero_width_become_visible() {
        let hostile = "a\u{1b}]0;pwned\u{7}b\u{9b}2Jc\u{202e}d\u{2066}e\u{200b}f\u{feff}g\rh\u{7f}";
        let line = visible_line(hostile);
        assert_eq!(
            line,
            "a\\x1b]0;pwned\\x07b\\x9b2Jc\\u{202e}d\\u{2066}e\\u{200b}f\\u{feff}g\\rh\\x7f"
        );
        assert!(!line.chars().any(is_hidden));
        assert_eq!(visible_line("x\ny\tz"), "x\\ny\\tz");
        assert_eq!(visible_text("x\ny\tz\u{1b}"), "x\ny\tz\\x1b");
        assert!(matches!(visible_text("plain ünïcödé → ok"), Cow::Borrowed(_)));
        // Tag characters can spell a whole hidden instruction.
        let tagged: String = "ok"
            .chars()
            .chain("ignore".chars().map(|c| char::from_u32(0xe0000 + c as u32).unwrap()))
            .collect();
        assert_eq!(
            visible_line(&tagged),
            "ok\\u{e0069}\\u{e0067}\\u{e006e}\\u{e006f}\\u{e0072}\\u{e0065}"
        );
        assert!(visible_line("a\u{fe0f}b\u{034f}").contains("\\u{fe0f}"));
    }

    #[test]
    fn agent_lines_cannot_pad_spoof_or_run_on() {
        let text = "\n\nfirst\u{202e}\n\n\n\n\nsecond\u{1b}[1A\nLints: none".to_owned() + &" ".repeat(300) + "x\n\n\n";
        assert_eq!(
            agent_lines(&text, 10),
            ["first\\u{202e}", "", "second\\x1b[1A", "Lints: none ␣×300 x"]
        );
        let long: String = (0..40).map(|i| format!("line {i}\n")).collect();
        let shown = agent_lines(&long, 12);
        assert_eq!(shown.len(), 13);
        assert_eq!(shown[12], "… (28 more lines)");
        assert!(agent_lines("\n \n", 5).is_empty());
    }

    #[test]
    fn json_keeps_its_data_and_loses_its_raw_controls() {
        let v = serde_json::json!({"d": "a\u{9b}b\u{202e}c\u{1b}\u{1F600}"});
        let raw = serde_json::to_string_pretty(&v).unwrap();
        assert!(raw.contains('\u{9b}'), "serde leaves C1 raw, hence json_safe");
        let safe = json_safe(&raw);
        assert!(!safe.chars().any(|c| c != '\n' && is_hidden(c)), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn core_dumps_are_off_and_the_process_is_not_dumpable() {
        harden_process().unwrap();
        let limit = rustix::process::getrlimit(rustix::process::Resource::Core);
        assert_eq!((limit.current, limit.maximum), (Some(0), Some(0)));
        #[cfg(target_os = "linux")]
        assert_eq!(
            rustix::process::dumpable_behavior().unwrap(),
            rustix::process::DumpableBehavior::NotDumpable
        );
    }
}
