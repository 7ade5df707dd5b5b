//! `:graph NAME` in the palette: the node it opens, found while the name is
//! typed by the jump's search on the worker (the one matcher, so `graph
//! ordr srv` shows `orders-service`), shown in the palette in place of the
//! actions; `enter` opens the node shown.

use super::work::JumpHit;
use crate::app::effect::{Effect, request};
use crate::app::palette::LinePreview;
use crate::app::state::{AppState, Popup};
use crate::app::worker::Request;
use crate::widgets::picker::PickRow;

/// The node a palette line `graph NAME` names (the `:` that opened the
/// palette is not part of the input).
pub fn graph_command(input: &str) -> Option<String> {
    let name = input.trim().strip_prefix("graph ")?.trim();
    (!name.is_empty()).then(|| name.to_owned())
}

fn row(text: String, matched: Vec<usize>) -> PickRow {
    PickRow {
        left: "opens".into(),
        text,
        matched,
    }
}

/// The palette's line changed: for a `graph NAME` line, asks for the
/// node it opens (the newest line wins).
pub fn preview(state: &mut AppState, line: &str, fx: &mut Vec<Effect>) -> bool {
    let Some(name) = graph_command(line) else {
        return false;
    };
    let generation = state.next_generation();
    if let Some(Popup::Palette { preview, .. }) = state.popups.last_mut() {
        *preview = Some(LinePreview {
            generation,
            row: row("searching…".into(), Vec::new()),
            run: None,
        });
        request(
            fx,
            Request::Jump {
                generation,
                query: name,
            },
        );
    }
    true
}

/// The jump's hits, when the palette waits for them (true then): the best
/// one is what `enter` opens.
pub fn answered(state: &mut AppState, generation: u64, hits: &[JumpHit]) -> bool {
    let Some(Popup::Palette {
        input,
        preview: Some(p),
        ..
    }) = state.popups.last_mut()
    else {
        return false;
    };
    if p.generation != generation {
        return false;
    }
    match hits.first() {
        Some(h) => {
            let text = match &h.description {
                None => format!("{} ({})", h.name, h.node_type),
                Some(d) => format!("{} ({}) — {d}", h.name, h.node_type),
            };
            let matched = if h.description.is_none() {
                h.matched.clone()
            } else {
                Vec::new()
            };
            p.row = row(text, matched);
            p.run = Some(format!("graph {}", h.name));
        }
        None => {
            let typed = graph_command(input).unwrap_or_default();
            p.row = row(
                format!("no node matches {typed:?} (enter tries the name as typed)"),
                Vec::new(),
            );
            p.run = None;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;
    use graphex_engine::Level;

    use crate::app::action::Pane;
    use crate::app::panes::testkit::demo_at;
    use crate::app::state::Popup;
    use crate::app::update::Msg;
    use crate::app::worker::Reply;

    fn preview(r: &crate::app::panes::testkit::Run) -> crate::app::palette::LinePreview {
        match r.s.popups.last() {
            Some(Popup::Palette { preview: Some(p), .. }) => p.clone(),
            _ => panic!("no palette preview"),
        }
    }

    #[test]
    fn graph_name_shows_the_node_it_opens_while_typing_and_opens_it() {
        let mut r = demo_at(Level::Master);
        r.press(":");
        r.press("graph ordr");
        assert_eq!(
            preview(&r).run.as_deref(),
            Some("graph order-batch"),
            "a tie goes to the shorter name"
        );
        r.press(" srv");
        let p = preview(&r);
        assert_eq!(
            p.run.as_deref(),
            Some("graph orders-service"),
            "every word, in any order"
        );
        assert_eq!(p.row.text, "orders-service (service)");
        let shown: String = p
            .row
            .matched
            .iter()
            .filter_map(|i| p.row.text.chars().nth(*i))
            .collect();
        assert_eq!(shown, "ordrsrv", "the letters that matched are marked");
        assert!(r.screen().contains("orders-service (service)"), "{}", r.screen());
        r.key(KeyCode::Enter);
        assert!(r.s.popups.is_empty());
        assert_eq!(r.s.pane, Pane::Graph);
        assert_eq!(r.centre(), "orders-service");
    }

    #[test]
    fn a_line_with_no_match_says_so_and_a_stale_answer_is_dropped() {
        let mut r = demo_at(Level::Master);
        r.press(":");
        r.press("graph zzqqzz");
        let p = preview(&r);
        assert_eq!(p.run, None);
        assert!(p.row.text.contains("no node matches \"zzqqzz\""), "{:?}", p.row.text);
        // An answer for an older line changes nothing.
        let stale = crate::app::panes::graph::work::jump(r.store.catalog(), "retry", None);
        r.msg(Msg::Reply(Reply::Jumped {
            generation: p.generation - 1,
            hits: stale,
        }));
        assert_eq!(preview(&r), p);
        // Another line drops the preview and shows the actions again.
        for _ in 0.."graph zzqqzz".len() {
            r.key(KeyCode::Backspace);
        }
        r.press("undo");
        assert!(matches!(r.s.popups.last(), Some(Popup::Palette { preview: None, .. })));
        r.key(KeyCode::Esc);
        r.press(":");
        r.press("graph zzqqzz");
        r.key(KeyCode::Enter);
        assert_eq!(r.centre(), "zzqqzz", "enter tries the name as typed");
        assert!(
            matches!(&r.s.graph.shown, Some(Err(e)) if e.contains("no node named \"zzqqzz\"")),
            "{:?}",
            r.s.graph.shown.as_ref().map(|s| s.as_ref().err())
        );
    }
}
