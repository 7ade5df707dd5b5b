//! The query history: round trip, cap, dedupe, tampering, the wrong key,
//! the canary scan, permissions.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use super::*;
use crate::store::tests::{new_store, open_at};

fn master() -> (tempfile::TempDir, Store) {
    let (dir, root) = new_store();
    let store = open_at(&root, Level::Master);
    (dir, store)
}

/// The path of a history holding one query, written and closed.
fn one_recorded(state: &Path, store: &Store) -> PathBuf {
    let mut h = History::open_in(state, store, Section::Master).unwrap();
    h.record("a -> * -> *").unwrap();
    h.path().to_owned()
}

#[test]
fn entries_round_trip_and_the_file_is_named_by_a_keyed_hash() {
    let (dir, store) = master();
    let state = dir.path().join("state");
    let mut h = History::open_in(&state, &store, Section::Master).unwrap();
    assert!(h.entries().is_empty());
    h.record("orders-service -> * -> *").unwrap();
    h.record("  * -> uses -> *  ").unwrap();
    h.record("   ").unwrap();
    let path = h.path().to_owned();
    let name = path.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.ends_with(".qh") && name.len() == 32 + 3, "{name}");
    let store_id = crate::store::meta(store.conn(), "store_id").unwrap().unwrap();
    assert!(!name.contains(&store_id));
    assert_eq!(
        path,
        History::path_in(&state, &store, Section::Master).unwrap(),
        "stable per store"
    );
    drop(h);
    let h = History::open(&path, store.keys(), Section::Master).unwrap();
    let texts: Vec<&str> = h.entries().iter().map(|e| e.text.as_str()).collect();
    assert_eq!(texts, ["orders-service -> * -> *", "* -> uses -> *"]);
    // Another store has another file.
    let (_other_dir, other) = master();
    assert_ne!(History::path_in(&state, &other, Section::Master).unwrap(), path);
}

#[test]
fn consecutive_repeats_are_one_entry_and_the_length_is_capped() {
    let (dir, store) = master();
    let mut h = History::open_in(dir.path(), &store, Section::Master).unwrap();
    h.record("a -> * -> *").unwrap();
    let first = h.entries()[0].at;
    std::thread::sleep(std::time::Duration::from_millis(2));
    h.record("a -> * -> *").unwrap();
    assert_eq!(h.entries().len(), 1);
    assert!(h.entries()[0].at > first, "the repeat moves its time");
    h.record("b -> * -> *").unwrap();
    h.record("a -> * -> *").unwrap();
    assert_eq!(h.entries().len(), 3, "only consecutive repeats fold");
    // Filled past the cap in memory, then one record trims and writes.
    for i in 0..MAX_ENTRIES + 5 {
        h.entries.push(Entry {
            text: format!("q{i} -> * -> *"),
            at: Timestamp(i as i64),
        });
    }
    h.record("last -> * -> *").unwrap();
    assert_eq!(h.entries().len(), MAX_ENTRIES);
    assert_eq!(h.entries().last().unwrap().text, "last -> * -> *");
    let again = History::open(h.path(), store.keys(), Section::Master).unwrap();
    assert_eq!(again.entries(), h.entries());
    // 3 + 1005 + 1 entries: the 3 first and q0..q5 went.
    assert_eq!(again.entries()[0].text, "q6 -> * -> *", "the oldest went");
}

#[test]
fn a_tampered_file_is_refused_moved_aside_and_never_overwritten() {
    let (dir, store) = master();
    let path = one_recorded(dir.path(), &store);
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let msg = History::open(&path, store.keys(), Section::Master)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("does not open with this master identity"), "{msg}");
    assert!(msg.contains("moved to"), "{msg}");
    assert!(!path.exists());
    let aside: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".unreadable-"))
        .collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(std::fs::read(&aside[0]).unwrap(), bytes, "kept as it was");
    // Opening again starts afresh, beside the kept file.
    let mut h = History::open(&path, store.keys(), Section::Master).unwrap();
    assert!(h.entries().is_empty());
    h.record("b -> * -> *").unwrap();
    assert_eq!(std::fs::read(&aside[0]).unwrap(), bytes);
}

#[test]
fn the_wrong_key_another_stores_file_and_below_master_are_refused() {
    let (dir, store) = master();
    let path = one_recorded(dir.path(), &store);
    // Another master's key, at the same path.
    let (_o, other) = master();
    let copy = dir.path().join("copy").join(path.file_name().unwrap());
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(&path, &copy).unwrap();
    let msg = History::open(&copy, other.keys(), Section::Master)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("does not open"), "{msg}");
    // The right key, but copied over another name (another store's file).
    let renamed = dir.path().join("copy").join("0123456789abcdef0123456789abcdef.qh");
    std::fs::copy(&path, &renamed).unwrap();
    assert!(History::open(&renamed, store.keys(), Section::Master).is_err());
    // No key below the master level.
    let agent = open_at(store.layout().root(), Level::Agent);
    assert!(matches!(
        History::open(&path, agent.keys(), Section::Master),
        Err(Error::Locked { .. })
    ));
    assert!(matches!(
        History::path_in(dir.path(), &agent, Section::Master),
        Err(Error::Locked { .. })
    ));
    assert_eq!(
        History::open(&path, store.keys(), Section::Master)
            .unwrap()
            .entries()
            .len(),
        1
    );
}

#[test]
fn no_plaintext_in_the_file_which_only_its_owner_reads() {
    let (dir, store) = master();
    let state = dir.path().join("state");
    let mut h = History::open_in(&state, &store, Section::Master).unwrap();
    h.record("canaryhistoryq7 -> canaryrelation9 -> *").unwrap();
    h.record("second -> * -> * --type canarytype3").unwrap();
    let bytes = std::fs::read(h.path()).unwrap();
    for canary in ["canaryhistoryq7", "canaryrelation9", "canarytype3", "second"] {
        assert!(
            !bytes.windows(canary.len()).any(|w| w == canary.as_bytes()),
            "{canary} in the file"
        );
    }
    let mode = std::fs::metadata(h.path()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let dir_mode = std::fs::metadata(h.path().parent().unwrap())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(dir_mode, 0o700);
    let leftovers: Vec<_> = std::fs::read_dir(h.path().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    h.clear().unwrap();
    assert!(
        History::open(h.path(), store.keys(), Section::Master)
            .unwrap()
            .entries()
            .is_empty()
    );
    h.record("x -> * -> *").unwrap();
    h.wipe();
    assert!(h.entries().is_empty());
}

/// Every file under `dir`, as bytes.
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out
}

fn texts(h: &Histories) -> Vec<&str> {
    h.entries().iter().map(|e| e.text.as_str()).collect()
}

#[test]
fn what_is_typed_at_the_human_level_stays_at_the_human_level() {
    const CANARY: &str = "canary-human-q4z";
    let (dir, master) = master();
    let state = dir.path().join("state");
    let root = master.layout().root().to_owned();
    // A master-level session first: its query is seen at both levels.
    let mut m = Histories::open_in(&state, &master).unwrap();
    assert_eq!((m.level(), m.recording()), (Level::Master, Section::Master));
    m.record("orders-service -> * -> *").unwrap();
    drop(m);
    // Then a human-level session names a human-only node.
    let human = open_at(&root, Level::Human);
    let mut h = Histories::open_in(&state, &human).unwrap();
    assert_eq!((h.level(), h.recording()), (Level::Human, Section::Human));
    assert_eq!(texts(&h), ["orders-service -> * -> *"]);
    h.record("orders-service -> * -> *").unwrap();
    h.record(&format!("{CANARY} -> owns -> *")).unwrap();
    drop(h);
    // A master-level open does not hold it, in memory or in its file.
    let m = Histories::open_in(&state, &master).unwrap();
    assert_eq!(texts(&m), ["orders-service -> * -> *"]);
    let section = History::open_in(&state, &master, Section::Master).unwrap();
    assert!(section.entries().iter().all(|e| !e.text.contains(CANARY)));
    assert!(
        matches!(
            History::open_in(&state, &master, Section::Human),
            Err(Error::Locked { .. })
        ),
        "the master level cannot open the human section"
    );
    // No file holds it in plain text; the human section is a file of its own.
    let files = files_under(&state);
    assert_eq!(files.len(), 2, "{:?}", files.iter().map(|f| &f.0).collect::<Vec<_>>());
    for (path, bytes) in &files {
        assert!(
            !bytes.windows(CANARY.len()).any(|w| w == CANARY.as_bytes()),
            "{CANARY} in {}",
            path.display()
        );
    }
    // The human section does not open with the master's key, even renamed
    // over the master's file.
    let human_path = History::path_in(&state, &human, Section::Human).unwrap();
    let master_path = History::path_in(&state, &master, Section::Master).unwrap();
    assert_ne!(human_path, master_path);
    let swapped = dir.path().join("swapped").join(master_path.file_name().unwrap());
    std::fs::create_dir_all(swapped.parent().unwrap()).unwrap();
    std::fs::copy(&human_path, &swapped).unwrap();
    let msg = History::open(&swapped, master.keys(), Section::Master)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("does not open with this master identity"), "{msg}");
    // A human-level open does show it, merged by time with the master's,
    // a repeat across sections shown once.
    let h = Histories::open_in(&state, &open_at(&root, Level::Human)).unwrap();
    assert_eq!(
        texts(&h),
        ["orders-service -> * -> *", format!("{CANARY} -> owns -> *").as_str()]
    );
}

#[test]
fn a_rotated_human_only_key_sets_the_human_section_aside() {
    let (dir, _master) = master();
    let state = dir.path().join("state");
    let root = dir.path().to_owned();
    let mut human = open_at(&root, Level::Human);
    History::open_in(&state, &human, Section::Human)
        .unwrap()
        .record("before -> * -> *")
        .unwrap();
    let passphrase = age::secrecy::SecretString::from("human only phrase");
    human
        .rotate_key(Tier::HumanOnly, Some(&passphrase), crate::keys::KdfCost(Some(4)))
        .unwrap();
    let human = open_at(&root, Level::Human);
    let msg = Histories::open_in(&state, &human).unwrap_err().to_string();
    assert!(
        msg.contains("before the human-only key was rotated") && msg.contains("moved to"),
        "{msg}"
    );
    // Opened again: the master's section as it was, the human one anew.
    let mut h = Histories::open_in(&state, &human).unwrap();
    assert!(h.entries().is_empty());
    h.record("after -> * -> *").unwrap();
    assert_eq!(texts(&Histories::open_in(&state, &human).unwrap()), ["after -> * -> *"]);
}
