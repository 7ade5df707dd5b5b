//! Hostile and random files in `pending/`: every one is quarantined with a
//! reason, nothing is followed or read outside the store, and the valid
//! proposal beside them is still listed.

use std::path::Path;

use super::tests::{graph, propose, retry_queue};
use super::*;
use crate::Level;
use crate::store::tests::open_at;

#[test]
fn hostile_pending_files_are_quarantined() {
    let (_dir, root) = graph();
    let good = propose(&mut open_at(&root, Level::Agent), retry_queue());
    let dir = root.join(".gpp/graphex/pending");
    let fake = "ab".repeat(32);
    std::fs::write(dir.join(format!("{fake}.proposal")), b"not age at all").unwrap();
    std::fs::write(dir.join("notes.txt"), b"hello").unwrap();
    std::fs::write(dir.join("..weird name.proposal"), b"x").unwrap();
    std::fs::write(dir.join(format!("{}.proposal", "cd".repeat(32))), b"").unwrap();
    std::fs::create_dir(dir.join("subdir")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.join(format!("{}.proposal", "ef".repeat(32)))).unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        dir.join("fifo"),
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    {
        use std::os::unix::ffi::OsStrExt as _;
        std::fs::write(dir.join(std::ffi::OsStr::from_bytes(b"\xff\xfe.proposal")), b"x").unwrap();
    }
    let big = std::fs::File::create(dir.join("big")).unwrap();
    big.set_len(2 * 1024 * 1024 * 1024).unwrap();
    // A valid age file sealed to another key, named by its hash.
    let other = age::x25519::Identity::generate().to_public();
    let sealed = crate::keys::files::seal_to(&[&other], b"{}").unwrap();
    std::fs::write(dir.join(ProposalId::of(&sealed).file_name()), &sealed).unwrap();
    // A correct seal with content that is not a proposal.
    let wrong = crate::keys::files::seal_to(
        &[&stored::master_recipient(&open_at(&root, Level::Locked).layout().keys()).unwrap()],
        b"{\"format\":1}",
    )
    .unwrap();
    std::fs::write(dir.join(ProposalId::of(&wrong).file_name()), &wrong).unwrap();

    let s = open_at(&root, Level::Master);
    let scan = s.pending().unwrap();
    assert_eq!(
        scan.pending.iter().map(|p| p.id.clone()).collect::<Vec<_>>(),
        vec![good]
    );
    let reasons: Vec<String> = scan.quarantined.iter().map(|q| q.reason.clone()).collect();
    assert_eq!(scan.quarantined.len(), 11, "{reasons:#?}");
    for expected in [
        "does not match the hash",
        "name is not <sha256>.proposal",
        "it is empty",
        "it is not a regular file",
        "symbolic link",
        "above the",
        "not sealed to this store's master key",
        "missing field",
    ] {
        assert!(reasons.iter().any(|r| r.contains(expected)), "{expected}: {reasons:#?}");
    }
    // Nothing was followed: the link target is untouched, the queue is clean.
    assert!(Path::new("/etc/passwd").exists());
    assert_eq!(s.pending().unwrap().quarantined.len(), 0);
    assert_eq!(quarantined(&dir).unwrap().len(), 11);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 24, ..Default::default() })]

    /// Random files with random names never break the queue: the valid
    /// proposal is listed, everything else is quarantined with a reason.
    #[test]
    fn random_pending_files_are_quarantined(
        files in proptest::collection::vec(
            (proptest::string::string_regex("[a-zA-Z0-9._ -]{1,40}").unwrap(),
             proptest::collection::vec(proptest::num::u8::ANY, 0..512)),
            1..8),
    ) {
        let (_dir, root) = graph();
        let good = propose(&mut open_at(&root, Level::Agent), retry_queue());
        let dir = root.join(".gpp/graphex/pending");
        let mut written = 0;
        for (name, bytes) in &files {
            let name = name.trim();
            if name.is_empty() || name == "." || name == ".." || name == "quarantine" || name == ".incoming"
                || dir.join(name).exists()
            {
                continue;
            }
            std::fs::write(dir.join(name), bytes).unwrap();
            written += 1;
        }
        let s = open_at(&root, Level::Master);
        let scan = s.pending().unwrap();
        proptest::prop_assert_eq!(scan.pending.iter().map(|p| p.id.clone()).collect::<Vec<_>>(), vec![good]);
        proptest::prop_assert_eq!(scan.quarantined.len(), written);
        proptest::prop_assert!(scan.quarantined.iter().all(|q| !q.reason.is_empty()));
    }
}

/// Attack: a hand-sealed proposal naming many decoy recipients before the
/// master's is a valid age file, and each stanza costs a key operation on
/// every queue load (7,000 cost about 20 s). It is quarantined from its
/// header alone.
#[test]
fn decoy_recipients_are_quarantined_before_any_key_is_tried() {
    let (_dir, root) = graph();
    let good = propose(&mut open_at(&root, Level::Agent), retry_queue());
    let dir = root.join(".gpp/graphex/pending");
    let s = open_at(&root, Level::Master);
    let stored = s.pending().unwrap().pending.remove(0).proposal;
    let json = serde_json::to_vec(&stored).unwrap();
    let master = stored::master_recipient(&s.layout().keys()).unwrap();
    let decoys: Vec<_> = (0..20).map(|_| age::x25519::Identity::generate().to_public()).collect();
    let mut to: Vec<&age::x25519::Recipient> = decoys.iter().collect();
    to.push(&master);
    let sealed = crate::keys::files::seal_to(&to, &json).unwrap();
    let decoy_id = ProposalId::of(&sealed);
    std::fs::write(dir.join(decoy_id.file_name()), &sealed).unwrap();
    // A few recipients, as Graphex itself may write, still open.
    let two = crate::keys::files::seal_to(&[&decoys[0], &master], &json).unwrap();
    let two_id = ProposalId::of(&two);
    std::fs::write(dir.join(two_id.file_name()), &two).unwrap();

    let scan = s.pending().unwrap();
    let mut ids: Vec<_> = scan.pending.iter().map(|p| p.id.clone()).collect();
    ids.sort();
    let mut want = vec![good, two_id];
    want.sort();
    assert_eq!(ids, want);
    assert_eq!(scan.quarantined.len(), 1, "{:#?}", scan.quarantined);
    let reason = &scan.quarantined[0].reason;
    assert!(reason.contains("recipients, above the limit of 8"), "{reason}");
    assert!(!dir.join(decoy_id.file_name()).exists());
}

#[test]
fn age_headers_are_checked_cheaply() {
    use crate::keys::files::check_header;
    let stanza = "-> X25519 AAAA\nBBBB\n";
    let file = |n: usize| format!("age-encryption.org/v1\n{}--- mac\nbody", stanza.repeat(n)).into_bytes();
    assert!(check_header(&file(3)).is_ok());
    assert!(check_header(&file(8)).is_ok());
    assert!(check_header(&file(9)).unwrap_err().contains("9 recipients"));
    assert!(check_header(&file(7000)).unwrap_err().contains("or more recipients"));
    let long = format!("age-encryption.org/v1\n-> X 1\n{}\n--- mac\n", "A".repeat(8000));
    assert!(
        check_header(long.as_bytes())
            .unwrap_err()
            .contains("does not end within")
    );
    assert!(check_header(b"not age").unwrap_err().contains("not an age file"));
    assert!(check_header(b"age-encryption.org/v1\n-> X 1\n").is_err());
}

#[test]
fn quarantine_reasons_hold_no_raw_escapes() {
    let (_dir, root) = graph();
    let dir = root.join(".gpp/graphex/pending");
    // Sealed to the master (anyone can): a key the parser refuses, quoted in
    // the reason, with a screen clear, an override and a fake second line.
    let hostile = "{\"format\":1,\"\\u001b[2J\\u202e\\nfile: spoof\\u0007\":1}";
    let sealed = crate::keys::files::seal_to(
        &[&stored::master_recipient(&open_at(&root, Level::Locked).layout().keys()).unwrap()],
        hostile.as_bytes(),
    )
    .unwrap();
    std::fs::write(dir.join(ProposalId::of(&sealed).file_name()), &sealed).unwrap();
    // A `.reason` file written straight into quarantine by someone with
    // write access to the repository.
    std::fs::create_dir_all(dir.join(QUARANTINE)).unwrap();
    std::fs::write(
        dir.join(QUARANTINE).join("1-planted.reason"),
        "file: \u{1b}]0;x\u{7}planted\nreason: \u{9b}2J\u{200b}\n",
    )
    .unwrap();
    let scan = open_at(&root, Level::Master).pending().unwrap();
    assert_eq!(scan.quarantined.len(), 1);
    let raw = |s: &str| s.chars().any(|c| c != '\n' && crate::hygiene::is_hidden(c));
    let reason = &scan.quarantined[0].reason;
    assert!(
        !raw(reason) && reason.contains(r"\x1b[2J\u{202e}\nfile: spoof"),
        "{reason}"
    );
    for entry in std::fs::read_dir(dir.join(QUARANTINE)).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "reason") && !path.ends_with("1-planted.reason") {
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(!raw(&text), "{text:?}");
            assert_eq!(text.lines().count(), 2, "one line per field: {text:?}");
        }
    }
    let listed = quarantined(&dir).unwrap();
    assert_eq!(listed.len(), 2);
    for q in &listed {
        assert!(!raw(&q.file) && !raw(&q.reason), "{q:?}");
    }
    assert!(
        listed
            .iter()
            .any(|q| q.file == r"\x1b]0;x\x07planted" && q.reason == r"\x9b2J\u{200b}")
    );
}
