//! Explorations: an agent's draft proposals, kept by the server while it
//! runs (in memory only: a restart discards them, and nothing of a draft
//! reaches the repository until it is submitted as one proposal).

use std::collections::BTreeMap;

use graphex_engine::proposal::MAX_CHANGES;
use serde_json::Value;

/// The most explorations open at once.
pub const MAX_OPEN: usize = 16;

/// One open exploration.
#[derive(Debug, Clone)]
pub struct Draft {
    pub name: String,
    pub description: String,
    pub changes: Vec<Value>,
}

/// The server's open explorations, by id.
#[derive(Debug, Default)]
pub struct Drafts {
    open: BTreeMap<String, Draft>,
    next: u64,
}

impl Drafts {
    /// Opens an exploration; returns its id.
    pub fn begin(&mut self, name: &str, description: &str) -> Result<String, String> {
        let name = name.trim();
        if name.is_empty() || name.len() > 64 || name.chars().any(char::is_control) {
            return Err("an exploration's name is 1 to 64 characters on one line".into());
        }
        if description.len() > graphex_engine::model::MAX_DESCRIPTION {
            return Err(format!(
                "an exploration's description is at most {} bytes",
                graphex_engine::model::MAX_DESCRIPTION
            ));
        }
        if self.open.len() >= MAX_OPEN {
            return Err(format!(
                "{MAX_OPEN} explorations are open: end one (end_exploration) first"
            ));
        }
        self.next += 1;
        let id = format!("x{}-{}", self.next, slug(name));
        self.open.insert(
            id.clone(),
            Draft {
                name: name.to_owned(),
                description: description.to_owned(),
                changes: Vec::new(),
            },
        );
        Ok(id)
    }

    /// Adds a checked change to exploration `id`; returns how many it holds.
    pub fn add(&mut self, id: &str, change: Value) -> Result<usize, String> {
        let d = self.open.get_mut(id).ok_or_else(|| unknown(id))?;
        if d.changes.len() >= MAX_CHANGES {
            return Err(format!(
                "exploration {id} holds {MAX_CHANGES} changes, the most one proposal may"
            ));
        }
        d.changes.push(change);
        Ok(d.changes.len())
    }

    /// The exploration `id`, or the only open one when `id` is none.
    pub fn pick(&self, id: Option<&str>) -> Result<(String, &Draft), String> {
        match id {
            Some(id) => self.open.get(id).map(|d| (id.to_owned(), d)).ok_or_else(|| unknown(id)),
            None if self.open.len() == 1 => Ok(self
                .open
                .iter()
                .next()
                .map(|(k, d)| (k.clone(), d))
                .ok_or_else(|| unknown(""))?),
            None if self.open.is_empty() => Err("no exploration is open: begin_exploration first".into()),
            None => Err(format!(
                "{} explorations are open ({}): name one",
                self.open.len(),
                self.open.keys().cloned().collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// Puts back an exploration whose submission failed.
    pub fn restore(&mut self, id: &str, draft: Draft) {
        self.open.insert(id.to_owned(), draft);
    }

    /// Closes exploration `id`, returning it.
    pub fn end(&mut self, id: &str) -> Result<Draft, String> {
        self.open.remove(id).ok_or_else(|| unknown(id))
    }
}

fn unknown(id: &str) -> String {
    format!("no open exploration {id:?} (begin_exploration gives an id; a server restart discards them)")
}

/// The name as an id part: lowercase letters, digits and dashes.
fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(24)
        .collect();
    s.trim_matches('-').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explorations_open_collect_and_close() {
        let mut d = Drafts::default();
        assert!(d.pick(None).unwrap_err().contains("no exploration"));
        let a = d.begin("Retry budget", "why").unwrap();
        assert_eq!(a, "x1-retry-budget");
        assert_eq!(d.add(&a, serde_json::json!({"op": "archive", "name": "x"})).unwrap(), 1);
        assert_eq!(d.pick(None).unwrap().0, a, "the only open one");
        let b = d.begin("other", "").unwrap();
        assert!(d.pick(None).unwrap_err().contains("name one"));
        assert!(
            d.add("x9", serde_json::json!({}))
                .unwrap_err()
                .contains("no open exploration")
        );
        assert_eq!(d.end(&a).unwrap().changes.len(), 1);
        assert!(d.end(&a).is_err(), "ended once");
        assert_eq!(d.pick(None).unwrap().0, b);
        assert!(d.begin(" ", "").is_err());
        for i in 0..MAX_OPEN - 1 {
            d.begin(&format!("n{i}"), "").unwrap();
        }
        assert!(d.begin("one too many", "").unwrap_err().contains("are open"));
    }
}
