//! `graphex config show|approve`: the settings in force and their approval;
//! `graphex seal`: the master's seal on a store that has none.
//!
//! The settings in `.gpp/config.toml` decide what agents receive (trust
//! thresholds, scrub patterns…), and anyone who can write to the repository
//! can edit that file. So only settings the master approved are in force.

use anyhow::Result;
use serde::Serialize;

use super::args::ConfigCommand;
use super::output::{emit, note};
use super::session::{Context, Need};

#[derive(Serialize)]
struct Shown {
    in_force: graphex_engine::config::Config,
    /// How the file differs from what is in force (`name: approved -> file`).
    unapproved: Vec<String>,
}

pub fn config(ctx: &Context, cmd: &ConfigCommand) -> Result<()> {
    match cmd {
        ConfigCommand::Show => {
            let store = ctx.open(Need::Read)?;
            let c = store.config()?;
            let shown = Shown {
                in_force: c.config,
                unapproved: c.unapproved,
            };
            emit(ctx.json, &shown, |s| {
                // In the file's own shape, ready to copy into it.
                let mut file = toml::Table::new();
                if let Ok(toml::Value::Table(t)) = toml::Value::try_from(&s.in_force) {
                    file.insert("graphex".into(), toml::Value::Table(t));
                }
                let mut out = format!(
                    "in force (approved by the master):\n{}\n",
                    toml::to_string_pretty(&file).unwrap_or_default()
                );
                if s.unapproved.is_empty() {
                    out.push_str(".gpp/config.toml matches.\n");
                } else {
                    out.push_str(".gpp/config.toml differs (not in force until `graphex config approve`):\n");
                    for d in &s.unapproved {
                        out.push_str(&format!("  {d}\n"));
                    }
                }
                out
            })
        }
        ConfigCommand::Approve => {
            let mut store = ctx.open(Need::Write)?;
            let changed = store.retrying(|s| s.approve_config())?;
            emit(ctx.json, &changed, |c| {
                if c.is_empty() {
                    "nothing to approve: .gpp/config.toml matches the settings in force\n".to_owned()
                } else {
                    let mut out = "approved; now in force:\n".to_owned();
                    for d in c {
                        out.push_str(&format!("  {d}\n"));
                    }
                    out
                }
            })?;
            if !changed.is_empty() {
                note("recorded on the timeline as approve-config");
            }
            Ok(())
        }
    }
}
