//! Where an unlock session listens: one socket per user and store, in the
//! user's runtime directory (`$XDG_RUNTIME_DIR/graphex`), else in a `run`
//! directory under the state directory. The directory is 0700 and the
//! user's own, the socket 0600; anything else is refused, never repaired
//! silently.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};

/// Where the sessions' sockets live (not created).
fn socket_dir_path() -> Option<PathBuf> {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()) {
        Some(run) => Some(PathBuf::from(run).join("graphex")),
        None => graphex_engine::freshness::state_dir().map(|state| state.join("run")),
    }
}

/// The socket a session for the store at `root` would listen on, without
/// creating anything (what every command looks at first).
pub fn existing_socket(root: &Path) -> Option<PathBuf> {
    let socket = socket_dir_path()?.join(format!("{}.sock", graphex_engine::freshness::work_tree_key(root)));
    socket.exists().then_some(socket)
}

/// The directory holding the sessions' sockets, created 0700 when missing.
pub fn socket_dir() -> Result<PathBuf> {
    let Some(dir) = socket_dir_path() else {
        bail!("no directory for the unlock session's socket: set XDG_RUNTIME_DIR, XDG_STATE_HOME or HOME")
    };
    if !dir.is_dir() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
    }
    check_private_dir(&dir)?;
    Ok(dir)
}

/// The socket of the session for the store at `root`.
pub fn socket_for(root: &Path) -> Result<PathBuf> {
    Ok(socket_dir()?.join(format!("{}.sock", graphex_engine::freshness::work_tree_key(root))))
}

/// Refuses a directory another user owns or others may enter.
pub fn check_private_dir(dir: &Path) -> Result<()> {
    let meta = std::fs::metadata(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    check_owner_mode(dir, meta.uid(), meta.mode(), 0o700)
}

/// Refuses a socket another user owns or others may open.
pub fn check_private_socket(socket: &Path) -> Result<()> {
    let meta = std::fs::symlink_metadata(socket).with_context(|| format!("cannot read {}", socket.display()))?;
    check_owner_mode(socket, meta.uid(), meta.mode(), 0o600)
}

/// Makes `socket` 0600.
pub fn make_private(socket: &Path) -> Result<()> {
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("cannot make {} private", socket.display()))
}

fn check_owner_mode(path: &Path, uid: u32, mode: u32, want: u32) -> Result<()> {
    let me = rustix::process::getuid().as_raw();
    if uid != me {
        bail!(
            "{} belongs to user {uid}, not to you ({me}): the unlock session will not use it",
            path.display()
        );
    }
    let perms = mode & 0o777;
    if perms & !want != 0 {
        bail!(
            "{} is mode {perms:03o}; the unlock session needs {want:03o} (others must not reach it): `chmod {want:o} {}`",
            path.display(),
            path.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_others_may_enter_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path().join("run");
        std::fs::DirBuilder::new().mode(0o755).create(&d).expect("mkdir");
        let e = check_private_dir(&d).expect_err("0755 must be refused");
        assert!(e.to_string().contains("mode 755"), "{e}");
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        check_private_dir(&d).expect("0700 is private");
    }

    #[test]
    fn another_users_file_is_refused() {
        let me = rustix::process::getuid().as_raw();
        let e = check_owner_mode(Path::new("/x"), me + 1, 0o600, 0o600).expect_err("not mine");
        assert!(e.to_string().contains("not to you"), "{e}");
        check_owner_mode(Path::new("/x"), me, 0o600, 0o600).expect("mine, 0600");
        assert!(check_owner_mode(Path::new("/x"), me, 0o660, 0o600).is_err());
    }
}
