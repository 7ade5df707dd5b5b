//! Syntax highlighting: the proposal JSON a reviewer edits, and the query
//! language of the Query pane. Turns lines of (possibly half-typed) text into
//! toned spans for the editors and previews.
//!
//! The grammars are our own (`assets/syntax/proposal-json.sublime-syntax`,
//! `assets/syntax/query.sublime-syntax`), run by syntect's parser only; we
//! never use syntect themes, since colours come from our [`Tone`] table. Highlighting is best effort and infallible: whatever goes
//! wrong, every input line comes back as exactly one [`RichLine`] whose text is
//! the line, byte for byte.

use std::sync::OnceLock;

use anyhow::{Context as _, Result};
use syntect::parsing::{ParseState, Scope, ScopeStack, ScopeStackOp, SyntaxDefinition, SyntaxSet, SyntaxSetBuilder};

use crate::widgets::{RichLine, Tone};

/// A grammar and how its scopes are coloured.
struct Grammar {
    name: &'static str,
    syntax: &'static str,
    root: &'static str,
    /// Checked in order against the whole scope stack, first hit wins.
    rules: &'static [(&'static str, Tone)],
    /// Touches every rule of the grammar. syntect compiles each regex
    /// lazily on its first search, so parsing this once during loading
    /// moves that cost off the first keystroke.
    warm: &'static str,
}

const PROPOSAL_JSON: Grammar = Grammar {
    name: "proposal JSON",
    syntax: include_str!("../../assets/syntax/proposal-json.sublime-syntax"),
    root: "source.proposal-json",
    // Not "innermost scope wins": a key's quotes and escapes sit inside
    // `string.*` and `punctuation.*` scopes yet must read as part of the
    // key, and an error anywhere inside a string must still show as one.
    rules: &[
        ("invalid", Tone::Error),
        ("meta.mapping.key", Tone::Field),
        ("string", Tone::Str),
        ("constant.numeric", Tone::Number),
        ("constant.language", Tone::Keyword),
        ("punctuation", Tone::Punct),
    ],
    warm: "{\n  \"k\\\"\\u00e9\": [\"v\\n\\q\t\", -1.5e+3, true, false, null, @],\n  \"open",
};

const QUERY: Grammar = Grammar {
    name: "query",
    syntax: include_str!("../../assets/syntax/query.sublime-syntax"),
    root: "source.graphex-query",
    rules: &[
        ("invalid", Tone::Error),
        ("keyword.operator.arrow", Tone::Keyword),
        ("entity.name.relation", Tone::Field),
        ("string.glob", Tone::Str),
        ("entity.name.node", Tone::Accent),
        ("variable.parameter.flag", Tone::Key),
        ("constant.other.value", Tone::Number),
    ],
    warm: "a* -> uses -> b <-> c -> r?l -> d -> -> --depth 2 --bogus x @",
};

/// The loaded grammar plus the scope prefixes we colour, resolved once.
struct Highlighter {
    set: SyntaxSet,
    root: Scope,
    /// Checked in order against the whole scope stack, first hit wins. Not
    /// "innermost scope wins": a key's quotes and escapes sit inside
    /// `string.*` and `punctuation.*` scopes yet must read as part of the key,
    /// and an error anywhere inside a string must still show as an error.
    rules: Vec<(Scope, Tone)>,
}

static JSON: OnceLock<Option<Highlighter>> = OnceLock::new();
static QUERIES: OnceLock<Option<Highlighter>> = OnceLock::new();

/// Highlights lines of proposal JSON. Never fails: on any parser error the remaining text of a line is Tone::Normal.
///
/// Lines come without their newline. An empty line yields an empty
/// [`RichLine`]; adjacent spans never share a tone. No state carries from one
/// line to the next, so highlighting just the visible lines gives the same
/// result as highlighting the whole text.
pub fn json_lines(lines: &[String]) -> Vec<RichLine> {
    highlight(&JSON, &PROPOSAL_JSON, lines)
}

/// Highlights lines of the query language, on the same terms as
/// [`json_lines`]: names, globs, arrows, relations, flags, values, errors.
pub fn query_lines(lines: &[String]) -> Vec<RichLine> {
    highlight(&QUERIES, &QUERY, lines)
}

/// Loads and warms the grammars now. Call it from a background thread at
/// startup so the first keystroke on the UI thread does not pay for it.
pub fn warm() {
    let _ = highlighter(&JSON, &PROPOSAL_JSON);
    let _ = highlighter(&QUERIES, &QUERY);
}

fn highlight(cell: &'static OnceLock<Option<Highlighter>>, g: &Grammar, lines: &[String]) -> Vec<RichLine> {
    match highlighter(cell, g) {
        Some(h) => h.lines(lines),
        None => lines.iter().map(|l| plain(l)).collect(),
    }
}

fn highlighter(cell: &'static OnceLock<Option<Highlighter>>, g: &Grammar) -> Option<&'static Highlighter> {
    cell.get_or_init(|| {
        // Logged rather than surfaced: the console stays usable uncoloured.
        load(g)
            .inspect_err(|e| tracing::warn!("{} highlighting disabled: {e:#}", g.name))
            .ok()
    })
    .as_ref()
}

fn load(g: &Grammar) -> Result<Highlighter> {
    // `true`: we feed lines with their `\n`, as Sublime grammars expect.
    let def = SyntaxDefinition::load_from_str(g.syntax, true, None)
        .with_context(|| format!("parsing the {} grammar", g.name))?;
    let mut builder = SyntaxSetBuilder::new();
    builder.add(def);
    let set = builder.build();
    let root = Scope::new(g.root).context("root scope")?;
    set.find_syntax_by_scope(root)
        .with_context(|| format!("the grammar does not declare scope {}", g.root))?;
    let rules = g
        .rules
        .iter()
        .map(|(s, t)| Ok((Scope::new(s).with_context(|| format!("scope {s}"))?, *t)))
        .collect::<Result<Vec<_>>>()?;
    let h = Highlighter { set, root, rules };
    let warm: Vec<String> = g.warm.lines().map(str::to_owned).collect();
    let _ = h.lines(&warm);
    Ok(h)
}

impl Highlighter {
    fn lines(&self, lines: &[String]) -> Vec<RichLine> {
        let Some(syntax) = self.set.find_syntax_by_scope(self.root) else {
            return lines.iter().map(|l| plain(l)).collect();
        };
        let mut state = ParseState::new(syntax);
        let mut stack = ScopeStack::new();
        let mut buf = String::new();
        let mut out = Vec::with_capacity(lines.len());
        for line in lines {
            buf.clear();
            buf.push_str(line);
            buf.push('\n');
            let parsed = state.parse_line(&buf, &self.set);
            let (rich, clean) = match parsed {
                Ok(ops) => self.spans(line, &ops, &mut stack),
                Err(_) => (plain(line), false),
            };
            if !clean {
                // The parser's or our stack may now disagree with the text;
                // the grammar is line-local, so a fresh start loses nothing.
                state = ParseState::new(syntax);
                stack = ScopeStack::new();
            }
            out.push(rich);
        }
        out
    }

    /// Cuts `line` at the parser's scope changes. Returns false when a scope
    /// operation failed, after giving the rest of the line Tone::Normal.
    fn spans(&self, line: &str, ops: &[(usize, ScopeStackOp)], stack: &mut ScopeStack) -> (RichLine, bool) {
        let mut rich = RichLine::new();
        let mut start = 0;
        for (pos, op) in ops {
            // Offsets past the line are the `\n` we appended.
            let end = (*pos).min(line.len());
            if end > start {
                // Not a char boundary (syntect should never do that): leave
                // `start` alone so these bytes join the next span intact.
                if let Some(text) = line.get(start..end) {
                    push(&mut rich, text, self.tone(stack.as_slice()));
                    start = end;
                }
            }
            if stack.apply(op).is_err() {
                push(&mut rich, line.get(start..).unwrap_or_default(), Tone::Normal);
                return (rich, false);
            }
        }
        push(
            &mut rich,
            line.get(start..).unwrap_or_default(),
            self.tone(stack.as_slice()),
        );
        (rich, true)
    }

    fn tone(&self, scopes: &[Scope]) -> Tone {
        self.rules
            .iter()
            .find(|(prefix, _)| scopes.iter().any(|s| prefix.is_prefix_of(*s)))
            .map_or(Tone::Normal, |(_, t)| *t)
    }
}

/// Appends `text`, merging into the last span when the tone matches.
fn push(rich: &mut RichLine, text: &str, tone: Tone) {
    if text.is_empty() {
        return;
    }
    match rich.last_mut() {
        Some((last, t)) if *t == tone => last.push_str(text),
        _ => rich.push((text.to_owned(), tone)),
    }
}

fn plain(line: &str) -> RichLine {
    let mut rich = RichLine::new();
    push(&mut rich, line, Tone::Normal);
    rich
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| (*s).to_owned()).collect()
    }

    fn one(line: &str) -> RichLine {
        json_lines(&[line.to_owned()]).remove(0)
    }

    /// The tone of the first occurrence of `needle`; panics if the needle is
    /// missing or straddles two tones, so asserts on it are exact.
    fn tone_of(rich: &RichLine, needle: &str) -> Tone {
        let text: String = rich.iter().map(|(s, _)| s.as_str()).collect();
        let at = text
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} not in {text:?}"));
        let (from, to) = (at, at + needle.len());
        let mut offset = 0;
        let mut tones = Vec::new();
        for (s, t) in rich {
            let (a, b) = (offset, offset + s.len());
            if a < to && from < b {
                tones.push(*t);
            }
            offset = b;
        }
        assert_eq!(tones.len(), 1, "{needle:?} spans several tones in {rich:?}");
        tones[0]
    }

    /// The invariants every output must keep, whatever the input.
    fn assert_faithful(input: &[String], output: &[RichLine]) {
        assert_eq!(input.len(), output.len(), "one RichLine per line");
        for (line, rich) in input.iter().zip(output) {
            let joined: String = rich.iter().map(|(s, _)| s.as_str()).collect();
            assert_eq!(&joined, line, "text changed: {rich:?}");
            assert!(rich.iter().all(|(s, _)| !s.is_empty()), "empty span in {rich:?}");
            assert!(rich.windows(2).all(|w| w[0].1 != w[1].1), "unmerged spans in {rich:?}");
        }
    }

    #[test]
    fn syntax_loads_and_compiles() {
        for (cell, g) in [(&JSON, &PROPOSAL_JSON), (&QUERIES, &QUERY)] {
            let h = load(g).unwrap();
            assert!(h.set.find_syntax_by_scope(h.root).is_some());
            assert!(
                highlighter(cell, g).is_some(),
                "the shared {} highlighter must not fall back to plain text",
                g.name
            );
        }
    }

    #[test]
    fn pretty_proposal_gets_json_tones() {
        let value = serde_json::json!({"agent": "a", "trust": 94.2, "ok": true, "changes": [{"op": "add_node"}]});
        let lines: Vec<String> = serde_json::to_string_pretty(&value)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        let out = json_lines(&lines);
        assert_faithful(&lines, &out);
        let find = |needle: &str| {
            let i = lines.iter().position(|l| l.contains(needle)).unwrap();
            tone_of(&out[i], needle)
        };
        for key in ["\"agent\"", "\"trust\"", "\"ok\"", "\"changes\"", "\"op\""] {
            assert_eq!(find(key), Tone::Field, "key {key}");
        }
        assert_eq!(find("\"a\""), Tone::Str);
        assert_eq!(find("\"add_node\""), Tone::Str);
        assert_eq!(find("94.2"), Tone::Number);
        assert_eq!(find("true"), Tone::Keyword);
        assert_eq!(tone_of(&out[0], "{"), Tone::Punct);
        assert_eq!(tone_of(&out[lines.len() - 1], "}"), Tone::Punct);
        assert_eq!(find("["), Tone::Punct);
        assert_eq!(find(":"), Tone::Punct);
        assert_eq!(find(","), Tone::Punct);
        // Indentation is plain, not an error.
        assert_eq!(tone_of(&out[1], "  "), Tone::Normal);
    }

    #[test]
    fn keys_and_values_are_told_apart() {
        let rich = one(r#"  "a\"b:" : "c": "d","#);
        assert_eq!(tone_of(&rich, r#""a\"b:""#), Tone::Field);
        // A value followed by `:` is syntactically a key; the `"d"` is not.
        assert_eq!(tone_of(&rich, r#""c""#), Tone::Field);
        assert_eq!(tone_of(&rich, r#""d""#), Tone::Str);
        let rich = one(r#"["x", "y"]"#);
        assert_eq!(tone_of(&rich, r#""x""#), Tone::Str);
        assert_eq!(tone_of(&rich, r#""y""#), Tone::Str);
    }

    #[test]
    fn literals_numbers_and_escapes() {
        let rich = one(r#"[-1.5e+3, 0, null, false, "t\u00e9\n"]"#);
        assert_eq!(tone_of(&rich, "-1.5e+3"), Tone::Number);
        assert_eq!(tone_of(&rich, "0"), Tone::Number);
        assert_eq!(tone_of(&rich, "null"), Tone::Keyword);
        assert_eq!(tone_of(&rich, "false"), Tone::Keyword);
        assert_eq!(tone_of(&rich, r#""t\u00e9\n""#), Tone::Str);
    }

    #[test]
    fn mistakes_show_as_errors() {
        assert_eq!(tone_of(&one("@@@"), "@@@"), Tone::Error);
        assert_eq!(tone_of(&one("  nul,"), "nul"), Tone::Error);
        assert_eq!(tone_of(&one("[1.]"), "1."), Tone::Error);
        assert_eq!(tone_of(&one("[01]"), "01"), Tone::Error);
        assert_eq!(tone_of(&one("[truex]"), "truex"), Tone::Error);
        let rich = one(r#""a\qb""#);
        assert_eq!(tone_of(&rich, r"\q"), Tone::Error);
        assert_eq!(tone_of(&rich, "b\""), Tone::Str);
        // A raw tab inside a string is rejected by serde_json; as indentation it is fine.
        let rich = one("\t\"k\": \"a\tb\"");
        let expected = [
            ("\t", Tone::Normal),
            ("\"k\"", Tone::Field),
            (":", Tone::Punct),
            (" ", Tone::Normal),
            ("\"a", Tone::Str),
            ("\t", Tone::Error),
            ("b\"", Tone::Str),
        ];
        assert_eq!(rich, expected.map(|(s, t)| (s.to_owned(), t)));
    }

    #[test]
    fn unterminated_string_stays_on_its_line() {
        let lines = owned(&[r#"  "abc"#, r#"  "k": 1,"#, r#"  "v\"#, "  true"]);
        let out = json_lines(&lines);
        assert_faithful(&lines, &out);
        assert_eq!(tone_of(&out[0], "\"abc"), Tone::Str);
        assert_eq!(tone_of(&out[1], "\"k\""), Tone::Field);
        assert_eq!(tone_of(&out[1], "1"), Tone::Number);
        assert_eq!(tone_of(&out[2], "\\"), Tone::Error);
        assert_eq!(tone_of(&out[3], "true"), Tone::Keyword);
    }

    #[test]
    fn unicode_is_kept_whole() {
        let rich = one(r#"  "ünïcødé ✓": "ünïcødé ✓","#);
        let expected = [
            ("  ", Tone::Normal),
            (r#""ünïcødé ✓""#, Tone::Field),
            (":", Tone::Punct),
            (" ", Tone::Normal),
            (r#""ünïcødé ✓""#, Tone::Str),
            (",", Tone::Punct),
        ];
        assert_eq!(rich, expected.map(|(s, t)| (s.to_owned(), t)));
        assert_eq!(one("ünï"), vec![("ünï".to_owned(), Tone::Error)]);
    }

    #[test]
    fn empty_input_and_empty_lines() {
        assert!(json_lines(&[]).is_empty());
        let lines = owned(&["", "{", "", "}", ""]);
        let out = json_lines(&lines);
        assert_faithful(&lines, &out);
        assert!(out[0].is_empty() && out[2].is_empty() && out[4].is_empty());
    }

    const UGLY: &[&str] = &[
        "",
        " ",
        "\t",
        "\t\t\"k\":\t1,\t",
        "\"abc",
        "\"",
        "\"\"\"\"\"",
        "@@@",
        "\"ünïcødé ✓\"",
        "\"ünïcødé ✓",
        "ünïcødé",
        "e\u{301}\"e\u{301}\":e\u{301}",
        "\"😀\": \"😀\\u00\"",
        "\"\\",
        "\\",
        "\"a\\\"b\": \"c\\\\\"",
        "\"\\uZZZZ\\u12\"",
        "\u{0}\u{1}\u{7f}\"\u{0}\u{1b}[31m\"",
        "\r",
        "\"x\"\r",
        "a\nb",
        "\"a\nb\": 1",
        "}}}]]]{{{[[[",
        ":::,,,",
        "-",
        "--1",
        "1e",
        "1.0.0",
        "-0.0e-0",
        "truefalsenull",
        "true:false",
        "\"key\":\"val\":",
        "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}",
        "  \"changes\": [ { \"op\": \"add_node\", \"id\": 7 } ],",
        "\u{feff}{}",
        "\u{2028}\u{a0}\"\u{2028}\"",
    ];

    #[test]
    fn ugly_inputs_round_trip() {
        let lines = owned(UGLY);
        // Together, so parser state carries from line to line...
        assert_faithful(&lines, &json_lines(&lines));
        // ...backwards, so each line follows a different one...
        let reversed: Vec<String> = lines.iter().rev().cloned().collect();
        assert_faithful(&reversed, &json_lines(&reversed));
        // ...and alone.
        for line in &lines {
            let single = std::slice::from_ref(line);
            assert_faithful(single, &json_lines(single));
        }
        let long = vec!["\"".repeat(2000) + &"\\\"é:".repeat(2000)];
        assert_faithful(&long, &json_lines(&long));
    }

    #[test]
    fn random_fragments_round_trip() {
        const BITS: &[&str] = &[
            "\"", "\\", ":", ",", "{", "}", "[", "]", " ", "\t", "1", "-", ".", "e", "true", "nul", "é", "✓", "😀",
            "\\u", "\\n", "\"k\":", "@", "\u{0}", "\r", "\u{301}",
        ];
        // A fixed LCG keeps the run reproducible without a proptest dependency.
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(seed >> 33).unwrap() % n
        };
        let lines: Vec<String> = (0..400)
            .map(|_| (0..next(24)).map(|_| BITS[next(BITS.len())]).collect())
            .collect();
        let out = json_lines(&lines);
        assert_faithful(&lines, &out);
        // The grammar is line-local, so a caller may highlight only the visible
        // lines and get the same tones as for the whole document.
        for (line, rich) in lines.iter().zip(&out) {
            assert_eq!(
                &json_lines(std::slice::from_ref(line))[0],
                rich,
                "context leaked into {line:?}"
            );
        }
        // Not vacuous: the fragments must have produced every syntax tone.
        for tone in [
            Tone::Field,
            Tone::Str,
            Tone::Number,
            Tone::Keyword,
            Tone::Punct,
            Tone::Error,
        ] {
            assert!(out.iter().flatten().any(|(_, t)| *t == tone), "no {tone:?} produced");
        }
    }

    fn query(line: &str) -> RichLine {
        query_lines(&[line.to_owned()]).remove(0)
    }

    #[test]
    fn query_token_classes_each_have_their_tone() {
        let q = query("orders-* -> depends-on -> currency-utils <-> r?l -> *x --depth 2 --bogus 3 @");
        assert_eq!(tone_of(&q, "orders-*"), Tone::Str, "{q:?}");
        assert_eq!(tone_of(&q, "->"), Tone::Keyword);
        assert_eq!(tone_of(&q, "<->"), Tone::Keyword);
        assert_eq!(tone_of(&q, "depends-on"), Tone::Field);
        assert_eq!(tone_of(&q, "currency-utils"), Tone::Accent);
        assert_eq!(tone_of(&q, "r?l"), Tone::Str, "a glob in a relation's place");
        assert_eq!(tone_of(&q, "--depth"), Tone::Key);
        assert_eq!(tone_of(&q, "2"), Tone::Number);
        assert_eq!(tone_of(&q, "--bogus"), Tone::Error);
        assert_eq!(tone_of(&q, "@"), Tone::Error);
        // A missing relation (two arrows in a row) and a word where an arrow
        // belongs are errors; `a->b` reads as three tokens.
        let missing = query("a -> -> b");
        assert_eq!(missing[4], ("->".to_owned(), Tone::Error), "{missing:?}");
        let tight = query("a->uses->b");
        assert_eq!(tone_of(&tight, "uses"), Tone::Field, "{tight:?}");
        assert_eq!(tone_of(&tight, "b"), Tone::Accent);
        assert_faithful(
            &owned(&["", "  ", "a b c", "--x", "é -> ü"]),
            &query_lines(&owned(&["", "  ", "a b c", "--x", "é -> ü"])),
        );
    }
}
