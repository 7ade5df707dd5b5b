//! What the engine worker does for the queue pane: read the queue (sealed
//! below the master level; its contradictions at every level), lint it,
//! and preview a proposal's impact.

use graphex_engine::project::Settings;
use graphex_engine::proposal::{self, Card, Mentions, PendingScans};
use graphex_engine::{Level, Store};

use super::contradiction;
use super::data::{self as queue_data, ImpactView, QueueSnapshot};
use crate::app::worker::Reply;

/// The queue as the console shows it first: sealed below the master level;
/// at master, every proposal without its lints (see [`Reply::Lints`]), and
/// the cards to lint.
pub fn read_queue_unlinted(store: &Store) -> (Reply, Vec<Card>) {
    read_queue_unlinted_from(store, &mut PendingScans::default())
}

/// [`read_queue_unlinted`] from `pending`'s scan of the queue, made again
/// only when the queue changed (the Graph pane reads the same one).
pub fn read_queue_unlinted_from(store: &Store, pending: &mut PendingScans) -> (Reply, Vec<Card>) {
    if store.level() < Level::Master {
        let pending = store.pending_count().unwrap_or(0);
        let (contradictions, contradictions_total) = contradiction::contradictions(store);
        return (
            Reply::Sealed {
                pending,
                contradictions,
                contradictions_total,
            },
            Vec::new(),
        );
    }
    match pending.scan(store) {
        Ok(scan) => {
            let (cards, groups) = proposal::cards_unlinted(store, scan.pending.clone());
            let quarantined = scan
                .quarantined
                .iter()
                .map(|q| format!("{}: {}", q.file, q.reason))
                .collect();
            let (contradictions, contradictions_total) = contradiction::contradictions(store);
            let reply = Reply::Queue(QueueSnapshot {
                items: queue_data::items(store, &cards, &groups, false),
                quarantined,
                contradictions,
                contradictions_total,
            });
            (reply, cards)
        }
        Err(e) => (Reply::Failed(format!("reading the queue: {e}")), Vec::new()),
    }
}

/// The queue with every lint checked, in one reply.
pub fn read_queue(store: &Store) -> Reply {
    let (reply, cards) = read_queue_unlinted(store);
    let Reply::Queue(mut snapshot) = reply else {
        return reply;
    };
    let mentions = Mentions::new(store);
    for (item, card) in snapshot.items.iter_mut().zip(&cards) {
        item.lints = Some(queue_data::lints_shown(
            store,
            &proposal::lint_with(store, &mentions, &card.proposal),
        ));
    }
    Reply::Queue(snapshot)
}

/// How accepting proposal `id` would change each agent tier's projections.
pub fn impact_of(store: &Store, settings: &Settings, id: &str) -> Result<Vec<ImpactView>, String> {
    let run = || -> graphex_engine::Result<Vec<ImpactView>> {
        let (pid, p) = store.proposal(id)?;
        Ok(proposal::impact(store, &pid, &p, settings)?
            .iter()
            .map(ImpactView::from)
            .collect())
    };
    run().map_err(|e| e.to_string())
}
