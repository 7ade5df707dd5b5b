//! Store benchmarks: open + unlock + load, the freshness check and record, the
//! passphrase KDF, a single-node read with decryption, and a durable single
//! mutation.
//!
//! By default they run on a synthetic store of 10k nodes / 50k edges made in
//! a temporary directory. `scripts/bench.sh` points them at a 100k / 500k
//! store made by `graphex gen` through `GRAPHEX_BENCH_STORE` (repository
//! root) and `GRAPHEX_BENCH_IDENTITY` (an exported master identity).

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use graphex_engine::age_secret::SecretString;
use graphex_engine::keys::IdentityKind;
use graphex_engine::model::NodePatch;
use graphex_engine::{Credentials, KdfCost, Store};

fn benches(c: &mut Criterion) {
    let f = common::fixture();
    let mut g = c.benchmark_group("store");
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    g.bench_function("open_unlock_load_identity", |b| {
        b.iter(|| black_box(Store::open(&f.root, &f.creds()).expect("open")))
    });
    // The freshness check alone, as the git hooks run it (no key): the
    // record read, the seal row, the rule; an open does the same after
    // its verification, so this is what freshness adds to an open.
    drop(Store::open(&f.root, &f.creds()).expect("open"));
    g.bench_function("freshness_check", |b| {
        b.iter(|| black_box(graphex_engine::store::check_without_keys(&f.root, &[]).expect("check")))
    });

    // What freshness adds to each durable change: the record read, then
    // written back atomically (temporary file, fsync, rename).
    let record_file =
        graphex_engine::freshness::RecordFile::for_store(&f.root, graphex_engine::freshness::Kind::Master)
            .expect("a state directory");
    g.bench_function("freshness_record_after_commit", |b| {
        b.iter(|| {
            let record = record_file.load().expect("load").expect("the open wrote a record");
            record_file.save(black_box(&record)).expect("save")
        })
    });

    // An agent's open checks the master's signed set hash of the readable
    // rows instead of the master's own tags.
    let agent_dir = tempfile::tempdir().expect("temp dir");
    let agent_id = agent_dir.path().join("agent.id");
    {
        let master = Store::open(&f.root, &f.creds()).expect("open");
        master
            .keys()
            .export_identity(&master.layout().keys(), IdentityKind::Agent, &agent_id)
            .expect("export agent");
    }
    let agent = Credentials {
        agent_identity_file: Some(agent_id),
        ..Credentials::default()
    };
    g.bench_function("open_unlock_load_agent", |b| {
        b.iter(|| black_box(Store::open(&f.root, &agent).expect("open")))
    });

    let store = Store::open(&f.root, &f.creds()).expect("open");
    let names: Vec<String> = store.catalog().nodes().take(1000).map(|n| n.name.to_string()).collect();
    let mut i = 0;
    g.sample_size(100).measurement_time(Duration::from_secs(5));
    g.bench_function("read_node_decrypt", |b| {
        b.iter(|| {
            i = (i + 1) % names.len();
            black_box(store.node(&names[i]).expect("read"))
        })
    });
    drop(store);

    let mut store = Store::open(&f.root, &f.creds()).expect("open");
    let target = names[0].clone();
    let mut n = 0u64;
    g.bench_function("update_node_durable", |b| {
        b.iter(|| {
            n += 1;
            let patch = NodePatch {
                description: Some(format!("benchmark edit {n}")),
                ..NodePatch::default()
            };
            black_box(store.update_node(&target, &patch).expect("update"))
        })
    });
    g.finish();
}

fn kdf(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let pass = SecretString::from("kdf bench");
    Store::init(tmp.path(), &pass, &SecretString::from("h"), KdfCost(None)).expect("init");
    let mut g = c.benchmark_group("kdf");
    g.sample_size(10).measurement_time(Duration::from_secs(15));
    g.bench_function("unlock_master_passphrase_age_default", |b| {
        b.iter(|| {
            let creds = Credentials {
                passphrase: Some(pass.clone()),
                ..Credentials::default()
            };
            black_box(Store::open(tmp.path(), &creds).expect("open"))
        })
    });
    g.finish();
}

criterion_group!(store_benches, benches, kdf);
criterion_main!(store_benches);
