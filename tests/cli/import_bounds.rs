//! What an import reads stays bounded: an Ash directory's files must really
//! be inside it (a symbolic link out is refused, naming the file), and its
//! files together are capped, not only each one.

use predicates::prelude::*;

use crate::harness::{Repo, names};

fn ash_dir(tmp: &std::path::Path) -> std::path::PathBuf {
    let ash = tmp.join("ash");
    std::fs::create_dir(&ash).unwrap();
    std::fs::write(ash.join("people.jsonl"), "{\"id\":\"p1\",\"name\":\"Bob\"}\n").unwrap();
    ash
}

#[cfg(unix)]
#[test]
fn an_ash_directory_with_a_link_to_a_file_outside_is_refused() {
    let repo = Repo::new();
    let tmp = tempfile::tempdir().unwrap();
    let ash = ash_dir(tmp.path());
    // What lies outside: a file the user never meant to import.
    let outside = tmp.path().join("secret.jsonl");
    std::fs::write(&outside, "{\"id\":\"s1\",\"name\":\"Outside Secret\"}\n").unwrap();
    std::os::unix::fs::symlink(&outside, ash.join("memories.jsonl")).unwrap();
    repo.master()
        .args(["import"])
        .arg(&ash)
        .args(["--format", "ash-jsonl"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("memories.jsonl").and(predicate::str::contains("outside")));
    assert!(names(&repo.json(repo.master(), &["list", "--all"])).is_empty());

    // A link that stays inside the directory is read.
    std::fs::remove_file(ash.join("memories.jsonl")).unwrap();
    std::fs::create_dir(ash.join("sub")).unwrap();
    std::fs::write(
        ash.join("sub/m.json"),
        "{\"id\":\"m1\",\"content\":\"Bob likes tea\"}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(ash.join("sub/m.json"), ash.join("memories.jsonl")).unwrap();
    repo.master()
        .args(["import"])
        .arg(&ash)
        .args(["--format", "ash-jsonl"])
        .assert()
        .success();
    assert_eq!(
        names(&repo.json(repo.master(), &["list", "--all"])),
        ["memory-m1", "person-bob"]
    );
}

#[cfg(unix)]
#[test]
fn a_linked_directory_component_leading_outside_is_refused_too() {
    let repo = Repo::new();
    let tmp = tempfile::tempdir().unwrap();
    let ash = ash_dir(tmp.path());
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("x.jsonl"), "{\"id\":\"x1\"}\n").unwrap();
    // `ash/link.jsonl` -> a link to a link chain that ends outside.
    std::os::unix::fs::symlink(&elsewhere, ash.join("hop")).unwrap();
    std::os::unix::fs::symlink(ash.join("hop/x.jsonl"), ash.join("users.jsonl")).unwrap();
    repo.master()
        .args(["import"])
        .arg(&ash)
        .args(["--format", "ash-jsonl"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("users.jsonl").and(predicate::str::contains("outside")));
    assert!(names(&repo.json(repo.master(), &["list", "--all"])).is_empty());
}

#[test]
fn an_ash_directory_larger_than_the_cap_in_total_is_refused_before_reading() {
    let repo = Repo::new();
    let tmp = tempfile::tempdir().unwrap();
    let ash = ash_dir(tmp.path());
    // Each file under the cap, together over it. Sparse files: nothing is
    // written to disk, and the refusal comes before any byte is read.
    let each = graphex_engine::interchange::MAX_INPUT_BYTES / 2 + 1;
    for name in ["memories.jsonl", "users.jsonl"] {
        let f = std::fs::File::create(ash.join(name)).unwrap();
        f.set_len(each).unwrap();
    }
    let total = 2 * each + std::fs::metadata(ash.join("people.jsonl")).unwrap().len();
    repo.master()
        .args(["import"])
        .arg(&ash)
        .args(["--format", "ash-jsonl"])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains(format!("{total} bytes"))
                .and(predicate::str::contains("256 MiB"))
                .and(predicate::str::contains("together")),
        );
    assert!(names(&repo.json(repo.master(), &["list", "--all"])).is_empty());
}
