//! Cutting text to a width: in the middle, so two long names that share a
//! beginning keep the end that tells them apart.

/// [`clip_middle`] for an edge's `A → B`: each side is cut on its own, so
/// the arrow always shows (text without an arrow is cut as one).
pub fn clip_around_arrow(s: &str, max: usize) -> String {
    const ARROW: &str = " → ";
    let Some((left, right)) = s.split_once(ARROW) else {
        return clip_middle(s, max);
    };
    let (l, r) = (left.chars().count(), right.chars().count());
    if l + r + 3 <= max || max < 7 {
        return clip_middle(s, max);
    }
    let room = max - 3;
    // The shorter side whole when it fits in half; the other takes the rest.
    let left_room = if l <= room / 2 {
        l
    } else if r <= room / 2 {
        room - r
    } else {
        room - room / 2
    };
    format!(
        "{}{ARROW}{}",
        clip_middle(left, left_room),
        clip_middle(right, room - left_room)
    )
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edge_keeps_its_arrow_whatever_the_width() {
        let edge = "+ shipping-service → retry-queue";
        for max in 9..edge.chars().count() {
            let cut = clip_around_arrow(edge, max);
            assert!(cut.contains(" → "), "{max}: {cut}");
            assert_eq!(cut.chars().count(), max, "{cut}");
        }
        assert_eq!(clip_around_arrow(edge, 40), edge);
        assert_eq!(
            clip_around_arrow("+ a-long-node-name", 8),
            clip_middle("+ a-long-node-name", 8)
        );
    }
}
