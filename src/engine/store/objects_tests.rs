//! Tests of the blob files' layout (see `objects`).

use super::*;

#[test]
fn names_are_lowercase_hex_sha256() {
    assert_eq!(
        Objects::hash(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn writes_are_whole_and_reads_check_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let objects = Objects::new(dir.path().to_path_buf());
    let hash = objects.write(b"content", Durability::Sync).unwrap();
    assert_eq!(objects.read(&hash).unwrap(), b"content");
    assert!(dir.path().join(&hash[..2]).join(&hash[2..]).is_file(), "fanned out");
    std::fs::write(fanned_path(dir.path(), &hash), b"altered").unwrap();
    assert!(matches!(objects.read(&hash), Err(Error::Integrity { .. })));
    assert!(objects.read("../../etc/passwd").is_err(), "only hashes name objects");
    objects.remove(&hash).unwrap();
    objects.remove(&hash).unwrap();
    assert!(objects.list().unwrap().is_empty(), "no temp files left");
}

#[test]
fn a_deferred_write_replaces_a_torn_orphan_whole() {
    let dir = tempfile::tempdir().unwrap();
    let objects = Objects::new(dir.path().to_path_buf());
    let hash = Objects::hash(b"whole content");
    // What a crash in the middle of an in-place write leaves.
    std::fs::create_dir(dir.path().join(&hash[..2])).unwrap();
    std::fs::write(fanned_path(dir.path(), &hash), b"whole").unwrap();
    assert_eq!(objects.write(b"whole content", Durability::Deferred).unwrap(), hash);
    assert_eq!(objects.read(&hash).unwrap(), b"whole content");
    let fresh = objects.write(b"new content", Durability::Deferred).unwrap();
    assert_eq!(objects.read(&fresh).unwrap(), b"new content");
    assert_eq!(objects.list().unwrap().len(), 2, "no temp files left");
}

/// A past state's blobs: its own, else the store's; reads only, each
/// checked against its name; a removal never reaches the fallback.
#[test]
fn a_fallback_is_read_checked_and_never_written() {
    let (own, store) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let theirs = Objects::new(store.path().to_owned());
    let hash = theirs.write(b"kept by the store", Durability::Sync).unwrap();
    let snap = Objects::with_fallback(own.path().to_owned(), store.path().to_owned());
    assert!(snap.exists(&hash));
    assert_eq!(snap.read(&hash).unwrap(), b"kept by the store");
    snap.remove(&hash).unwrap();
    assert!(theirs.exists(&hash), "the store's copy stays");
    std::fs::write(fanned_path(store.path(), &hash), b"altered").unwrap();
    let e = snap.read(&hash).unwrap_err().to_string();
    assert!(e.contains("does not match its name"), "{e}");
    assert!(!Objects::new(own.path().to_owned()).exists(&hash));
}

/// A store made before the fan-out: its flat blobs are read as they
/// are, a write goes to the fan-out, and `fan_out` moves the rest once
/// (a flat copy of a blob already fanned out is dropped). Strays are
/// listed as such, never moved.
#[test]
fn flat_blobs_are_read_then_fanned_out_once() {
    let dir = tempfile::tempdir().unwrap();
    let objects = Objects::new(dir.path().to_owned());
    let old = Objects::hash(b"written flat");
    std::fs::write(dir.path().join(&old), b"written flat").unwrap();
    let both = objects.write(b"in both forms", Durability::Sync).unwrap();
    std::fs::write(dir.path().join(&both), b"in both forms").unwrap();
    std::fs::write(dir.path().join(".tmp-stray"), b"x").unwrap();
    assert_eq!(objects.read(&old).unwrap(), b"written flat");
    assert_eq!(objects.size(&old).unwrap(), 12);
    assert!(objects.exists(&old));
    let census = Census::of(dir.path(), &objects.list().unwrap());
    assert_eq!((census.blobs, census.flat, census.to_move), (3, 2, 1), "{census:?}");
    assert_eq!(objects.fan_out().unwrap(), 1);
    assert!(!dir.path().join(&old).exists() && !dir.path().join(&both).exists());
    assert_eq!(objects.read(&old).unwrap(), b"written flat");
    assert_eq!(objects.read(&both).unwrap(), b"in both forms");
    assert!(dir.path().join(".tmp-stray").exists(), "not a blob: left alone");
    let listed = objects.list().unwrap();
    assert_eq!(listed.iter().filter(|e| e.is_ok()).count(), 2, "{listed:?}");
    assert_eq!(listed.iter().filter(|e| e.is_err()).count(), 1, "{listed:?}");
    assert_eq!(objects.fan_out().unwrap(), 0, "nothing left to move");
    // A flat copy of a blob already in place (a merge of an older
    // branch) is dropped by the next call.
    std::fs::write(dir.path().join(&old), b"written flat").unwrap();
    assert_eq!(objects.fan_out().unwrap(), 0, "the copy is dropped, not moved");
    assert!(!dir.path().join(&old).exists());
}

/// A file planted at a blob's fanned-out name beside its whole flat
/// copy: reads pass over it, and the fan-out puts the flat copy in its
/// place instead of dropping the good one.
#[test]
fn a_planted_fanned_copy_never_costs_the_good_one() {
    let dir = tempfile::tempdir().unwrap();
    let objects = Objects::new(dir.path().to_owned());
    let hash = Objects::hash(b"the real blob");
    std::fs::write(dir.path().join(&hash), b"the real blob").unwrap();
    std::fs::create_dir(dir.path().join(&hash[..2])).unwrap();
    std::fs::write(fanned_path(dir.path(), &hash), b"planted").unwrap();
    assert_eq!(objects.read(&hash).unwrap(), b"the real blob");
    assert_eq!(objects.fan_out().unwrap(), 1);
    assert_eq!(std::fs::read(fanned_path(dir.path(), &hash)).unwrap(), b"the real blob");
    assert!(!dir.path().join(&hash).exists());
    // Neither copy whole: both stay, and a read says so.
    let other = Objects::hash(b"another");
    std::fs::write(dir.path().join(&other), b"torn").unwrap();
    std::fs::create_dir_all(dir.path().join(&other[..2])).unwrap();
    std::fs::write(fanned_path(dir.path(), &other), b"planted").unwrap();
    assert_eq!(objects.fan_out().unwrap(), 0);
    assert!(dir.path().join(&other).exists());
    let e = objects.read(&other).unwrap_err().to_string();
    assert!(e.contains("does not match its name"), "{e}");
}

/// A link planted under a fan-out name would take blobs out of the
/// store: writes refuse it, and `doctor` is told.
#[test]
fn a_linked_fan_out_directory_is_refused() {
    let (dir, elsewhere) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let objects = Objects::new(dir.path().to_owned());
    let hash = Objects::hash(b"content");
    let sub = dir.path().join(&hash[..2]);
    std::os::unix::fs::symlink(elsewhere.path(), &sub).unwrap();
    for durability in [Durability::Sync, Durability::Deferred] {
        let e = objects.write(b"content", durability).unwrap_err().to_string();
        assert!(e.contains("not a directory of its own"), "{e}");
    }
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).unwrap().count(),
        0,
        "nothing left the store"
    );
    let census = Census::of(dir.path(), &objects.list().unwrap());
    assert_eq!(census.planted, std::slice::from_ref(&sub));
    std::fs::remove_file(&sub).unwrap();
    objects.write(b"content", Durability::Deferred).unwrap();
    assert!(Census::of(dir.path(), &objects.list().unwrap()).planted.is_empty());
    // A stray file with a two-digit name inside a fan-out directory is a
    // stray, not a planted fan-out name.
    std::fs::write(sub.join("cd"), b"stray").unwrap();
    assert!(Census::of(dir.path(), &objects.list().unwrap()).planted.is_empty());
}

/// A fan-out directory this session made, gone since (a git checkout
/// removes one it emptied): the next write makes it again.
#[test]
fn a_fan_out_directory_removed_meanwhile_is_made_again() {
    let dir = tempfile::tempdir().unwrap();
    let objects = Objects::new(dir.path().to_owned());
    for durability in [Durability::Sync, Durability::Deferred] {
        let hash = objects.write(b"first", durability).unwrap();
        std::fs::remove_dir_all(dir.path().join(&hash[..2])).unwrap();
        assert_eq!(objects.write(b"first", durability).unwrap(), hash);
        assert_eq!(objects.read(&hash).unwrap(), b"first");
    }
    // And the blob a checkout left flat there moves into it.
    let hash = Objects::hash(b"first");
    std::fs::remove_dir_all(dir.path().join(&hash[..2])).unwrap();
    std::fs::write(dir.path().join(&hash), b"first").unwrap();
    assert_eq!(objects.fan_out().unwrap(), 1);
    assert_eq!(objects.read(&hash).unwrap(), b"first");
    assert!(!dir.path().join(&hash).exists());
}

/// A committed tree's objects: only a blob's two forms name a blob; a
/// tree that names `..` or a path of its own (git's plumbing can commit
/// one) names none, so nothing is written outside where a reader puts it.
#[test]
fn only_blob_names_leave_a_tree() {
    let hash = "ab".repeat(32);
    let [fanned, flat] = tree_paths(&hash).unwrap();
    assert_eq!(
        (fanned.as_str(), flat.as_str()),
        (&*format!("ab/{}", &hash[2..]), hash.as_str())
    );
    for path in [&fanned, &flat] {
        assert_eq!(blob_in_tree(path).as_deref(), Some(hash.as_str()));
    }
    assert_eq!(tree_paths("../etc"), None);
    for bad in [
        "../../../../home/u/.bashrc".to_owned(),
        format!("../{}", &hash[3..]),
        format!("/{}", &hash[1..]),
        format!("ab/../{}", &hash[5..]),
        hash.to_uppercase(),
        format!("{}/{}/x", &hash[..2], &hash[2..]),
        String::new(),
    ] {
        assert_eq!(blob_in_tree(&bad), None, "{bad}");
    }
}

/// The index binds each node to its blob file: swapped or altered files
/// are refused.
mod bound {
    use crate::error::Error;
    use crate::keys::Level;
    use crate::model::Tier;
    use crate::store::tests::{creds, new_store, node};
    use crate::store::{Layout, Store};

    #[test]
    fn swapping_two_nodes_blobs_is_detected() {
        let (_dir, root) = new_store();
        let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
        s.add_node(node("a", Tier::AgentReadable, "alpha")).unwrap();
        s.add_node(node("b", Tier::AgentReadable, "beta")).unwrap();
        drop(s);
        let conn = rusqlite::Connection::open(Layout::new(&root).db()).unwrap();
        conn.execute_batch(
            "CREATE TEMP TABLE was AS SELECT id, blob FROM nodes;
             UPDATE nodes SET blob = (SELECT blob FROM temp.was WHERE temp.was.id != nodes.id);",
        )
        .unwrap();
        // The manifest sees the rows changed at open; with the manifest row
        // rebuilt to match, the blobs' own binding still refuses them.
        let err = Store::open(&root, &creds(Level::Master, &root)).unwrap_err();
        assert!(matches!(err, Error::Integrity { .. }), "{err}");
    }

    #[test]
    fn a_corrupted_blob_file_is_detected() {
        let (_dir, root) = new_store();
        let mut s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
        s.add_node(node("a", Tier::Public, "alpha")).unwrap();
        let hash: String = s
            .conn
            .query_row(
                &format!("SELECT {} FROM nodes", crate::store::blob_name::BLOB_NAME),
                [],
                |r| r.get(0),
            )
            .unwrap();
        let path = Layout::new(&root).blob(&hash);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        assert!(matches!(s.node("a"), Err(Error::Integrity { .. })));
        std::fs::remove_file(&path).unwrap();
        assert!(s.node("a").unwrap_err().to_string().contains("missing"));
    }
}
