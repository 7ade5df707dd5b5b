//! Tier snapshots: every node summary and edge of one tier in a single sealed
//! record, so opening a large store decrypts a few blobs instead of a row per
//! edge. A snapshot is a cache: it is valid as of change `seq`, rows written
//! later are applied on top, and it is deleted whenever a node or edge leaves
//! or enters its tier.
//!
//! Sealed layout: `format u8 = 1 | AES-256-GCM(index key of the tier,
//! zstd(plaintext))`, associated data binding the tier and `seq`.
//! Plaintext: `node count u32 | edge count u32 | (u32 length + summary)* |
//! (edge id + u32 length + edge)*`.

use super::bytes::Writer;
use super::interner::Interner;
use super::{associated_data, edge_bytes, strip_format, summary_bytes};
use crate::error::{Error, Result};
use crate::keys::Keyring;
use crate::model::{Edge, EdgeId, NodeSummary, Tier};
use std::io::Write;

const FORMAT: u8 = 1;
const DOMAIN: &[u8] = b"graphex/snapshot/v1";
const ZSTD_LEVEL: i32 = 1;

/// A tier's content as of `seq`.
#[derive(Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Shared from the start: the catalog keeps each as it is decoded.
    pub nodes: Vec<std::sync::Arc<NodeSummary>>,
    pub edges: Vec<Edge>,
}

impl Snapshot {
    /// A snapshot of these nodes and edges (each node shared).
    pub fn new(nodes: Vec<NodeSummary>, edges: Vec<Edge>) -> Self {
        Snapshot {
            nodes: nodes.into_iter().map(std::sync::Arc::new).collect(),
            edges,
        }
    }
}

fn ad(tier: Tier, seq: u64) -> Vec<u8> {
    associated_data(DOMAIN, &[0; 16], seq, tier)
}

/// Seals the nodes and edges of `tier` as of `seq`.
pub fn seal_snapshot<'a>(
    keys: &Keyring,
    tier: Tier,
    seq: u64,
    nodes: impl ExactSizeIterator<Item = &'a NodeSummary>,
    edges: impl ExactSizeIterator<Item = &'a Edge>,
) -> Result<Vec<u8>> {
    // The plaintext is never held whole: each record goes through the
    // compressor as it is encoded, so a large tier costs its compressed size;
    // that is sealed where it lies, behind room for the format byte and the
    // nonce, so it is never held twice either.
    let failed = |e: std::io::Error| Error::integrity("snapshot", e.to_string());
    let room = 1 + crate::crypto::aead::NONCE_LEN;
    // Room for what the tier likely compresses to: address space, not
    // memory, until written (a large buffer is mapped on demand).
    let likely = nodes.len() * 160 + edges.len() * 48 + (64 << 10);
    let mut z = zstd::stream::write::Encoder::new(Packed::with_room(room, likely), ZSTD_LEVEL).map_err(failed)?;
    let mut head = Vec::with_capacity(8);
    head.extend_from_slice(&(nodes.len() as u32).to_le_bytes());
    head.extend_from_slice(&(edges.len() as u32).to_le_bytes());
    z.write_all(&head).map_err(failed)?;
    let mut rec = zeroize::Zeroizing::new(Vec::with_capacity(256));
    let mut framed = zeroize::Zeroizing::new(Vec::with_capacity(256));
    for n in nodes {
        if n.tier != tier {
            return Err(Error::integrity("snapshot", "a node of another tier"));
        }
        rec.clear();
        summary_bytes::encode(n, &mut rec);
        framed.clear();
        framed.long_bytes(&rec);
        z.write_all(&framed).map_err(failed)?;
    }
    for e in edges {
        if e.tier != tier {
            return Err(Error::integrity("snapshot", "an edge of another tier"));
        }
        rec.clear();
        edge_bytes::encode(e, &mut rec)?;
        framed.clear();
        framed.extend_from_slice(e.id.as_bytes());
        framed.long_bytes(&rec);
        z.write_all(&framed).map_err(failed)?;
    }
    let mut packed = z.finish().map_err(failed)?;
    packed.0[0] = FORMAT;
    keys.tier(tier)?.index.seal_in_place(&ad(tier, seq), &mut packed.0, 1)?;
    // Sealed: nothing left to wipe.
    Ok(std::mem::take(&mut packed.0))
}

/// Compressed plaintext behind `room` bytes kept for the format byte and
/// the nonce; what was written is zeroed when dropped and whenever the
/// buffer grows (the old one is wiped before it is freed). Only written
/// bytes are wiped: the spare capacity was never written, so its pages
/// were never touched.
struct Packed(Vec<u8>);

impl Packed {
    fn with_room(room: usize, likely: usize) -> Self {
        let mut buf = Vec::with_capacity(room + likely);
        buf.resize(room, 0);
        Packed(buf)
    }
}

impl Drop for Packed {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(self.0.as_mut_slice());
    }
}

impl Write for Packed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.capacity() - self.0.len() < buf.len() {
            let want = (self.0.len() + buf.len()).max(self.0.capacity() * 2);
            let mut grown = Vec::with_capacity(want);
            grown.extend_from_slice(&self.0);
            zeroize::Zeroize::zeroize(self.0.as_mut_slice());
            self.0 = grown;
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Seals arbitrary compressed bytes exactly as a snapshot is sealed (fuzzing).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn seal_snapshot_packed(keys: &Keyring, tier: Tier, seq: u64, packed: &[u8]) -> Result<Vec<u8>> {
    let sealed = keys.tier(tier)?.index.seal(&ad(tier, seq), packed)?;
    let mut out = vec![FORMAT];
    out.extend_from_slice(&sealed);
    Ok(out)
}

/// Opens the snapshot of `tier` recorded at `seq`. CPU-heavy for large tiers.
pub fn open_snapshot(keys: &Keyring, tier: Tier, seq: u64, bytes: &[u8]) -> Result<Snapshot> {
    open_snapshot_in_buffer(keys, tier, seq, &mut bytes.to_vec(), super::Decode::Whole)
}

/// [`open_snapshot`] of a file's bytes in a buffer the caller reuses:
/// decrypted where they lie, so a large tier's compressed plaintext is not
/// held beside its ciphertext. The buffer is wiped (its whole capacity)
/// when done, whatever the outcome, and keeps its allocation for the next
/// read. `what` says how much is decoded: summaries without descriptions
/// and properties, or no edge at all (the snapshot is authenticated whole
/// either way).
pub fn open_snapshot_in_buffer(
    keys: &Keyring,
    tier: Tier,
    seq: u64,
    bytes: &mut Vec<u8>,
    what: super::Decode,
) -> Result<Snapshot> {
    let bytes = Wiped(bytes);
    open_buffer(keys, tier, seq, &mut bytes.0[..], what)
}

/// Wipes a buffer when dropped.
struct Wiped<'a>(&'a mut Vec<u8>);

impl Drop for Wiped<'_> {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(self.0);
    }
}

fn open_buffer(keys: &Keyring, tier: Tier, seq: u64, bytes: &mut [u8], wanted: super::Decode) -> Result<Snapshot> {
    let what = || format!("{tier} snapshot");
    strip_format(bytes, FORMAT, &what)?;
    let sealer = &keys.tier(tier)?.index;
    let packed = sealer
        .open_in_place(&ad(tier, seq), &mut bytes[1..])
        .map_err(|_| Error::integrity(what(), "failed authentication (altered, swapped or replayed)"))?;
    // Authenticated above, so the frame is ours. Decompressed a record at a
    // time: the whole plaintext is never held (a large tier's would be tens
    // of megabytes beside the records decoded from it).
    let mut z = Records::new(packed, &what)?;
    let head: [u8; 8] = z.array()?;
    let (n_nodes, n_edges) = (
        u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize,
        u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize,
    );
    let mut terms = Interner::for_decode(wanted);
    // Every record takes at least a few bytes of the compressed stream's
    // output; the counts are only trusted as far as the stream's size.
    let room = packed.len().saturating_mul(16) / 40;
    let mut snap = Snapshot {
        nodes: Vec::with_capacity(n_nodes.min(room)),
        edges: Vec::with_capacity(if wanted.edges() { n_edges.min(room) } else { 0 }),
    };
    for _ in 0..n_nodes {
        let s = summary_bytes::decode(z.record()?, &mut terms)?;
        if s.tier != tier {
            return Err(Error::integrity(what(), "holds a node of another tier"));
        }
        snap.nodes.push(std::sync::Arc::new(s));
    }
    if !wanted.edges() {
        // Authenticated whole above; what is not wanted is not decoded.
        return Ok(snap);
    }
    for _ in 0..n_edges {
        let id = EdgeId(edge_bytes::uuid(z.array()?));
        let e = edge_bytes::decode(id, z.record()?, &mut terms)?;
        if e.tier != tier {
            return Err(Error::integrity(what(), "holds an edge of another tier"));
        }
        snap.edges.push(e);
    }
    z.end()?;
    Ok(snap)
}

/// Longer than any summary or edge record can be (a description and the
/// properties are bounded far below it).
const MAX_RECORD: usize = 16 << 20;

/// What [`Records`] decompresses at a time: large enough that the
/// decompressor is called a few hundred times for a large tier, not once per
/// field (over a million calls at 100k nodes).
const CHUNK: usize = 128 << 10;

/// A snapshot's plaintext read from its compressed stream a chunk at a time
/// and cut into records there; the chunk is wiped when it is freed (and a
/// record longer than it grows it by hand, the smaller one wiped).
struct Records<'a, W: Fn() -> String> {
    z: zstd::stream::read::Decoder<'a, &'a [u8]>,
    /// Decompressed bytes; those before `at` are read.
    chunk: zeroize::Zeroizing<Vec<u8>>,
    at: usize,
    what: &'a W,
}

impl<'a, W: Fn() -> String> Records<'a, W> {
    fn new(packed: &'a [u8], what: &'a W) -> Result<Self> {
        let z = zstd::stream::read::Decoder::with_buffer(packed).map_err(|e| Records::failed(what, &e))?;
        Ok(Records {
            z,
            chunk: zeroize::Zeroizing::new(Vec::with_capacity(CHUNK)),
            at: 0,
            what,
        })
    }

    fn failed(what: &W, e: &std::io::Error) -> Error {
        Error::integrity(what(), format!("decompression ({e})"))
    }

    /// Makes the next `n` bytes available at `at`.
    fn fill(&mut self, n: usize) -> Result<()> {
        if self.chunk.len() - self.at >= n {
            return Ok(());
        }
        let left = self.chunk.len() - self.at;
        self.chunk.copy_within(self.at.., 0);
        self.chunk.truncate(left);
        self.at = 0;
        if n > self.chunk.capacity() {
            let mut grown = Vec::with_capacity(n);
            grown.extend_from_slice(&self.chunk);
            // The old chunk is zeroed as it is replaced (`Zeroizing` drop).
            self.chunk = zeroize::Zeroizing::new(grown);
        }
        while self.chunk.len() < n {
            let filled = self.chunk.len();
            let room = self.chunk.capacity();
            self.chunk.resize(room, 0);
            let read = std::io::Read::read(&mut self.z, &mut self.chunk[filled..]);
            let got = match read {
                Ok(got) => got,
                Err(e) => {
                    self.chunk.truncate(filled);
                    return Err(Records::failed(self.what, &e));
                }
            };
            self.chunk.truncate(filled + got);
            if got == 0 {
                return Err(Error::integrity((self.what)(), "ends inside a record"));
            }
        }
        Ok(())
    }

    /// The next `n` bytes.
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        self.fill(n)?;
        let start = self.at;
        self.at += n;
        Ok(&self.chunk[start..start + n])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// The next length-prefixed record.
    fn record(&mut self) -> Result<&[u8]> {
        let n = u32::from_le_bytes(self.array()?) as usize;
        if n > MAX_RECORD {
            return Err(Error::integrity((self.what)(), "a record longer than any node or edge"));
        }
        self.take(n)
    }

    /// Refuses bytes after the last record.
    fn end(mut self) -> Result<()> {
        if self.at < self.chunk.len() {
            return Err(Error::integrity((self.what)(), "trailing bytes"));
        }
        let mut one = [0u8; 1];
        match std::io::Read::read(&mut self.z, &mut one) {
            Ok(0) => Ok(()),
            Ok(_) => Err(Error::integrity((self.what)(), "trailing bytes")),
            Err(e) => Err(Records::failed(self.what, &e)),
        }
    }
}
