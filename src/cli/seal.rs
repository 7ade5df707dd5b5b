//! `graphex seal`: a store with no master's seal, sealed only after every
//! difference from the last trusted seal is accepted or the trusted copy
//! restored (see the engine's `store::seal_repair`).

use anyhow::{Result, bail};
use graphex_engine::rollback;
use graphex_engine::store::{Acceptance, DiffKind};

use super::Context;
use super::args::SealArgs;
use super::output::note;
use super::session::confirm;

pub fn seal(ctx: &Context, args: &SealArgs) -> Result<()> {
    let mut accepted = Vec::new();
    for given in &args.accept {
        match Acceptance::parse(given) {
            Some(a) => accepted.push(a),
            None => bail!(
                "--accept {given:?}: not a kind of difference (commits, rows, decisions, audit, settings, queries, \
                 timeline, no-reference), followed by =DIGEST as `graphex seal` prints it"
            ),
        }
    }
    let (mut store, creds) = ctx.open_to_seal()?;
    let plan = store.seal_plan()?;
    match &plan.reference {
        Some(r) => note(&format!("compared with the last trusted seal: {r}")),
        None if plan.migrated => note("the store's schema predates seals: it is sealed as it is"),
        None => {}
    }
    if let Some(m) = &plan.mixed_macs {
        note(&format!("  history: {m}"));
    }
    for d in &plan.differences {
        note(&format!("  {}: {}", d.kind.as_str(), d.detail));
        if d.kind == DiffKind::Settings {
            let from = match plan.settings_from_file {
                true => ".gpp/config.toml, approved by accepting them",
                false => "the settings this store holds as approved, unsealed",
            };
            note(&format!("    accepting them puts these in force ({from}):"));
            for line in super::config::settings_text(&plan.settings).lines() {
                note(&format!("      {line}"));
            }
        }
        note(&format!(
            "    to accept exactly this: --accept {}={}",
            d.kind.as_str(),
            d.digest
        ));
    }
    if args.restore_all {
        let Some(trusted) = plan.trusted.clone() else {
            bail!("nothing to restore from: no trusted seal was found (see above)");
        };
        let root = store.layout().root().to_owned();
        drop(store);
        let candidate = rollback::find(&root, &trusted)?;
        note(&format!(
            "will restore graph commit {} from {}, and move the store as it is now aside",
            trusted.seq, candidate.source
        ));
        if !args.yes && !confirm("Restore the trusted copy?")? {
            bail!("nothing restored (to restore without a question, add --yes)");
        }
        let done = rollback::restore(&root, &creds, candidate)?;
        note(&format!(
            "restored graph commit {} from {}; the store as it was is kept at {}",
            done.seq,
            done.source,
            done.aside.display()
        ));
        return Ok(());
    }
    if plan.differences.is_empty() && plan.mixed_macs.is_none() && plan.reference.is_some() {
        note("no difference from the trusted seal");
    }
    // Kinds that can be restored alone come back from the trusted copy,
    // unless accepted; the store as it is goes aside first.
    let accepted_kinds: Vec<DiffKind> = accepted.iter().map(|a| a.kind).collect();
    let restorable: Vec<&str> = plan
        .unexplained(&accepted_kinds)
        .iter()
        .filter(|d| d.kind.restorable())
        .map(|d| d.kind.as_str())
        .collect();
    let candidate = match (&plan.trusted, restorable.is_empty()) {
        (Some(trusted), false) => match rollback::find(store.layout().root(), trusted) {
            Ok(c) => Some(c),
            Err(e) => {
                note(&format!(
                    "no trusted copy to restore {} from: {e}",
                    restorable.join(", ")
                ));
                None
            }
        },
        _ => None,
    };
    if let Some(c) = &candidate {
        note(&format!(
            "will restore {} from {}, and keep the store as it is now aside",
            restorable.join(", "),
            c.source
        ));
        if !args.yes && !confirm("Restore them and seal?")? {
            bail!("nothing restored or sealed (to go on without a question, add --yes)");
        }
        let aside = rollback::set_aside(store.layout().root(), false)?;
        note(&format!("the store as it was is kept at {}", aside.display()));
    }
    if store.seal_restoring(&accepted, candidate.as_ref().map(|c| c.path()))? {
        note("sealed: from now on any change made outside Graphex is refused (recorded on the timeline)");
        let c = store.config()?;
        if let Some(w) = c.warning() {
            note(&format!("warning: {w}"));
        }
    } else {
        note("already sealed; nothing changed");
    }
    Ok(())
}
