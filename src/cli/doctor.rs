//! `graphex doctor`: the store's integrity report; exit 1 on any finding.

use anyhow::{Result, bail};
use graphex_engine::doctor::{self, Options, Outcome, Report};

use super::output::emit;
use super::session::{Context, console_credentials};

pub fn doctor(ctx: &Context, collect_orphans: bool, grace_secs: u64) -> Result<()> {
    let root = ctx.root()?;
    let creds = console_credentials(ctx)?;
    let opts = Options {
        collect_orphans,
        orphan_grace: std::time::Duration::from_secs(grace_secs),
        weak_kdf_expected: root.join(super::setup::DEMO_MARKER).exists(),
    };
    let report = doctor::examine(&root, &creds, opts)?;
    emit(ctx.json, &report, text)?;
    match report.findings() {
        0 => Ok(()),
        n => bail!("{n} finding(s); see above"),
    }
}

fn text(r: &Report) -> String {
    let mut s = format!(
        "store  {}\nlevel  {}\n\n",
        r.store,
        r.level.map_or_else(|| "(did not open)".to_owned(), |l| l.to_string())
    );
    let width = r.checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for c in &r.checks {
        let mark = match c.outcome {
            Outcome::Ok => "ok     ",
            Outcome::Finding => "FINDING",
            Outcome::Skipped => "skipped",
        };
        s.push_str(&format!("{mark}  {:width$}  {}\n", c.name, c.detail));
    }
    if r.collected > 0 {
        s.push_str(&format!("\nremoved {} orphan blob file(s)\n", r.collected));
    }
    s
}
