//! The arguments of `unlock` and of the session process it starts.

use std::time::Duration;

use clap::Args;

/// The level an unlock session holds.
#[derive(Debug, Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum HoldLevel {
    /// The agent identity alone (GRAPHEX_AGENT_IDENTITY): what an agent's own MCP server reads.
    Agent,
    Master,
    Human,
}

/// `graphex unlock`'s options.
#[derive(Debug, Args)]
pub struct UnlockArgs {
    /// The level the session holds: master (everything but human-only, and writes), human
    /// (human-only as well, for the next command only; then the session holds the master level) or
    /// agent (the agent identity alone, from GRAPHEX_AGENT_IDENTITY: for agents' MCP servers).
    #[arg(long, value_enum, default_value = "master")]
    pub level: HoldLevel,
    /// End the session after this long without a command: 30s, 15m, 2h.
    #[arg(long, value_name = "TIME", default_value = "15m", value_parser = parse_duration)]
    pub idle: Duration,
    /// With --level human: keep human-only unlocked this long (30s, 15m) instead of for the next
    /// command only.
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub human_for: Option<Duration>,
    /// Serve every process of yours, not only this terminal's: another tab, a script started
    /// elsewhere, and a coding agent running as you may then read and decide at the session's
    /// level. Without it a master session answers only processes of the terminal that unlocked.
    #[arg(long)]
    pub any_terminal: bool,
}

/// The hidden command `unlock` runs as the detached session process.
#[derive(Debug, Args)]
pub struct ServeArgs {
    #[arg(long, value_enum)]
    pub level: HoldLevel,
    #[arg(long)]
    pub idle_secs: u64,
    /// The login session (its leader's process id) the session ends with.
    #[arg(long)]
    pub login: Option<i32>,
    #[arg(long)]
    pub human_secs: Option<u64>,
    #[arg(long)]
    pub any_terminal: bool,
}

/// `30s`, `15m`, `2h` or a number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a time: write 30s, 15m or 2h"))?;
    let secs = match unit {
        "s" => n,
        "m" => n.saturating_mul(60),
        "h" => n.saturating_mul(3600),
        _ => return Err(format!("{text:?}: the unit is s, m or h")),
    };
    if secs == 0 {
        return Err("an idle time of 0 would end the session at once".into());
    }
    Ok(Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units_and_bad_ones_say_why() {
        assert_eq!(parse_duration("15m"), Ok(Duration::from_secs(900)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
        assert!(parse_duration("5d").expect_err("days").contains("unit"));
        assert!(parse_duration("soon").expect_err("words").contains("not a time"));
        assert!(parse_duration("0s").is_err());
    }
}
