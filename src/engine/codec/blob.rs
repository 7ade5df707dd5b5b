//! Node blobs: `wire_format(AES-256-GCM(zstd(msgpack(node))))`.
//!
//! Layout, format 1:
//! ```text
//! "GXN" | format u8 = 1 | tier u8 | version u64 LE | wrapped-key length u16 LE
//!       | wrapped data key (nonce, key, tag) | sealed payload (nonce, ciphertext, tag)
//! ```
//! Each blob has its own random data key, wrapped by the tier's wrap key. The
//! node id, version and tier (taken from the index, not from the blob) are the
//! associated data of both seals, so a blob moved to another node, replayed at
//! another version, or relabelled with another tier fails authentication.

use zeroize::Zeroizing;

use super::{associated_data, from_msgpack, to_msgpack};
use crate::crypto::{KEY_LEN, Sealer, SymmetricKey};
use crate::error::{Error, Result};
use crate::keys::{Keyring, TierCiphers};
use crate::model::{Node, NodeId, Tier};

const MAGIC: &[u8; 3] = b"GXN";
/// The blob format this program writes.
pub const BLOB_FORMAT: u8 = 1;
/// Largest decompressed node accepted (a body is at most 256 KiB).
pub const MAX_PLAINTEXT: usize = 2 * 1024 * 1024;
const HEADER_LEN: usize = 3 + 1 + 1 + 8 + 2;
const ZSTD_LEVEL: i32 = 3;

type Contexts = (zstd::bulk::Compressor<'static>, zstd::bulk::Decompressor<'static>);

thread_local! {
    /// zstd contexts are costly to create (a few microseconds each); each
    /// thread makes one pair on first use and keeps it.
    static ZSTD: std::cell::RefCell<Option<Contexts>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with this thread's zstd contexts.
fn with_zstd<T>(f: impl FnOnce(&mut Contexts) -> std::io::Result<T>) -> std::io::Result<T> {
    ZSTD.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some((
                zstd::bulk::Compressor::new(ZSTD_LEVEL)?,
                zstd::bulk::Decompressor::new()?,
            ));
        }
        match slot.as_mut() {
            Some(contexts) => f(contexts),
            None => Err(std::io::Error::other("no zstd context")),
        }
    })
}

fn ad(purpose: &[u8], id: &NodeId, version: u64, tier: Tier) -> Vec<u8> {
    associated_data(purpose, id.as_bytes(), version, tier)
}

/// Encodes and seals `node` under its tier.
pub fn encode_node(keys: &Keyring, node: &Node) -> Result<Vec<u8>> {
    let ciphers = keys.tier(node.tier)?;
    let data_key = SymmetricKey::random()?;
    let wrapped = ciphers.wrap.seal(
        &ad(b"graphex/dk/v1", &node.id, node.version, node.tier),
        data_key.expose(),
    )?;
    let plain = Zeroizing::new(to_msgpack(node)?);
    let packed = Zeroizing::new(
        with_zstd(|z| z.0.compress(&plain)).map_err(|e| Error::integrity("compression", e.to_string()))?,
    );
    let sealed = Sealer::new(&data_key).seal(&ad(b"graphex/node/v1", &node.id, node.version, node.tier), &packed)?;

    let mut out = Vec::with_capacity(HEADER_LEN + wrapped.len() + sealed.len());
    out.extend_from_slice(MAGIC);
    out.push(BLOB_FORMAT);
    out.push(node.tier.code());
    out.extend_from_slice(&node.version.to_le_bytes());
    out.extend_from_slice(&(wrapped.len() as u16).to_le_bytes());
    out.extend_from_slice(&wrapped);
    out.extend_from_slice(&sealed);
    Ok(out)
}

/// Builds a blob around arbitrary payload bytes (what zstd decompresses),
/// wrapped and sealed exactly as [`encode_node`] does (fuzzing: the
/// decompressor and decoder behind the AEAD see bytes that authenticate).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn seal_node_payload(
    keys: &Keyring,
    id: &NodeId,
    version: u64,
    tier: Tier,
    packed: &[u8],
) -> Result<Vec<u8>> {
    let ciphers = keys.tier(tier)?;
    let data_key = SymmetricKey::from_bytes([0x5d; KEY_LEN]);
    let wrapped = ciphers
        .wrap
        .seal(&ad(b"graphex/dk/v1", id, version, tier), data_key.expose())?;
    let sealed = Sealer::new(&data_key).seal(&ad(b"graphex/node/v1", id, version, tier), packed)?;
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.push(BLOB_FORMAT);
    out.push(tier.code());
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(wrapped.len() as u16).to_le_bytes());
    out.extend_from_slice(&wrapped);
    out.extend_from_slice(&sealed);
    Ok(out)
}

/// The blob `blob` (of `id` at `version` in `tier`) with its data key
/// unwrapped by `old` and wrapped again by `new`; the sealed payload is
/// kept as it is. A key rotation rewraps every blob of its tier this way.
pub(crate) fn rewrap(
    old: &TierCiphers,
    new: &TierCiphers,
    id: &NodeId,
    version: u64,
    tier: Tier,
    blob: &[u8],
) -> Result<Vec<u8>> {
    let what = || format!("node {id} version {version}");
    let bad = |reason: &str| Error::integrity(what(), reason);
    let (wrapped, sealed) = split(blob, version, tier, &what)?;
    let ad = ad(b"graphex/dk/v1", id, version, tier);
    let key = Zeroizing::new(
        old.wrap
            .open(&ad, wrapped)
            .map_err(|_| bad("the data key failed authentication (altered, swapped or relabelled)"))?,
    );
    let rewrapped = new.wrap.seal(&ad, &key)?;
    let mut out = Vec::with_capacity(blob.len());
    out.extend_from_slice(&blob[..HEADER_LEN - 2]);
    out.extend_from_slice(
        &u16::try_from(rewrapped.len())
            .map_err(|_| bad("wrapped key too long"))?
            .to_le_bytes(),
    );
    out.extend_from_slice(&rewrapped);
    out.extend_from_slice(sealed);
    Ok(out)
}

/// Checks a blob's header against the index and splits the rest into the
/// wrapped data key and the sealed payload.
fn split<'b>(blob: &'b [u8], version: u64, tier: Tier, what: &dyn Fn() -> String) -> Result<(&'b [u8], &'b [u8])> {
    let bad = |reason: &str| Error::integrity(what(), reason);
    if blob.len() < HEADER_LEN || &blob[..3] != MAGIC {
        return Err(bad("not a Graphex node blob"));
    }
    if blob[3] != BLOB_FORMAT {
        return Err(Error::UnknownFormat {
            what: what(),
            found: blob[3],
        });
    }
    if blob[4] != tier.code() {
        return Err(bad("the blob's tier does not match the index"));
    }
    let blob_version = u64::from_le_bytes(blob[5..13].try_into().map_err(|_| bad("short header"))?);
    if blob_version != version {
        return Err(bad("the blob's version does not match the index"));
    }
    let wrapped_len = usize::from(u16::from_le_bytes([blob[13], blob[14]]));
    let rest = &blob[HEADER_LEN..];
    if rest.len() < wrapped_len {
        return Err(bad("truncated"));
    }
    Ok(rest.split_at(wrapped_len))
}

/// The tier and version a node blob's header claims, or `None` for
/// anything that is not a node blob of this format. Unauthenticated: see
/// [`authenticates_as`].
pub(crate) fn claimed(blob: &[u8]) -> Option<(Tier, u64)> {
    if blob.len() < HEADER_LEN || &blob[..3] != MAGIC || blob[3] != BLOB_FORMAT {
        return None;
    }
    let tier = Tier::from_code(i64::from(blob[4]))?;
    let version = u64::from_le_bytes(blob[5..13].try_into().ok()?);
    Some((tier, version))
}

/// Whether `blob` was sealed for `id` at `version` in `tier` under the
/// current key: only its wrapped data key is opened (one small AEAD), so
/// trying it against many ids stays cheap. `blob` needs only its header
/// and wrapped key.
pub(crate) fn authenticates_as(keys: &Keyring, id: &NodeId, version: u64, tier: Tier, blob: &[u8]) -> bool {
    let what = String::new;
    let (Ok((wrapped, _)), Ok(ciphers)) = (split(blob, version, tier, &what), keys.tier(tier)) else {
        return false;
    };
    ciphers
        .wrap
        .open(&ad(b"graphex/dk/v1", id, version, tier), wrapped)
        .is_ok()
}

/// How many leading bytes of a blob [`authenticates_as`] reads at most.
pub(crate) const AUTH_PREFIX: usize = HEADER_LEN + u16::MAX as usize;

/// Opens a blob that the index says holds `id` at `version` in `tier`.
pub fn decode_node(keys: &Keyring, id: &NodeId, version: u64, tier: Tier, blob: &[u8]) -> Result<Node> {
    let what = || format!("node {id} version {version}");
    let bad = |reason: &str| Error::integrity(what(), reason);
    let (wrapped, sealed) = split(blob, version, tier, &what)?;
    let ciphers = keys.tier(tier)?;
    let key_bytes = Zeroizing::new(
        ciphers
            .wrap
            .open(&ad(b"graphex/dk/v1", id, version, tier), wrapped)
            .map_err(|_| bad("the data key failed authentication (altered, swapped or relabelled)"))?,
    );
    if key_bytes.len() != KEY_LEN {
        return Err(bad("wrapped data key has the wrong length"));
    }
    let data_key = SymmetricKey::from_slice(&key_bytes).ok_or_else(|| bad("bad data key"))?;
    let packed = Zeroizing::new(
        Sealer::new(&data_key)
            .open(&ad(b"graphex/node/v1", id, version, tier), sealed)
            .map_err(|_| bad("content failed authentication (altered, swapped or relabelled)"))?,
    );
    let plain = Zeroizing::new(
        with_zstd(|z| z.1.decompress(&packed, MAX_PLAINTEXT))
            .map_err(|e| bad(&format!("decompression failed ({e})")))?,
    );
    let node: Node = from_msgpack(&what(), &plain)?;
    if node.id != *id || node.version != version || node.tier != tier {
        return Err(bad("the decrypted node does not match the index"));
    }
    Ok(node)
}
