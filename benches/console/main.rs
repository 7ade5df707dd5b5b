//! The console's own costs, in process, on ratatui's `TestBackend`:
//! - first frame: the shell drawn before the store opens, then the first
//!   frame with the queue (open with the master identity, read the queue,
//!   draw) on the demo store and, when `GRAPHEX_BENCH_STORE` and
//!   `GRAPHEX_BENCH_IDENTITY` are set (scripts/bench.sh), on the 100k store,
//!   where the lints that follow that frame are timed too (the whole queue
//!   read with lints);
//! - key to frame: a `j`/`k` in the queue through `update` and `draw`.
//!   The impact preview the key asks for runs on the worker thread, not here;
//! - the Graph pane (group `graph 100k` on the 100k store, `graph demo` on
//!   the demo store when the 100k one is not set), with the worker's part
//!   answered in line as `panes::graph::tests` answers it:
//!   - recentre, key to frame: the centre is the first active node, by
//!     name, whose default walk (depth 2, both ways, active only) reaches 50
//!     nodes (else the closest; found before the timing and printed). The
//!     pane stands on a neighbour of it with its row selected; `enter`
//!     through `update` (it asks `Request::Show`), `work::show` for that
//!     request, the reply through `update`, and the frame. Apart: the
//!     worker's `show` alone, and the reply through `update` and the frame;
//!   - the fuzzy jump on the worker (`work::jump` over every readable name,
//!     then descriptions), one keystroke at a time: the prefixes of the
//!     centre's name and the name whole, and `n`, `nu`, `num`, `numb`,
//!     `number <its index>`, which from `num` on only descriptions match on
//!     the generated store (hits and how many came from descriptions are
//!     printed);
//!   - the jump dialog's keystroke on the UI thread: the key through
//!     `update`, the hits through `update`, and the frame with them.
//! - the Query pane (group `query 100k` on the 100k store, `query demo` on
//!   the demo store when the 100k one is not set), the worker's requests
//!   answered in line as `src/app/worker/query.rs` answers them. The names
//!   typed are found before the timing and printed: the relation
//!   `depends-on` (else the most used), the most used node type, and the
//!   subject, the first active node by name whose
//!   `NAME -> depends-on -> * -> depends-on -> *` finds 10 paths (else the
//!   most of the first 5,000):
//!   - editor, keystroke to highlighted frame: the last character of
//!     `NAME -> depends-on -> * --depth 2` through `update` (the results
//!     and completions it asks for are not run) and the frame;
//!   - completion on the worker (`work::complete`), one keystroke at a
//!     time: the first 1, 2, 3, 4 characters of the subject's name (every
//!     readable name is a candidate), `NAME -> dep` (a relation, counted
//!     over every edge) and `… --type` plus 2 characters of the type (a
//!     flag's value, counted over every node). Apart, the evaluation the
//!     worker runs before it in the same batch: the 4-character name,
//!     unknown, with its "did you mean" candidates;
//!   - completion, the 4th character of the name: on the UI thread alone
//!     (the key, the candidates through `update`, the frame with the
//!     popup), and whole (the key, `work::complete`, the reply, the frame);
//!   - 2-hop results: `work::evaluate` of `NAME -> depends-on -> * ->
//!     depends-on -> *` and `NAME -> * -> * --depth 2`, then for each the
//!     last keystroke to the table drawn (key, evaluate, reply, frame) and
//!     the reply through `update` and the frame alone.
//! - the Projection pane (group `projection 100k` on the 100k store,
//!   `projection demo` on the demo store when the 100k one is not set). The
//!   centre is the first active node, by name, whose depth-2 walk (both
//!   ways, active only) holds 195–205 nodes (else the closest to 200; found
//!   before the timing and printed), previewed as the pane does
//!   (`Subject::Node { name, depth: 2 }`, agent `console-preview`):
//!   - the worker's previews after a change (`src/app/worker/projection.rs`:
//!     the store refreshed, the config in force, `work::preview`: the three
//!     agent tiers' `explain`, the human-only count), stepping between two
//!     budgets (the two highest steps of 250 below the shortest tier's
//!     text at the pane's budget (`BUDGET`), so every tier's text differs between them):
//!     with the texts recorded already (nothing appended), and with new
//!     texts, each recorded (three audit records appended a preview; how
//!     many were appended is printed). Apart: the recorded case at `BUDGET`,
//!     and the config read alone;
//!   - the trust slider, key to frame: `.` through `update` and the frame,
//!     on a 160×44 terminal with the previews shown (it asks the worker
//!     nothing; `,` puts it back, untimed).
//!
//! The passphrase KDF is outside these figures (the demo store here is made
//! with a cheap KDF); it is measured apart by the engine's store bench.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use graphex::app::action::Pane;
use graphex::app::keymap::Keymap;
use graphex::app::panes::graph::data::RingEntry;
use graphex::app::panes::graph::rows::{self, Item, group_key};
use graphex::app::panes::graph::{Place, work};
use graphex::app::panes::projection::{BUDGET, update as projection_update, work as projection_work};
use graphex::app::panes::query::{update as query_update, work as query_work};
use graphex::app::state::{AppState, Popup};
use graphex::app::update::{Effect, Msg, update};
use graphex::app::view::draw;
use graphex::app::worker::{Reply, Request, query as query_worker, read_queue, read_queue_unlinted};
use graphex::widgets::ToneStyles;
use graphex_engine::age_secret::SecretString;
use graphex_engine::model::{Status, Timestamp};
use graphex_engine::project::TrustPolicy;
use graphex_engine::proposal::{Source, Submission, submit};
use graphex_engine::query::StatusFilter;
use graphex_engine::traverse::{Filter, neighbors, subgraph};
use graphex_engine::{Credentials, KdfCost, Store};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const SIZE: (u16, u16) = (120, 36);

fn terminal() -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(SIZE.0, SIZE.1)).expect("terminal")
}

fn fresh_state() -> AppState {
    let mut s = AppState::new(Keymap::load(&[]).expect("keymap"), "/bench".into());
    s.size = SIZE;
    s
}

/// The console after the worker's first replies: the store open, the queue read.
fn loaded_state(store: &Store, root: &Path) -> AppState {
    let mut s = fresh_state();
    let level = store.level();
    update(
        &mut s,
        Msg::Reply(Reply::Opened {
            level,
            root: root.display().to_string(),
        }),
    );
    update(&mut s, Msg::Reply(read_queue_unlinted(store).0));
    s
}

/// Open, read the queue, draw: what the user waits for before the queue
/// (its lints follow, computed by the worker after this frame).
fn queue_frame(root: &Path, creds: &Credentials, term: &mut Terminal<TestBackend>, styles: &ToneStyles) -> usize {
    let store = Store::open(root, creds).expect("open");
    let s = loaded_state(&store, root);
    term.draw(|f| draw(f, &s, styles)).expect("draw");
    s.queue.items.len()
}

fn identity(path: Option<PathBuf>) -> Credentials {
    Credentials {
        identity_file: path,
        ..Credentials::default()
    }
}

/// Twenty pending proposals on existing nodes, so the 100k queue is not empty.
fn seed_proposals(root: &Path, creds: &Credentials) {
    let mut store = Store::open(root, creds).expect("open");
    if store.pending_count().unwrap_or(0) >= 20 {
        return;
    }
    let names: Vec<String> = store.catalog().nodes().take(20).map(|n| n.name.to_string()).collect();
    for (i, name) in names.iter().enumerate() {
        let doc = serde_json::json!({"agent": "bench", "trust": 95, "session": format!("s{}", i % 3),
            "rationale": "bench queue", "changes": [
                {"op": "update_node", "name": name, "set": {"description": format!("Revised by bench proposal {i}")}},
                {"op": "add_node", "name": format!("bench-console-{i}"), "type": "module",
                 "description": "Proposed for the console bench", "tier": "public"}]});
        let sub = Submission::from_json(doc.to_string().as_bytes()).expect("submission");
        submit(&mut store, &TrustPolicy::default(), sub, Source::Cli).expect("submit");
    }
}

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

thread_local! {
    /// The worker's last scan of the queue.
    static PENDING: std::cell::RefCell<graphex_engine::proposal::PendingScans> = std::cell::RefCell::default();
}

/// The Graph pane's requests among `fx`, answered as the worker answers them.
fn answer(store: &Store, fx: Vec<Effect>) -> Vec<Reply> {
    fx.into_iter()
        .filter_map(|e| match e {
            Effect::Request(Request::Show { generation, place }) => Some(Reply::Shown {
                generation,
                result: Box::new(PENDING.with_borrow_mut(|p| work::show(store, &place, None, Some(p)))),
            }),
            Effect::Request(Request::Jump { generation, query }) => Some(Reply::Jumped {
                generation,
                hits: work::jump(store.catalog(), &query, None),
            }),
            _ => None,
        })
        .collect()
}

/// Applies `msg`, then the worker's answers to what it asks, until none is left.
fn settle(s: &mut AppState, store: &Store, msg: Msg) {
    let mut todo = vec![msg];
    while let Some(m) = todo.pop() {
        let fx = update(s, m);
        todo.extend(answer(store, fx).into_iter().map(Msg::Reply));
    }
}

/// The first active node, by name, whose `measure` is within `slack` of
/// `want`, else the closest; with its measure. Setup, never timed.
fn closest_active(store: &Store, want: usize, slack: usize, measure: impl Fn(&str) -> usize) -> (String, usize) {
    let mut names: Vec<&str> = store
        .catalog()
        .nodes()
        .filter(|n| n.status == Status::Active)
        .map(|n| n.name.as_str())
        .collect();
    names.sort_unstable();
    let mut best: Option<(&str, usize)> = None;
    for name in names {
        let n = measure(name);
        if best.is_none_or(|(_, b)| n.abs_diff(want) < b.abs_diff(want)) {
            best = Some((name, n));
        }
        if n.abs_diff(want) <= slack {
            break;
        }
    }
    let (name, n) = best.expect("an active node");
    (name.to_owned(), n)
}

mod graph;
mod projection;
mod query;

use graph::graph_benches;
use projection::projection_benches;
use query::query_benches;

fn bench(c: &mut Criterion) {
    let styles = ToneStyles::default();
    let mut term = terminal();
    c.bench_function("first frame: the shell, before the store opens", |b| {
        b.iter(|| {
            let s = fresh_state();
            term.draw(|f| draw(f, &s, &styles)).expect("draw");
        });
    });

    let demo = tempfile::tempdir().expect("temp dir");
    graphex::cli::create_demo(demo.path(), KdfCost(Some(4))).expect("demo");
    let demo_creds = Credentials {
        passphrase: Some(SecretString::from(graphex::cli::DEMO_PASSPHRASE)),
        ..Credentials::default()
    };
    c.bench_function("first queue frame: demo store (KDF excluded)", |b| {
        b.iter(|| assert!(queue_frame(demo.path(), &demo_creds, &mut term, &styles) > 0));
    });

    let big = (
        std::env::var("GRAPHEX_BENCH_STORE"),
        std::env::var("GRAPHEX_BENCH_IDENTITY"),
    );
    let on_big = big.0.is_ok() && big.1.is_ok();
    if let (Ok(root), Ok(id)) = big {
        let creds = identity(Some(id.into()));
        seed_proposals(Path::new(&root), &creds);
        let mut group = c.benchmark_group("100k");
        group.sample_size(10);
        group.bench_function("first queue frame: 100k-node store, master identity", |b| {
            b.iter(|| assert!(queue_frame(Path::new(&root), &creds, &mut term, &styles) > 0));
        });
        let mut store = Store::open(Path::new(&root), &creds).expect("open");
        group.bench_function("lints of the queue: 100k-node store", |b| {
            b.iter(|| assert!(matches!(read_queue(&store), Reply::Queue(_))));
        });
        group.finish();
        graph_benches(c, "100k", &store, &mut term, &styles);
        query_benches(c, "100k", &store, &mut term, &styles);
        projection_benches(c, "100k", &mut store, &styles);
    }

    // Key to frame on the demo queue.
    let mut store = Store::open(demo.path(), &demo_creds).expect("open");
    if !on_big {
        graph_benches(c, "demo", &store, &mut term, &styles);
        query_benches(c, "demo", &store, &mut term, &styles);
        projection_benches(c, "demo", &mut store, &styles);
    }
    let mut s = loaded_state(&store, demo.path());
    let n = s.queue.items.len();
    let mut down = true;
    c.bench_function("key to frame: j/k in the queue", |b| {
        b.iter(|| {
            if s.queue.selected + 1 >= n {
                down = false;
            } else if s.queue.selected == 0 {
                down = true;
            }
            let code = KeyCode::Char(if down { 'j' } else { 'k' });
            update(&mut s, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
            term.draw(|f| draw(f, &s, &styles)).expect("draw");
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench
}
criterion_main!(benches);
