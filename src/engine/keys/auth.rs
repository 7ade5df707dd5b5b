//! Keyring authentication: `keys/keyring.auth` commits to every tier key
//! and to the master and agent recipients, under two MACs.
//!
//! age's X25519 recipients give no sender authentication: anyone who knows
//! the master and agent public keys (both are in the repository) can seal a
//! tier key of their own choosing to them and put it in place of
//! `agent-readable.age`. Content written later under that key would then be
//! theirs to read. This file closes that gap:
//!
//! ```text
//! graphex keyring v1
//! public <commitment>            SHA-256("graphex/key-commit/v1" | tier | key), hex
//! agent-readable <commitment>
//! agent-restricted <commitment>
//! human-only <commitment>
//! master <age1… recipient>
//! agent <age1… recipient>
//! mac-master <hex>               HMAC(K_m, every line above), K_m from the master secret
//! mac-agent <hex>                HMAC(K_a, every line above), K_a from X25519(master, agent)
//! ```
//!
//! A master session checks `mac-master`, then each tier key it opens against
//! its commitment, and the agent identity it unseals against `agent`. An
//! agent session cannot hold the master secret, but the X25519 shared secret
//! of the master and agent keys is computable from either secret and the
//! other's public key, and by nobody else: the agent checks `mac-agent` with
//! its own secret and the master recipient pinned in its identity file
//! (written by `keys export-agent`, kept outside the repository), so a
//! replaced `master.pub` or keyring file is caught too. A locked session
//! reads only public content and checks nothing: without a secret there is
//! nothing to authenticate against.

use std::path::Path;

use age::secrecy::ExposeSecret;
use age::x25519;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::files::{self, KeyPaths};
use crate::crypto::{Purpose, SymmetricKey, derive, hex};
use crate::error::{Error, Result};
use crate::model::Tier;

const HEADER: &str = "graphex keyring v1";

/// The commitment to a tier key: reveals nothing of a random 256-bit key,
/// and no other key has the same.
pub(crate) fn commitment(tier: Tier, key: &SymmetricKey) -> String {
    let mut h = Sha256::new();
    h.update(b"graphex/key-commit/v1");
    h.update(tier.as_str().as_bytes());
    h.update([0]);
    h.update(key.expose());
    hex(&h.finalize())
}

/// The 32 secret bytes of an age X25519 identity.
fn secret_bytes(identity: &x25519::Identity) -> Result<Zeroizing<[u8; 32]>> {
    let text = identity.to_string();
    let (_, data) = bech32::decode(text.expose_secret())
        .map_err(|e| Error::integrity("age identity", format!("cannot decode ({e})")))?;
    let data = Zeroizing::new(data);
    let mut out = Zeroizing::new([0u8; 32]);
    if data.len() != 32 {
        return Err(Error::integrity("age identity", "not 32 bytes"));
    }
    out.copy_from_slice(&data);
    Ok(out)
}

/// The 32 bytes of an age X25519 recipient.
fn public_bytes(recipient: &x25519::Recipient) -> Result<[u8; 32]> {
    let (_, data) = bech32::decode(&recipient.to_string())
        .map_err(|e| Error::integrity("age recipient", format!("cannot decode ({e})")))?;
    data.try_into()
        .map_err(|_| Error::integrity("age recipient", "not 32 bytes"))
}

/// The key of `mac-master`.
fn master_key(master: &x25519::Identity) -> Result<SymmetricKey> {
    Ok(derive(&secret_bytes(master)?[..], Purpose::KeyringMaster))
}

/// The key of `mac-agent`: from the X25519 shared secret of one side's
/// secret and the other side's public key (the same either way).
fn agent_key(secret: &x25519::Identity, other: &x25519::Recipient) -> Result<SymmetricKey> {
    shared_key(secret, other, Purpose::KeyringAgent)
}

/// A key for `purpose` that only the holders of the master and agent
/// secrets derive: from the X25519 shared secret of one side's secret and
/// the other side's public key (the same either way).
pub(crate) fn shared_key(
    secret: &x25519::Identity,
    other: &x25519::Recipient,
    purpose: Purpose,
) -> Result<SymmetricKey> {
    let ours = x25519_dalek::StaticSecret::from(*secret_bytes(secret)?);
    let theirs = x25519_dalek::PublicKey::from(public_bytes(other)?);
    let shared = ours.diffie_hellman(&theirs);
    if !shared.was_contributory() {
        return Err(Error::integrity("age recipient", "a low-order point"));
    }
    Ok(derive(shared.as_bytes(), purpose))
}

fn mac(key: &SymmetricKey, body: &str) -> Vec<u8> {
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(key.expose())
        .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    m.update(body.as_bytes());
    m.finalize().into_bytes().to_vec()
}

fn mac_matches(key: &SymmetricKey, body: &str, expected_hex: &str) -> bool {
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(key.expose())
        .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    m.update(body.as_bytes());
    match decode_hex(expected_hex) {
        Some(tag) => m.verify_slice(&tag).is_ok(),
        None => false,
    }
}

fn decode_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Writes `keyring.auth` for the given keys (at `init`), replacing any
/// earlier one atomically.
pub(crate) fn write(
    paths: &KeyPaths,
    master: &x25519::Identity,
    agent: &x25519::Recipient,
    keys: [(Tier, &SymmetricKey); 4],
) -> Result<()> {
    write_to(
        &paths.auth(),
        master,
        agent,
        &keys.map(|(tier, key)| commitment(tier, key)),
    )
}

/// Writes a keyring file with the given commitments (one per tier, in
/// tier order) to `path`, atomically: `keyring.auth` itself, or the file a
/// key rotation stages beside it.
pub(crate) fn write_to(
    path: &Path,
    master: &x25519::Identity,
    agent: &x25519::Recipient,
    commitments: &[String; 4],
) -> Result<()> {
    let mut body = format!("{HEADER}\n");
    for (tier, c) in Tier::ALL.iter().zip(commitments) {
        body.push_str(&format!("{tier} {c}\n"));
    }
    body.push_str(&format!("master {}\nagent {agent}\n", master.to_public()));
    let text = format!(
        "{body}mac-master {}\nmac-agent {}\n",
        hex(&mac(&master_key(master)?, &body)),
        hex(&mac(&agent_key(master, agent)?, &body))
    );
    files::replace_private(path, text.as_bytes())
}

/// A keyring file whose MAC has been checked.
pub(crate) struct Verified {
    path: std::path::PathBuf,
    commitments: [String; 4],
    agent: String,
}

/// The parsed file, not yet checked.
pub(crate) struct Parsed {
    body: String,
    commitments: [String; 4],
    master: String,
    agent: String,
    mac_master: String,
    mac_agent: String,
}

pub(crate) fn parse(path: &Path, text: &[u8]) -> Result<Parsed> {
    let bad = |reason: &str| Error::KeyFile {
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    let text = std::str::from_utf8(text).map_err(|_| bad("not text"))?;
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(bad("not a Graphex keyring file"));
    }
    let mut field = |name: &str| -> Result<String> {
        lines
            .next()
            .and_then(|l| l.strip_prefix(name))
            .and_then(|l| l.strip_prefix(' '))
            .map(str::to_owned)
            .ok_or_else(|| bad(&format!("no {name} line where it belongs")))
    };
    let commitments = [
        field(Tier::Public.as_str())?,
        field(Tier::AgentReadable.as_str())?,
        field(Tier::AgentRestricted.as_str())?,
        field(Tier::HumanOnly.as_str())?,
    ];
    let (master, agent) = (field("master")?, field("agent")?);
    let (mac_master, mac_agent) = (field("mac-master")?, field("mac-agent")?);
    let body = format!(
        "{HEADER}\n{}\nmaster {master}\nagent {agent}\n",
        Tier::ALL
            .iter()
            .zip(&commitments)
            .map(|(t, c)| format!("{t} {c}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    Ok(Parsed {
        body,
        commitments,
        master,
        agent,
        mac_master,
        mac_agent,
    })
}

/// The master and agent recipients the keyring file names, unchecked (what
/// a client with no key knows of the store's keys).
pub(crate) fn named_recipients(paths: &KeyPaths) -> Result<(x25519::Recipient, x25519::Recipient)> {
    let p = read(paths)?;
    let path = paths.auth();
    let parse = |text: &str, what: &str| {
        text.parse::<x25519::Recipient>()
            .map_err(|e| forged(&path, &format!("its {what} line is malformed ({e})")))
    };
    Ok((parse(&p.master, "master")?, parse(&p.agent, "agent")?))
}

/// The 32 bytes of an X25519 secret, for a Diffie-Hellman with it.
pub(crate) fn identity_secret(identity: &x25519::Identity) -> Result<Zeroizing<[u8; 32]>> {
    secret_bytes(identity)
}

/// The 32 bytes of an X25519 recipient.
pub(crate) fn recipient_bytes(recipient: &x25519::Recipient) -> Result<[u8; 32]> {
    public_bytes(recipient)
}

fn read(paths: &KeyPaths) -> Result<Parsed> {
    let path = paths.auth();
    let bytes = files::read(&path).map_err(|e| match e {
        Error::KeyFile { path, .. } => Error::KeyFile {
            path,
            reason: "missing: the keyring cannot be authenticated (a store made before keyring \
                     authentication must be made again, or the file was deleted)"
                .into(),
        },
        other => other,
    })?;
    parse(&path, &bytes)
}

fn forged(path: &Path, what: &str) -> Error {
    Error::KeyringForged {
        file: path.display().to_string(),
        reason: what.to_owned(),
    }
}

/// Checks the keyring file with the master identity.
pub(crate) fn verify_master(paths: &KeyPaths, master: &x25519::Identity) -> Result<Verified> {
    let p = read(paths)?;
    let path = paths.auth();
    if !mac_matches(&master_key(master)?, &p.body, &p.mac_master) {
        return Err(forged(
            &path,
            "its master MAC does not verify: it was altered or replaced",
        ));
    }
    if p.master != master.to_public().to_string() {
        return Err(forged(&path, "it names another master key"));
    }
    Ok(Verified {
        path,
        commitments: p.commitments,
        agent: p.agent,
    })
}

/// Checks the keyring file with the agent identity and the master
/// recipient pinned in the agent's identity file.
pub(crate) fn verify_agent(
    paths: &KeyPaths,
    agent: &x25519::Identity,
    pinned_master: &x25519::Recipient,
) -> Result<Verified> {
    let p = read(paths)?;
    let path = paths.auth();
    if p.master != pinned_master.to_string() {
        return Err(forged(
            &path,
            "it names a master key other than the one this agent identity was issued by",
        ));
    }
    if p.agent != agent.to_public().to_string() {
        return Err(forged(&path, "it names another agent key"));
    }
    if !mac_matches(&agent_key(agent, pinned_master)?, &p.body, &p.mac_agent) {
        return Err(forged(
            &path,
            "its agent MAC does not verify: it was altered or replaced",
        ));
    }
    Ok(Verified {
        path,
        commitments: p.commitments,
        agent: p.agent,
    })
}

impl Verified {
    /// The commitment the keyring holds for `tier`'s key.
    pub(crate) fn commitment(&self, tier: Tier) -> &str {
        &self.commitments[tier.code() as usize]
    }

    /// Every commitment, in tier order.
    pub(crate) fn commitments(&self) -> &[String; 4] {
        &self.commitments
    }

    /// The agent recipient the keyring names.
    pub(crate) fn agent_recipient(&self) -> Result<x25519::Recipient> {
        self.agent
            .parse()
            .map_err(|e| Error::integrity("keyring.auth", format!("its agent line is malformed ({e})")))
    }

    /// Refuses a tier key that is not the one the keyring commits to.
    pub(crate) fn check_key(&self, key_file: &Path, tier: Tier, key: &SymmetricKey) -> Result<()> {
        if self.commitments[tier.code() as usize] == commitment(tier, key) {
            return Ok(());
        }
        Err(Error::KeyringForged {
            file: key_file.display().to_string(),
            reason: format!(
                "it holds a {tier} key that {} does not commit to: the key file was replaced \
                 (key substitution); refusing to use it",
                self.path.display()
            ),
        })
    }

    /// Refuses an agent identity other than the one the keyring names.
    pub(crate) fn check_agent(&self, agent_file: &Path, agent: &x25519::Recipient) -> Result<()> {
        if self.agent == agent.to_string() {
            return Ok(());
        }
        Err(Error::KeyringForged {
            file: agent_file.display().to_string(),
            reason: "it holds an agent identity the keyring does not name: the file was replaced".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_of_the_agent_key_agree_and_outsiders_differ() {
        let (m, a, x) = (
            x25519::Identity::generate(),
            x25519::Identity::generate(),
            x25519::Identity::generate(),
        );
        let from_master = agent_key(&m, &a.to_public()).unwrap();
        let from_agent = agent_key(&a, &m.to_public()).unwrap();
        assert_eq!(from_master.expose(), from_agent.expose());
        let outsider = agent_key(&x, &m.to_public()).unwrap();
        assert_ne!(outsider.expose(), from_master.expose());
    }

    #[test]
    fn the_file_round_trips_and_every_edit_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let paths = KeyPaths::new(dir.path());
        let (m, a) = (x25519::Identity::generate(), x25519::Identity::generate());
        let keys: Vec<SymmetricKey> = (0..4).map(|i| SymmetricKey::from_bytes([i; 32])).collect();
        let pairs = [
            (Tier::Public, &keys[0]),
            (Tier::AgentReadable, &keys[1]),
            (Tier::AgentRestricted, &keys[2]),
            (Tier::HumanOnly, &keys[3]),
        ];
        write(&paths, &m, &a.to_public(), pairs).unwrap();
        let v = verify_master(&paths, &m).unwrap();
        v.check_key(Path::new("k"), Tier::AgentReadable, &keys[1]).unwrap();
        assert!(matches!(
            v.check_key(Path::new("k"), Tier::AgentReadable, &keys[2]),
            Err(Error::KeyringForged { .. })
        ));
        verify_agent(&paths, &a, &m.to_public()).unwrap();
        // Another master, or an agent pinned to another master, is refused.
        let other = x25519::Identity::generate();
        assert!(verify_master(&paths, &other).is_err());
        assert!(verify_agent(&paths, &a, &other.to_public()).is_err());
        // Any changed character of the file fails one check or the parse.
        let text = std::fs::read_to_string(paths.auth()).unwrap();
        for i in (HEADER.len() + 1..text.len()).step_by(7) {
            let mut bytes = text.clone().into_bytes();
            bytes[i] = if bytes[i] == b'0' { b'1' } else { b'0' };
            std::fs::write(paths.auth(), &bytes).unwrap();
            let master_ok = verify_master(&paths, &m).is_ok();
            let agent_ok = verify_agent(&paths, &a, &m.to_public()).is_ok();
            assert!(
                !(master_ok && agent_ok) || bytes == text.as_bytes(),
                "edit at {i} passed"
            );
        }
    }
}
