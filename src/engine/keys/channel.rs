//! How a client knows it talks to the store's unlock session, and not to a
//! process that took its socket's place.
//!
//! A client with no key knows the store's public keys: the master and agent
//! recipients named in `keys/keyring.auth`. With its first request it sends
//! a fresh X25519 public key (its *hello*). Only a process holding the
//! master's or the agent's secret computes the Diffie-Hellman secret of that
//! hello and its own key; the session derives a channel key from it and the
//! client's whole first request, and tags every frame it sends with it (and
//! a counter, so frames cannot be replayed, dropped or reordered unnoticed).
//! The client derives the same key for each recipient the store names:
//! whichever verifies the first answer tells it the session's level; none
//! does, and it refuses the answer and everything after it.
//!
//! Binding the request into the key means a process relaying a client's
//! connection to the real session cannot pass one request's answer off as
//! another's. No secret leaves either side: a passphrase never crosses.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::auth;
use super::{KeyPaths, Keyring, Level};
use crate::crypto::{Purpose, SymmetricKey, derive, fill_random};
use crate::error::{Error, Result};

/// Which way a frame goes: its tag says so, so a frame cannot be reflected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    ToClient,
    ToSession,
}

/// A key for one connection between a client and a session.
pub struct ChannelKey(SymmetricKey);

impl std::fmt::Debug for ChannelKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChannelKey(<redacted>)")
    }
}

impl ChannelKey {
    /// A key of no exchange, for two ends in one process (tests, a socket
    /// pair).
    pub fn random() -> Result<Self> {
        let mut bytes = Zeroizing::new([0u8; 32]);
        fill_random(&mut bytes[..])?;
        Ok(ChannelKey(SymmetricKey::from_bytes(*bytes)))
    }

    fn from_shared(shared: &[u8; 32], transcript: &[u8]) -> Self {
        let mut ikm = Zeroizing::new([0u8; 64]);
        ikm[..32].copy_from_slice(shared);
        ikm[32..].copy_from_slice(&Sha256::digest(transcript));
        ChannelKey(derive(&ikm[..], Purpose::SessionChannel))
    }

    fn mac(&self, direction: Direction, counter: u64, body: &[u8]) -> Hmac<Sha256> {
        let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(self.0.expose())
            .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
        m.update(&[match direction {
            Direction::ToClient => 1,
            Direction::ToSession => 2,
        }]);
        m.update(&counter.to_be_bytes());
        m.update(body);
        m
    }

    /// The tag of frame number `counter` going `direction`.
    pub fn tag(&self, direction: Direction, counter: u64, body: &[u8]) -> [u8; 32] {
        self.mac(direction, counter, body).finalize().into_bytes().into()
    }

    /// Whether `tag` is that frame's (in constant time).
    pub fn verifies(&self, direction: Direction, counter: u64, body: &[u8], tag: &[u8]) -> bool {
        self.mac(direction, counter, body).verify_slice(tag).is_ok()
    }
}

/// A client's side of the exchange: a fresh X25519 key, used for one
/// connection.
pub struct Hello {
    secret: x25519_dalek::StaticSecret,
    public: [u8; 32],
}

impl Hello {
    pub fn new() -> Result<Self> {
        let mut bytes = Zeroizing::new([0u8; 32]);
        fill_random(&mut bytes[..])?;
        let secret = x25519_dalek::StaticSecret::from(*bytes);
        let public = x25519_dalek::PublicKey::from(&secret).to_bytes();
        Ok(Hello { secret, public })
    }

    /// What the client sends.
    pub fn public(&self) -> [u8; 32] {
        self.public
    }

    /// The channel key shared with a holder of each key the store at
    /// `paths` names (the master's, then the agent's), for a connection
    /// whose first request is `transcript`.
    pub fn keys_for(&self, paths: &KeyPaths, transcript: &[u8]) -> Result<Vec<(Level, ChannelKey)>> {
        let (master, agent) = auth::named_recipients(paths)?;
        [(Level::Master, master), (Level::Agent, agent)]
            .into_iter()
            .map(|(level, r)| {
                let theirs = x25519_dalek::PublicKey::from(auth::recipient_bytes(&r)?);
                let shared = self.secret.diffie_hellman(&theirs);
                if !shared.was_contributory() {
                    return Err(Error::integrity("keyring.auth", "it names a low-order key"));
                }
                Ok((level, ChannelKey::from_shared(shared.as_bytes(), transcript)))
            })
            .collect()
    }
}

impl Keyring {
    /// The session's side: the channel key for a client that sent `hello`
    /// with its first request `transcript`, and the level it proves
    /// (`None`: this keyring holds no secret key, or the hello is no key).
    pub fn channel_key(&self, hello: &[u8; 32], transcript: &[u8]) -> Option<(Level, ChannelKey)> {
        let (level, identity) = self.channel_identity()?;
        let ours = x25519_dalek::StaticSecret::from(*auth::identity_secret(identity).ok()?);
        let shared = ours.diffie_hellman(&x25519_dalek::PublicKey::from(*hello));
        shared
            .was_contributory()
            .then(|| (level, ChannelKey::from_shared(shared.as_bytes(), transcript)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_holder_of_the_named_key_derives_the_clients_key() {
        let dir = tempfile::tempdir().expect("temp dir");
        let paths = KeyPaths::new(dir.path().join("keys"));
        let (ring, _) = crate::keys::create(
            &paths,
            &age::secrecy::SecretString::from("pw"),
            &age::secrecy::SecretString::from("human"),
            crate::keys::KdfCost(Some(1)),
        )
        .expect("keys");
        let master = Keyring::unlock(
            &paths,
            &crate::keys::Credentials {
                passphrase: Some(age::secrecy::SecretString::from("pw")),
                ..Default::default()
            },
        )
        .expect("master");
        let hello = Hello::new().expect("random");
        let theirs = hello.keys_for(&paths, b"request").expect("named keys");
        let (level, ours) = master
            .channel_key(&hello.public(), b"request")
            .expect("master holds a key");
        assert_eq!(level, Level::Master);
        let tag = ours.tag(Direction::ToClient, 0, b"answer");
        let matching: Vec<Level> = theirs
            .iter()
            .filter(|(_, k)| k.verifies(Direction::ToClient, 0, b"answer", &tag))
            .map(|(l, _)| *l)
            .collect();
        assert_eq!(matching, vec![Level::Master]);
        let (_, mine) = &theirs[0];
        // Another request, counter, direction or body: no match.
        let (_, other) = master.channel_key(&hello.public(), b"another request").expect("key");
        assert!(!mine.verifies(
            Direction::ToClient,
            0,
            b"answer",
            &other.tag(Direction::ToClient, 0, b"answer")
        ));
        assert!(!mine.verifies(Direction::ToClient, 1, b"answer", &tag));
        assert!(!mine.verifies(Direction::ToSession, 0, b"answer", &tag));
        assert!(!mine.verifies(Direction::ToClient, 0, b"answeR", &tag));
        // A keyring holding no secret proves nothing; the public-tier ring
        // `create` returns holds none.
        assert!(ring.channel_key(&hello.public(), b"request").is_none());
        assert!(
            Keyring::unlock(&paths, &Default::default())
                .expect("locked")
                .channel_key(&hello.public(), b"request")
                .is_none()
        );
    }
}
