//! `graphex config show|approve`: the settings in force and their approval;
//! `graphex seal`: the master's seal on a store that has none.
//!
//! The settings in `.gpp/config.toml` decide what agents receive (trust
//! thresholds, scrub patterns…), and anyone who can write to the repository
//! can edit that file. So only settings the master approved are in force,
//! and approving shows the change first: a person confirms it on a
//! terminal, or a script names it by the digest `config show` printed
//! (as `accept --batch` names a reviewed batch).

use anyhow::{Result, bail};
use serde::Serialize;

use super::args::ConfigCommand;
use super::output::{emit, note};
use super::session::{Context, Need, confirm, interactive};

#[derive(Serialize)]
struct Shown {
    in_force: graphex_engine::config::Config,
    /// How the file differs from what is in force (`name: approved -> file`).
    unapproved: Vec<String>,
    /// The digest `config approve --yes` takes to approve the file as it is
    /// now; null when there is nothing to approve.
    approval: Option<String>,
    /// Why approving the file as it is now would be refused, if it would.
    #[serde(skip_serializing_if = "Option::is_none")]
    refused: Option<String>,
}

/// Settings in the file's own shape, ready to copy into it.
pub(super) fn settings_text(config: &graphex_engine::config::Config) -> String {
    let mut file = toml::Table::new();
    if let Ok(toml::Value::Table(t)) = toml::Value::try_from(config) {
        file.insert("graphex".into(), toml::Value::Table(t));
    }
    toml::to_string_pretty(&file).unwrap_or_default()
}

pub fn config(ctx: &Context, cmd: &ConfigCommand) -> Result<()> {
    match cmd {
        ConfigCommand::Show => {
            let store = ctx.open(Need::Read)?;
            let c = store.config()?;
            // A file approving would refuse (a weight's key the graph does
            // not know) gets the reason, not a digest.
            let (approval, refused) = match c.approval.as_ref().map(|_| store.config_approval()) {
                Some(Err(e)) => (None, Some(e.to_string())),
                _ => (c.approval, None),
            };
            let shown = Shown {
                in_force: c.config,
                unapproved: c.unapproved,
                approval,
                refused,
            };
            emit(ctx.json, &shown, |s| {
                let mut out = format!("in force (approved by the master):\n{}\n", settings_text(&s.in_force));
                if s.unapproved.is_empty() {
                    out.push_str(".gpp/config.toml matches.\n");
                } else {
                    out.push_str(".gpp/config.toml differs (not in force until `graphex config approve`):\n");
                    for d in &s.unapproved {
                        out.push_str(&format!("  {d}\n"));
                    }
                    if let Some(digest) = &s.approval {
                        out.push_str(&format!(
                            "approve exactly this with `graphex config approve --yes {digest}`\n"
                        ));
                    }
                    if let Some(why) = &s.refused {
                        out.push_str(&format!("approving it would be refused: {why}\n"));
                    }
                }
                out
            })
        }
        ConfigCommand::Approve { yes } => {
            let mut store = ctx.open(Need::Write)?;
            let approval = store.config_approval()?;
            let digest = match yes {
                // Checked against the disk in the transaction that approves.
                Some(digest) => digest.clone(),
                None if approval.changes.is_empty() => approval.digest,
                None => {
                    let mut shown = ".gpp/config.toml would change the settings in force:\n".to_owned();
                    for d in &approval.changes {
                        shown.push_str(&format!("  {d}\n"));
                    }
                    note(shown.trim_end());
                    if !interactive() {
                        bail!(
                            "no terminal to confirm on: review the change with `graphex config show`, then run \
                             `graphex config approve --yes DIGEST` with the digest it prints"
                        );
                    }
                    if !confirm("Approve these settings?")? {
                        bail!("not approved; nothing changed");
                    }
                    // What was shown: a file edited while the question
                    // was open is refused, not approved unseen.
                    approval.digest
                }
            };
            let changed = store.retrying(|s| s.approve_config(&digest))?;
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
