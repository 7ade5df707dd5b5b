//! `exposure`: the security reviewer's view of what each tier holds.

use anyhow::{Context as _, Result, bail};
use graphex_engine::exposure::{Change, Report};
use graphex_engine::model::Tier;

use super::output::{emit, table};
use super::session::{Context, Need};

pub fn exposure(ctx: &Context, limit: usize, check: bool) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    let mut report = store.exposure()?;
    for t in &mut report.tiers {
        t.adds.truncate(limit);
    }
    emit(ctx.json, &report, |r: &Report| {
        let mut s = format!(
            "exposure of the tiers up to {} (this session's level)\n\n",
            r.covers_up_to
        );
        let rows: Vec<Vec<String>> = r
            .tiers
            .iter()
            .map(|t| {
                let types = t
                    .by_type
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                vec![t.tier.to_string(), t.nodes.to_string(), t.edges.to_string(), types]
            })
            .collect();
        s.push_str(&table(&["TIER", "NODES", "EDGES", "TYPES"], &rows));
        for t in &r.tiers {
            let more = (t.nodes as usize).saturating_sub(t.adds.len());
            let tail = if more > 0 {
                format!(" (+{more} more)")
            } else {
                String::new()
            };
            s.push_str(&format!("\n{} adds: {}{tail}\n", t.tier, t.adds.join(", ")));
        }
        s.push_str(&format!("\n{} finding(s)\n", r.findings.len()));
        for f in &r.findings {
            s.push_str(&format!("  {f}\n"));
        }
        s
    })?;
    if check && !report.findings.is_empty() {
        bail!("{} exposure finding(s)", report.findings.len());
    }
    Ok(())
}

pub fn what_if(ctx: &Context, spec: &str, query: Option<&str>, depth: u32) -> Result<()> {
    let (node, tier) = spec
        .split_once('=')
        .context("--what-if takes NODE=TIER, e.g. pricing=agent-restricted")?;
    let tier: Tier = tier.parse()?;
    let store = ctx.open(Need::Read)?;
    let settings = super::output::config_in_force(&store)?.projection_settings()?;
    let changes = graphex_engine::exposure::what_if(store.catalog(), node, tier, query, depth.max(1), &settings)?;
    emit(ctx.json, &changes, |changes: &Vec<Change>| {
        if changes.is_empty() {
            return format!("moving {node} to {tier} changes no projection\n");
        }
        let rows: Vec<Vec<String>> = changes
            .iter()
            .map(|c| {
                let delta = c.tokens_after as i64 - c.tokens_before as i64;
                vec![
                    c.center.clone(),
                    c.tier.to_string(),
                    c.tokens_before.to_string(),
                    c.tokens_after.to_string(),
                    format!("{delta:+}"),
                ]
            })
            .collect();
        let mut s = format!("moving {node} to {tier} changes {} projection(s):\n", changes.len());
        s.push_str(&table(&["CENTRE", "TIER", "TOKENS BEFORE", "AFTER", "CHANGE"], &rows));
        s
    })
}
