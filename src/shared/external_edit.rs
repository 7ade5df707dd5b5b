//! Handing a text to the user's editor (`$VISUAL`, else `$EDITOR`, else
//! `vi`) and reading it back: the console's `ctrl-e` in the proposal
//! editor. The text is decrypted content, so it lives only as a 0600 file
//! in a fresh 0700 directory (in `$XDG_RUNTIME_DIR` when there is one: a
//! memory file system that is the user's alone), removed as soon as the
//! editor returns, whatever it returned.

use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};

/// The editor a hand-off runs.
pub fn editor() -> String {
    std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .ok()
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| "vi".to_owned())
}

/// Runs the user's editor on `text` (as the file `name`) and returns the
/// text it left, or why there is none (the edit is then unchanged).
pub fn edit(name: &str, text: &str) -> Result<String, String> {
    edit_with(&editor(), name, text)
}

/// [`edit`] with the editor command given.
pub fn edit_with(editor: &str, name: &str, text: &str) -> Result<String, String> {
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(std::path::PathBuf::from)
        .filter(|d| d.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    let dir = tempfile::Builder::new()
        .prefix("graphex-edit-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(&base)
        .map_err(|e| {
            format!(
                "cannot make a private directory for the edit in {}: {e}",
                base.display()
            )
        })?;
    let file = dir.path().join(name);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&file)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("graphex-edit")
        .arg(&file)
        .status()
        .map_err(|e| format!("cannot start the editor {editor:?} (set VISUAL or EDITOR): {e}"))?;
    if !status.success() {
        return Err(format!(
            "the editor {editor:?} exited with {status}; the edit is as it was"
        ));
    }
    let back = std::fs::read_to_string(&file).map_err(|e| format!("cannot read the edited file back: {e}"));
    // The directory and the decrypted text go now, whatever was read.
    drop(dir);
    back
}

/// The line (1-based) a JSON error names (`… at line 3 column 7`).
pub fn error_line(message: &str) -> Option<usize> {
    let at = message.rfind("line ")?;
    let digits: String = message[at + 5..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok().filter(|n| *n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_names_its_line() {
        assert_eq!(error_line("expected `,` or `}` at line 3 column 17"), Some(3));
        assert_eq!(error_line("no line here"), None);
        assert_eq!(error_line("at line 0 column 1"), None);
    }

    #[test]
    fn the_editor_s_text_comes_back_and_the_file_is_gone() {
        // A non-interactive "editor": sed in place, as a script would.
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("seen");
        let script = format!(
            "sh -c 'sed -i s/one/two/ \"$0\" && ls -ld \"$(dirname \"$0\")\" > {} && stat -c %a \"$0\" >> {}'",
            marker.display(),
            marker.display()
        );
        let back = edit_with(&script, "p.json", "{\"one\": 1}");
        assert_eq!(back.unwrap(), "{\"two\": 1}");
        let seen = std::fs::read_to_string(&marker).unwrap();
        assert!(seen.starts_with("drwx------"), "{seen}");
        assert!(seen.trim_end().ends_with("600"), "{seen}");
        let path = seen.split_whitespace().nth(8).unwrap().to_owned();
        assert!(!std::path::Path::new(&path).exists(), "removed: {path}");
        let failed = edit_with("false", "p.json", "{}");
        assert!(failed.unwrap_err().contains("exited with"));
    }
}
