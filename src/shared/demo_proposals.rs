//! The demo's review queue: proposals from two agent sessions and the
//! inference (assets/demo/proposals.json), then the human edits that make
//! one of them stale.

use anyhow::{Context as _, Result, bail};
use graphex_engine::Store;
use graphex_engine::model::NodePatch;
use graphex_engine::project::TrustPolicy;
use graphex_engine::proposal::{self, Source, Submission};
use serde::Deserialize;

const DEMO_PROPOSALS: &str = include_str!("../../assets/demo/proposals.json");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    format: String,
    proposals: Vec<serde_json::Value>,
    after: Vec<After>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct After {
    update: String,
    description: String,
}

/// Submits the demo proposals and applies the edits that follow them.
pub fn add(store: &mut Store) -> Result<usize> {
    let file: File = serde_json::from_str(DEMO_PROPOSALS).context("assets/demo/proposals.json")?;
    if file.format != "graphex-demo-proposals/1" {
        bail!("assets/demo/proposals.json: unknown format {:?}", file.format);
    }
    for (i, p) in file.proposals.iter().enumerate() {
        let sub = Submission::from_json(p.to_string().as_bytes())
            .with_context(|| format!("assets/demo/proposals.json: proposal {}", i + 1))?;
        proposal::submit(store, &TrustPolicy::default(), sub, Source::Demo)?;
    }
    for a in &file.after {
        let patch = NodePatch {
            description: Some(a.description.clone()),
            ..NodePatch::default()
        };
        store.update_node(&a.update, &patch)?;
    }
    Ok(file.proposals.len())
}
