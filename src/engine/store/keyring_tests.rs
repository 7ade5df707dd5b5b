//! Key substitution: a tier-key or identity file replaced by one sealed to
//! the same (public) recipients, or an altered keyring file, stops every
//! session that holds a secret to check it with.

use std::path::Path;

use age::x25519;

use super::tests::{creds, new_store};
use super::*;
use crate::crypto::SymmetricKey;
use crate::keys::KdfCost;
use crate::keys::{IdentityKind, files};

/// What an attacker with write access to the repository can do: seal a key
/// of their own to the master and agent recipients, which are public.
fn substitute(root: &Path, tier: Tier) {
    let paths = Layout::new(root).keys();
    let master: x25519::Recipient = std::fs::read_to_string(paths.master_pub())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let agent = agent_recipient(root);
    let text = files::encode_tier_key(tier, &SymmetricKey::from_bytes([9; 32]));
    let sealed = match tier {
        Tier::Public => text.to_vec(),
        Tier::AgentReadable => files::seal_to(&[&master, &agent], &text).unwrap(),
        _ => files::seal_to(&[&master], &text).unwrap(),
    };
    std::fs::write(paths.tier(tier), sealed).unwrap();
}

/// The agent's public key, as anyone reading keyring.auth sees it.
fn agent_recipient(root: &Path) -> x25519::Recipient {
    let text = std::fs::read_to_string(Layout::new(root).keys().auth()).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("agent "))
        .unwrap()
        .parse()
        .unwrap()
}

fn refused(root: &Path, level: Level) -> String {
    match Store::open(root, &creds(level, root)) {
        Err(e @ Error::KeyringForged { .. }) => e.to_string(),
        other => panic!("{level}: expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_substituted_agent_readable_key_is_refused_by_master_and_agent() {
    let (_dir, root) = new_store();
    // The agent's identity file is exported before the attack.
    drop(Store::open(&root, &creds(Level::Agent, &root)).unwrap());
    substitute(&root, Tier::AgentReadable);
    let msg = refused(&root, Level::Master);
    assert!(
        msg.contains("agent-readable.age") && msg.contains("key substitution"),
        "{msg}"
    );
    refused(&root, Level::Agent);
    // Public content stays readable without keys: nothing to check there.
    Store::open(&root, &creds(Level::Locked, &root)).unwrap();
}

#[test]
fn every_substituted_tier_key_is_refused() {
    for tier in [Tier::Public, Tier::AgentRestricted] {
        let (_dir, root) = new_store();
        substitute(&root, tier);
        refused(&root, Level::Master);
    }
    // human-only: its outer layer opens at master; the check comes with the
    // human passphrase, which the attacker's file need not even accept.
    let (_dir, root) = new_store();
    let paths = Layout::new(&root).keys();
    let master: x25519::Recipient = std::fs::read_to_string(paths.master_pub())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let inner = files::seal_to_passphrase(
        &age::secrecy::SecretString::from("human only phrase"),
        KdfCost(Some(4)),
        &files::encode_tier_key(Tier::HumanOnly, &SymmetricKey::from_bytes([9; 32])),
    )
    .unwrap();
    std::fs::write(paths.tier(Tier::HumanOnly), files::seal_to(&[&master], &inner).unwrap()).unwrap();
    Store::open(&root, &creds(Level::Master, &root)).unwrap();
    refused(&root, Level::Human);
}

#[test]
fn an_altered_or_missing_keyring_file_is_refused() {
    let (_dir, root) = new_store();
    drop(Store::open(&root, &creds(Level::Agent, &root)).unwrap());
    let auth = Layout::new(&root).keys().auth();
    let text = std::fs::read_to_string(&auth).unwrap();
    // Re-commit to an attacker's key: the MACs no longer verify.
    let forged = text.replacen(
        text.lines().nth(2).unwrap(),
        &format!("agent-readable {}", "ab".repeat(32)),
        1,
    );
    std::fs::write(&auth, forged).unwrap();
    refused(&root, Level::Master);
    refused(&root, Level::Agent);
    std::fs::remove_file(&auth).unwrap();
    let err = Store::open(&root, &creds(Level::Master, &root)).unwrap_err();
    assert!(
        err.to_string().contains("keyring.auth") && err.to_string().contains("missing"),
        "{err}"
    );
}

#[test]
fn a_replaced_master_pub_or_agent_identity_is_refused() {
    let (_dir, root) = new_store();
    drop(Store::open(&root, &creds(Level::Agent, &root)).unwrap());
    let paths = Layout::new(&root).keys();
    // An agent pinned to the real master refuses a keyring that an attacker
    // rebuilt around a master of their own.
    let fake = x25519::Identity::generate();
    let keys: Vec<SymmetricKey> = (0..4).map(|i| SymmetricKey::from_bytes([i; 32])).collect();
    let agent_pub = agent_recipient(&root);
    let saved = std::fs::read(paths.auth()).unwrap();
    crate::keys::auth::write(
        &paths,
        &fake,
        &agent_pub,
        [
            (Tier::Public, &keys[0]),
            (Tier::AgentReadable, &keys[1]),
            (Tier::AgentRestricted, &keys[2]),
            (Tier::HumanOnly, &keys[3]),
        ],
    )
    .unwrap();
    let msg = refused(&root, Level::Agent);
    assert!(
        msg.contains("other than the one this agent identity was issued by"),
        "{msg}"
    );
    std::fs::write(paths.auth(), saved).unwrap();
    // agent.age replaced by an identity the attacker sealed to the master.
    let master: x25519::Recipient = std::fs::read_to_string(paths.master_pub())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let theirs = x25519::Identity::generate();
    let text = files::identity_file_text("agent", &theirs, None);
    std::fs::write(paths.agent(), files::seal_to(&[&master], text.as_bytes()).unwrap()).unwrap();
    let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let out = root.join("exported.id");
    let err = s.keys().export_identity(&paths, IdentityKind::Agent, &out).unwrap_err();
    assert!(matches!(err, Error::KeyringForged { .. }), "{err}");
    assert!(!out.exists());
}

#[test]
fn an_agent_file_without_the_master_pin_gets_a_clear_error() {
    let (_dir, root) = new_store();
    drop(Store::open(&root, &creds(Level::Agent, &root)).unwrap());
    let path = root.join("agent.id");
    let text = std::fs::read_to_string(&path).unwrap();
    let old: String = text
        .lines()
        .filter(|l| !l.starts_with("# store master"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&path, old).unwrap();
    let err = Store::open(&root, &creds(Level::Agent, &root)).unwrap_err();
    assert!(err.to_string().contains("export the agent identity again"), "{err}");
}

/// An age file whose scrypt stanza asks for 2^`log_n` (the rest is noise:
/// it is never reached).
fn scrypt_file(log_n: u8) -> Vec<u8> {
    format!(
        "age-encryption.org/v1\n-> scrypt {} {log_n}\n{}\n--- {}\n",
        "A".repeat(22),
        "A".repeat(43),
        "A".repeat(43)
    )
    .into_bytes()
    .into_iter()
    .chain([0u8; 64])
    .collect()
}

#[test]
fn a_passphrase_file_asking_for_too_much_work_is_refused_before_the_work() {
    let (_dir, root) = new_store();
    let path = Layout::new(&root).keys().master();
    assert_eq!(
        files::kdf_log_n(&std::fs::read(&path).unwrap()),
        Some(4),
        "the test store's factor"
    );
    std::fs::write(&path, scrypt_file(30)).unwrap();
    assert_eq!(files::kdf_log_n(&scrypt_file(30)), Some(30));
    let started = std::time::Instant::now();
    let err = Store::open(&root, &creds(Level::Master, &root)).unwrap_err();
    // 2^30 would take hours and 128 GiB; the refusal is at once.
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    let msg = err.to_string();
    assert!(msg.contains("2^30") && msg.contains("above the cap"), "{msg}");
}

#[test]
fn a_replaced_master_pub_does_not_divert_proposals() {
    use crate::project::TrustPolicy;
    use crate::proposal::{Source, Submission, submit};
    let (_dir, root) = new_store();
    let mut agent = Store::open(&root, &creds(Level::Agent, &root)).unwrap();
    // An attacker puts their own key in master.pub.
    let genuine = std::fs::read(Layout::new(&root).keys().master_pub()).unwrap();
    let theirs = x25519::Identity::generate();
    std::fs::write(
        Layout::new(&root).keys().master_pub(),
        format!("{}\n", theirs.to_public()),
    )
    .unwrap();
    let sub = Submission::from_json(
        br#"{"agent":"a","trust":95,"rationale":"r","changes":[{"op":"add_node","name":"n","type":"service","description":"d"}]}"#,
    )
    .unwrap();
    let id = submit(&mut agent, &TrustPolicy::default(), sub, Source::Mcp).unwrap();
    assert!(agent.keys().proposal_recipient_authenticated());
    // Sealed to the master the agent's identity file pins: the owner reads it
    // once master.pub is put back (see the test below for the refusal).
    std::fs::write(Layout::new(&root).keys().master_pub(), &genuine).unwrap();
    let master = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let scan = master.pending().unwrap();
    assert_eq!(scan.pending.iter().map(|p| p.id.clone()).collect::<Vec<_>>(), vec![id]);
    assert!(scan.quarantined.is_empty());
}

/// Attack: `master.pub` swapped for the attacker's key. Sessions that seal
/// to it (no master, no pin) would hand the attacker every proposal, so a
/// master-level open refuses it, by passphrase or by identity file, and a
/// locked session says it cannot authenticate it.
#[test]
fn a_replaced_master_pub_is_refused_at_the_master_level() {
    let (_dir, root) = new_store();
    let paths = Layout::new(&root).keys();
    let genuine = std::fs::read_to_string(paths.master_pub()).unwrap();
    let identity = root.join("master.id");
    {
        let s = Store::open(&root, &creds(Level::Master, &root)).unwrap();
        s.keys()
            .export_identity(&paths, IdentityKind::Master, &identity)
            .unwrap();
    }
    let locked = Store::open(&root, &creds(Level::Locked, &root)).unwrap();
    assert!(!locked.keys().proposal_recipient_authenticated());
    let theirs = x25519::Identity::generate().to_public();
    std::fs::write(paths.master_pub(), format!("{theirs}\n")).unwrap();
    let by_identity = Credentials {
        identity_file: Some(identity),
        ..Credentials::none()
    };
    for c in [creds(Level::Master, &root), creds(Level::Human, &root), by_identity] {
        let err = Store::open(&root, &c).err().unwrap();
        assert!(matches!(err, Error::KeyringForged { .. }), "{err}");
        let msg = err.to_string();
        assert!(msg.contains("master.pub") && msg.contains(&theirs.to_string()), "{msg}");
        assert!(msg.contains(genuine.trim()), "the message says what to put back: {msg}");
    }
    std::fs::write(paths.master_pub(), &genuine).unwrap();
    assert!(Store::open(&root, &creds(Level::Master, &root)).is_ok());
}

/// A master key lent by one open opens the store again at the master level
/// with no passphrase; lent to another store it opens nothing (its key
/// files are checked as a passphrase's are), and below the master level
/// there is nothing to lend.
#[test]
fn a_lent_master_key_opens_its_store_and_no_other() {
    let (_dir, root) = new_store();
    let held = Store::open(&root, &creds(Level::Master, &root)).unwrap();
    let key = held.lend_key().expect("a master-level open lends its key");
    let again = Store::open_lent(&root, &key).unwrap();
    assert_eq!(again.level(), Level::Master);
    assert_eq!(again.seen_seq(), held.seen_seq());
    let human = Store::open(&root, &creds(Level::Human, &root)).unwrap();
    assert_eq!(
        Store::open_lent(&root, &human.lend_key().unwrap()).unwrap().level(),
        Level::Master
    );
    let (_other_dir, other) = new_store();
    let err = Store::open_lent(&other, &key).expect_err("another store's key");
    assert!(
        matches!(err, Error::KeyringForged { .. } | Error::WrongSecret(..)),
        "{err}"
    );
    let locked = Store::open(&root, &creds(Level::Locked, &root)).unwrap();
    assert!(locked.lend_key().is_none());
}
