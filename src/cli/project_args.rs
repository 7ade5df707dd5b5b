//! The arguments of `graphex project`: what to centre on, the tier or
//! trust it is cut for (agent-readable when neither is given), the budget
//! and the form.

use clap::Args;

use super::args::ProjectFormat;

#[derive(Debug, Args, Clone, serde::Serialize, serde::Deserialize)]
#[command(group(clap::ArgGroup::new("access").args(["tier", "trust"])))]
#[command(group(clap::ArgGroup::new("centre").required(true).args(["query", "node"])))]
pub struct ProjectArgs {
    /// The query whose paths' nodes form the context.
    pub query: Option<String>,
    /// Project around this node instead of a query.
    #[arg(long, conflicts_with = "query")]
    pub node: Option<String>,
    /// With --node: how many hops around it.
    #[arg(long, default_value_t = 2, requires = "node")]
    pub depth: u32,
    /// The tier the agent may read: public, agent-readable or agent-restricted (human-only is
    /// never projected and is refused, exit status 2). Without --tier or --trust:
    /// agent-readable, as the spec's examples project.
    #[arg(long, value_parser = projectable_tier)]
    pub tier: Option<String>,
    /// The agent's trust score, mapped to a tier by the store's thresholds.
    #[arg(long)]
    pub trust: Option<f64>,
    /// With --trust: the agent runs in a trusted local runtime (may reach agent-restricted).
    #[arg(long, requires = "trust")]
    pub local: bool,
    /// The agent's id, for the record.
    #[arg(long, default_value = "cli")]
    pub agent: String,
    /// Token budget.
    #[arg(long, default_value_t = 8000)]
    pub budget: usize,
    /// Output format (`--json` is the same as `--format json`).
    #[arg(long, value_enum, default_value = "md")]
    pub format: ProjectFormat,
    /// A person previewing, not an agent receiving: recorded as a preview (an identical preview is
    /// not recorded twice; `[graphex.audit] previews = "skip"` records none).
    #[arg(long)]
    pub preview: bool,
}

/// A tier an agent may be given: a usage error (exit status 2) for
/// human-only, which the spec never projects, rather than a quiet lowering.
fn projectable_tier(s: &str) -> Result<String, String> {
    match s.parse::<graphex_engine::model::Tier>() {
        Ok(graphex_engine::model::Tier::HumanOnly) => Err(
            "human-only content is never projected to agents; give public, agent-readable or agent-restricted"
                .to_owned(),
        ),
        Ok(_) => Ok(s.to_owned()),
        Err(e) => Err(e.to_string()),
    }
}
