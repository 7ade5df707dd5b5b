//! The keyring of an open store: the tier keys this session holds, the blind
//! index key, and (at master level) the master identity.

use std::path::Path;

use age::secrecy::{ExposeSecret, SecretString};
use age::x25519;

use super::files::{self, KdfCost, KeyPaths};
use super::{Credentials, Level};
use crate::crypto::{BlindIndex, MasterSeal, Purpose, SealVerifier, Sealer, SymmetricKey, derive};
use crate::error::{Error, Result};
use crate::model::Tier;

/// The two ciphers a tier key yields.
pub struct TierCiphers {
    /// Wraps node data keys.
    pub wrap: Sealer,
    /// Seals index rows.
    pub index: Sealer,
    /// Keys the manifest of the index rows this tier's group covers.
    pub manifest: SymmetricKey,
    /// Seals the console's query history of the level that reads this
    /// tier and no lower one (human-only: what is typed at the human level).
    pub query_history: SymmetricKey,
}

impl std::fmt::Debug for TierCiphers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TierCiphers(<redacted>)")
    }
}

impl TierCiphers {
    pub(crate) fn from_key(key: &SymmetricKey) -> Self {
        Self {
            wrap: Sealer::new(&derive(key.expose(), Purpose::Wrap)),
            index: Sealer::new(&derive(key.expose(), Purpose::Index)),
            manifest: derive(key.expose(), Purpose::Manifest),
            query_history: derive(key.expose(), Purpose::TierQueryHistory),
        }
    }
}

/// Keys held by one session. Not Clone; Debug shows only the level.
pub struct Keyring {
    level: Level,
    tiers: [Option<TierCiphers>; 4],
    blind: Option<BlindIndex>,
    master: Option<x25519::Identity>,
    /// An agent session's own identity (what proves an agent-level unlock
    /// session to its clients; see `channel`).
    agent: Option<x25519::Identity>,
    /// An agent session's master recipient, as pinned in its identity file.
    pinned_master: Option<x25519::Recipient>,
    /// The keyring file as this session verified it (master and agent).
    auth: Option<super::auth::Verified>,
    /// The commitment to each tier key held (see `auth::commitment`).
    commits: [Option<String>; 4],
    /// The master's seal keys (master level).
    seal: Option<MasterSeal>,
    /// The master's signing key's public half: derived at master level,
    /// pinned in an agent's identity file.
    verifier: Option<SealVerifier>,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Keyring({})", self.level)
    }
}

/// Generates every key of a new store and writes the key files into
/// `paths.dir`. Returns a keyring holding the new tier keys (and nothing
/// else: no master, no blind index), for the store's first records.
pub fn create(
    paths: &KeyPaths,
    passphrase: &SecretString,
    human: &SecretString,
    cost: KdfCost,
) -> Result<(Keyring, Created)> {
    std::fs::create_dir_all(&paths.dir).map_err(|e| Error::io(&paths.dir, e))?;
    let master = x25519::Identity::generate();
    let agent = x25519::Identity::generate();
    let master_pub = master.to_public();
    let agent_pub = agent.to_public();

    let keys = Tier::ALL.map(|_| SymmetricKey::random());
    let [public, readable, restricted, human_key] = keys;
    let keys = [public?, readable?, restricted?, human_key?];
    let master_text = master.to_string();
    // The two passphrase seals (the master identity, the human-only key)
    // each cost a full scrypt: they run on two threads at once.
    let (sealed_master, sealed_human) = std::thread::scope(|scope| -> Result<(Vec<u8>, Vec<u8>)> {
        let human_seal =
            scope.spawn(|| seal_tier_file(Tier::HumanOnly, &keys[3], &master_pub, &agent_pub, Some(human), cost));
        let sealed_master = files::seal_to_passphrase(passphrase, cost, master_text.expose_secret().as_bytes());
        let sealed_human = human_seal
            .join()
            .map_err(|_| Error::integrity("key creation", "the sealing thread failed"))?;
        Ok((sealed_master?, sealed_human?))
    })?;
    files::write_private(&paths.master(), &sealed_master)?;
    files::write_private(&paths.master_pub(), format!("{master_pub}\n").as_bytes())?;
    let agent_text = agent.to_string();
    files::write_private(
        &paths.agent(),
        &files::seal_to(&[&master_pub], agent_text.expose_secret().as_bytes())?,
    )?;
    super::auth::write(
        paths,
        &master,
        &agent_pub,
        [
            (Tier::Public, &keys[0]),
            (Tier::AgentReadable, &keys[1]),
            (Tier::AgentRestricted, &keys[2]),
            (Tier::HumanOnly, &keys[3]),
        ],
    )?;
    for (tier, key) in Tier::ALL.into_iter().zip(&keys) {
        let sealed = match tier {
            Tier::HumanOnly => sealed_human.clone(),
            _ => seal_tier_file(tier, key, &master_pub, &agent_pub, None, cost)?,
        };
        files::write_private(&paths.tier(tier), &sealed)?;
    }
    let mut ring = Keyring::empty();
    for (tier, key) in Tier::ALL.into_iter().zip(&keys) {
        ring.put(tier, key);
    }
    ring.set_seal(MasterSeal::derive(master_text.expose_secret().as_bytes()));
    let [_, _, _, human_key] = keys;
    Ok((
        ring,
        Created {
            master,
            human: human_key,
        },
    ))
}

/// The secrets of a store [`create`] just made, which its process may keep
/// in memory to open the store at the human level without the passphrase
/// KDFs ([`Keyring::unlock_created`]). Never written anywhere; zeroized
/// on drop.
pub struct Created {
    master: x25519::Identity,
    human: SymmetricKey,
}

impl std::fmt::Debug for Created {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Created(<redacted>)")
    }
}

/// A master key lent by an open store to another open of the same store in
/// the same process (an unlock session's console or MCP server): the same
/// key, checked against the same files at that open, without running the
/// passphrase's KDF again. Never written anywhere, never sent; human-only
/// is not lent.
#[derive(Clone)]
pub struct LentKey {
    master: x25519::Identity,
}

impl std::fmt::Debug for LentKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LentKey(..)")
    }
}

/// The human-only key, as a session presents it: the passphrase that
/// opens its file, or the key itself ([`Created`]).
enum Human<'a> {
    Passphrase(&'a SecretString),
    Key(&'a SymmetricKey),
}

/// The bytes of `tier`'s key file holding `key`: in the clear for public,
/// sealed to the master and agent for agent-readable, to the master for
/// agent-restricted, and to the human passphrase inside the master for
/// human-only (which needs `human`).
pub(crate) fn seal_tier_file(
    tier: Tier,
    key: &SymmetricKey,
    master: &x25519::Recipient,
    agent: &x25519::Recipient,
    human: Option<&SecretString>,
    cost: KdfCost,
) -> Result<Vec<u8>> {
    let text = files::encode_tier_key(tier, key);
    Ok(match tier {
        Tier::Public => text.to_vec(),
        Tier::AgentReadable => files::seal_to(&[master, agent], &text)?,
        Tier::AgentRestricted => files::seal_to(&[master], &text)?,
        Tier::HumanOnly => {
            let human = human
                .ok_or_else(|| Error::MissingSecret("sealing the human-only key needs the human passphrase".into()))?;
            let inner = files::seal_to_passphrase(human, cost, &text)?;
            files::seal_to(&[master], &inner)?
        }
    })
}

impl Keyring {
    /// Opens as many tiers as `creds` allow. Offered secrets that do not open
    /// their files are errors: a wrong passphrase is never silently ignored.
    /// Every key opened is checked against `keyring.auth` (see `auth`).
    pub fn unlock(paths: &KeyPaths, creds: &Credentials) -> Result<Self> {
        let master = open_master(paths, creds)?;
        let human = creds.human_passphrase.as_ref().map(Human::Passphrase);
        Self::unlock_with(paths, master, human, creds)
    }

    /// The keyring of the store [`create`] just made, from the secrets it
    /// kept in memory ([`Created`]): the same keys, checked against the
    /// same files, as [`Keyring::unlock`] with both passphrases, without
    /// running their KDFs again.
    pub(crate) fn unlock_created(paths: &KeyPaths, created: &Created) -> Result<Self> {
        Self::unlock_with(
            paths,
            Some(created.master.clone()),
            Some(Human::Key(&created.human)),
            &Credentials::none(),
        )
    }

    /// The master key this keyring holds, to lend ([`LentKey`]).
    pub fn lend(&self) -> Option<LentKey> {
        self.master.clone().map(|master| LentKey { master })
    }

    /// The keyring a [`LentKey`] opens: the master level, checked against
    /// the key files as an unlock by passphrase is.
    pub(crate) fn unlock_lent(paths: &KeyPaths, lent: &LentKey) -> Result<Self> {
        Self::unlock_with(paths, Some(lent.master.clone()), None, &Credentials::none())
    }

    fn unlock_with(
        paths: &KeyPaths,
        master: Option<x25519::Identity>,
        human: Option<Human<'_>>,
        creds: &Credentials,
    ) -> Result<Self> {
        let mut ring = Keyring::empty();
        let auth = match &master {
            Some(m) => {
                let verified = super::auth::verify_master(paths, m)?;
                check_master_pub(paths, m)?;
                Some(verified)
            }
            None => None,
        };
        ring.load_tier(paths, Tier::Public, None, auth.as_ref())?;

        if let (Some(master), Some(auth)) = (master, auth) {
            ring.load_tier(paths, Tier::AgentReadable, Some(&master), Some(&auth))?;
            ring.load_tier(paths, Tier::AgentRestricted, Some(&master), Some(&auth))?;
            let secret = master.to_string();
            ring.blind = Some(BlindIndex::new(derive(
                secret.expose_secret().as_bytes(),
                Purpose::Blind,
            )));
            ring.set_seal(MasterSeal::derive(secret.expose_secret().as_bytes()));
            ring.level = Level::Master;
            if let Some(human) = human {
                let path = paths.tier(Tier::HumanOnly);
                let opened;
                let key = match human {
                    Human::Passphrase(pass) => {
                        let outer = files::open_with(&path, &files::read(&path)?, &master, "master identity")?;
                        let scrypt = files::passphrase_identity(pass);
                        let inner = files::open_with(&path, &outer, &scrypt, "human passphrase")?;
                        opened = files::decode_tier_key(&path, Tier::HumanOnly, &inner)?;
                        &opened
                    }
                    Human::Key(key) => key,
                };
                auth.check_key(&path, Tier::HumanOnly, key)?;
                ring.put(Tier::HumanOnly, key);
                ring.level = Level::Human;
            }
            ring.master = Some(master);
            ring.auth = Some(auth);
        } else if human.is_some() {
            return Err(Error::MissingSecret(
                "the human passphrase needs the master as well: set GRAPHEX_PASSPHRASE or GRAPHEX_IDENTITY".into(),
            ));
        } else if let Some(agent_file) = &creds.agent_identity_file {
            let text = files::read(agent_file)?;
            let agent = files::parse_identity(agent_file, &text)?;
            let pinned = files::parse_pin(agent_file, &text)?;
            ring.verifier = Some(files::parse_signer_pin(agent_file, &text)?);
            let auth = super::auth::verify_agent(paths, &agent, &pinned)?;
            // Public was loaded unchecked above (no secret yet): check it now.
            let public = files::decode_tier_key(
                &paths.tier(Tier::Public),
                Tier::Public,
                &files::read(&paths.tier(Tier::Public))?,
            )?;
            auth.check_key(&paths.tier(Tier::Public), Tier::Public, &public)?;
            // The checked key is the one used, not the first, unchecked read.
            ring.put(Tier::Public, &public);
            ring.pinned_master = Some(pinned);
            let path = paths.tier(Tier::AgentReadable);
            let text = files::open_with(&path, &files::read(&path)?, &agent, "agent identity")?;
            let key = files::decode_tier_key(&path, Tier::AgentReadable, &text)?;
            auth.check_key(&path, Tier::AgentReadable, &key)?;
            ring.put(Tier::AgentReadable, &key);
            ring.level = Level::Agent;
            ring.auth = Some(auth);
            ring.agent = Some(agent);
        }
        Ok(ring)
    }

    fn load_tier(
        &mut self,
        paths: &KeyPaths,
        tier: Tier,
        master: Option<&x25519::Identity>,
        auth: Option<&super::auth::Verified>,
    ) -> Result<()> {
        let path = paths.tier(tier);
        let raw = files::read(&path)?;
        let text = match master {
            None => zeroize::Zeroizing::new(raw),
            Some(m) => files::open_with(&path, &raw, m, "master identity")?,
        };
        let key = files::decode_tier_key(&path, tier, &text)?;
        if let Some(auth) = auth {
            auth.check_key(&path, tier, &key)?;
        }
        self.put(tier, &key);
        Ok(())
    }

    fn empty() -> Self {
        Keyring {
            level: Level::Locked,
            tiers: [None, None, None, None],
            blind: None,
            master: None,
            agent: None,
            pinned_master: None,
            auth: None,
            commits: [None, None, None, None],
            seal: None,
            verifier: None,
        }
    }

    fn set_seal(&mut self, seal: MasterSeal) {
        self.verifier = Some(seal.verifier());
        self.seal = Some(seal);
    }

    /// The master's seal keys (master level and above).
    pub(crate) fn seal(&self) -> Option<&MasterSeal> {
        self.seal.as_ref()
    }

    /// The key that checks the master's signatures: the master's own at
    /// master level, the pinned one for an agent, none when locked.
    pub(crate) fn verifier(&self) -> Option<&SealVerifier> {
        self.verifier.as_ref()
    }

    /// Holds `key` as `tier`'s key, returning the ciphers it replaces (a
    /// key rotation installs the new key with this, and puts the old one
    /// back with [`Keyring::restore`] if its commit fails).
    pub(crate) fn put(&mut self, tier: Tier, key: &SymmetricKey) -> Option<(TierCiphers, String)> {
        let i = tier.code() as usize;
        let old = self.tiers[i].take().zip(self.commits[i].take());
        self.tiers[i] = Some(TierCiphers::from_key(key));
        self.commits[i] = Some(super::auth::commitment(tier, key));
        old
    }

    /// Puts back ciphers [`Keyring::put`] replaced.
    pub(crate) fn restore(&mut self, tier: Tier, old: Option<(TierCiphers, String)>) {
        let i = tier.code() as usize;
        (self.tiers[i], self.commits[i]) = match old {
            Some((c, k)) => (Some(c), Some(k)),
            None => (None, None),
        };
    }

    /// The commitment to the `tier` key this session holds.
    pub(crate) fn commitment(&self, tier: Tier) -> Option<&str> {
        self.commits[tier.code() as usize].as_deref()
    }

    /// Verifies `keyring.auth` again (after a rotation replaced it), at the
    /// master level.
    pub(crate) fn reverify(&mut self, paths: &KeyPaths) -> Result<()> {
        let auth = super::auth::verify_master(paths, self.master()?)?;
        self.auth = Some(auth);
        Ok(())
    }

    /// A tier whose key this session holds but the keyring file (as last
    /// verified) no longer commits to: rotated by another process.
    pub(crate) fn stale_tier(&self) -> Option<Tier> {
        let auth = self.auth.as_ref()?;
        Tier::ALL
            .into_iter()
            .find(|t| self.commitment(*t).is_some_and(|held| held != auth.commitment(*t)))
    }

    /// The keyring file as this session verified it (master or agent level).
    pub(crate) fn verified_auth(&self) -> Option<&super::auth::Verified> {
        self.auth.as_ref()
    }

    /// The unlock level reached.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The ciphers of `tier`, or a typed error when this session cannot read it.
    pub fn tier(&self, tier: Tier) -> Result<&TierCiphers> {
        self.tiers[tier.code() as usize]
            .as_ref()
            .ok_or_else(|| Error::TierLocked(tier.to_string(), tier))
    }

    /// Whether this session reads `tier`.
    pub fn reads(&self, tier: Tier) -> bool {
        self.tiers[tier.code() as usize].is_some()
    }

    /// The blind index (master level and above).
    pub fn blind(&self) -> Result<&BlindIndex> {
        self.blind
            .as_ref()
            .ok_or_else(|| self.needs(Level::Master, "writing to the graph"))
    }

    /// The master identity (master level and above).
    /// The identity this keyring proves itself with over a session's
    /// channel: the master's (master and human levels), else an agent's.
    pub(crate) fn channel_identity(&self) -> Option<(Level, &x25519::Identity)> {
        match (&self.master, &self.agent) {
            (Some(m), _) => Some((Level::Master, m)),
            (None, Some(a)) => Some((Level::Agent, a)),
            (None, None) => None,
        }
    }

    /// The key shared by the master and the agent identity for `purpose`
    /// (an agent's comment is authenticated with it): derived with the
    /// agent identity and its pinned master, or with the master and the
    /// agent the verified keyring names; `None` below the agent level.
    pub(crate) fn master_agent_key(&self, purpose: crate::crypto::Purpose) -> Option<crate::crypto::SymmetricKey> {
        match (&self.agent, &self.pinned_master, &self.master, &self.auth) {
            (Some(agent), Some(master), _, _) => super::auth::shared_key(agent, master, purpose).ok(),
            (_, _, Some(master), Some(auth)) => {
                let agent = auth.agent_recipient().ok()?;
                super::auth::shared_key(master, &agent, purpose).ok()
            }
            _ => None,
        }
    }

    pub fn master(&self) -> Result<&x25519::Identity> {
        self.master.as_ref().ok_or_else(|| self.needs(Level::Master, "this"))
    }

    /// Whom proposals are sealed to: the master's own key at master level,
    /// the pinned one for an agent, and for a session with no secret only
    /// `master.pub` as found (nothing to authenticate it with).
    pub fn proposal_recipient(&self, paths: &KeyPaths) -> Result<x25519::Recipient> {
        if let Some(m) = &self.master {
            return Ok(m.to_public());
        }
        if let Some(p) = &self.pinned_master {
            return Ok(p.clone());
        }
        super::files::master_recipient(paths)
    }

    /// Whether [`Keyring::proposal_recipient`] is authenticated: the
    /// master's own key or the agent's pin. Without either it is
    /// `master.pub` as found, which anyone with write access could replace.
    pub fn proposal_recipient_authenticated(&self) -> bool {
        self.master.is_some() || self.pinned_master.is_some()
    }

    /// The agent identity, decrypted with the master and checked against
    /// the keyring.
    pub fn agent_identity(&self, paths: &KeyPaths) -> Result<x25519::Identity> {
        let master = self.master()?;
        let path = paths.agent();
        let text = files::open_with(&path, &files::read(&path)?, master, "master identity")?;
        let agent = files::parse_identity(&path, &text)?;
        super::auth::verify_master(paths, master)?.check_agent(&path, &agent.to_public())?;
        Ok(agent)
    }

    /// A `Locked` error for `action` needing `needed`.
    pub fn needs(&self, needed: Level, action: &str) -> Error {
        Error::Locked {
            action: action.to_owned(),
            needed,
            current: self.level,
        }
    }
}

fn open_master(paths: &KeyPaths, creds: &Credentials) -> Result<Option<x25519::Identity>> {
    if let Some(file) = &creds.identity_file {
        let identity = files::parse_identity(file, &files::read(file)?)?;
        check_is_master(paths, &identity, file)?;
        return Ok(Some(identity));
    }
    if let Some(pass) = &creds.passphrase {
        let path = paths.master();
        let scrypt = files::passphrase_identity(pass);
        let text = files::open_with(&path, &files::read(&path)?, &scrypt, "passphrase")?;
        return files::parse_identity(&path, &text).map(Some);
    }
    Ok(None)
}

/// An identity file offered as the master must match `master.pub`, unless
/// `keyring.auth` verifies under it: then the identity is the master and
/// `master.pub` is what was replaced.
fn check_is_master(paths: &KeyPaths, identity: &x25519::Identity, file: &Path) -> Result<()> {
    let path = paths.master_pub();
    let expected = String::from_utf8_lossy(&files::read(&path)?).trim().to_owned();
    if identity.to_public().to_string() != expected {
        if super::auth::verify_master(paths, identity).is_ok() {
            return check_master_pub(paths, identity);
        }
        return Err(Error::WrongSecret(
            "identity",
            format!("this store (the file {} is not its master identity)", file.display()),
        ));
    }
    Ok(())
}

/// `master.pub` must name the master this session holds. Sessions without
/// a pin seal proposals to whatever it names, so a replaced file would hand
/// every later proposal to whoever holds the key it names.
fn check_master_pub(paths: &KeyPaths, master: &x25519::Identity) -> Result<()> {
    let path = paths.master_pub();
    let found = String::from_utf8_lossy(&files::read(&path)?).trim().to_owned();
    let expected = master.to_public().to_string();
    if found == expected {
        return Ok(());
    }
    let shown: String = found.chars().take(70).collect::<String>().escape_debug().to_string();
    Err(Error::KeyringForged {
        file: path.display().to_string(),
        reason: format!(
            "it names {shown:?}, not this store's master key {expected}: proposals sealed to it would go to \
             whoever holds that key; put the master key back (`echo {expected} > {}`) and look for how it changed",
            path.display()
        ),
    })
}

/// Which identity to export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdentityKind {
    Master,
    Agent,
}

impl Keyring {
    /// Writes the master or agent identity to `path` (0600, never overwriting).
    pub fn export_identity(&self, paths: &KeyPaths, kind: IdentityKind, path: &Path) -> Result<()> {
        let text = match kind {
            IdentityKind::Master => files::identity_file_text("master", self.master()?, None),
            IdentityKind::Agent => {
                let verifier = self.verifier().ok_or_else(|| self.needs(Level::Master, "exporting"))?;
                files::identity_file_text(
                    "agent",
                    &self.agent_identity(paths)?,
                    Some((&self.master()?.to_public(), verifier)),
                )
            }
        };
        if path.exists() {
            return Err(Error::invalid(
                "output file",
                path.display().to_string(),
                "already exists; refusing to overwrite",
            ));
        }
        files::write_private(path, text.as_bytes())
    }
}

#[cfg(any(test, feature = "fuzzing"))]
impl Keyring {
    /// A keyring with fixed tier keys (`[seed + tier; 32]`), for format
    /// fixtures and fuzzing.
    pub(crate) fn fixed_for_tests(seed: u8) -> Self {
        let mut ring = Keyring::empty();
        for t in Tier::ALL {
            ring.put(t, &SymmetricKey::from_bytes([seed + t.code(); 32]));
        }
        ring.level = Level::Human;
        ring.blind = Some(BlindIndex::new(SymmetricKey::from_bytes([seed; 32])));
        ring.set_seal(MasterSeal::derive(&[seed; 32]));
        ring
    }
}
