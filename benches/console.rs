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

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// The Graph pane's requests among `fx`, answered as the worker answers them.
fn answer(store: &Store, fx: Vec<Effect>) -> Vec<Reply> {
    fx.into_iter()
        .filter_map(|e| match e {
            Effect::Request(Request::Show { generation, place }) => Some(Reply::Shown {
                generation,
                result: Box::new(work::show(store, &place, None)),
            }),
            Effect::Request(Request::Jump { generation, query }) => Some(Reply::Jumped {
                generation,
                hits: work::jump(store.catalog(), &query),
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

/// How many nodes the pane's default walk (depth 2, both ways, active only)
/// reaches from `name`.
fn reach(store: &Store, name: &str) -> usize {
    let place = Place::new(name.to_owned());
    let filter = work::filter(&place).expect("filter");
    neighbors(store.catalog(), name, place.depth, place.direction, &filter)
        .map(|rings| rings.iter().map(|r| r.nodes.len()).sum())
        .unwrap_or(0)
}

/// The recentre's target: the first active node, by name, whose default
/// walk reaches `want` nodes (else the closest), and the first neighbour
/// of it, where the pane stands before the key.
fn recentre_target(store: &Store, want: usize) -> (String, usize, String) {
    let c = store.catalog();
    let mut names: Vec<&str> = c
        .nodes()
        .filter(|n| n.status == Status::Active)
        .map(|n| n.name.as_str())
        .collect();
    names.sort_unstable();
    let mut best: Option<(&str, usize)> = None;
    for name in names {
        let n = reach(store, name);
        if best.is_none_or(|(_, b)| n.abs_diff(want) < b.abs_diff(want)) {
            best = Some((name, n));
        }
        if n == want {
            break;
        }
    }
    let (centre, size) = best.expect("a node to recentre on");
    let place = Place::new(centre.to_owned());
    let rings = neighbors(c, centre, 1, place.direction, &work::filter(&place).expect("filter")).expect("rings");
    let from = rings[0].nodes[0].node.name.to_string();
    (centre.to_owned(), size, from)
}

/// Selects the row of `name` in the neighbourhood shown, opening its group
/// when its ring is grouped.
fn select(s: &mut AppState, name: &str) {
    let group = match &s.graph.shown {
        Some(Ok(n)) => n.rings.iter().find_map(|r| {
            r.entries.iter().find_map(|e| match e {
                RingEntry::Group {
                    relation,
                    arrow,
                    members,
                } if members.iter().any(|m| m.name == name) => Some(group_key(r.distance, relation, arrow.glyph())),
                _ => None,
            })
        }),
        _ => None,
    };
    if let Some(g) = group {
        s.graph.opened.insert(g);
    }
    let items = rows::items(&rows::current(&s.graph));
    s.graph.selected = items
        .iter()
        .position(|i| matches!(i, Item::Node { row, .. } if row.name == name))
        .unwrap_or_else(|| panic!("{name} is not a row"));
}

/// The Graph pane's costs on `store` (the 100k store, or the demo's):
/// recentre key to frame, the fuzzy jump on the worker per keystroke, and
/// the jump dialog's own keystroke.
fn graph_benches(c: &mut Criterion, label: &str, store: &Store, term: &mut Terminal<TestBackend>, styles: &ToneStyles) {
    let started = Instant::now();
    let (centre, size, from) = recentre_target(store, 50);
    eprintln!(
        "graph ({label}): recentre on {centre} ({size} nodes at depth 2, both ways, active only), from {from}; \
         found in {:.1?}",
        started.elapsed()
    );
    let mut s = fresh_state();
    s.now_ms = store.catalog().nodes().map(|n| n.updated.0).max().unwrap_or(0);
    update(
        &mut s,
        Msg::Reply(Reply::Opened {
            level: store.level(),
            root: "/bench".into(),
        }),
    );
    s.pane = Pane::Graph;
    let mut fx = Vec::new();
    graphex::app::panes::graph::update::open(&mut s, &from, &mut fx);
    for r in answer(store, fx) {
        settle(&mut s, store, Msg::Reply(r));
    }

    let mut group = c.benchmark_group(format!("graph {label}"));
    group.sample_size(20);
    // Stands on `from` with the centre's row selected, presses enter: the
    // key through update (it asks for the neighbourhood), the worker's
    // show, the reply through update, the frame. Back to `from` untimed.
    group.bench_function("recentre: key to frame (enter, show, reply, draw)", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                select(&mut s, &centre);
                let t = Instant::now();
                let fx = update(&mut s, key(KeyCode::Enter));
                for r in answer(store, fx) {
                    update(&mut s, Msg::Reply(r));
                }
                term.draw(|f| draw(f, &s, styles)).expect("draw");
                total += t.elapsed();
                assert_eq!(s.graph.place.as_ref().map(|p| p.centre.as_str()), Some(centre.as_str()));
                assert!(matches!(s.graph.shown, Some(Ok(_))));
                settle(&mut s, store, key(KeyCode::Char('b')));
            }
            total
        });
    });
    let place = Place::new(centre.clone());
    group.bench_function("recentre: the worker's show alone", |b| {
        b.iter(|| assert!(work::show(store, &place, None).is_ok()));
    });
    let shown = work::show(store, &place, None);
    // The UI's part alone: the reply through update, and the frame.
    group.bench_function("recentre: reply through update and draw", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                select(&mut s, &centre);
                let fx = update(&mut s, key(KeyCode::Enter));
                let generation = s.graph.generation;
                drop(fx);
                let reply = Reply::Shown {
                    generation,
                    result: Box::new(shown.clone()),
                };
                let t = Instant::now();
                update(&mut s, Msg::Reply(reply));
                term.draw(|f| draw(f, &s, styles)).expect("draw");
                total += t.elapsed();
                settle(&mut s, store, key(KeyCode::Char('b')));
            }
            total
        });
    });

    // The jump, one keystroke at a time: the prefixes of a real name, then
    // words only a description holds ("number" + the centre's index).
    let index = centre.rsplit('-').next().unwrap_or_default();
    let described = format!("number {index}");
    let mut queries: Vec<String> = (1..=4).map(|n| centre.chars().take(n).collect()).collect();
    queries.push(centre.clone());
    queries.extend(["n", "nu", "num", "numb"].map(String::from));
    queries.push(described);
    for q in &queries {
        let hits = work::jump(store.catalog(), q);
        let from_text = hits.iter().filter(|h| h.description.is_some()).count();
        eprintln!(
            "graph ({label}): jump {q:?}: {} hits, {from_text} from descriptions",
            hits.len()
        );
        group.bench_with_input(BenchmarkId::new("jump on the worker", q), q, |b, q| {
            b.iter(|| work::jump(store.catalog(), q));
        });
    }

    // The jump dialog's keystroke on the UI thread: the key through update
    // (it asks the worker), the hits through update, the frame with them.
    let typed: String = centre.chars().take(4).collect();
    let (last, before) = {
        let mut t = typed.clone();
        (t.pop().expect("a key"), t)
    };
    let hits = work::jump(store.catalog(), &typed);
    update(&mut s, key(KeyCode::Char('/')));
    assert!(matches!(s.popups.last(), Some(Popup::Jump(_))));
    for ch in before.chars() {
        update(&mut s, key(KeyCode::Char(ch)));
    }
    group.bench_function(
        BenchmarkId::new("jump: keystroke on the UI thread (update, hits, draw)", &typed),
        |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let found = hits.clone();
                    let t = Instant::now();
                    let fx = update(&mut s, key(KeyCode::Char(last)));
                    let generation = fx
                        .iter()
                        .find_map(|e| match e {
                            Effect::Request(Request::Jump { generation, .. }) => Some(*generation),
                            _ => None,
                        })
                        .expect("a jump request");
                    update(
                        &mut s,
                        Msg::Reply(Reply::Jumped {
                            generation,
                            hits: found,
                        }),
                    );
                    term.draw(|f| draw(f, &s, styles)).expect("draw");
                    total += t.elapsed();
                    assert!(matches!(s.popups.last(), Some(Popup::Jump(j)) if j.hits.len() == hits.len()));
                    update(&mut s, key(KeyCode::Backspace));
                }
                total
            });
        },
    );
    group.finish();
}

/// The Query pane's requests among `fx`, answered as the worker answers
/// them (`src/app/worker/query.rs`), at the bench's fixed `now`.
fn answer_query(store: &Store, fx: Vec<Effect>, now: Timestamp) -> Vec<Reply> {
    fx.into_iter()
        .filter_map(|e| match e {
            Effect::Request(Request::Complete {
                generation,
                text,
                cursor,
            }) => Some(Reply::Completed {
                generation,
                completion: query_work::complete(store, &text, cursor, now),
            }),
            Effect::Request(r @ Request::RunQuery { .. }) => query_worker::answer(Some(store), r),
            _ => None,
        })
        .collect()
}

/// Applies `msg`, then the worker's answers to the Query pane's requests,
/// until none is left.
fn settle_query(s: &mut AppState, store: &Store, msg: Msg, now: Timestamp) {
    let mut todo = vec![msg];
    while let Some(m) = todo.pop() {
        let fx = update(s, m);
        todo.extend(answer_query(store, fx, now).into_iter().rev().map(Msg::Reply));
    }
}

/// The generation of the request of kind `complete` (else `RunQuery`) among `fx`.
fn asked(fx: &[Effect], complete: bool) -> u64 {
    fx.iter()
        .find_map(|e| match e {
            Effect::Request(Request::Complete { generation, .. }) if complete => Some(*generation),
            Effect::Request(Request::RunQuery { generation, .. }) if !complete => Some(*generation),
            _ => None,
        })
        .expect("the request")
}

/// How many paths `text` finds (0 on an error).
fn found(store: &Store, text: &str) -> usize {
    query_work::evaluate(store, text).map_or(0, |r| r.total)
}

/// The names the Query benches type: the most used relation (by edges,
/// then by name; `depends-on` when it is used at all), the most used node
/// type, and the subject: the first active node, by name, whose 2-hop
/// chain along that relation finds at least `want` paths (else the one
/// that finds the most).
fn query_names(store: &Store, want: usize) -> (String, String, String) {
    let c = store.catalog();
    let most_used = |words: &mut dyn Iterator<Item = &str>| {
        let mut n: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for w in words {
            *n.entry(w).or_default() += 1;
        }
        let best = n.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)));
        (
            n.contains_key("depends-on"),
            best.map(|(w, _)| (*w).to_owned()).unwrap_or_default(),
        )
    };
    let relation = match most_used(&mut c.edges().map(|e| e.relation.as_str())) {
        (true, _) => "depends-on".to_owned(),
        (false, r) => r,
    };
    let node_type = most_used(&mut c.nodes().map(|n| n.node_type.as_str())).1;
    let mut names: Vec<&str> = c
        .nodes()
        .filter(|n| n.status == Status::Active)
        .map(|n| n.name.as_str())
        .collect();
    names.sort_unstable();
    let mut best: Option<(&str, usize)> = None;
    for name in names.into_iter().take(5_000) {
        let n = found(store, &format!("{name} -> {relation} -> * -> {relation} -> *"));
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((name, n));
        }
        if n >= want {
            break;
        }
    }
    (best.expect("a subject").0.to_owned(), relation, node_type)
}

/// The Query pane's costs on `store` (the 100k store, or the demo's): the
/// editor's keystroke to its highlighted frame, completions per keystroke
/// and to the list drawn, 2-hop results per keystroke and to the table drawn.
fn query_benches(c: &mut Criterion, label: &str, store: &Store, term: &mut Terminal<TestBackend>, styles: &ToneStyles) {
    let started = Instant::now();
    let (name, relation, node_type) = query_names(store, 10);
    let edited = format!("{name} -> {relation} -> * --depth 2");
    let two_hops = [
        format!("{name} -> {relation} -> * -> {relation} -> *"),
        format!("{name} -> * -> * --depth 2"),
    ];
    eprintln!(
        "query ({label}): subject {name}, relation {relation}, type {node_type}; found in {:.1?}",
        started.elapsed()
    );
    for q in two_hops.iter().chain([&edited]) {
        eprintln!(
            "query ({label}): {q:?} ({} chars): {} paths",
            q.chars().count(),
            found(store, q)
        );
    }
    let now = Timestamp(store.catalog().nodes().map(|n| n.updated.0).max().unwrap_or(0));
    let mut s = fresh_state();
    s.now_ms = now.0;
    update(
        &mut s,
        Msg::Reply(Reply::Opened {
            level: store.level(),
            root: "/bench".into(),
        }),
    );
    // Types `text` but its last character (answered as the worker would),
    // and gives that character back.
    let type_all_but_last = |s: &mut AppState, text: &str| -> char {
        let mut fx = Vec::new();
        query_update::load(s, text, &mut fx);
        for r in answer_query(store, fx, now) {
            settle_query(s, store, Msg::Reply(r), now);
        }
        settle_query(s, store, key(KeyCode::Backspace), now);
        text.chars().last().expect("a character")
    };

    let mut group = c.benchmark_group(format!("query {label}"));
    group.sample_size(20);

    // 1. The editor's keystroke: the last character of a ~50-character
    // query through update (its requests are not run) and the frame, the
    // results of the whole query and the popup of the text before it shown.
    let last = type_all_but_last(&mut s, &edited);
    assert_eq!(s.pane, Pane::Query);
    group.bench_function("editor: keystroke to highlighted frame (update, draw)", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                let fx = update(&mut s, key(KeyCode::Char(last)));
                term.draw(|f| draw(f, &s, styles)).expect("draw");
                total += t.elapsed();
                assert_eq!(fx.len(), 2, "results and completions asked for");
                update(&mut s, key(KeyCode::Backspace));
            }
            total
        });
    });

    // 2. Completions on the worker, one keystroke at a time: a node name's
    // prefixes, a relation's, a flag's value.
    let mut typed: Vec<String> = (1..=4).map(|n| name.chars().take(n).collect()).collect();
    typed.push(format!("{name} -> {}", &relation[..3.min(relation.len())]));
    typed.push(format!(
        "{name} -> {relation} -> * --type {}",
        &node_type[..2.min(node_type.len())]
    ));
    for t in &typed {
        let got = query_work::complete(store, t, t.len(), now);
        let first: Vec<&str> = got.items.iter().take(3).map(|c| c.text.as_str()).collect();
        eprintln!(
            "query ({label}): complete {t:?}: {} candidates, first {first:?}",
            got.items.len()
        );
        group.bench_with_input(BenchmarkId::new("complete on the worker", t), t, |b, t| {
            b.iter(|| query_work::complete(store, t, t.len(), now));
        });
    }
    // What the worker runs before it, in the same batch: the text typed so
    // far evaluated (an unknown name, with "did you mean" candidates).
    let partial = &typed[3];
    group.bench_with_input(BenchmarkId::new("evaluate on the worker", partial), partial, |b, t| {
        b.iter(|| query_work::evaluate(store, t));
    });
    // The keystroke on the UI thread: the 4th character of the name through
    // update, the candidates through update, the frame with the popup.
    let last = type_all_but_last(&mut s, partial);
    let completion = query_work::complete(store, partial, partial.len(), now);
    group.bench_function(
        BenchmarkId::new(
            "complete: keystroke on the UI thread (update, candidates, draw)",
            partial,
        ),
        |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let completion = completion.clone();
                    let t = Instant::now();
                    let fx = update(&mut s, key(KeyCode::Char(last)));
                    let generation = asked(&fx, true);
                    update(&mut s, Msg::Reply(Reply::Completed { generation, completion }));
                    term.draw(|f| draw(f, &s, styles)).expect("draw");
                    total += t.elapsed();
                    assert!(s.query.popup.is_some());
                    update(&mut s, key(KeyCode::Backspace));
                }
                total
            });
        },
    );
    // The whole of it: key, the worker's completion, the reply, the frame.
    group.bench_function(
        BenchmarkId::new("complete: keystroke to list (update, complete, reply, draw)", partial),
        |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let t = Instant::now();
                    let fx = update(&mut s, key(KeyCode::Char(last)));
                    let generation = asked(&fx, true);
                    let (text, cursor) = (s.query.text(), s.query.cursor_byte());
                    let completion = query_work::complete(store, &text, cursor, now);
                    update(&mut s, Msg::Reply(Reply::Completed { generation, completion }));
                    term.draw(|f| draw(f, &s, styles)).expect("draw");
                    total += t.elapsed();
                    assert!(s.query.popup.is_some());
                    update(&mut s, key(KeyCode::Backspace));
                }
                total
            });
        },
    );

    // 3. 2-hop results: the worker's evaluation, then the last keystroke
    // to the table drawn (key, evaluate, reply, draw), then the UI's part.
    for q in &two_hops {
        group.bench_with_input(BenchmarkId::new("evaluate on the worker", q), q, |b, q| {
            b.iter(|| assert!(query_work::evaluate(store, q).is_ok()));
        });
    }
    for q in &two_hops {
        let last = type_all_but_last(&mut s, q);
        group.bench_with_input(
            BenchmarkId::new("results: keystroke to frame (update, evaluate, reply, draw)", q),
            q,
            |b, q| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let t = Instant::now();
                        let fx = update(&mut s, key(KeyCode::Char(last)));
                        let generation = asked(&fx, false);
                        let result = Box::new(query_work::evaluate(store, &s.query.text()));
                        update(&mut s, Msg::Reply(Reply::QueryResult { generation, result }));
                        term.draw(|f| draw(f, &s, styles)).expect("draw");
                        total += t.elapsed();
                        assert_eq!(&s.query.asked, q);
                        assert!(matches!(s.query.results, Some(Ok(_))));
                        update(&mut s, key(KeyCode::Backspace));
                    }
                    total
                });
            },
        );
        let result = query_work::evaluate(store, q);
        group.bench_with_input(
            BenchmarkId::new("results: reply through update and draw", q),
            q,
            |b, _| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let fx = update(&mut s, key(KeyCode::Char(last)));
                        let generation = asked(&fx, false);
                        let result = Box::new(result.clone());
                        let t = Instant::now();
                        update(&mut s, Msg::Reply(Reply::QueryResult { generation, result }));
                        term.draw(|f| draw(f, &s, styles)).expect("draw");
                        total += t.elapsed();
                        update(&mut s, key(KeyCode::Backspace));
                    }
                    total
                });
            },
        );
    }
    group.finish();
}

/// How many nodes the depth-2 walk (both ways) from `name` holds: active
/// only, as a projection's candidates, and of any status, as the pane's
/// "why" list and human-only count walk it.
fn around(store: &Store, name: &str, depth: u32) -> (usize, usize) {
    let size = |status| {
        let f = Filter {
            status,
            ..Filter::default()
        };
        subgraph(store.catalog(), name, depth, &f).map_or(0, |g| g.nodes.len())
    };
    (size(Filter::default().status), size(StatusFilter::Any))
}

/// The preview's centre: the first active node, by name, whose depth-2
/// walk (active only) holds 195–205 nodes, else the one closest to 200.
fn projection_centre(store: &Store) -> (String, usize, usize) {
    let mut names: Vec<&str> = store
        .catalog()
        .nodes()
        .filter(|n| n.status == Status::Active)
        .map(|n| n.name.as_str())
        .collect();
    names.sort_unstable();
    let mut best: Option<(&str, usize)> = None;
    for name in names {
        let n = around(store, name, 2).0;
        if best.is_none_or(|(_, b)| n.abs_diff(200) < b.abs_diff(200)) {
            best = Some((name, n));
        }
        if n.abs_diff(200) <= 5 {
            break;
        }
    }
    let name = best.expect("a centre").0;
    let (active, any) = around(store, name, 2);
    (name.to_owned(), active, any)
}

/// The Projection pane's costs on `store` (the 100k store, or the demo's):
/// the worker's previews of the three agent tiers after a change, with the
/// texts recorded already and the first time (audit records appended), and
/// the trust slider's step to frame.
fn projection_benches(c: &mut Criterion, label: &str, store: &mut Store, styles: &ToneStyles) {
    let started = Instant::now();
    let (centre, active, any) = projection_centre(store);
    eprintln!(
        "projection ({label}): centre {centre}: {active} active nodes within 2 hops ({any} of any status); \
         found in {:.1?}",
        started.elapsed()
    );
    // What the worker holds: the settings in force, read when the store
    // opened; the config it reads again for each preview.
    let settings = store
        .config()
        .expect("config")
        .config
        .projection_settings()
        .expect("settings");
    let subject = projection_work::Subject::Node {
        name: centre.clone(),
        depth: 2,
    };
    let spec = |budget: usize| projection_work::Spec {
        subject: subject.clone(),
        agent: projection_update::AGENT.to_owned(),
        budget,
    };
    // The worker's `preview` (src/app/worker/projection.rs): the store
    // refreshed (nothing committed since), the config in force, then the
    // three tiers' projections, each new text recorded.
    let worker = |store: &mut Store, spec: &projection_work::Spec, recorded: &mut HashSet<String>| {
        store.refresh().expect("refresh");
        let config = store.config().expect("config").config;
        projection_work::preview(store, &config, &settings, spec, recorded).expect("preview")
    };
    let mut recorded = HashSet::new();
    let shown = worker(store, &spec(BUDGET), &mut recorded);
    // The budgets the "new texts" bench steps between (`-`, `+`): the two
    // highest steps of 250 below the shortest tier's text at the pane's
    // budget, so every tier's text differs between them and each preview
    // appends three records (the log skips a preview whose text is the
    // newest of its agent, tier and centre).
    let shortest = shown.tiers.iter().map(|t| t.tokens).min().unwrap_or(BUDGET);
    let top = (shortest.saturating_sub(1) / 250 * 250).max(500);
    let changed = [top, top - 250];
    let at = changed.map(|b| worker(store, &spec(b), &mut recorded));
    for (i, t) in shown.tiers.iter().enumerate() {
        let (a, b) = (&at[0].tiers[i], &at[1].tiers[i]);
        eprintln!(
            "projection ({label}): {}: {} tokens at {BUDGET}, {} verdicts; {} at {}, {} at {}: {}",
            t.tier,
            t.tokens,
            t.verdicts.len(),
            a.tokens,
            changed[0],
            b.tokens,
            changed[1],
            if a.hash == b.hash {
                "the same text"
            } else {
                "other texts"
            }
        );
    }
    eprintln!("projection ({label}): human-only around: {:?}", shown.human_only);

    let mut group = c.benchmark_group(format!("projection {label}"));
    group.sample_size(20);
    // 1. A recompute whose texts are recorded already (nothing appended):
    // the same two budgets, so the two benches differ only by the records.
    group.bench_function("preview on the worker, texts recorded already (3 tiers)", |b| {
        b.iter_custom(|iters| {
            let before = recorded.len();
            let t = Instant::now();
            for i in 0..iters {
                let spec = spec(changed[usize::from(i % 2 == 1)]);
                std::hint::black_box(worker(store, &spec, &mut recorded));
            }
            let took = t.elapsed();
            assert_eq!(recorded.len(), before, "a text changed: it was recorded");
            took
        });
    });
    // The same at the budget the pane opens with.
    group.bench_function(
        BenchmarkId::new("preview on the worker, texts recorded already (3 tiers)", BUDGET),
        |b| {
            b.iter(|| worker(store, &spec(BUDGET), &mut recorded));
        },
    );
    // 2. After a change: new texts, each recorded in the audit log.
    let records = |store: &Store| store.audit_verify().expect("audit").records;
    let first = records(store);
    let mut runs = 0u64;
    group.bench_function(
        "preview on the worker, new texts recorded (3 tiers, audit appends)",
        |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for i in 0..iters {
                    let mut fresh = HashSet::new();
                    let spec = spec(changed[usize::from((runs + i) % 2 == 1)]);
                    let t = Instant::now();
                    std::hint::black_box(worker(store, &spec, &mut fresh));
                    total += t.elapsed();
                }
                runs += iters;
                total
            });
        },
    );
    eprintln!(
        "projection ({label}): {} audit records appended over {runs} previews",
        records(store) - first
    );
    group.bench_function("the config in force alone (store.config)", |b| {
        b.iter(|| store.config().expect("config"));
    });

    // 3. The trust slider: `.` through update and the frame, the previews
    // shown, on a 160×44 terminal. It does not ask the worker.
    let mut term = Terminal::new(TestBackend::new(160, 44)).expect("terminal");
    let mut s = fresh_state();
    s.size = (160, 44);
    s.now_ms = store.catalog().nodes().map(|n| n.updated.0).max().unwrap_or(0);
    update(
        &mut s,
        Msg::Reply(Reply::Opened {
            level: store.level(),
            root: "/bench".into(),
        }),
    );
    let mut fx = Vec::new();
    projection_update::open(&mut s, subject.clone(), &mut fx);
    for e in fx {
        if let Effect::Request(Request::Preview { generation, spec }) = e {
            let result = Box::new(Ok(worker(store, &spec, &mut recorded)));
            update(&mut s, Msg::Reply(Reply::Previewed { generation, result }));
        }
    }
    assert_eq!(s.pane, Pane::Projection);
    assert!(matches!(s.projection.shown, Some(Ok(_))), "the previews shown");
    term.draw(|f| draw(f, &s, styles)).expect("draw");
    group.bench_function("trust slider: key to frame ('.', update, draw, 160x44)", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let before = s.projection.trust;
                let t = Instant::now();
                let fx = update(&mut s, key(KeyCode::Char('.')));
                term.draw(|f| draw(f, &s, styles)).expect("draw");
                total += t.elapsed();
                assert!(fx.is_empty(), "the slider asks the worker nothing");
                assert!(s.projection.trust > before);
                update(&mut s, key(KeyCode::Char(',')));
            }
            total
        });
    });
    group.finish();
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
