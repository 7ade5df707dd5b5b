//! `graphex keys rotate`: new tier keys, everything re-sealed under them.

use std::time::Instant;

use anyhow::{Context as _, Result};
use graphex_engine::keys::ENV_HUMAN_PASSPHRASE;
use graphex_engine::rotate::Rotated;
use graphex_engine::{Store, Tier};
use serde::Serialize;

use super::args::UnlockArg;
use super::output::{emit, note};
use super::session::{Context, Need};

#[derive(Serialize)]
struct Report {
    rotated: Vec<Timed>,
    /// Tiers not rotated, and why.
    skipped: Vec<String>,
}

#[derive(Serialize)]
struct Timed {
    #[serde(flatten)]
    done: Rotated,
    seconds: f64,
}

pub fn rotate(ctx: &Context, tier: Option<&str>) -> Result<()> {
    let tiers = match tier {
        Some(t) => vec![t.parse::<Tier>().with_context(|| format!("--tier {t}"))?],
        None => Tier::ALL.to_vec(),
    };
    // Naming human-only asks for its passphrase; rotating every tier uses
    // it when given and otherwise leaves that tier, saying so.
    let asked = if tier.is_some() && tiers.contains(&Tier::HumanOnly) {
        Context {
            unlock: Some(UnlockArg::Human),
            ..ctx.clone()
        }
    } else {
        ctx.clone()
    };
    let (mut store, creds) = asked.open_with_credentials(Need::Write)?;
    let cost = super::setup::kdf_cost()?;
    let mut report = Report {
        rotated: Vec::new(),
        skipped: Vec::new(),
    };
    for t in tiers {
        let human = creds.human_passphrase.as_ref();
        if t == Tier::HumanOnly && human.is_none() {
            report.skipped.push(format!(
                "{t}: its new key file is sealed with the human passphrase: set {ENV_HUMAN_PASSPHRASE} \
                 or pass --unlock human"
            ));
            continue;
        }
        let started = Instant::now();
        match store.retrying(|s: &mut Store| s.rotate_key(t, human, cost)) {
            Ok(done) => report.rotated.push(Timed {
                done,
                seconds: started.elapsed().as_secs_f64(),
            }),
            Err(e) => {
                // What was rotated before the failure is said, then why.
                if !report.rotated.is_empty() {
                    show(ctx, &report)?;
                }
                return Err(anyhow::Error::new(e).context(format!("rotating the {t} key")));
            }
        }
    }
    for s in &report.skipped {
        note(&format!("skipped {s}"));
    }
    show(ctx, &report)
}

fn show(ctx: &Context, report: &Report) -> Result<()> {
    emit(ctx.json, report, |r| {
        let mut out = String::new();
        for t in &r.rotated {
            let d = &t.done;
            out.push_str(&format!(
                "rotated the {} key to version {}: {} blobs rewrapped; {} summaries, {} edges, {} audit records, \
                 {} decisions re-sealed ({:.2} s)\n",
                d.tier, d.key_version, d.blobs, d.summaries, d.edges, d.audit_records, d.decisions, t.seconds
            ));
            if d.stale_files_removed > 0 {
                out.push_str(&format!(
                    "  removed {} staged key files an interrupted rotation left\n",
                    d.stale_files_removed
                ));
            }
        }
        if !r.rotated.is_empty() {
            out.push_str(
                "the old keys are refused from now on; copies of keys/ and .gpp/objects/ made before \
                 (backups, git history) still open what they held then\n",
            );
        }
        out
    })
}
