//! The Projection pane's benches: three tiers' previews after a change, the trust slider.

use super::*;

/// How many nodes the depth-2 walk (both ways) from `name` holds: active
/// only, as a projection's candidates, and of any status, as the pane's
/// "why" list and human-only count walk it.
pub(crate) fn around(store: &Store, name: &str, depth: u32) -> (usize, usize) {
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
pub(crate) fn projection_centre(store: &Store) -> (String, usize, usize) {
    let (name, _) = closest_active(store, 200, 5, |name| around(store, name, 2).0);
    let name = name.as_str();
    let (active, any) = around(store, name, 2);
    (name.to_owned(), active, any)
}

/// The Projection pane's costs on `store` (the 100k store, or the demo's):
/// the worker's previews of the three agent tiers after a change, with the
/// texts recorded already and the first time (audit records appended), and
/// the trust slider's step to frame.
pub(crate) fn projection_benches(c: &mut Criterion, label: &str, store: &mut Store, styles: &ToneStyles) {
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
        projection_work::preview(store, &config, &settings, spec, recorded, None).expect("preview")
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
