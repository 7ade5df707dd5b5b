//! The worker's share of the Graph pane: neighbourhoods (of now, or of a
//! point in the past), the jump, paths, histories, exports, curator lists,
//! and the curation writes and the checks their forms make.
//!
//! [`answer`] is the whole of the reads, a function of the open store: the
//! worker calls it, and the pane's tests call it the same way.

use graphex_engine::as_of::{AsOf, PastCatalog};
use graphex_engine::project::Settings;
use graphex_engine::proposal::PendingScans;
use graphex_engine::{Level, Store};

use super::{Reply, Request, Worker};
use crate::app::panes::graph::Place;
use crate::app::panes::graph::form::Values;
use crate::app::panes::graph::history as graph_history;
use crate::app::panes::graph::work as graph_work;
use crate::app::panes::graph::{curate, curator};

/// The graph as it was at a point, with the point, commit and level it was
/// read at: kept for one commit and level, so a history view reads the
/// timeline once, not per key.
pub type Past = Option<((AsOf, u64, Level), PastCatalog)>;

impl Worker {
    pub(super) fn graph(&mut self, req: Request) {
        if let Request::Write(w) = req {
            self.redo.clear();
            let reply = match self.with_store(|s| curate::run(s, &w)) {
                Ok(curate::Applied::Done(text)) => Reply::Written { text, open: w.opens() },
                Ok(curate::Applied::Flagged(flags)) => Reply::WriteFlagged { write: w, flags },
                Err(e) => Reply::WriteFailed(e.to_string()),
            };
            self.decided(reply);
            return;
        }
        let reads = Reads {
            past: &mut self.past,
            pending: &mut self.pending,
            bodies: &mut self.bodies,
        };
        if let Some(reply) = answer(self.store.as_ref(), self.settings.as_ref(), reads, req) {
            self.send(reply);
        }
    }
}

/// What the worker keeps between the Graph pane's reads: the graph as it
/// was, and the last scan of the queue (shared with the queue's loads).
pub struct Reads<'a> {
    pub past: &'a mut Past,
    pub pending: &'a mut PendingScans,
    /// The jump's index of bodies.
    pub bodies: &'a mut super::bodies::BodyIndex,
}

/// The reply to a Graph pane read (`None` for any other request).
pub fn answer(store: Option<&Store>, settings: Option<&Settings>, reads: Reads, req: Request) -> Option<Reply> {
    let Reads { past, pending, bodies } = reads;
    let not_open = || "the store is not open".to_owned();
    Some(match req {
        Request::Show { generation, place } => Reply::Shown {
            generation,
            result: Box::new(in_place(store, past, &place, |s, p, then| {
                graph_work::show(s, p, then, Some(&mut *pending))
            })),
        },
        Request::Inspect { generation, place } => Reply::Inspected {
            generation,
            result: Box::new(in_place(store, past, &place, graph_work::inspect)),
        },
        Request::History { generation, name } => Reply::History {
            generation,
            result: store.map_or_else(|| Err(not_open()), |s| graph_history::history(s, &name)),
        },
        Request::Jump { generation, query } => {
            bodies.want();
            Reply::Jumped {
                generation,
                hits: store
                    .map(|s| graph_work::jump(s.catalog(), &query, bodies.current(s)))
                    .unwrap_or_default(),
            }
        }
        Request::Path {
            generation,
            from,
            to,
            place,
        } => Reply::Path {
            generation,
            result: in_place(store, past, &place, |s, p, then| {
                graph_work::path_between(s, &from, &to, p, then)
            }),
        },
        Request::Export { place, file } => {
            match in_place(store, past, &place, |s, p, then| graph_work::export(s, p, then, &file)) {
                Ok(done) => Reply::Done(done),
                Err(e) => Reply::Failed(format!("export: {e}")),
            }
        }
        Request::Curator {
            generation,
            kind,
            sort,
            descending,
            now,
        } => Reply::Curator {
            generation,
            result: store.map_or_else(
                || Err(not_open()),
                |s| curator::list(s.catalog(), &kind, sort, descending, now),
            ),
        },
        Request::Start => Reply::Start(store.and_then(|s| graph_work::hub(s.catalog()))),
        Request::CheckName { generation, name } => Reply::NameChecked {
            generation,
            result: store.map_or_else(|| Err(not_open()), |s| curate::check_name(s, &name)),
        },
        Request::Vocabulary { generation } => {
            let (types, relations) = store.map(|s| curate::vocabulary(s.catalog())).unwrap_or_default();
            Reply::Vocabulary {
                generation,
                types,
                relations,
            }
        }
        Request::EditValues { name } => Reply::EditValues {
            result: store.map_or_else(
                || Err(not_open()),
                |s| {
                    // A pulled node is read-only: the form does not open.
                    if let Some(origin) = s.federated_origin(&name) {
                        return Err(graphex_engine::Error::Federated {
                            name: name.clone(),
                            origin,
                        }
                        .to_string());
                    }
                    s.node(&name)
                        .map(|n| Box::new(Values::of(&n)))
                        .map_err(|e| e.to_string())
                },
            ),
            name,
        },
        Request::Exposure { generation, name, tier } => Reply::Exposure {
            generation,
            result: store.map_or_else(|| Err(not_open()), |s| curate::exposure(s, settings, &name, tier)),
        },
        _ => return None,
    })
}

/// Runs `f` for `place` on the open store, with the graph as it was when
/// the place is in the past (read once per point, commit and level).
fn in_place<T>(
    store: Option<&Store>,
    past: &mut Past,
    place: &Place,
    f: impl FnOnce(&Store, &Place, Option<&PastCatalog>) -> Result<T, String>,
) -> Result<T, String> {
    let store = store.ok_or_else(|| "the store is not open".to_owned())?;
    let Some(at) = place.as_of else {
        return f(store, place, None);
    };
    let key = (at, store.seen_seq(), store.level());
    if past.as_ref().map(|(k, _)| *k) != Some(key) {
        *past = Some((key, graph_work::past(store, at)?));
    }
    f(store, place, past.as_ref().map(|(_, p)| p))
}
