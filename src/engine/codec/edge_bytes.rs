//! The plaintext of a sealed edge: a fixed binary layout, because a store
//! holds many more edges than nodes and they are all decoded at open.
//!
//! ```text
//! layout 1 | from (16) | to (16) | tier | declared tier | flags (bit 0: bidirectional)
//!          | confidence f64 LE | weight f64 LE | created i64 LE
//!          | relation (u16 length + bytes) | provenance (MessagePack, absent = human)
//! ```

use super::bytes::{Reader, Writer};
use super::interner::Interner;
use super::{from_msgpack, to_msgpack};
use crate::error::{Error, Result};
use crate::model::{Edge, EdgeId, NodeId, Provenance, Tier, Timestamp};

const LAYOUT: u8 = 1;

pub(crate) fn encode(e: &Edge, out: &mut Vec<u8>) -> Result<()> {
    out.push(LAYOUT);
    out.extend_from_slice(e.from.as_bytes());
    out.extend_from_slice(e.to.as_bytes());
    out.extend_from_slice(&[e.tier.code(), e.declared_tier.code(), u8::from(e.bidirectional)]);
    out.extend_from_slice(&e.confidence.to_le_bytes());
    out.extend_from_slice(&e.weight.to_le_bytes());
    out.extend_from_slice(&e.created.0.to_le_bytes());
    out.short_bytes(e.relation.as_str().as_bytes());
    if *e.provenance != Provenance::Human {
        out.extend_from_slice(&to_msgpack(&e.provenance)?);
    }
    Ok(())
}

pub(crate) fn tier(code: u8, what: &dyn Fn() -> String) -> Result<Tier> {
    Tier::from_code(i64::from(code)).ok_or_else(|| Error::integrity(what(), "unknown tier"))
}

pub(crate) fn uuid(raw: [u8; 16]) -> uuid::Uuid {
    uuid::Uuid::from_bytes(raw)
}

pub(crate) fn decode(id: EdgeId, b: &[u8], terms: &mut Interner) -> Result<Edge> {
    let what = || format!("edge {id}");
    let mut r = Reader::new(b, &what);
    r.layout(LAYOUT)?;
    let from = NodeId(uuid(r.array()?));
    let to = NodeId(uuid(r.array()?));
    let [t, d, flags] = r.array::<3>()?;
    let (confidence, weight, created) = (r.f64()?, r.f64()?, Timestamp(r.i64()?));
    let relation = terms.relation(r.short_bytes()?)?;
    let rest = r.rest();
    let provenance = if rest.is_empty() {
        terms.human()
    } else {
        std::sync::Arc::new(from_msgpack(&what(), rest)?)
    };
    Ok(Edge {
        id,
        from,
        relation,
        to,
        confidence,
        weight,
        bidirectional: flags & 1 == 1,
        declared_tier: tier(d, &what)?,
        tier: tier(t, &what)?,
        provenance,
        created,
    })
}
