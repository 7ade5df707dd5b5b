//! The recovery drill: an owner holding the master identity (and, for
//! human-only, the human passphrase) opens every tier-key file with a stock
//! age implementation, no Graphex code involved. The `age` crate is used
//! here as that implementation; `scripts/recovery_drill.sh` does the same
//! with the `age` command-line tool.

use std::io::Read as _;
use std::str::FromStr as _;

use age::secrecy::SecretString;

use crate::harness::{HUMAN, PASS, Repo};

fn decrypt(bytes: &[u8], identity: &dyn age::Identity) -> Vec<u8> {
    let d = age::Decryptor::new_buffered(bytes).unwrap();
    let mut out = Vec::new();
    d.decrypt(std::iter::once(identity))
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// The hex key of a tier-key file's text, checked to name `tier`.
fn key_of(text: &[u8], tier: &str) -> String {
    let text = String::from_utf8(text.to_vec()).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("graphex tier key v1"));
    assert_eq!(lines.next(), Some(format!("tier: {tier}").as_str()));
    let key = lines.next().unwrap().strip_prefix("key: ").unwrap().to_owned();
    assert_eq!(key.len(), 64);
    key
}

#[test]
fn every_tier_key_opens_with_stock_age_and_the_master_identity() {
    let repo = Repo::new();
    let id_file = repo.root().join("master.id");
    repo.master()
        .args(["keys", "export-master"])
        .arg(&id_file)
        .assert()
        .success();
    let keys = repo.root().join(".gpp/graphex/keys");

    // The master identity file is a plain age identity file.
    let text = std::fs::read_to_string(&id_file).unwrap();
    let line = text.lines().find(|l| l.starts_with("AGE-SECRET-KEY-1")).unwrap();
    let master = age::x25519::Identity::from_str(line).unwrap();
    // And master.age opens with the passphrase alone.
    let sealed = std::fs::read(keys.join("master.age")).unwrap();
    let from_passphrase = decrypt(&sealed, &age::scrypt::Identity::new(SecretString::from(PASS)));
    assert!(String::from_utf8(from_passphrase).unwrap().trim() == line);

    let mut found = Vec::new();
    for tier in ["agent-readable", "agent-restricted"] {
        let bytes = std::fs::read(keys.join(format!("{tier}.age"))).unwrap();
        found.push(key_of(&decrypt(&bytes, &master), tier));
    }
    // human-only: the master opens the outer layer, the human passphrase the inner.
    let outer = decrypt(&std::fs::read(keys.join("human-only.age")).unwrap(), &master);
    let inner = decrypt(&outer, &age::scrypt::Identity::new(SecretString::from(HUMAN)));
    found.push(key_of(&inner, "human-only"));
    found.push(key_of(&std::fs::read(keys.join("public.key")).unwrap(), "public"));
    found.sort();
    found.dedup();
    assert_eq!(found.len(), 4, "four different tier keys");
}

/// An older graph.db written over the file in place (`cp old graph.db`,
/// the same inode): the copy this machine keeps is a real copy, so the
/// newer graph comes back from it and nothing is lost.
#[test]
fn an_in_place_rollback_is_restored_from_the_kept_copy() {
    let repo = crate::harness::Repo::new();
    repo.ok(&["add", "-t", "concept", "--name", "older", "--description", "first"]);
    let db = repo.root().join(".gpp/graphex/graph.db");
    let old = std::fs::read(&db).unwrap();
    repo.ok(&[
        "add",
        "-t",
        "concept",
        "--name",
        "newer",
        "--description",
        "never in git",
    ]);
    use std::os::unix::fs::MetadataExt as _;
    let inode = std::fs::metadata(&db).unwrap().ino();
    std::fs::write(&db, &old).unwrap();
    assert_eq!(std::fs::metadata(&db).unwrap().ino(), inode, "written in place");
    let out = repo.master().args(["show", "newer"]).output().unwrap();
    assert!(!out.status.success(), "the newer node is gone from the file");
    let out = repo.master().args(["freshness", "restore", "--yes"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("backup"), "restored from this machine's copy: {said}");
    let shown = repo.ok(&["show", "newer"]);
    assert!(shown.contains("never in git"), "{shown}");
}
