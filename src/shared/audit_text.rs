//! What an audit record says in words, as the CLI's `audit list` and the
//! console's audit view both show it: a step of an agent's work, or the
//! tokens an agent reports it spent. Agent-written text (a session name, a
//! reason, a name asked for) is quoted with its controls made visible, so it
//! never reads as a column or as structure.

use graphex_engine::audit::{Activity, TokenCost};
use graphex_engine::hygiene::visible_text;

/// A step of an agent's work: "revised proposal 1a2b3c4d5e6f session "s": "revises 9f8e…"".
pub fn activity(a: &Activity) -> String {
    let mut s = a.action.as_str().to_owned();
    if let Some(p) = &a.proposal {
        s.push_str(&format!(" proposal {}", &p[..p.len().min(12)]));
    }
    if let Some(n) = &a.asked {
        s.push_str(&format!(" {:?}", visible_text(n)));
    }
    if !a.session.is_empty() {
        s.push_str(&format!(" session {:?}", visible_text(&a.session)));
    }
    if !a.detail.is_empty() {
        s.push_str(&format!(": {:?}", visible_text(&a.detail)));
    }
    s
}

/// The tokens an agent reports it spent on projection `on`.
pub fn cost(c: &TokenCost, on: &str) -> String {
    format!("spent {} in ({} cached), {} out on {on}", c.input, c.cached, c.output)
}

#[cfg(test)]
mod tests {
    use graphex_engine::audit::Action;

    use super::*;

    #[test]
    fn agent_text_is_quoted_with_its_controls_visible() {
        let a = Activity {
            action: Action::Rejected,
            session: "s\u{1b}[2J".into(),
            proposal: Some("0123456789abcdef".into()),
            asked: None,
            detail: "not now\n| accepted".into(),
        };
        let t = activity(&a);
        assert!(t.starts_with("rejected proposal 0123456789ab session "), "{t}");
        assert!(!t.contains('\u{1b}') && !t.contains('\n'), "{t}");
        assert!(t.ends_with(r#": "not now\n| accepted""#), "{t}");
    }
}
