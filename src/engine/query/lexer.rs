//! Tokens of the query language, each with its span.
//!
//! Words hold names, ids, globs and flag values: letters, digits and
//! `- _ . * : + /`. A word stops before `->` so `a->b` reads as `a -> b`.

use super::error::{QueryError, QueryErrorKind, Span};

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// `->`
    Arrow,
    /// `<->`
    BiArrow,
    /// `--name`
    Flag(String),
    /// Anything else: a name, id, glob, `*`, or a flag's value.
    Word(String),
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '*' | ':' | '+' | '/' | '?')
}

/// Splits `src` into tokens.
pub fn lex(src: &str) -> Result<Vec<Token>, QueryError> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = src.char_indices().collect();
    let at = |i: usize| chars.get(i).map(|c| c.1);
    let pos = |i: usize| chars.get(i).map_or(src.len(), |c| c.0);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i].1;
        if c.is_whitespace() {
            i += 1;
        } else if c == '-' && at(i + 1) == Some('>') {
            out.push(Token {
                tok: Tok::Arrow,
                span: Span::new(pos(i), pos(i + 2)),
            });
            i += 2;
        } else if c == '<' && at(i + 1) == Some('-') && at(i + 2) == Some('>') {
            out.push(Token {
                tok: Tok::BiArrow,
                span: Span::new(pos(i), pos(i + 3)),
            });
            i += 3;
        } else if c == '-' && at(i + 1) == Some('-') && at(i + 2).is_some_and(|c| c.is_ascii_alphabetic()) {
            let start = i;
            i += 2;
            while at(i).is_some_and(|c| c.is_ascii_alphanumeric() || c == '-') {
                i += 1;
            }
            let text = src[pos(start)..pos(i)].to_owned();
            out.push(Token {
                tok: Tok::Flag(text),
                span: Span::new(pos(start), pos(i)),
            });
        } else if is_word_char(c) {
            let start = i;
            while let Some(c) = at(i) {
                let arrow_next = c == '-' && at(i + 1) == Some('>');
                if !is_word_char(c) || arrow_next {
                    break;
                }
                i += 1;
            }
            let text = src[pos(start)..pos(i)].to_owned();
            out.push(Token {
                tok: Tok::Word(text),
                span: Span::new(pos(start), pos(i)),
            });
        } else {
            return Err(QueryError::new(
                QueryErrorKind::UnexpectedChar(c),
                Span::new(pos(i), pos(i) + c.len_utf8()),
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn arrows_split_words_with_or_without_spaces() {
        let w = |s: &str| Tok::Word(s.into());
        assert_eq!(toks("a->b->c"), vec![w("a"), Tok::Arrow, w("b"), Tok::Arrow, w("c")]);
        assert_eq!(toks("a -> b -> c"), toks("a->b->c"));
        assert_eq!(
            toks("orders-service<->*<->x"),
            vec![w("orders-service"), Tok::BiArrow, w("*"), Tok::BiArrow, w("x")]
        );
        assert_eq!(
            toks("* --depth 2 --since 2026-01-01"),
            vec![
                w("*"),
                Tok::Flag("--depth".into()),
                w("2"),
                Tok::Flag("--since".into()),
                w("2026-01-01")
            ]
        );
    }

    #[test]
    fn spans_point_at_the_text() {
        let t = lex("ab -> cd").unwrap();
        assert_eq!(
            (t[0].span, t[1].span, t[2].span),
            (Span::new(0, 2), Span::new(3, 5), Span::new(6, 8))
        );
        let e = lex("a -> (b)").unwrap_err();
        assert_eq!((e.kind, e.span), (QueryErrorKind::UnexpectedChar('('), Span::new(5, 6)));
    }
}
