//! Saving a query: what may be saved (a name by the rules of node names, a
//! text that parses, within the size cap, naming no node a master-level
//! session cannot read). The rows themselves, sealed and under the master's
//! seal, are the store's.

use crate::error::{Error, Result};
use crate::model::{Name, Tier, Timestamp};
use crate::store::{MAX_SAVED_QUERY_LEN, SavedQuery, Store};

impl Store {
    /// Saves `text` under `name` (master level), replacing what that name
    /// held, in one transaction that also updates the master's seal. The
    /// name follows the rules of node names; the text must parse
    /// ([`crate::query::parse`]: its message is the error) and must not
    /// name a human-only node.
    pub fn save_query(&mut self, name: &str, text: &str) -> Result<()> {
        let name = Name::new(name)?;
        let text = text.trim();
        if text.len() > MAX_SAVED_QUERY_LEN {
            return Err(Error::invalid(
                "query",
                format!("{}…", text.chars().take(40).collect::<String>()),
                format!("a saved query has at most {MAX_SAVED_QUERY_LEN} bytes"),
            ));
        }
        super::parse(text).map_err(|e| Error::invalid("query", text, e.to_string()))?;
        let named = crate::proposal::Mentions::new(self).above(Tier::AgentRestricted, "", &[text]);
        if let Some((node, tier)) = named.first() {
            return Err(Error::invalid(
                "query",
                text,
                format!(
                    "it names {node} ({tier}), and saved queries are read at the master level, which cannot read that tier"
                ),
            ));
        }
        let q = SavedQuery {
            name: name.as_str().to_owned(),
            text: text.to_owned(),
            saved_at: Timestamp::now(),
        };
        self.put_saved_query(&q)
    }
}
