//! Writing an export: always a new file (never over one), readable by its
//! owner only, synced; errors name the file and the problem.

use std::path::Path;

/// Writes `body` to `file`, which must not exist yet (the engine's private
/// file writer: 0600, created new, synced), with the error said for people.
pub fn write_new(file: &Path, body: &str) -> Result<(), String> {
    let existed = file.exists();
    graphex_engine::keys::files::write_private(file, body.as_bytes()).map_err(|e| {
        if existed {
            format!("{} already exists; export to a new file name", file.display())
        } else {
            format!("cannot write {}: {e}", file.display())
        }
    })
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
