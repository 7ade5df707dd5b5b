//! Hints printed under an error: what the user can do about it. The engine
//! says what went wrong; the edge says how to proceed.

use graphex_engine::{Error, Level, Tier};

/// A hint for `err`, when there is something useful to say.
pub fn for_error(err: &anyhow::Error) -> Option<String> {
    let e = err.downcast_ref::<Error>()?;
    let master = "set GRAPHEX_PASSPHRASE or GRAPHEX_IDENTITY, or pass --unlock master in a terminal";
    let human = "set GRAPHEX_HUMAN_PASSPHRASE (with the master), or pass --unlock human in a terminal";
    Some(match e {
        Error::TierLocked(_, Tier::HumanOnly) => human.to_owned(),
        Error::TierLocked(..) => master.to_owned(),
        Error::Locked {
            needed: Level::Human, ..
        } => human.to_owned(),
        Error::Locked { .. } => master.to_owned(),
        Error::WrongSecret("passphrase", _) => "check GRAPHEX_PASSPHRASE (or what you typed)".to_owned(),
        Error::WrongSecret("human passphrase", _) => "check GRAPHEX_HUMAN_PASSPHRASE".to_owned(),
        Error::Integrity { .. } => {
            "stored data failed its integrity check: it was altered or damaged; nothing was changed or served"
                .to_owned()
        }
        Error::KeyringForged { .. } => {
            "a key file is not the one this store was made with: restore .gpp/graphex/keys/ from a copy you \
             trust (git history); do not write to the store until then"
                .to_owned()
        }
        Error::SchemaTooNew { .. } => "this store was written by a newer graphex".to_owned(),
        Error::Stale => "another process wrote at the same time; run the command again".to_owned(),
        Error::StaleBase { .. } => {
            "review the versions above; accept with --force to apply anyway, --only to skip those changes, or edit it"
                .to_owned()
        }
        Error::AlreadyDecided(_) => "see `graphex proposal-status ID` and `graphex timeline`".to_owned(),
        Error::UndoBlocked(_) => "see `graphex timeline` for what changed since".to_owned(),
        _ => return None,
    })
}
