//! The plaintext of a sealed edge: a fixed binary layout, because a store
//! holds many more edges than nodes and they are all decoded at open.
//!
//! ```text
//! layout 1 | from (16) | to (16) | tier | declared tier | flags (bit 0: bidirectional)
//!          | confidence f64 LE | weight f64 LE | created i64 LE
//!          | relation length u16 LE | relation | provenance (MessagePack)
//! ```

use rustc_hash::FxHashMap;

use super::{from_msgpack, to_msgpack};
use crate::error::{Error, Result};
use crate::model::{Edge, EdgeId, NodeId, Provenance, Relation, Tier, Timestamp};

const LAYOUT: u8 = 1;
const FIXED: usize = 1 + 16 + 16 + 3 + 8 + 8 + 8 + 2;

/// Interns relations while decoding many edges, so equal relations share memory.
#[derive(Default)]
pub struct RelationCache(FxHashMap<Box<[u8]>, Relation>);

impl RelationCache {
    fn get(&mut self, raw: &[u8]) -> Result<Relation> {
        if let Some(r) = self.0.get(raw) {
            return Ok(r.clone());
        }
        let text = std::str::from_utf8(raw).map_err(|_| Error::integrity("edge", "relation is not UTF-8"))?;
        let rel = Relation::new(text)?;
        self.0.insert(raw.into(), rel.clone());
        Ok(rel)
    }
}

pub(crate) fn encode(e: &Edge) -> Result<Vec<u8>> {
    let rel = e.relation.as_str().as_bytes();
    let mut out = Vec::with_capacity(FIXED + rel.len() + 8);
    out.push(LAYOUT);
    out.extend_from_slice(e.from.as_bytes());
    out.extend_from_slice(e.to.as_bytes());
    out.extend_from_slice(&[e.tier.code(), e.declared_tier.code(), u8::from(e.bidirectional)]);
    out.extend_from_slice(&e.confidence.to_le_bytes());
    out.extend_from_slice(&e.weight.to_le_bytes());
    out.extend_from_slice(&e.created.0.to_le_bytes());
    out.extend_from_slice(&(rel.len() as u16).to_le_bytes());
    out.extend_from_slice(rel);
    out.extend_from_slice(&to_msgpack(&e.provenance)?);
    Ok(out)
}

pub(crate) fn decode(id: EdgeId, b: &[u8], relations: &mut RelationCache) -> Result<Edge> {
    let bad = |why: &str| Error::integrity(format!("edge {id}"), why);
    if b.len() < FIXED {
        return Err(bad("truncated"));
    }
    if b[0] != LAYOUT {
        return Err(Error::UnknownFormat {
            what: format!("edge {id}"),
            found: b[0],
        });
    }
    let uuid = |at: usize| uuid::Uuid::from_slice(&b[at..at + 16]).map_err(|_| bad("malformed id"));
    let f64_at = |at: usize| f64::from_le_bytes(b[at..at + 8].try_into().unwrap_or_default());
    let tier = |code: u8| Tier::from_code(i64::from(code)).ok_or_else(|| bad("unknown tier"));
    let rel_len = usize::from(u16::from_le_bytes([b[FIXED - 2], b[FIXED - 1]]));
    let rel_end = FIXED + rel_len;
    if b.len() < rel_end {
        return Err(bad("truncated relation"));
    }
    let provenance: Provenance = if b.len() == rel_end {
        Provenance::Human
    } else {
        from_msgpack(&format!("edge {id}"), &b[rel_end..])?
    };
    Ok(Edge {
        id,
        from: NodeId(uuid(1)?),
        to: NodeId(uuid(17)?),
        tier: tier(b[33])?,
        declared_tier: tier(b[34])?,
        bidirectional: b[35] & 1 == 1,
        confidence: f64_at(36),
        weight: f64_at(44),
        created: Timestamp(i64::from_le_bytes(b[52..60].try_into().unwrap_or_default())),
        relation: relations.get(&b[FIXED..rel_end])?,
        provenance,
    })
}
