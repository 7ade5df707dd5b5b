//! The Query pane's benches: editor keystroke, completion, 2-hop results.

use super::*;

/// The Query pane's requests among `fx`, answered as the worker answers
/// them (`src/app/worker/query.rs`), at the bench's fixed `now`.
pub(crate) fn answer_query(store: &Store, fx: Vec<Effect>, now: Timestamp) -> Vec<Reply> {
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
pub(crate) fn settle_query(s: &mut AppState, store: &Store, msg: Msg, now: Timestamp) {
    let mut todo = vec![msg];
    while let Some(m) = todo.pop() {
        let fx = update(s, m);
        todo.extend(answer_query(store, fx, now).into_iter().rev().map(Msg::Reply));
    }
}

/// The generation of the request of kind `complete` (else `RunQuery`) among `fx`.
pub(crate) fn asked(fx: &[Effect], complete: bool) -> u64 {
    fx.iter()
        .find_map(|e| match e {
            Effect::Request(Request::Complete { generation, .. }) if complete => Some(*generation),
            Effect::Request(Request::RunQuery { generation, .. }) if !complete => Some(*generation),
            _ => None,
        })
        .expect("the request")
}

/// How many paths `text` finds (0 on an error).
pub(crate) fn found(store: &Store, text: &str) -> usize {
    query_work::evaluate(store, text).map_or(0, |r| r.total)
}

/// The names the Query benches type: the most used relation (by edges,
/// then by name; `depends-on` when it is used at all), the most used node
/// type, and the subject: the first active node, by name, whose 2-hop
/// chain along that relation finds at least `want` paths (else the one
/// that finds the most).
pub(crate) fn query_names(store: &Store, want: usize) -> (String, String, String) {
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
pub(crate) fn query_benches(
    c: &mut Criterion,
    label: &str,
    store: &Store,
    term: &mut Terminal<TestBackend>,
    styles: &ToneStyles,
) {
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
