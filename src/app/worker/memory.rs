//! The Query pane's memory on the worker: the history of executed queries
//! (sealed, per store, in the user's state directory, master level; what is
//! typed at the human level sealed to the human-only key and shown only at
//! that level) and the saved queries (sealed in the store, shared through
//! the repository).

use std::path::PathBuf;

use graphex_engine::Store;
use graphex_engine::query_history::Histories;

use super::{Reply, Request};

/// The history files, opened on first use for the store's level; dropped
/// (and wiped) on lock, and opened again when the level changes.
#[derive(Default)]
pub struct QueryMemory {
    /// Where history files live (the console's state directory).
    pub state_dir: Option<PathBuf>,
    pub history: Option<Histories>,
}

impl QueryMemory {
    pub fn new(state_dir: Option<PathBuf>) -> Self {
        Self {
            state_dir,
            history: None,
        }
    }

    /// Drops the history from memory (lock, level change).
    pub fn wipe(&mut self) {
        if let Some(mut h) = self.history.take() {
            h.wipe();
        }
    }

    fn history(&mut self, store: &Store) -> Result<&mut Histories, String> {
        // Opened at another level: what a human-level session typed must
        // not be shown below it, nor a master-level one's written above.
        if self.history.as_ref().is_some_and(|h| h.level() != store.level()) {
            self.wipe();
        }
        if self.history.is_none() {
            let dir = self
                .state_dir
                .clone()
                .ok_or_else(|| "no state directory for the query history".to_owned())?;
            self.history = Some(Histories::open_in(&dir, store).map_err(|e| e.to_string())?);
        }
        self.history.as_mut().ok_or_else(|| "no history".to_owned())
    }

    /// The reply to a history or saved-query request (`None` for others).
    pub fn answer(&mut self, store: Option<&mut Store>, req: Request) -> Option<Reply> {
        let Some(store) = store else {
            return Some(Reply::Failed("the store is not open".into()));
        };
        let master = store.level() >= graphex_engine::Level::Master;
        Some(match req {
            Request::RecordQuery { text } => {
                if !master {
                    return None;
                }
                match self
                    .history(store)
                    .and_then(|h| h.record(&text).map_err(|e| e.to_string()))
                {
                    Ok(()) => return None,
                    Err(e) => Reply::Failed(format!("the query history: {e}")),
                }
            }
            Request::QueryHistory { generation } => Reply::QueryHistory {
                generation,
                result: if master {
                    self.history(store)
                        .map(|h| h.entries().into_iter().rev().map(|e| e.text.clone()).collect())
                } else {
                    Err("the query history is sealed to the master key: press U to unlock".into())
                },
            },
            Request::SavedQueries => {
                if !master {
                    return Some(Reply::SavedList(Vec::new()));
                }
                match store.saved_queries() {
                    Ok(list) => Reply::SavedList(list.into_iter().map(|q| q.name).collect()),
                    Err(e) => Reply::Failed(format!("saved queries: {e}")),
                }
            }
            Request::LoadSaved { name } => Reply::SavedLoaded(match store.saved_query(&name) {
                Ok(Some(q)) => Ok((q.name, q.text)),
                Ok(None) => Err(format!("no saved query named {name:?}")),
                Err(e) => Err(e.to_string()),
            }),
            Request::SaveQuery { name, text } => match store.save_query(&name, &text) {
                Ok(()) => Reply::Done(format!("saved the query as {name} (:q {name} loads it)")),
                Err(e) => Reply::Failed(format!("save: {e}")),
            },
            _ => return None,
        })
    }
}
