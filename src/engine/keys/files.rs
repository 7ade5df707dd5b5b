//! The key files under `.gpp/graphex/keys/` and the age operations on them.
//!
//! | file | holds | sealed to |
//! |---|---|---|
//! | `master.age` | master X25519 identity | owner passphrase (age scrypt) |
//! | `master.pub` | master recipient | nothing (public key) |
//! | `agent.age` | agent X25519 identity | master |
//! | `public.key` | public tier key | nothing (plaintext) |
//! | `agent-readable.age` | tier key | master and agent |
//! | `agent-restricted.age` | tier key | master |
//! | `human-only.age` | tier key sealed to the human passphrase | master (outer layer) |
//!
//! | `keyring.auth` | commitments to every key, two MACs | nothing (see `auth`) |
//!
//! A key rotation stages `<file>.next` beside a tier-key file and
//! `keyring.auth` (see `rotation`).
//!
//! A tier-key file carries its tier's name, so swapping two files is caught;
//! `keyring.auth` catches a file replaced by one sealed to the same
//! recipients.

use std::io::Write;
use std::path::{Path, PathBuf};

use age::secrecy::{ExposeSecret, SecretString};
use age::{DecryptError, x25519};
use zeroize::Zeroizing;

use crate::crypto::{KEY_LEN, SealVerifier, SymmetricKey};
use crate::error::{Error, Result};
use crate::model::Tier;

const TIER_KEY_HEADER: &str = "graphex tier key v1";

/// Paths of the key files in one store.
#[derive(Clone, Debug)]
pub struct KeyPaths {
    pub dir: PathBuf,
}

impl KeyPaths {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }
    pub fn master(&self) -> PathBuf {
        self.dir.join("master.age")
    }
    pub fn master_pub(&self) -> PathBuf {
        self.dir.join("master.pub")
    }
    pub fn agent(&self) -> PathBuf {
        self.dir.join("agent.age")
    }
    /// The keyring authentication file.
    pub fn auth(&self) -> PathBuf {
        self.dir.join("keyring.auth")
    }
    /// The file holding `tier`'s key.
    pub fn tier(&self, tier: Tier) -> PathBuf {
        match tier {
            Tier::Public => self.dir.join("public.key"),
            other => self.dir.join(format!("{}.age", other.as_str())),
        }
    }
    /// Where a key rotation stages `tier`'s new key file.
    pub fn staged(&self, tier: Tier) -> PathBuf {
        staged_path(&self.tier(tier))
    }
    /// Where a key rotation stages the new keyring file.
    pub fn auth_staged(&self) -> PathBuf {
        staged_path(&self.auth())
    }
    /// The lock a key rotation holds from staging to its last rename.
    pub fn rotation_lock(&self) -> PathBuf {
        self.dir.join(".rotation.lock")
    }
}

fn staged_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".next");
    PathBuf::from(name)
}

/// The scrypt work factor (log2 N) for passphrase-sealed files. `None` is
/// [`DEFAULT_KDF_LOG_N`]. Lower values are for tests (and the demo) only.
#[derive(Clone, Copy, Debug, Default)]
pub struct KdfCost(pub Option<u8>);

/// The largest scrypt work factor (log2 N) a passphrase file may ask for:
/// 2^20 is about four seconds and 1 GiB here, four times age's default.
/// A file asking for more is refused before any work is done, so a planted
/// file cannot make an unlock take hours and tens of GiB.
pub const MAX_KDF_LOG_N: u8 = 20;

/// The scrypt work factor of new passphrase files: 2^18, about a second
/// here (age's usual choice), well under [`MAX_KDF_LOG_N`].
pub const DEFAULT_KDF_LOG_N: u8 = 18;

/// An identity that opens passphrase-sealed files, refusing work factors
/// above [`MAX_KDF_LOG_N`].
pub(crate) fn passphrase_identity(passphrase: &SecretString) -> age::scrypt::Identity {
    let mut id = age::scrypt::Identity::new(passphrase.clone());
    id.set_max_work_factor(MAX_KDF_LOG_N);
    id
}

/// The scrypt work factor a passphrase-sealed file asks for, read from its
/// header without doing the work (`None` for other files).
pub fn kdf_log_n(bytes: &[u8]) -> Option<u8> {
    let header = bytes.split(|b| *b == b'\n').take(8);
    header
        .filter_map(|l| std::str::from_utf8(l).ok())
        .find_map(|l| l.strip_prefix("-> scrypt "))
        .and_then(|args| args.split(' ').nth(1))
        .and_then(|n| n.parse().ok())
}

/// Encrypts to one or more X25519 recipients.
pub(crate) fn seal_to(recipients: &[&x25519::Recipient], plaintext: &[u8]) -> Result<Vec<u8>> {
    let encryptor = age::Encryptor::with_recipients(recipients.iter().map(|r| *r as &dyn age::Recipient))
        .map_err(|e| Error::integrity("age encryption", e.to_string()))?;
    age_write(encryptor, plaintext)
}

/// Encrypts to a passphrase with the given KDF cost.
pub(crate) fn seal_to_passphrase(passphrase: &SecretString, cost: KdfCost, plaintext: &[u8]) -> Result<Vec<u8>> {
    let mut recipient = age::scrypt::Recipient::new(passphrase.clone());
    // Never above what unlocking accepts: a store its owner cannot open is
    // worse than a slightly cheaper KDF. age's own default is timed on this
    // machine and could exceed the cap on a fast one.
    recipient.set_work_factor(cost.0.unwrap_or(DEFAULT_KDF_LOG_N).clamp(1, MAX_KDF_LOG_N));
    let encryptor = age::Encryptor::with_recipients(std::iter::once(&recipient as &dyn age::Recipient))
        .map_err(|e| Error::integrity("age encryption", e.to_string()))?;
    age_write(encryptor, plaintext)
}

fn age_write(encryptor: age::Encryptor, plaintext: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let fail = |e: std::io::Error| Error::integrity("age encryption", e.to_string());
    let mut w = encryptor.wrap_output(&mut out).map_err(fail)?;
    w.write_all(plaintext).map_err(fail)?;
    w.finish().map_err(fail)?;
    Ok(out)
}

/// The most recipient stanzas an age file may name before Graphex tries to
/// open it. Graphex writes at most three (the master, the agent, and the
/// random "grease" stanza the age library adds); every stanza costs an
/// X25519 operation to try, so a planted file naming thousands of decoy
/// recipients would cost seconds of CPU on every queue load.
pub const MAX_STANZAS: usize = 8;
/// The largest age header accepted (Graphex's are under 1 KiB).
pub const MAX_HEADER_BYTES: usize = 4096;

/// Checks an age file's header cheaply, before any key is tried: the
/// version line, at most [`MAX_STANZAS`] recipient stanzas, and the end of
/// the header (`---`) within [`MAX_HEADER_BYTES`]. Returns why it is refused.
pub fn check_header(bytes: &[u8]) -> std::result::Result<(), String> {
    const VERSION: &[u8] = b"age-encryption.org/v1\n";
    let Some(rest) = bytes.strip_prefix(VERSION) else {
        return Err("not an age file (it does not start with age-encryption.org/v1)".into());
    };
    let window = &rest[..rest.len().min(MAX_HEADER_BYTES)];
    let mut stanzas = 0;
    let mut ended = false;
    for line in window.split(|b| *b == b'\n') {
        if line.starts_with(b"---") {
            ended = true;
            break;
        }
        if line.starts_with(b"-> ") {
            stanzas += 1;
        }
    }
    if stanzas > MAX_STANZAS {
        return Err(format!(
            "its header names {stanzas}{} recipients, above the limit of {MAX_STANZAS} \
             (Graphex writes at most 3); refused before trying any key",
            if ended { "" } else { " or more" }
        ));
    }
    if !ended {
        return Err(format!(
            "its age header does not end within {MAX_HEADER_BYTES} bytes; refused before trying any key"
        ));
    }
    Ok(())
}

/// Decrypts an age file's bytes with one identity, mapping failures to clear
/// errors. The header is checked first ([`check_header`]), so a hostile file
/// costs no key operation.
pub(crate) fn open_with(
    path: &Path,
    bytes: &[u8],
    identity: &dyn age::Identity,
    secret_name: &'static str,
) -> Result<Zeroizing<Vec<u8>>> {
    check_header(bytes).map_err(|reason| Error::KeyFile {
        path: path.to_owned(),
        reason,
    })?;
    let decryptor = age::Decryptor::new_buffered(bytes).map_err(|e| key_file_error(path, e, secret_name))?;
    let mut reader = decryptor
        .decrypt(std::iter::once(identity))
        .map_err(|e| key_file_error(path, e, secret_name))?;
    let mut out = Zeroizing::new(Vec::new());
    std::io::Read::read_to_end(&mut reader, &mut out).map_err(|e| Error::KeyFile {
        path: path.to_owned(),
        reason: format!("truncated or corrupt ({e})"),
    })?;
    Ok(out)
}

fn key_file_error(path: &Path, e: DecryptError, secret_name: &'static str) -> Error {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    match e {
        DecryptError::NoMatchingKeys | DecryptError::KeyDecryptionFailed => Error::WrongSecret(secret_name, file),
        // age reports a wrong scrypt passphrase as a failed decryption of its stanza.
        DecryptError::DecryptionFailed if secret_name.contains("passphrase") => Error::WrongSecret(secret_name, file),
        DecryptError::ExcessiveWork { required, .. } => Error::KeyFile {
            path: path.to_owned(),
            reason: format!(
                "it asks for a passphrase work factor of 2^{required}, above the cap of 2^{MAX_KDF_LOG_N}; \
                 refused before computing it (a planted file could otherwise take hours and tens of GiB)"
            ),
        },
        other => Error::KeyFile {
            path: path.to_owned(),
            reason: format!("not a valid age file ({other})"),
        },
    }
}

/// Reads a file, naming it in the error.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::KeyFile {
            path: path.to_owned(),
            reason: "missing".into(),
        },
        _ => Error::io(path, e),
    })
}

/// Creates a new file readable by the owner only (0600 on Unix), for
/// writing; the caller syncs it when done.
pub fn create_private(path: &Path) -> Result<std::fs::File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    opts.open(path).map_err(|e| Error::io(path, e))
}

/// Writes a file readable by the owner only (0600 on Unix), creating it new.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = create_private(path)?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))?;
    f.sync_all().map_err(|e| Error::io(path, e))
}

/// Replaces a file atomically (a private temporary file beside it, synced,
/// then renamed over it), so a crash leaves the old or the new file whole.
pub fn replace_private(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    write_private(&tmp, bytes)?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The text form of a tier key: header, tier name, hex key.
pub(crate) fn encode_tier_key(tier: Tier, key: &SymmetricKey) -> Zeroizing<Vec<u8>> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // Built in one zeroized buffer: no formatted temporaries hold the key.
    let mut out = Zeroizing::new(Vec::with_capacity(128));
    out.extend_from_slice(format!("{TIER_KEY_HEADER}\ntier: {tier}\nkey: ").as_bytes());
    for b in key.expose() {
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 0xf)]);
    }
    out.push(b'\n');
    out
}

/// Parses [`encode_tier_key`]'s output and checks it is for `tier`.
pub(crate) fn decode_tier_key(path: &Path, tier: Tier, text: &[u8]) -> Result<SymmetricKey> {
    let bad = |reason: &str| Error::KeyFile {
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    let text = std::str::from_utf8(text).map_err(|_| bad("not text"))?;
    let mut lines = text.lines();
    if lines.next() != Some(TIER_KEY_HEADER) {
        return Err(bad("not a Graphex tier key"));
    }
    let named = lines
        .next()
        .and_then(|l| l.strip_prefix("tier: "))
        .ok_or_else(|| bad("no tier line"))?;
    if named != tier.as_str() {
        return Err(bad(&format!(
            "holds the {named} key where the {tier} key belongs (files swapped?)"
        )));
    }
    let hex = lines
        .next()
        .and_then(|l| l.strip_prefix("key: "))
        .ok_or_else(|| bad("no key line"))?;
    let mut bytes = Zeroizing::new([0u8; KEY_LEN]);
    if hex.len() != KEY_LEN * 2 {
        return Err(bad("key has the wrong length"));
    }
    for (i, out) in bytes.iter_mut().enumerate() {
        *out = u8::from_str_radix(hex.get(2 * i..2 * i + 2).unwrap_or("zz"), 16).map_err(|_| bad("key is not hex"))?;
    }
    Ok(SymmetricKey::from_bytes(*bytes))
}

/// Parses an age identity file: the first `AGE-SECRET-KEY-1` line.
pub fn parse_identity(path: &Path, text: &[u8]) -> Result<x25519::Identity> {
    let bad = |reason: String| Error::KeyFile {
        path: path.to_owned(),
        reason,
    };
    let text = std::str::from_utf8(text).map_err(|_| bad("not text".into()))?;
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("AGE-SECRET-KEY-1"))
        .ok_or_else(|| bad("no AGE-SECRET-KEY-1 line (not an age identity file)".into()))?;
    line.parse::<x25519::Identity>()
        .map_err(|e| bad(format!("malformed identity ({e})")))
}

/// The text of an identity file for `identity`, with a comment naming its
/// role. An agent's file pins the store's master recipient, which the agent
/// authenticates the keyring against, and the master's signing key, which
/// it checks the master's seal on the index with.
pub fn identity_file_text(
    role: &str,
    identity: &x25519::Identity,
    master: Option<(&x25519::Recipient, &SealVerifier)>,
) -> Zeroizing<String> {
    let pin = master.map_or_else(String::new, |(m, signer)| {
        format!("{PIN_PREFIX}{m}\n{SIGNER_PREFIX}{}\n", signer.to_hex())
    });
    Zeroizing::new(format!(
        "# Graphex {role} identity. Keep it secret and outside the repository.\n# public key: {}\n{pin}{}\n",
        identity.to_public(),
        identity.to_string().expose_secret()
    ))
}

const PIN_PREFIX: &str = "# store master: ";
const SIGNER_PREFIX: &str = "# store signer: ";

/// The rest of the line of an agent identity file that starts with
/// `prefix`, or an error naming what its absence means.
fn pinned<'t>(path: &Path, text: &'t [u8], prefix: &str, missing: &str) -> Result<&'t str> {
    let bad = |reason: String| Error::KeyFile {
        path: path.to_owned(),
        reason,
    };
    let text = std::str::from_utf8(text).map_err(|_| bad("not text".into()))?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix(prefix))
        .map(str::trim)
        .ok_or_else(|| {
            bad(format!(
                "it does not name {missing}: export the agent identity again with `graphex keys export-agent FILE`"
            ))
        })
}

/// The master signing key an agent identity file pins, or a clear error for
/// a file exported before commits were signed.
pub fn parse_signer_pin(path: &Path, text: &[u8]) -> Result<SealVerifier> {
    let line = pinned(
        path,
        text,
        SIGNER_PREFIX,
        "the store's signing key, so the master's seal on the graph cannot be checked",
    )?;
    SealVerifier::from_hex(line).ok_or_else(|| Error::KeyFile {
        path: path.to_owned(),
        reason: "its store signer line is not an Ed25519 public key".into(),
    })
}

/// The master recipient an agent identity file pins, or a clear error for
/// a file exported before pins existed.
pub fn parse_pin(path: &Path, text: &[u8]) -> Result<x25519::Recipient> {
    let line = pinned(
        path,
        text,
        PIN_PREFIX,
        "the store's master key, so the keyring cannot be authenticated",
    )?;
    line.parse::<x25519::Recipient>().map_err(|e| Error::KeyFile {
        path: path.to_owned(),
        reason: format!("its store master line is malformed ({e})"),
    })
}

/// The master recipient from `master.pub`.
pub fn master_recipient(keys: &super::KeyPaths) -> Result<age::x25519::Recipient> {
    let path = keys.master_pub();
    let text = read(&path)?;
    <age::x25519::Recipient as std::str::FromStr>::from_str(String::from_utf8_lossy(&text).trim()).map_err(|e| {
        Error::KeyFile {
            path,
            reason: format!("not an age recipient ({e})"),
        }
    })
}
