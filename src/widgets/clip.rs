//! Cutting text to a width: in the middle, so two long names that share a
//! beginning keep the end that tells them apart.

/// `s` cut in the middle to `max` characters, `…` marking the cut: names
/// that share a prefix keep the end that tells them apart.
pub fn clip_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_owned();
    }
    if max <= 1 {
        return "…".chars().take(max).collect();
    }
    let keep = max - 1;
    let tail = keep / 2;
    let head = keep - tail;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}
