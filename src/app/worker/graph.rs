//! The worker's share of the Graph pane: neighbourhoods (of now, or of a
//! point in the past), the jump, paths, histories, exports, and the
//! curation writes and the checks their forms make.

use graphex_engine::store::{AsOf, PastCatalog};
use graphex_engine::{Level, Store};

use super::{Reply, Request, Worker};
use crate::app::panes::graph::Place;
use crate::app::panes::graph::form::Values;
use crate::app::panes::graph::history as graph_history;
use crate::app::panes::graph::work as graph_work;
use crate::app::panes::graph::{curate, curator};

/// The graph as it was at a point, with the point, commit and level it was
/// read at.
pub(super) type Past = ((AsOf, u64, Level), PastCatalog);

impl Worker {
    pub(super) fn graph(&mut self, req: Request) {
        match req {
            Request::Show { generation, place } => {
                let result = Box::new(self.in_place(&place, graph_work::show));
                self.send(Reply::Shown { generation, result });
            }
            Request::History { generation, name } => {
                let result = self.read(|s| graph_history::history(s, &name));
                self.send(Reply::History { generation, result });
            }
            Request::Jump { generation, query } => {
                let hits = self
                    .store
                    .as_ref()
                    .map(|s| graph_work::jump(s.catalog(), &query))
                    .unwrap_or_default();
                self.send(Reply::Jumped { generation, hits });
            }
            Request::Path {
                generation,
                from,
                to,
                place,
            } => {
                let result = self.in_place(&place, |s, p, past| graph_work::path_between(s, &from, &to, p, past));
                self.send(Reply::Path { generation, result });
            }
            Request::Export { place, file } => {
                let reply = match self.in_place(&place, |s, p, past| graph_work::export(s, p, past, &file)) {
                    Ok(done) => Reply::Done(done),
                    Err(e) => Reply::Failed(format!("export: {e}")),
                };
                self.send(reply);
            }
            Request::Write(w) => {
                let reply = match self.with_store(|s| curate::apply(s, &w)) {
                    Ok(text) => Reply::Written { text, open: w.opens() },
                    Err(e) => Reply::WriteFailed(e.to_string()),
                };
                self.decided(reply);
            }
            Request::Curator {
                generation,
                kind,
                sort,
                descending,
                now,
            } => {
                let result = self.read(|s| curator::list(s.catalog(), &kind, sort, descending, now));
                self.send(Reply::Curator { generation, result });
            }
            Request::Start => {
                let hub = self.store.as_ref().and_then(|s| graph_work::hub(s.catalog()));
                self.send(Reply::Start(hub));
            }
            Request::CheckName { generation, name } => {
                let result = self.read(|s| curate::check_name(s, &name));
                self.send(Reply::NameChecked { generation, result });
            }
            Request::Vocabulary { generation } => {
                let (types, relations) = self
                    .store
                    .as_ref()
                    .map(|s| curate::vocabulary(s.catalog()))
                    .unwrap_or_default();
                self.send(Reply::Vocabulary {
                    generation,
                    types,
                    relations,
                });
            }
            Request::EditValues { name } => {
                let result = self.read(|s| {
                    s.node(&name)
                        .map(|n| Box::new(Values::of(&n)))
                        .map_err(|e| e.to_string())
                });
                self.send(Reply::EditValues { name, result });
            }
            Request::Exposure { generation, name, tier } => {
                let settings = self.settings.clone();
                let result = self.read(|s| curate::exposure(s, settings.as_ref(), &name, tier));
                self.send(Reply::Exposure { generation, result });
            }
            _ => {}
        }
    }

    /// Runs `f` for `place` on the open store, with the graph as it was
    /// when the place is in the past (kept for one commit and level: a
    /// history view reads the timeline once, not per key).
    fn in_place<T>(
        &mut self,
        place: &Place,
        f: impl FnOnce(&Store, &Place, Option<&PastCatalog>) -> Result<T, String>,
    ) -> Result<T, String> {
        let store = self.store.as_ref().ok_or_else(|| "the store is not open".to_owned())?;
        let Some(at) = place.as_of else {
            return f(store, place, None);
        };
        let key = (at, store.seen_seq(), store.level());
        if self.past.as_ref().map(|(k, _)| *k) != Some(key) {
            self.past = Some((key, graph_work::past(store, at)?));
        }
        f(store, place, self.past.as_ref().map(|(_, p)| p))
    }

    /// Runs a read on the open store, or says it is not open.
    fn read<T>(&self, f: impl FnOnce(&Store) -> Result<T, String>) -> Result<T, String> {
        self.store
            .as_ref()
            .map_or_else(|| Err("the store is not open".to_owned()), f)
    }
}
