//! How a client knows it talks to the store's unlock session, and not to a
//! process that took its socket's place, and how what they say stays
//! between them.
//!
//! A client with no key knows the store's public keys: the master and agent
//! recipients named in `keys/keyring.auth`. It opens a connection with a
//! fresh X25519 public key (its *hello*). Only a process holding the
//! master's or the agent's secret computes the Diffie-Hellman secret of that
//! hello and its own key; the channel key is derived from it and the hello.
//! Every frame after the hello is encrypted and authenticated under it
//! (AES-256-GCM, bound to its direction and number, so frames cannot be
//! read, forged, replayed, dropped or reordered). The session's first frame
//! carries a fresh nonce of its own, mixed into the key for the rest of the
//! connection (a recorded connection replayed to it means nothing), and, at
//! the master level, a signature of the whole exchange by the master's seal
//! key, which the client checks against the key this machine pinned when it
//! last opened the store (its freshness record, outside the repository): a
//! `keyring.auth` rewritten to name another key proves nothing. Whichever of
//! the store's keys opens that first frame tells the client the session's
//! level; none does, and the client refuses the connection before it has
//! sent anything. No secret ever crosses: a passphrase never does.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::auth;
use super::{KeyPaths, Keyring, Level};
use crate::crypto::{Purpose, SealVerifier, Sealer, SymmetricKey, derive, fill_random};
use crate::error::{Error, Result};

/// Which way a frame goes: bound into its encryption, so a frame cannot be
/// reflected back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    ToClient,
    ToSession,
}

/// A key for one connection between a client and a session.
pub struct ChannelKey {
    key: SymmetricKey,
    aead: Sealer,
}

impl std::fmt::Debug for ChannelKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChannelKey(<redacted>)")
    }
}

impl ChannelKey {
    fn from_key(key: SymmetricKey) -> Self {
        let aead = Sealer::new(&key);
        ChannelKey { key, aead }
    }

    /// A key of no exchange, for two ends in one process (tests, a socket
    /// pair).
    pub fn random() -> Result<Self> {
        let mut bytes = Zeroizing::new([0u8; 32]);
        fill_random(&mut bytes[..])?;
        Ok(Self::from_key(SymmetricKey::from_bytes(*bytes)))
    }

    fn from_shared(shared: &[u8; 32], opening: &[u8]) -> Self {
        let mut ikm = Zeroizing::new([0u8; 64]);
        ikm[..32].copy_from_slice(shared);
        ikm[32..].copy_from_slice(&Sha256::digest(opening));
        Self::from_key(derive(&ikm[..], Purpose::SessionChannel))
    }

    /// The key for the rest of the connection, once the session's `nonce`
    /// is known.
    pub fn rekey(&self, nonce: &[u8; 32]) -> ChannelKey {
        let mut ikm = Zeroizing::new([0u8; 64]);
        ikm[..32].copy_from_slice(self.key.expose());
        ikm[32..].copy_from_slice(nonce);
        Self::from_key(derive(&ikm[..], Purpose::SessionChannel))
    }

    /// Names this key (for a signature over it), revealing nothing of it.
    pub fn fingerprint(&self) -> [u8; 32] {
        let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(self.key.expose())
            .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
        m.update(b"graphex/channel-fingerprint/v1");
        m.finalize().into_bytes().into()
    }

    fn ad(direction: Direction, counter: u64) -> [u8; 29] {
        let mut ad = [0u8; 29];
        ad[..20].copy_from_slice(b"graphex/channel/v1\0\0");
        ad[20] = match direction {
            Direction::ToClient => 1,
            Direction::ToSession => 2,
        };
        ad[21..].copy_from_slice(&counter.to_be_bytes());
        ad
    }

    /// Frame number `counter` going `direction`, encrypted.
    pub fn seal(&self, direction: Direction, counter: u64, body: &[u8]) -> Result<Vec<u8>> {
        self.aead.seal(&Self::ad(direction, counter), body)
    }

    /// What [`ChannelKey::seal`] made of that frame; `None` for anything
    /// else (another key, direction or number, or altered bytes).
    pub fn open(&self, direction: Direction, counter: u64, sealed: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
        self.aead
            .open(&Self::ad(direction, counter), sealed)
            .ok()
            .map(Zeroizing::new)
    }
}

/// What the master's seal key signs when a session proves itself: the
/// client's opening, the channel key and the session's nonce.
pub fn ready_message(opening: &[u8], key: &ChannelKey, nonce: &[u8; 32]) -> Vec<u8> {
    let mut m = b"graphex/session-ready/v1\0".to_vec();
    m.extend_from_slice(&Sha256::digest(opening));
    m.extend_from_slice(&key.fingerprint());
    m.extend_from_slice(nonce);
    m
}

/// Whether `signature` over the ready message is the master's, by any of
/// the master keys this machine pinned (hex, from its freshness records).
pub fn master_signed(pinned: &[String], message: &[u8], signature: &[u8]) -> bool {
    pinned
        .iter()
        .filter_map(|hex| SealVerifier::from_hex(hex))
        .any(|v| v.verifies(message, signature))
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
    /// whose opening is `transcript`.
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
    /// The master's signature of `message` (master level and above).
    pub fn session_signature(&self, message: &[u8]) -> Option<[u8; 64]> {
        self.seal().map(|seal| seal.sign(message))
    }

    /// The session's side: the channel key for a client whose opening
    /// (`transcript`) sent `hello`, and the level it proves (`None`: this
    /// keyring holds no secret key, or the hello is no key).
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
    fn only_the_holder_of_the_named_key_opens_the_clients_frames_and_the_master_signs() {
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
        let theirs = hello.keys_for(&paths, b"opening").expect("named keys");
        let (level, ours) = master
            .channel_key(&hello.public(), b"opening")
            .expect("master holds a key");
        assert_eq!(level, Level::Master);
        let sealed = ours.seal(Direction::ToClient, 0, b"answer").expect("seal");
        let opened: Vec<Level> = theirs
            .iter()
            .filter(|(_, k)| k.open(Direction::ToClient, 0, &sealed).is_some())
            .map(|(l, _)| *l)
            .collect();
        assert_eq!(opened, vec![Level::Master]);
        let (_, mine) = &theirs[0];
        assert_eq!(
            mine.open(Direction::ToClient, 0, &sealed).expect("opens").as_slice(),
            b"answer"
        );
        assert!(!sealed.windows(6).any(|w| w == b"answer"), "encrypted");
        // Another number or direction, or an altered byte: nothing.
        assert!(mine.open(Direction::ToClient, 1, &sealed).is_none());
        assert!(mine.open(Direction::ToSession, 0, &sealed).is_none());
        let mut altered = sealed.clone();
        *altered.last_mut().expect("bytes") ^= 1;
        assert!(mine.open(Direction::ToClient, 0, &altered).is_none());
        // The session's nonce makes another key for the rest.
        let nonce = [9u8; 32];
        let later = ours
            .rekey(&nonce)
            .seal(Direction::ToSession, 0, b"request")
            .expect("seal");
        assert!(mine.rekey(&nonce).open(Direction::ToSession, 0, &later).is_some());
        assert!(mine.open(Direction::ToSession, 0, &later).is_none());
        assert!(mine.rekey(&[8u8; 32]).open(Direction::ToSession, 0, &later).is_none());
        // The master signs the exchange; the key this machine pinned checks it.
        let message = ready_message(b"opening", &ours, &nonce);
        let signature = master.session_signature(&message).expect("master level");
        let pinned = vec![master.verifier().expect("verifier").to_hex()];
        assert!(master_signed(&pinned, &message, &signature));
        assert!(!master_signed(
            &pinned,
            &ready_message(b"other", &ours, &nonce),
            &signature
        ));
        assert!(!master_signed(&["00".repeat(32)], &message, &signature));
        // A keyring holding no secret proves nothing; the public-tier ring
        // `create` returns holds none.
        assert!(ring.channel_key(&hello.public(), b"opening").is_none());
        let locked = Keyring::unlock(&paths, &Default::default()).expect("locked");
        assert!(locked.channel_key(&hello.public(), b"opening").is_none());
        assert!(locked.session_signature(b"x").is_none());
    }
}
