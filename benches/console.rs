//! The console's own costs, in process, on ratatui's `TestBackend`:
//! - first frame: the shell drawn before the store opens, then the first
//!   frame with the queue (open with the master identity, read the queue,
//!   draw) on the demo store and, when `GRAPHEX_BENCH_STORE` and
//!   `GRAPHEX_BENCH_IDENTITY` are set (scripts/bench.sh), on the 100k store,
//!   where the lints that follow that frame are timed too (the whole queue
//!   read with lints);
//! - key to frame: a `j`/`k` in the queue through `update` and `draw`.
//!   The impact preview the key asks for runs on the worker thread, not here.
//!
//! The passphrase KDF is outside these figures (the demo store here is made
//! with a cheap KDF); it is measured apart by the engine's store bench.

use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use graphex::app::keymap::Keymap;
use graphex::app::state::AppState;
use graphex::app::update::{Msg, update};
use graphex::app::view::draw;
use graphex::app::worker::{Reply, read_queue, read_queue_unlinted};
use graphex::widgets::ToneStyles;
use graphex_engine::age_secret::SecretString;
use graphex_engine::project::TrustPolicy;
use graphex_engine::proposal::{Source, Submission, submit};
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
    let store = Store::open(root, creds).expect("open");
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
        submit(&store, &TrustPolicy::default(), sub, Source::Cli).expect("submit");
    }
}

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

    if let (Ok(root), Ok(id)) = (
        std::env::var("GRAPHEX_BENCH_STORE"),
        std::env::var("GRAPHEX_BENCH_IDENTITY"),
    ) {
        let creds = identity(Some(id.into()));
        seed_proposals(Path::new(&root), &creds);
        let mut group = c.benchmark_group("100k");
        group.sample_size(10);
        group.bench_function("first queue frame: 100k-node store, master identity", |b| {
            b.iter(|| assert!(queue_frame(Path::new(&root), &creds, &mut term, &styles) > 0));
        });
        let store = Store::open(Path::new(&root), &creds).expect("open");
        group.bench_function("lints of the queue: 100k-node store", |b| {
            b.iter(|| assert!(matches!(read_queue(&store), Reply::Queue(_))));
        });
        group.finish();
    }

    // Key to frame on the demo queue.
    let store = Store::open(demo.path(), &demo_creds).expect("open");
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
