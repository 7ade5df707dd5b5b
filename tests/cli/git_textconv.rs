//! Git shows the graph in words: `git install` sets the textconv, and
//! `git diff`, `git log -p` and `git show` print the index as sorted text,
//! at the level of the key in git's environment; keyless, public content
//! and counts of what is sealed.

use crate::git::{add, commit_all, git_command, git_ok, graphex, repo};

#[test]
fn git_diff_and_log_show_the_graph_in_words() {
    let dir = repo();
    let root = dir.path();
    let attributes = std::fs::read_to_string(root.join(".gitattributes")).unwrap();
    assert!(
        attributes.contains(".gpp/graphex/graph.db merge=graphex diff=graphex"),
        "{attributes}"
    );
    assert!(!attributes.contains("graph.db merge=graphex -diff"), "{attributes}");
    graphex(
        root,
        &[
            "add",
            "--type",
            "service",
            "--name",
            "inner",
            "-d",
            "kept inside",
            "--tier",
            "agent-readable",
        ],
    );
    graphex(root, &["link", "shared", "uses", "inner"]);
    commit_all(root, "inner");
    graphex(root, &["update", "shared", "-d", "changed words"]);
    add(root, "later", "added after");
    // With the master key, as git runs it.
    let diff = git_ok(root, &["diff", "--", ".gpp/graphex/graph.db"]);
    assert!(diff.contains("-  description: \"as it was\""), "{diff}");
    assert!(diff.contains("+  description: \"changed words\""), "{diff}");
    assert!(diff.contains("+node later"), "{diff}");
    assert!(!diff.contains("Binary files"), "{diff}");
    commit_all(root, "words");
    let log = git_ok(root, &["log", "-p", "-1", "--", ".gpp/graphex/graph.db"]);
    assert!(log.contains("+  description: \"changed words\""), "{log}");
    let show = git_ok(root, &["show", "HEAD~1", "--", ".gpp/graphex/graph.db"]);
    assert!(
        show.contains("+node inner") && show.contains("+  -> uses -> inner (agent-readable)"),
        "{show}"
    );
    // Keyless: public content, and what is sealed counted.
    let out = git_command(root, &["show", "HEAD~1", "--", ".gpp/graphex/graph.db"])
        .output()
        .unwrap();
    let keyless = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{keyless}");
    assert!(!keyless.contains("kept inside"), "{keyless}");
    assert!(keyless.contains("+sealed agent-readable: 1 node(s)"), "{keyless}");
    // Stable: the same file, the same text.
    let db = root.join(".gpp/graphex/graph.db");
    let once = graphex(root, &["git", "textconv", db.to_str().unwrap()]);
    assert_eq!(once, graphex(root, &["git", "textconv", db.to_str().unwrap()]));
    assert!(once.starts_with("node inner\n"), "sorted by name: {once}");
}

#[test]
fn an_older_install_gets_the_textconv_on_the_next_install() {
    let dir = repo();
    let root = dir.path();
    std::fs::write(
        root.join(".gitattributes"),
        ".gpp/graphex/graph.db merge=graphex -diff\n.gpp/graphex/keys/** -merge -diff\n",
    )
    .unwrap();
    git_ok(root, &["config", "--unset", "diff.graphex.textconv"]);
    let said = graphex(root, &["git", "install"]);
    assert!(said.contains("textconv"), "{said}");
    let attributes = std::fs::read_to_string(root.join(".gitattributes")).unwrap();
    assert_eq!(
        attributes,
        ".gpp/graphex/graph.db merge=graphex diff=graphex\n.gpp/graphex/keys/** -merge -diff\n"
    );
    assert!(git_ok(root, &["config", "--get", "diff.graphex.textconv"]).contains("git textconv"));
}
