//! The panes' test harness: the demo store at a level, a console
//! over it, keys in, and the worker's answers computed as the worker
//! computes them (writes included), every frame kept as text.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use graphex_engine::{Credentials, Level, Store};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::graph::curate;
use super::graph::rows::{self, Item};
use crate::app::keymap::Keymap;
use crate::app::state::AppState;
use crate::app::update::{Effect, Msg, update};
use crate::app::view::draw;
use crate::app::worker::{Reply, Request};
use crate::widgets::ToneStyles;

/// The demo store opened at `level`, and a console over it.
pub struct Run {
    pub dir: tempfile::TempDir,
    pub store: Store,
    pub s: AppState,
    /// Every frame drawn, as text.
    pub frames: Vec<String>,
    /// The query history and saved queries, the history under `dir/state`.
    pub memory: crate::app::worker::memory::QueryMemory,
    /// Previews recorded this session (as the worker keeps them).
    pub recorded: std::collections::HashSet<String>,
    /// What went to the clipboard.
    pub clipboard: Vec<String>,
    /// The worker's cache of the graph as it was.
    pub past: crate::app::worker::graph::Past,
    /// The worker's last scan of the queue.
    pub pending: graphex_engine::proposal::PendingScans,
    /// The jump's index of bodies, made whole before each jump (as an idle
    /// worker would have made it).
    pub bodies: crate::app::worker::bodies::BodyIndex,
}

pub fn demo_at(level: Level) -> Run {
    let dir = tempfile::tempdir().unwrap();
    crate::shared::demo::demo_copy(dir.path());
    let mut creds = Credentials {
        passphrase: Some(crate::shared::demo::DEMO_PASSPHRASE.into()),
        ..Credentials::default()
    };
    if level == Level::Human {
        creds.human_passphrase = Some(crate::shared::demo::DEMO_HUMAN_PASSPHRASE.into());
    }
    let store = Store::open(dir.path(), &creds).unwrap();
    assert_eq!(store.level(), level);
    let mut s = AppState::new(Keymap::load(&[]).unwrap(), "/work/shop".into());
    s.size = (120, 36);
    s.now_ms = store.catalog().nodes().map(|n| n.updated.0).max().unwrap_or(0) + 3_600_000;
    let mut r = Run {
        dir,
        store,
        s,
        frames: Vec::new(),
        past: None,
        pending: graphex_engine::proposal::PendingScans::default(),
        bodies: crate::app::worker::bodies::BodyIndex::default(),
        clipboard: Vec::new(),
        recorded: std::collections::HashSet::new(),
        memory: crate::app::worker::memory::QueryMemory::default(),
    };
    r.memory.state_dir = Some(r.dir.path().join("state"));
    r.msg(Msg::Reply(Reply::Opened {
        level,
        root: "/work/shop".into(),
    }));
    r
}

impl Run {
    /// Applies `msg`, then answers every request as the worker would, until
    /// none is left; draws a frame after each step.
    pub fn msg(&mut self, msg: Msg) {
        let mut todo = vec![msg];
        while let Some(m) = todo.pop() {
            for fx in update(&mut self.s, m) {
                match fx {
                    // Replies in the order the worker sends them.
                    Effect::Request(r) => todo.extend(self.answer(r).into_iter().rev().map(Msg::Reply)),
                    Effect::Clipboard(text) => self.clipboard.push(text),
                    Effect::ClearScreen | Effect::Quit | Effect::ExternalEdit { .. } | Effect::Go(_) => {}
                }
            }
            self.frames.push(self.screen());
        }
    }

    pub fn answer(&mut self, r: Request) -> Vec<Reply> {
        let changed = |reply: Reply| vec![reply, Reply::GraphChanged];
        match r {
            Request::Write(w) => {
                return changed(match curate::run(&mut self.store, &w) {
                    Ok(curate::Applied::Done(text)) => Reply::Written { text, open: w.opens() },
                    Ok(curate::Applied::Flagged(flags)) => Reply::WriteFlagged { write: w, flags },
                    Err(e) => Reply::WriteFailed(e.to_string()),
                });
            }
            r @ (Request::RecordQuery { .. }
            | Request::QueryHistory { .. }
            | Request::SavedQueries
            | Request::LoadSaved { .. }
            | Request::SaveQuery { .. }) => {
                let saves = matches!(r, Request::SaveQuery { .. });
                let mut out: Vec<Reply> = self.memory.answer(Some(&mut self.store), r).into_iter().collect();
                if saves {
                    out.extend(self.memory.answer(Some(&mut self.store), Request::SavedQueries));
                }
                return out;
            }
            Request::Lock => {
                self.memory.wipe();
                return Vec::new();
            }
            r @ (Request::ExposureReport { .. } | Request::AuditList { .. } | Request::AuditReplay { .. }) => {
                let settings = self.store.config().unwrap().config.projection_settings().unwrap();
                return vec![crate::app::worker::review_answer(Some(&self.store), Some(&settings), r)];
            }
            Request::Preview { generation, spec } => {
                let config = self.store.config().unwrap().config;
                let settings = config.projection_settings().unwrap();
                let result = super::projection::work::preview(
                    &mut self.store,
                    &config,
                    &settings,
                    &spec,
                    &mut self.recorded,
                    None,
                );
                return vec![Reply::Previewed {
                    generation,
                    result: Box::new(result),
                }];
            }
            // As the worker: the queue after the writes, then the outcome.
            Request::Resolve(r) => {
                let reply = match super::queue::contradiction::resolve(&mut self.store, &r) {
                    Ok(text) => Reply::Done(text),
                    Err(text) => Reply::Failed(text),
                };
                return vec![crate::app::worker::read_queue(&self.store), reply, Reply::GraphChanged];
            }
            Request::Undo => {
                return changed(match self.store.undo() {
                    Ok(u) => Reply::Done(format!("undid {u}")),
                    Err(e) => Reply::Failed(crate::app::worker::undo_failure(&e)),
                });
            }
            _ => {}
        }
        let settings = self.store.config().unwrap().config.projection_settings().unwrap();
        match r {
            r @ (Request::RunQuery { .. }
            | Request::Complete { .. }
            | Request::ExportQuery { .. }
            | Request::CopyQuery { .. }) => crate::app::worker::query::answer(Some(&self.store), r),
            r => {
                if matches!(r, Request::Jump { .. }) {
                    self.bodies.want();
                    while self.bodies.unfinished(Some(&self.store)) {
                        self.bodies.step(&self.store);
                    }
                }
                let reads = crate::app::worker::graph::Reads {
                    past: &mut self.past,
                    pending: &mut self.pending,
                    bodies: &mut self.bodies,
                };
                crate::app::worker::graph::answer(Some(&self.store), Some(&settings), reads, r)
            }
        }
        .into_iter()
        .collect()
    }

    /// The queue as the worker reads it (the harness reads it only when asked).
    pub fn load_queue(&mut self) {
        let reply = crate::app::worker::read_queue(&self.store);
        self.msg(Msg::Reply(reply));
    }

    pub fn key(&mut self, code: KeyCode) {
        self.msg(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    pub fn press(&mut self, keys: &str) {
        for c in keys.chars() {
            let mods = if c.is_ascii_uppercase() {
                KeyModifiers::SHIFT
            } else {
                KeyModifiers::NONE
            };
            self.msg(Msg::Key(KeyEvent::new(KeyCode::Char(c), mods)));
        }
    }

    pub fn jump(&mut self, text: &str) {
        self.press("/");
        self.press(text);
        self.key(KeyCode::Enter);
    }

    /// The screen as text, pending proposals' ids (random per store)
    /// replaced by same-width stand-ins in queue order, as the queue's
    /// snapshots do.
    pub fn screen(&self) -> String {
        let mut t = Terminal::new(TestBackend::new(self.s.size.0, self.s.size.1)).unwrap();
        t.draw(|f| draw(f, &self.s, &ToneStyles::default())).unwrap();
        let mut text = t.backend().to_string();
        if let Ok(scan) = self.store.pending() {
            for (n, p) in scan.pending.iter().enumerate() {
                text = text.replace(p.id.short(), &format!("{:-<12}", format!("P{n:02}")));
            }
        }
        text
    }

    pub fn centre(&self) -> &str {
        self.s.graph.place.as_ref().map_or("", |p| p.centre.as_str())
    }

    /// Selects the row of node `name`.
    pub fn select(&mut self, name: &str) {
        let items = rows::items(&rows::current(&self.s.graph));
        let i = items
            .iter()
            .position(|i| matches!(i, Item::Node { row, .. } if row.name == name))
            .unwrap_or_else(|| panic!("{name} is not a row: {items:?}"));
        self.s.graph.selected = i;
    }

    /// How many nodes the visible rows stand for (a group counts its members).
    pub fn shown_count(&self) -> usize {
        rows::items(&rows::current(&self.s.graph))
            .iter()
            .map(|i| match i {
                Item::Node { member: false, .. } => 1,
                Item::Node { member: true, .. } => 0,
                Item::Group { count, .. } => *count,
                Item::Centre { .. } => 0,
            })
            .sum()
    }

    pub fn row_names(&self) -> Vec<String> {
        rows::items(&rows::current(&self.s.graph))
            .iter()
            .filter_map(|i| match i {
                Item::Node { row, .. } => Some(row.name.clone()),
                Item::Group { .. } | Item::Centre { .. } => None,
            })
            .collect()
    }
}
