//! The query history a session sees, by its level: at the master level the
//! master section; at the human level that and the human section, merged
//! by time. What a human-level session runs goes to the human section, so
//! a query naming a human-only node never reaches a file the master
//! identity opens, and a later master-level session never shows it.

use std::path::Path;

use super::{Entry, History, Section};
use crate::error::Result;
use crate::keys::Level;
use crate::store::Store;

/// The sections of one store's history a session holds.
#[derive(Debug)]
pub struct Histories {
    master: History,
    human: Option<History>,
}

impl Histories {
    /// Opens the sections `store`'s level reads under `state_dir` (master
    /// level at least; see [`History::open`] for a file that does not open).
    pub fn open_in(state_dir: &Path, store: &Store) -> Result<Histories> {
        let master = History::open_in(state_dir, store, Section::Master)?;
        let human = if store.level() >= Level::Human {
            Some(History::open_in(state_dir, store, Section::Human)?)
        } else {
            None
        };
        Ok(Histories { master, human })
    }

    /// The level these sections were opened for.
    pub fn level(&self) -> Level {
        if self.human.is_some() {
            Level::Human
        } else {
            Level::Master
        }
    }

    /// The section a query run now goes to.
    pub fn recording(&self) -> Section {
        if self.human.is_some() {
            Section::Human
        } else {
            Section::Master
        }
    }

    /// Records `text` in the section of this session's level (see
    /// [`History::record`]).
    pub fn record(&mut self, text: &str) -> Result<()> {
        match &mut self.human {
            Some(h) => h.record(text),
            None => self.master.record(text),
        }
    }

    /// Every entry this session may see, oldest first; the same text twice
    /// in a row (once from each section) is shown once, at its later time.
    pub fn entries(&self) -> Vec<&Entry> {
        let mut all: Vec<&Entry> = self.master.entries().iter().collect();
        if let Some(h) = &self.human {
            all.extend(h.entries());
            // Stable: entries of one time keep their section's order.
            all.sort_by_key(|e| e.at);
        }
        let mut out: Vec<&Entry> = Vec::with_capacity(all.len());
        for e in all {
            match out.last_mut() {
                Some(last) if last.text == e.text => *last = e,
                _ => out.push(e),
            }
        }
        out
    }

    /// Forgets every entry of the sections held, in memory and on disk.
    pub fn clear(&mut self) -> Result<()> {
        self.master.clear()?;
        match &mut self.human {
            Some(h) => h.clear(),
            None => Ok(()),
        }
    }

    /// Zeroizes the entries held in memory (the files stay).
    pub fn wipe(&mut self) {
        self.master.wipe();
        if let Some(h) = &mut self.human {
            h.wipe();
        }
    }
}
