//! Word-level diff of two values: the before line with removed words
//! stressed, the after line with added words stressed.

use similar::{ChangeTag, TextDiff};

use super::tone::{RichLine, Tone};

/// `(before, after)` as toned spans; unchanged words keep the line's tone.
pub fn word_diff(before: &str, after: &str) -> (RichLine, RichLine) {
    let diff = TextDiff::from_words(before, after);
    let (mut old, mut new): (RichLine, RichLine) = (Vec::new(), Vec::new());
    for change in diff.iter_all_changes() {
        let text = change.value().to_owned();
        match change.tag() {
            ChangeTag::Equal => {
                push(&mut old, text.clone(), Tone::Removed);
                push(&mut new, text, Tone::Added);
            }
            ChangeTag::Delete => push(&mut old, text, Tone::RemovedStrong),
            ChangeTag::Insert => push(&mut new, text, Tone::AddedStrong),
        }
    }
    (old, new)
}

/// Appends, merging with the last span when the tone is the same.
fn push(line: &mut RichLine, text: String, tone: Tone) {
    match line.last_mut() {
        Some((t, last)) if *last == tone => t.push_str(&text),
        _ => line.push((text, tone)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_words_are_stressed_and_the_text_is_kept() {
        let (old, new) = word_diff("retry three times then fail", "retry five times then queue");
        let text = |l: &RichLine| l.iter().map(|(s, _)| s.as_str()).collect::<String>();
        assert_eq!(text(&old), "retry three times then fail");
        assert_eq!(text(&new), "retry five times then queue");
        let strong = |l: &RichLine, t: Tone| {
            l.iter()
                .filter(|(_, x)| *x == t)
                .map(|(s, _)| s.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(strong(&old, Tone::RemovedStrong), vec!["three", "fail"]);
        assert_eq!(strong(&new, Tone::AddedStrong), vec!["five", "queue"]);
        assert_eq!(new[0], ("retry ".to_owned(), Tone::Added));
    }
}
