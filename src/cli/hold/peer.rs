//! Who is on the other end of a connection. The kernel says (`SO_PEERCRED`),
//! so a client cannot lie about it; the session answers only its own user.

use std::os::unix::net::UnixStream;

use anyhow::{Result, bail};

/// The process that connected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peer {
    pub uid: u32,
    pub pid: i32,
}

/// The peer of `stream`, as the kernel recorded it at connect time.
pub fn of(stream: &UnixStream) -> std::io::Result<Peer> {
    let cred = rustix::net::sockopt::socket_peercred(stream)?;
    Ok(Peer {
        uid: cred.uid.as_raw(),
        pid: cred.pid.as_raw_nonzero().get(),
    })
}

/// Refuses a peer that is not `owner` (the user who unlocked).
pub fn check(peer: Peer, owner: u32) -> Result<()> {
    if peer.uid != owner {
        bail!(
            "process {} of user {} is not the session's owner ({owner}): refused",
            peer.pid,
            peer.uid
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_owner_is_answered() {
        let me = rustix::process::getuid().as_raw();
        let (a, _b) = UnixStream::pair().expect("socket pair");
        let peer = of(&a).expect("peer credentials");
        assert_eq!(peer.uid, me);
        assert_eq!(peer.pid, i32::try_from(std::process::id()).expect("pid"));
        check(peer, me).expect("the owner");
        let forged = Peer { uid: me + 1, ..peer };
        let e = check(forged, me).expect_err("another uid");
        assert!(e.to_string().contains("refused"), "{e}");
    }
}
