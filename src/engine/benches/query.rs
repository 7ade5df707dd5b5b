//! Query, traversal and search benchmarks (targets on the 100k / 500k store:
//! a 2-hop query ≤ 1 ms, a path between random pairs ≤ 10 ms, a fuzzy search
//! over all names ≤ 30 ms).

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use graphex_engine::model::Tier;
use graphex_engine::{lookup, query, traverse};

fn benches(c: &mut Criterion) {
    let f = common::fixture();
    let store = f.open();
    let cat = store.catalog();
    let names = common::sample_names(&store, 1000);
    let mut g = c.benchmark_group("query");
    g.sample_size(100).measurement_time(Duration::from_secs(5));

    let mut i = 0;
    g.bench_function("two_hop_query_parse_and_eval", |b| {
        b.iter(|| {
            i = (i + 1) % names.len();
            let q = format!("{} -> * -> * --depth 2", names[i]);
            black_box(query::run(cat, &q).expect("query"))
        })
    });
    let filter = traverse::Filter::default();
    g.bench_function("two_hop_neighbourhood_undirected", |b| {
        b.iter(|| {
            i = (i + 1) % names.len();
            black_box(traverse::neighbors(cat, &names[i], 2, traverse::Direction::Both, &filter).expect("neighbors"))
        })
    });
    g.bench_function("shortest_path_undirected_random_pairs", |b| {
        b.iter(|| {
            i = (i + 1) % names.len();
            let j = (i * 7919 + 13) % names.len();
            black_box(traverse::shortest_path(cat, &names[i], &names[j], true, &filter).expect("path"))
        })
    });
    g.bench_function("shortest_path_directed_random_pairs", |b| {
        b.iter(|| {
            i = (i + 1) % names.len();
            let j = (i * 7919 + 13) % names.len();
            black_box(traverse::shortest_path(cat, &names[i], &names[j], false, &filter).expect("path"))
        })
    });
    g.sample_size(30);
    g.bench_function("fuzzy_search_all_names", |b| {
        b.iter(|| black_box(lookup::search(cat, "orders core", 20)))
    });
    // What `graphex_search` runs per call: names, descriptions and bodies
    // at the agent-readable tier, the bodies' index warm.
    let mut bodies = lookup::Bodies::new();
    bodies.refresh(&store, Tier::AgentReadable);
    g.bench_function("search_names_descriptions_bodies_warm", |b| {
        b.iter(|| {
            i = (i + 1) % names.len();
            black_box(bodies.search(&names[i], 20))
        })
    });
    g.finish();
}

criterion_group!(query_benches, benches);
criterion_main!(query_benches);
