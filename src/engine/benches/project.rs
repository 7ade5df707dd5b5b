//! Projection benchmark (target on the 100k / 500k store: a 200-node
//! subgraph with ranking, tokenization and the audit write ≤ 10 ms). Node
//! content is decrypted when the store opens, so no decryption happens here.

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use graphex_engine::audit::{AuditRecord, Kind};
use graphex_engine::model::{Tier, Timestamp};
use graphex_engine::project::{Access, Center, Counter, Request, Settings, project};
use graphex_engine::traverse::{Filter, subgraph};

fn benches(c: &mut Criterion) {
    let f = common::fixture();
    let mut store = f.open();
    // The sampled node whose 2-hop neighbourhood is closest to 200 nodes.
    let centre = common::sample_names(&store, 300)
        .into_iter()
        .min_by_key(|n| {
            let size = subgraph(store.catalog(), n, 2, &Filter::default()).map_or(0, |g| g.nodes.len());
            size.abs_diff(200)
        })
        .expect("a centre");
    let size = subgraph(store.catalog(), &centre, 2, &Filter::default()).map_or(0, |g| g.nodes.len());
    eprintln!("projection centre {centre}: {size} nodes within 2 hops");
    let settings = Settings::default();
    let _ = Counter::Bpe.count("warm the vocabulary");
    let req = Request {
        center: Center::Node { name: centre, depth: 2 },
        agent: "bench".into(),
        access: Access::Tier(Tier::AgentRestricted),
        budget: 4000,
        at: None,
    };
    let mut g = c.benchmark_group("project");
    g.sample_size(50).measurement_time(Duration::from_secs(10));
    g.bench_function("subgraph_200_rank_tokenize", |b| {
        b.iter(|| black_box(project(store.catalog(), &req, &settings).expect("project")))
    });
    g.bench_function("subgraph_200_rank_tokenize_audit", |b| {
        b.iter(|| {
            let p = project(store.catalog(), &req, &settings).expect("project");
            let record = AuditRecord {
                kind: Kind::Projection,
                at: Timestamp::now(),
                agent: p.agent.clone(),
                trust: None,
                local: false,
                tier: p.tier,
                center: p.center.clone(),
                budget: p.budget,
                tokens: p.tokens,
                emitted: Vec::new(),
                cut: Vec::new(),
                projection_hash: p.hash.clone(),
                cost: None,
                activity: None,
            };
            black_box(store.audit_append(&record).expect("audit"))
        })
    });
    g.finish();
}

criterion_group!(project_benches, benches);
criterion_main!(project_benches);
