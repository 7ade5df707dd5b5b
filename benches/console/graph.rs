//! The Graph pane's benches: recentre key to frame, the fuzzy jump.

use super::*;

/// How many nodes the pane's default walk (depth 2, both ways, active only)
/// reaches from `name`.
pub(crate) fn reach(store: &Store, name: &str) -> usize {
    let place = Place::new(name.to_owned());
    let filter = work::filter(&place).expect("filter");
    neighbors(store.catalog(), name, place.depth, place.direction, &filter)
        .map(|rings| rings.iter().map(|r| r.nodes.len()).sum())
        .unwrap_or(0)
}

/// The recentre's target: the first active node, by name, whose default
/// walk reaches `want` nodes (else the closest), and the first neighbour
/// of it, where the pane stands before the key.
pub(crate) fn recentre_target(store: &Store, want: usize) -> (String, usize, String) {
    let c = store.catalog();
    let (centre, size) = closest_active(store, want, 0, |name| reach(store, name));
    let centre = centre.as_str();
    let place = Place::new(centre.to_owned());
    let rings = neighbors(c, centre, 1, place.direction, &work::filter(&place).expect("filter")).expect("rings");
    let from = rings[0].nodes[0].node.name.to_string();
    (centre.to_owned(), size, from)
}

/// Selects the row of `name` in the neighbourhood shown, opening its group
/// when its ring is grouped.
pub(crate) fn select(s: &mut AppState, name: &str) {
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
pub(crate) fn graph_benches(
    c: &mut Criterion,
    label: &str,
    store: &Store,
    term: &mut Terminal<TestBackend>,
    styles: &ToneStyles,
) {
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
    // The queue's scan is the worker's last one (the queue pane's load makes it).
    let mut pending = graphex_engine::proposal::PendingScans::default();
    group.bench_function("recentre: the worker's show alone", |b| {
        b.iter(|| assert!(work::show(store, &place, None, Some(&mut pending)).is_ok()));
    });
    let shown = work::show(store, &place, None, Some(&mut pending));
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
        let hits = work::jump(store.catalog(), q, None);
        let from_text = hits.iter().filter(|h| h.description.is_some()).count();
        eprintln!(
            "graph ({label}): jump {q:?}: {} hits, {from_text} from descriptions",
            hits.len()
        );
        group.bench_with_input(BenchmarkId::new("jump on the worker", q), q, |b, q| {
            b.iter(|| work::jump(store.catalog(), q, None));
        });
    }

    // The jump dialog's keystroke on the UI thread: the key through update
    // (it asks the worker), the hits through update, the frame with them.
    let typed: String = centre.chars().take(4).collect();
    let (last, before) = {
        let mut t = typed.clone();
        (t.pop().expect("a key"), t)
    };
    let hits = work::jump(store.catalog(), &typed, None);
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
