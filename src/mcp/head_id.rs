//! The id of a JSON-RPC request read from the head of its line only: an
//! oversized message is never held whole, yet its error answer should carry
//! its id so the client can match it. The head is scanned as JSON tokens
//! (strings with escapes, nested values) for a top-level `"id"`; anything
//! unclear (the id past the head, a malformed head) gives no id.

use rmcp::model::RequestId;

/// How much of a line's head is kept to look for its id.
pub(super) const HEAD_BYTES: usize = 4096;

/// The top-level `"id"` of the JSON object that `head` begins, when the
/// head holds it whole.
pub(super) fn head_id(head: &[u8]) -> Option<RequestId> {
    let mut s = Scan { b: head, i: 0 };
    s.ws();
    s.eat(b'{')?;
    loop {
        s.ws();
        let key = s.string()?;
        s.ws();
        s.eat(b':')?;
        s.ws();
        let start = s.i;
        s.value()?;
        if &head[key.0..key.1] == b"\"id\"" {
            // A delimiter must follow, or a number could be cut short.
            s.ws();
            s.peek()?;
            return serde_json::from_slice(&head[start..s.i]).ok();
        }
        s.ws();
        match s.next()? {
            b',' => continue,
            _ => return None,
        }
    }
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    /// A string token (its span, quotes included).
    fn string(&mut self) -> Option<(usize, usize)> {
        let start = self.i;
        self.eat(b'"')?;
        loop {
            match self.next()? {
                b'\\' => {
                    self.next()?;
                }
                b'"' => return Some((start, self.i)),
                _ => {}
            }
        }
    }

    /// Skips one value: a string, an object or array (nested), or a scalar.
    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
            }
            _ => {
                let start = self.i;
                while self
                    .peek()
                    .is_some_and(|c| !matches!(c, b',' | b'}' | b']') && !c.is_ascii_whitespace())
                {
                    self.i += 1;
                }
                (self.i > start).then_some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> Option<String> {
        head_id(text.as_bytes()).map(|i| i.to_string())
    }

    #[test]
    fn the_id_is_found_wherever_it_is_in_the_head() {
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"#).as_deref(),
            Some("7")
        );
        assert_eq!(id(r#" { "id" : "a\"b" , "params": {"#).as_deref(), Some("a\"b"));
        assert_eq!(
            id(r#"{"params":{"id":1,"x":["}",{"id":2}]},"method":"m","id":-3,"pad":""#).as_deref(),
            Some("-3"),
            "nested ids and brackets in strings are not the request's"
        );
    }

    #[test]
    fn no_id_when_the_head_does_not_hold_it_whole() {
        assert_eq!(id(r#"{"method":"m","params":{"pad":"aaaa"#), None);
        assert_eq!(id(r#"{"id":12"#), None, "a number cut short");
        assert_eq!(id(r#"{"id":"abc"#), None);
        assert_eq!(id(r#"{"id":{"x":1},"m":1}"#), None, "not a number or string");
        assert_eq!(id(r#"["id",1]"#), None);
        assert_eq!(id(""), None);
    }
}
