//! Accepting a proposal of 10 changes (4 new nodes, 3 new edges, 3 updates
//! of existing nodes), durable: the reviewer's `a` key. Setup (submitting and
//! opening the proposal) is not timed.

mod common;

use std::cell::{Cell, RefCell};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use graphex_engine::Store;
use graphex_engine::model::Tier;
use graphex_engine::project::TrustPolicy;
use graphex_engine::proposal::AcceptOptions;
use graphex_engine::proposal::{Source, Submission, submit};
use serde_json::json;

fn bench(c: &mut Criterion) {
    let fx = common::fixture();
    let store = Store::open(&fx.root, &fx.creds()).expect("open");
    let existing: Vec<String> = store
        .catalog()
        .nodes()
        .filter(|n| n.tier <= Tier::AgentReadable)
        .take(64)
        .map(|n| n.name.to_string())
        .collect();
    let store = RefCell::new(store);
    let round = Cell::new(0u64);
    c.bench_function("accept a 10-change proposal (durable)", |b| {
        b.iter_batched(
            || {
                let r = round.get();
                round.set(r + 1);
                let name = |i: u64| format!("bench-proposal-{}-{r}-{i}", std::process::id());
                let pick = |i: u64| existing[((r * 3 + i) as usize) % existing.len()].clone();
                let mut changes = Vec::new();
                for i in 0..4 {
                    changes.push(json!({"op": "add_node", "name": name(i), "type": "module",
                        "description": "A module proposed by the benchmark", "tier": "public"}));
                }
                for i in 0..3 {
                    changes.push(json!({"op": "add_edge", "from": name(i), "relation": "depends-on", "to": pick(i)}));
                }
                for i in 0..3 {
                    changes.push(json!({"op": "update_node", "name": pick(i + 10),
                        "set": {"description": format!("Updated by benchmark round {r}")}}));
                }
                let doc = json!({"agent": "bench", "trust": 95, "session": "bench", "changes": changes});
                let sub = Submission::from_json(doc.to_string().as_bytes()).expect("submission");
                let mut s = store.borrow_mut();
                let id = submit(&mut s, &TrustPolicy::default(), sub, Source::Cli).expect("submit");
                let (_, p) = s.proposal(id.as_str()).expect("open proposal");
                (id, p)
            },
            |(id, p)| {
                store
                    .borrow_mut()
                    .accept(&id, &p, &AcceptOptions::default())
                    .expect("accept");
            },
            BatchSize::PerIteration,
        )
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench
}
criterion_main!(benches);
