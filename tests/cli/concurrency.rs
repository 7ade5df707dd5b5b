//! Several writers at once (separate processes, as two consoles, the CLI
//! and the MCP server would be): every change lands, none is lost, and no
//! lock or staleness error reaches anyone.

use std::thread;

use crate::harness::Repo;

#[test]
fn concurrent_writers_all_land_with_no_error_and_no_lost_update() {
    let repo = Repo::new();
    repo.ok(&["add", "--type", "service", "--name", "shared", "-d", "v1"]);
    let before = repo.json(repo.master(), &["list"]).as_array().unwrap().len();
    let (writers, each) = (3, 5);
    thread::scope(|scope| {
        let mut handles = Vec::new();
        for w in 0..writers {
            let repo = &repo;
            handles.push(scope.spawn(move || {
                for i in 0..each {
                    let name = format!("node-{w}-{i}");
                    let out = repo
                        .master()
                        .args(["add", "--type", "module", "--name", &name, "-d", "added concurrently"])
                        .output()
                        .unwrap();
                    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
                }
            }));
        }
        // Meanwhile one more writer updates the same node again and again.
        handles.push(scope.spawn(|| {
            for i in 0..each {
                let out = repo
                    .master()
                    .args(["update", "shared", "-d", &format!("update {i}")])
                    .output()
                    .unwrap();
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(out.status.success(), "update {i}: {err}");
                assert!(!err.contains("locked") && !err.contains("another process"), "{err}");
            }
        }));
        for h in handles {
            h.join().unwrap();
        }
    });
    let after = repo.json(repo.master(), &["list"]).as_array().unwrap().len();
    assert_eq!(after, before + writers * each, "every add landed");
    let shared = repo.json(repo.master(), &["show", "shared"]);
    assert_eq!(shared["version"], 1 + each as u64, "no update was lost: {shared}");
    assert_eq!(shared["description"], format!("update {}", each - 1));
    let out = repo.master().args(["--json", "doctor"]).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["outcome"] == "finding")
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(findings, ["passphrase KDF"], "{report}");
}
