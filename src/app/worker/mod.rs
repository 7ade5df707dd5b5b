//! The engine worker: one thread owns the store (a SQLite connection is not
//! shared between threads) and answers the UI's requests by message. While
//! idle it polls `pending/` and the index, so proposals written by the CLI or
//! the MCP server appear without a keypress. Previews and validations are
//! latest-wins: of several queued, only the newest of each kind runs.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

use graphex_engine::age_secret::SecretString;
use graphex_engine::project::Settings;
use graphex_engine::proposal::{self, Card, Mentions, Submission};
use graphex_engine::{Credentials, Error, Level, Store};
use tokio::sync::mpsc::UnboundedSender;

use super::panes::queue::data::{self as queue_data, ImpactView, ItemLints};
pub use super::panes::queue::work::{impact_of, read_queue, read_queue_unlinted, read_queue_unlinted_from};

/// How often an idle worker looks for new proposals.
pub const POLL: Duration = Duration::from_millis(400);

/// The UI's end of the worker.
pub struct Handle {
    pub tx: Sender<Request>,
    pub thread: std::thread::JoinHandle<()>,
}

/// Starts the worker on `root`; replies go to `reply`.
pub fn spawn(root: PathBuf, creds: Credentials, reply: UnboundedSender<Reply>) -> Handle {
    spawn_lent(root, creds, None, reply)
}

/// [`spawn`], opening the store with a master key lent in this process
/// (an unlock session's), without its passphrase's KDF.
pub fn spawn_lent(
    root: PathBuf,
    creds: Credentials,
    lent: Option<graphex_engine::keys::LentKey>,
    reply: UnboundedSender<Reply>,
) -> Handle {
    let (tx, rx) = channel();
    let thread = std::thread::Builder::new()
        .name("graphex-engine".into())
        .spawn(move || {
            let mut worker = Worker::new(root, creds, reply);
            worker.lent = lent;
            worker.run(&rx);
        })
        .unwrap_or_else(|e| panic!("cannot start the engine thread: {e}"));
    Handle { tx, thread }
}

struct Worker {
    root: PathBuf,
    creds: Credentials,
    /// The master key an unlock session lent this worker (it runs in the
    /// session's process): opens without the passphrase's KDF.
    lent: Option<graphex_engine::keys::LentKey>,
    store: Option<Store>,
    settings: Option<Settings>,
    reply: UnboundedSender<Reply>,
    signature: u64,
    lints: LintCache,
    /// Set by [`Request::Shutdown`]: decisions no longer reload the queue.
    closing: bool,
    /// The last reload failure said, so it is said once, not every poll.
    last_poll_error: Option<String>,
    /// The graph as it was at a point, for the Graph pane's history view,
    /// with the point, commit and level it was read at.
    past: graph::Past,
    /// Previews already recorded in the audit log this session (one
    /// record per distinct text shown).
    recorded: std::collections::HashSet<String>,
    /// The query history and saved queries.
    memory: memory::QueryMemory,
    /// Decisions undone that `ctrl-y` makes again.
    redo: redo::Redo,
    /// A redo is being made (its reply says so).
    redoing: bool,
    /// The last scan of the queue: the queue's loads and the Graph pane's
    /// proposed nodes read it, scanned again only when the queue changed.
    pending: proposal::PendingScans,
    bodies: bodies::BodyIndex,
    /// The base of a revision range the Projection pane compares with
    /// (`graphex diff --console`): a past state read from git.
    range: Option<range::RangeBase>,
}

/// Lints already sent, valid for one commit and one level.
#[derive(Default)]
struct LintCache {
    key: Option<(u64, Level)>,
    mentions: Option<Mentions>,
    by_id: std::collections::HashMap<String, ItemLints>,
}

impl Worker {
    fn new(root: PathBuf, creds: Credentials, reply: UnboundedSender<Reply>) -> Self {
        Self {
            root,
            creds,
            lent: None,
            store: None,
            settings: None,
            reply,
            signature: 0,
            lints: LintCache::default(),
            closing: false,
            last_poll_error: None,
            past: None,
            recorded: std::collections::HashSet::new(),
            memory: memory::QueryMemory::new(crate::app::logging::dir()),
            redo: redo::Redo::default(),
            redoing: false,
            pending: proposal::PendingScans::default(),
            bodies: bodies::BodyIndex::default(),
            range: None,
        }
    }

    fn send(&self, r: Reply) {
        // The UI has gone: nothing left to tell.
        let _ = self.reply.send(r);
    }

    fn run(mut self, rx: &Receiver<Request>) {
        let mut polled = Instant::now();
        loop {
            // Polls keep their pace while requests stream in (a held `j`
            // asks for a preview per row), so new proposals still appear.
            // While the jump's index of bodies is being made, a slice at a
            // time between requests.
            let wait = if self.bodies.unfinished(self.store.as_ref()) {
                Duration::ZERO
            } else {
                POLL.saturating_sub(polled.elapsed())
            };
            match rx.recv_timeout(wait) {
                Ok(first) => {
                    let mut batch = vec![first];
                    batch.extend(rx.try_iter());
                    if batch.iter().any(|r| matches!(r, Request::Shutdown)) {
                        self.closing = true;
                        batch.retain(Request::decides);
                    }
                    for req in latest_wins(batch) {
                        self.handle(req);
                    }
                    // As when a process closes the store: what was written is
                    // in graph.db (git reads the file) and the log is empty (a
                    // checkout that replaces graph.db finds no old frames).
                    if let Some(store) = self.store.as_ref() {
                        store.empty_the_log();
                    }
                    if self.closing {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            if polled.elapsed() >= POLL {
                self.poll();
                polled = Instant::now();
            }
            if let Some(store) = self.store.as_ref()
                && self.bodies.unfinished(Some(store))
            {
                self.bodies.step(store);
            }
        }
    }

    fn handle(&mut self, req: Request) {
        tracing::debug!(request = req.kind(), "engine request");
        match req {
            Request::Open => self.open(),
            Request::LoadQueue => self.load_queue(),
            Request::Impact { generation, id } => {
                let result = self.impact(&id);
                self.send(Reply::Impact { generation, id, result });
            }
            Request::Validate { generation, text } => {
                let result = Submission::from_json(text.as_bytes())
                    .map(|s| s.changes.len())
                    .map_err(|e| e.to_string());
                self.send(Reply::Validated { generation, result });
            }
            Request::MergeDraft { ref id } => {
                let reply = self.merge_draft(id);
                self.send(reply);
            }
            Request::Accept { ref id, force } => {
                let reply = self.accept(id, force);
                self.redo.after(&req, !matches!(reply, Reply::Failed(_)));
                self.decided(reply);
            }
            Request::AcceptMany { ref ids } => {
                let reply = self.accept_many(ids);
                self.redo.after(&req, !matches!(reply, Reply::Failed(_)));
                self.decided(reply);
            }
            Request::Reject { ref ids, ref reason } => {
                let reply = self.reject(ids, reason);
                self.redo.after(&req, !matches!(reply, Reply::Failed(_)));
                self.decided(reply);
            }
            Request::RequestChanges {
                ref id,
                ref comment,
                change,
            } => {
                let reply = self.request_changes(id, comment, change);
                self.redo.after(&req, !matches!(reply, Reply::Failed(_)));
                self.decided(reply);
            }
            Request::AcceptEdit {
                ref id,
                ref text,
                force,
            } => {
                let reply = self.accept_edit(id, text, force);
                self.redo.after(&req, false);
                self.decided(reply);
            }
            Request::Resolve(ref r) => {
                let reply = self.resolve(r);
                self.redo.clear();
                self.decided(reply);
            }
            Request::Redo => {
                let now = self.current().map(|s| s.seen_seq()).unwrap_or(u64::MAX);
                match self.redo.next(now) {
                    Ok(again) => {
                        self.redoing = true;
                        self.handle(again);
                        self.redoing = false;
                        let after = self.current().map(|s| s.seen_seq()).unwrap_or(now);
                        if after != now {
                            self.redo.redone(after);
                        }
                    }
                    Err(why) => self.send(Reply::Failed(why)),
                }
            }
            Request::Undo => {
                let reply = match self.once(|s| s.undo()) {
                    Ok(u) => match &u {
                        graphex_engine::proposal::Undone::Decision { proposal, .. } => {
                            let left = self.current().map(|s| s.seen_seq()).unwrap_or(0);
                            let again = if self.redo.undone(proposal, left) {
                                " (ctrl-y redoes it)"
                            } else {
                                ""
                            };
                            Reply::Done(format!("undid {u}; it is back in the queue{again}"))
                        }
                        graphex_engine::proposal::Undone::Change { .. } => {
                            self.redo.clear();
                            Reply::Done(format!("undid {u}"))
                        }
                    },
                    Err(e) => Reply::Failed(crate::app::worker::undo_failure(&e)),
                };
                self.decided(reply);
            }
            Request::Show { .. }
            | Request::Inspect { .. }
            | Request::Jump { .. }
            | Request::Path { .. }
            | Request::History { .. }
            | Request::Export { .. }
            | Request::Write(_)
            | Request::CheckName { .. }
            | Request::Vocabulary { .. }
            | Request::EditValues { .. }
            | Request::Exposure { .. }
            | Request::Curator { .. }
            | Request::Start => self.graph(req),
            Request::Preview { generation, spec } => self.preview(generation, &spec),
            Request::OpenRange { ref rev, ref label } => self.open_range(rev, label),
            Request::ExposureReport { .. } | Request::AuditList { .. } | Request::AuditReplay { .. } => {
                let _ = self.current();
                let reply = review_answer(self.store.as_ref(), self.settings.as_ref(), req);
                self.send(reply);
            }
            Request::RecordQuery { .. }
            | Request::QueryHistory { .. }
            | Request::SavedQueries
            | Request::LoadSaved { .. }
            | Request::SaveQuery { .. } => {
                let saves = matches!(req, Request::SaveQuery { .. });
                // On the current graph (another process may have saved).
                if let Err(e) = self.current() {
                    self.send(Reply::Failed(e.to_string()));
                    return;
                }
                if let Some(reply) = self.memory.answer(self.store.as_mut(), req) {
                    self.send(reply);
                }
                if saves && let Some(reply) = self.memory.answer(self.store.as_mut(), Request::SavedQueries) {
                    self.send(reply);
                }
            }
            Request::RunQuery { .. }
            | Request::Complete { .. }
            | Request::ExportQuery { .. }
            | Request::CopyQuery { .. } => {
                if let Some(reply) = query::answer(self.store.as_ref(), req) {
                    self.send(reply);
                }
            }
            Request::Unlock { human, passphrase } => self.unlock(human, passphrase),
            Request::Lock => {
                self.creds = Credentials::none();
                self.lent = None;
                self.store = None;
                // Lints quote proposal text: they go with the keys.
                self.lints = LintCache::default();
                self.pending.clear();
                self.bodies.wipe();
                self.past = None;
                // The range's base holds keys too.
                self.range = None;
                self.recorded.clear();
                self.memory.wipe();
                self.open();
            }
            Request::Shutdown => {}
        }
    }

    /// Opens with the key the session lent when there is one (and
    /// human-only is not asked for), else with the credentials.
    fn open_store(&self) -> graphex_engine::Result<Store> {
        if let Some(key) = &self.lent
            && self.creds.human_passphrase.is_none()
            && let Ok(store) = Store::open_lent(&self.root, key)
        {
            return Ok(store);
        }
        Store::open(&self.root, &self.creds)
    }

    fn open(&mut self) {
        match self.open_store() {
            Ok(store) => self.opened(store),
            Err(e) => self.send(Reply::OpenFailed(format!(
                "cannot open the store at {}: {e}",
                self.root.display()
            ))),
        }
    }

    fn opened(&mut self, store: Store) {
        // Another level or new keys (a rotation): the query history is
        // opened again with what this store holds.
        self.memory.wipe();
        let settings = store.config().and_then(|c| {
            if let Some(w) = c.warning() {
                self.send(Reply::Failed(w));
            }
            c.config.projection_settings()
        });
        self.settings = match settings {
            Ok(s) => Some(s),
            Err(e) => {
                self.send(Reply::Failed(format!("configuration: {e} (impact previews are off)")));
                None
            }
        };
        let level = store.level();
        self.send(Reply::Opened {
            level,
            root: self.root.display().to_string(),
        });
        if let Some(rb) = store.rolled_back() {
            self.send(Reply::RolledBack(graphex_engine::store::rollback_text(
                store.layout().root(),
                rb,
            )));
        }
        self.store = Some(store);
        self.signature = self.pending_signature();
        self.load_queue();
    }

    fn unlock(&mut self, human: bool, passphrase: SecretString) {
        let mut creds = Credentials {
            passphrase: self.creds.passphrase.clone(),
            identity_file: self.creds.identity_file.clone(),
            human_passphrase: self.creds.human_passphrase.clone(),
            agent_identity_file: self.creds.agent_identity_file.clone(),
        };
        if human {
            if !creds.has_master() {
                self.send(Reply::UnlockFailed("unlock the master level first".into()));
                return;
            }
            creds.human_passphrase = Some(passphrase);
        } else {
            creds.passphrase = Some(passphrase);
            creds.identity_file = None;
        }
        // The open store stays until the new one is open: a wrong
        // passphrase loses nothing.
        match Store::open(&self.root, &creds) {
            Ok(store) => {
                let level = store.level();
                self.creds = creds;
                self.send(Reply::Unlocked(level));
                self.opened(store);
            }
            Err(e) => self.send(Reply::UnlockFailed(e.to_string())),
        }
    }

    /// The open store, reloaded if another process wrote since: decisions
    /// are made on the current graph.
    fn current(&mut self) -> graphex_engine::Result<&mut Store> {
        let no_store = || Error::Locked {
            action: "this".into(),
            needed: Level::Master,
            current: Level::Locked,
        };
        match self.store.as_mut().ok_or_else(no_store)?.refresh() {
            Err(Error::KeyRotated(tier)) => self.reopen_after_rotation(tier)?,
            Err(Error::IndexReplaced) => self.reopen_after_replace()?,
            other => {
                other?;
            }
        }
        self.store.as_mut().ok_or_else(no_store)
    }

    /// Opens the store again with this session's credentials after another
    /// process rotated a key it holds: they open the new key files.
    fn reopen_after_rotation(&mut self, tier: graphex_engine::Tier) -> graphex_engine::Result<()> {
        let store = self.open_store()?;
        self.opened(store);
        self.send(Reply::Done(format!(
            "the {tier} key was rotated by another process; unlocked again with the new key"
        )));
        Ok(())
    }

    /// Opens the store again with this session's credentials after a
    /// checkout or restore replaced graph.db: verified, and checked for a
    /// rollback, as any open.
    fn reopen_after_replace(&mut self) -> graphex_engine::Result<()> {
        let store = self.open_store()?;
        self.opened(store);
        self.send(Reply::Done(
            "graph.db was replaced (a checkout?); opened again and verified".to_owned(),
        ));
        Ok(())
    }

    /// Runs `f` on the current graph once: for an undo, which must not be
    /// retried onto another process's newer decision.
    fn once<T>(&mut self, f: impl FnOnce(&mut Store) -> graphex_engine::Result<T>) -> graphex_engine::Result<T> {
        f(self.current()?)
    }

    /// Runs `f` on the current graph, and again if another process writes
    /// while it decides.
    fn with_store<T>(&mut self, f: impl FnMut(&mut Store) -> graphex_engine::Result<T>) -> graphex_engine::Result<T> {
        self.current()?.retrying(f)
    }

    /// Sends the queue at once, then the lints it still lacks. Lints are
    /// kept while the graph and the level stay as they were.
    fn load_queue(&mut self) {
        let Some(store) = self.store.as_ref() else { return };
        let (reply, cards) = read_queue_unlinted_from(store, &mut self.pending);
        let Reply::Queue(mut snapshot) = reply else {
            self.send(reply);
            return;
        };
        let key = (store.seen_seq(), store.level());
        if self.lints.key != Some(key) {
            self.lints = LintCache {
                key: Some(key),
                ..LintCache::default()
            };
        }
        for item in &mut snapshot.items {
            item.lints = self.lints.by_id.get(&item.id).cloned();
        }
        let missing: Vec<Card> = cards
            .into_iter()
            .filter(|c| !self.lints.by_id.contains_key(c.id.as_str()))
            .collect();
        self.send(Reply::Queue(snapshot));
        if missing.is_empty() {
            return;
        }
        let Some(store) = self.store.as_ref() else { return };
        let mentions = self.lints.mentions.get_or_insert_with(|| Mentions::new(store));
        let done: Vec<(String, ItemLints)> = missing
            .iter()
            .map(|c| {
                let lints = proposal::lint_with(store, mentions, &c.proposal);
                (c.id.to_string(), queue_data::lints_shown(store, &lints))
            })
            .collect();
        self.lints.by_id.extend(done.iter().cloned());
        self.send(Reply::Lints(done));
    }

    fn impact(&mut self, id: &str) -> Result<Vec<ImpactView>, String> {
        let settings = self
            .settings
            .clone()
            .ok_or_else(|| "no preview: .gpp/config.toml has an error".to_owned())?;
        let store = self.store.as_ref().ok_or_else(|| "the store is not open".to_owned())?;
        impact_of(store, &settings, id)
    }

    /// The queue as it is after a decision goes first, so the console never
    /// shows the outcome beside a queue that still holds the decided item.
    fn decided(&mut self, reply: Reply) {
        if self.closing {
            tracing::info!(
                ok = !matches!(reply, Reply::Failed(_)),
                "decision finished while closing"
            );
            return;
        }
        self.load_queue();
        // A redo says so: the log tells it from a decision made anew.
        let reply = match reply {
            Reply::Done(text) if self.redoing => Reply::Done(format!("redid: {text}")),
            other => other,
        };
        self.send(reply);
        self.send(Reply::GraphChanged);
    }

    /// Reloads when another process wrote to the index or `pending/`.
    fn poll(&mut self) {
        let Some(store) = self.store.as_mut() else { return };
        let index_changed = match store.refresh() {
            Ok(changed) => changed,
            Err(Error::KeyRotated(tier)) => {
                if let Err(e) = self.reopen_after_rotation(tier) {
                    self.send(Reply::Failed(format!("after a key rotation: {e}")));
                }
                return;
            }
            Err(Error::IndexReplaced) => {
                if let Err(e) = self.reopen_after_replace() {
                    self.send(Reply::Failed(format!("graph.db was replaced: {e}")));
                }
                return;
            }
            Err(e) => {
                // A failed check (tampering, damage) is said, not swallowed;
                // the console keeps what it verified before.
                let msg = e.to_string();
                if self.last_poll_error.as_deref() != Some(msg.as_str()) {
                    self.send(Reply::Failed(format!("the store failed a check on reload: {msg}")));
                    self.last_poll_error = Some(msg);
                }
                return;
            }
        };
        self.last_poll_error = None;
        let signature = self.pending_signature();
        if index_changed || signature != self.signature {
            self.signature = signature;
            self.load_queue();
        }
        if index_changed {
            self.send(Reply::GraphChanged);
        }
    }

    /// A hash of `pending/`'s listing: names, sizes and times.
    fn pending_signature(&self) -> u64 {
        proposal::listing_signature(&graphex_engine::store::Layout::new(&self.root).pending())
    }
}

/// The reply to a reviewer's request (exposure, audit list, replay).
pub fn review_answer(store: Option<&Store>, settings: Option<&Settings>, req: Request) -> Reply {
    use super::panes::projection::review;
    let open = || store.ok_or_else(|| "the store is not open".to_owned());
    match req {
        Request::ExposureReport { generation } => Reply::ExposureReport {
            generation,
            result: open().and_then(review::exposure),
        },
        Request::AuditList {
            generation,
            agent,
            since,
        } => Reply::AuditList {
            generation,
            result: open().and_then(|s| review::audit(s, agent.as_deref(), since)),
        },
        Request::AuditReplay { generation, hashes } => Reply::Replayed {
            generation,
            result: open().and_then(|s| {
                let settings = settings.ok_or_else(|| "no replay: the settings in force have an error".to_owned())?;
                review::replay(s, settings, &hashes)
            }),
        },
        _ => Reply::Failed("not a reviewer's request".into()),
    }
}

/// Drops every preview, validation, neighbourhood, inspection and jump but the newest
/// of its kind, and repeated queue loads; mutations all run, in order.
pub fn latest_wins(batch: Vec<Request>) -> Vec<Request> {
    let last_impact = batch.iter().rposition(|r| matches!(r, Request::Impact { .. }));
    let last_validate = batch.iter().rposition(|r| matches!(r, Request::Validate { .. }));
    let last_load = batch.iter().rposition(|r| matches!(r, Request::LoadQueue));
    let last_show = batch.iter().rposition(|r| matches!(r, Request::Show { .. }));
    let last_inspect = batch.iter().rposition(|r| matches!(r, Request::Inspect { .. }));
    let last_jump = batch.iter().rposition(|r| matches!(r, Request::Jump { .. }));
    let last_list = batch.iter().rposition(|r| matches!(r, Request::Curator { .. }));
    let last_run = batch.iter().rposition(|r| matches!(r, Request::RunQuery { .. }));
    let last_preview = batch.iter().rposition(|r| matches!(r, Request::Preview { .. }));
    let last_complete = batch.iter().rposition(|r| matches!(r, Request::Complete { .. }));
    batch
        .into_iter()
        .enumerate()
        .filter(|(i, r)| match r {
            Request::Impact { .. } => Some(*i) == last_impact,
            Request::Validate { .. } => Some(*i) == last_validate,
            Request::LoadQueue => Some(*i) == last_load,
            Request::Show { .. } => Some(*i) == last_show,
            Request::Inspect { .. } => Some(*i) == last_inspect,
            Request::Jump { .. } => Some(*i) == last_jump,
            Request::Curator { .. } => Some(*i) == last_list,
            Request::RunQuery { .. } => Some(*i) == last_run,
            Request::Preview { .. } => Some(*i) == last_preview,
            Request::Complete { .. } => Some(*i) == last_complete,
            _ => true,
        })
        .map(|(_, r)| r)
        .collect()
}

pub(crate) mod bodies;
mod decisions;
pub use decisions::undo_failure;
pub mod graph;
pub mod hosted;
#[cfg(test)]
mod key_count_tests;
pub mod memory;
pub(crate) mod merge_draft;
mod messages;
mod redo;
pub mod remote;
#[cfg(test)]
mod remote_tests;
pub use messages::{Reply, Request};
mod projection;
pub mod query;
mod range;
#[cfg(test)]
mod range_tests;
#[cfg(test)]
mod tests;
