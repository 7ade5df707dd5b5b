//! Process hygiene for a program that holds decrypted keys and content:
//! no core dumps, and (on Linux) not dumpable, so a crash leaves no memory
//! image on disk and other processes of the same user cannot attach to it
//! and read its memory.

use crate::error::{Error, Result};

/// Turns core dumps off for this process. Call once, first thing.
pub fn harden_process() -> Result<()> {
    let fail = |what: &str, e: rustix::io::Errno| Error::integrity("process hardening", format!("{what}: {e}"));
    rustix::process::setrlimit(
        rustix::process::Resource::Core,
        rustix::process::Rlimit {
            current: Some(0),
            maximum: Some(0),
        },
    )
    .map_err(|e| fail("setting the core size limit to 0", e))?;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
        .map_err(|e| fail("marking the process not dumpable", e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_dumps_are_off_and_the_process_is_not_dumpable() {
        harden_process().unwrap();
        let limit = rustix::process::getrlimit(rustix::process::Resource::Core);
        assert_eq!((limit.current, limit.maximum), (Some(0), Some(0)));
        #[cfg(target_os = "linux")]
        assert_eq!(
            rustix::process::dumpable_behavior().unwrap(),
            rustix::process::DumpableBehavior::NotDumpable
        );
    }
}
