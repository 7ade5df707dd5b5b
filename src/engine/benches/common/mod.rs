//! The store every benchmark runs on: `GRAPHEX_BENCH_STORE` (repository root)
//! and `GRAPHEX_BENCH_IDENTITY` (master identity) when set, as
//! `scripts/bench.sh` does with a 100k / 500k `graphex gen` store; otherwise a
//! 10k / 50k synthetic store in a temporary directory.
#![allow(dead_code)]

use std::path::PathBuf;

use graphex_engine::age_secret::SecretString;
use graphex_engine::keys::IdentityKind;
use graphex_engine::store::Durability;
use graphex_engine::synth::{SynthSpec, generate};
use graphex_engine::{Credentials, KdfCost, Store};

pub struct Fixture {
    pub root: PathBuf,
    pub identity: PathBuf,
    _tmp: Option<tempfile::TempDir>,
}

pub fn fixture() -> Fixture {
    if let (Ok(root), Ok(identity)) = (
        std::env::var("GRAPHEX_BENCH_STORE"),
        std::env::var("GRAPHEX_BENCH_IDENTITY"),
    ) {
        return Fixture {
            root: root.into(),
            identity: identity.into(),
            _tmp: None,
        };
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().to_path_buf();
    let (pass, human) = (SecretString::from("bench"), SecretString::from("bench-human"));
    Store::init(&root, &pass, &human, KdfCost(Some(4))).expect("init");
    let creds = Credentials {
        passphrase: Some(pass),
        human_passphrase: Some(human),
        ..Credentials::default()
    };
    let mut store = Store::open(&root, &creds).expect("open");
    store
        .apply_batch(
            generate(SynthSpec {
                nodes: 10_000,
                edges: 50_000,
                seed: 1,
            }),
            Durability::Deferred,
        )
        .expect("gen");
    let identity = root.join("master.id");
    store
        .keys()
        .export_identity(&store.layout().keys(), IdentityKind::Master, &identity)
        .expect("export");
    Fixture {
        root,
        identity,
        _tmp: Some(tmp),
    }
}

fn identity_creds(f: &Fixture) -> Credentials {
    Credentials {
        identity_file: Some(f.identity.clone()),
        ..Credentials::default()
    }
}

impl Fixture {
    /// Credentials that unlock the master level through the identity file.
    pub fn creds(&self) -> Credentials {
        Credentials {
            identity_file: Some(self.identity.clone()),
            ..Credentials::default()
        }
    }

    /// The store, opened at master level.
    pub fn open(&self) -> Store {
        Store::open(&self.root, &self.creds()).expect("open")
    }
}

/// `n` node names spread over the catalog, the same for every run.
pub fn sample_names(store: &Store, n: usize) -> Vec<String> {
    let mut all: Vec<String> = store.catalog().nodes().map(|s| s.name.to_string()).collect();
    all.sort();
    let step = (all.len() / n.max(1)).max(1);
    all.into_iter().step_by(step).take(n).collect()
}
