//! Writing an export: always a new file (never over one), readable by its
//! owner only, synced; errors name the file and the problem.

use std::io::Write as _;
use std::path::Path;

/// Writes `body` to `file`, which must not exist yet.
pub fn write_new(file: &Path, body: &str) -> Result<(), String> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    match opts
        .open(file)
        .and_then(|mut f| f.write_all(body.as_bytes()).and_then(|()| f.sync_all()))
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(format!("{} already exists; export to a new file name", file.display()))
        }
        Err(e) => Err(format!("cannot write {}: {e}", file.display())),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_new_file_is_private_and_an_old_one_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("out.json");
        super::write_new(&f, "one").unwrap();
        let e = super::write_new(&f, "two").unwrap_err();
        assert!(e.contains("already exists"), "{e}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "one");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            assert_eq!(std::fs::metadata(&f).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let e = super::write_new(&dir.path().join("no/such/dir.json"), "x").unwrap_err();
        assert!(e.contains("cannot write"), "{e}");
    }
}
