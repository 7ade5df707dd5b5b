//! Which `graphex` the git hooks and the merge driver run. Never the
//! absolute path of the binary that installed them (a teammate's clone or
//! a moved build would silently do nothing): `graphex` from `PATH`, or the
//! program given to `git install --program`, and `$GRAPHEX_PROGRAM` over
//! either when git runs them. When it cannot be found they say so.

use std::path::Path;

use super::git::shell_word;

/// The environment variable that names the program at the time git runs a hook.
pub const PROGRAM_VAR: &str = "GRAPHEX_PROGRAM";

/// The program as one shell word: `graphex`, or the configured path.
pub fn word(configured: Option<&Path>) -> String {
    configured.map_or_else(|| "graphex".to_owned(), shell_word)
}

/// Shell lines that set `$graphex` to the program and, when it is not
/// there, print why `what` did not happen and exit with `status`.
pub fn find(program: &str, what: &str, status: u8) -> String {
    format!(
        "graphex=${{{PROGRAM_VAR}:-{program}}}\n\
         case $graphex in */*) [ -x \"$graphex\" ] ;; *) command -v \"$graphex\" >/dev/null 2>&1 ;; esac || \
         {{ echo \"graphex: the graphex program ($graphex) was not found: {what}; put graphex on PATH, set \
         {PROGRAM_VAR}, or run graphex git install --program PATH\" >&2; exit {status}; }}\n"
    )
}

/// Whether a command named `name` (no slash) is an executable file on `PATH`.
pub fn on_path(name: &str) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(name)).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(script: &str, env: &[(&str, &str)]) -> std::process::Output {
        let mut c = std::process::Command::new("/bin/sh");
        c.arg("-c").arg(script).env_remove(PROGRAM_VAR);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }

    #[test]
    fn a_missing_program_is_named_and_a_present_one_is_run() {
        let script = format!(
            "{}echo found \"$graphex\"",
            find(&word(None), "the graph was not checked", 3)
        );
        let out = run(&script, &[("PATH", "/nonexistent")]);
        assert_eq!(out.status.code(), Some(3));
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains("graphex program (graphex) was not found: the graph was not checked"),
            "{said}"
        );
        // A configured path with a space, and the environment over it.
        let spaced = word(Some(Path::new("/no such/graphex")));
        let out = run(&format!("{}echo found", find(&spaced, "x", 0)), &[]);
        assert!(String::from_utf8_lossy(&out.stderr).contains("(/no such/graphex)"));
        let out = run(
            &format!("{}echo found \"$graphex\"", find(&spaced, "x", 0)),
            &[(PROGRAM_VAR, "/bin/sh")],
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), "found /bin/sh\n");
        assert!(on_path("sh") && !on_path("graphex-surely-not-installed"));
    }
}
