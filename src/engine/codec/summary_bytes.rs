//! The plaintext of a sealed node summary: a fixed binary layout, decoded for
//! every readable node at open.
//!
//! ```text
//! layout 1 | id (16) | version u64 | tier | status | confidence f64 | created i64 | updated i64
//!          | name (u16 length + bytes) | type (u16 length + bytes) | description (u32 length + bytes)
//!          | property count u16 | (key (u16 length + bytes), value (u32 length + bytes))*
//! ```

use super::bytes::{Reader, Writer};
use super::edge_bytes::{tier, uuid};
use super::interner::Interner;
use crate::error::{Error, Result};
use crate::model::{Name, NodeId, NodeSummary, Status, Timestamp};

const LAYOUT: u8 = 1;

fn status_code(s: Status) -> u8 {
    match s {
        Status::Proposed => 0,
        Status::Active => 1,
        Status::Deprecated => 2,
        Status::Archived => 3,
    }
}

pub(crate) fn encode(s: &NodeSummary, out: &mut Vec<u8>) {
    out.push(LAYOUT);
    out.extend_from_slice(s.id.as_bytes());
    out.extend_from_slice(&s.version.to_le_bytes());
    out.extend_from_slice(&[s.tier.code(), status_code(s.status)]);
    out.extend_from_slice(&s.confidence.to_le_bytes());
    out.extend_from_slice(&s.created.0.to_le_bytes());
    out.extend_from_slice(&s.updated.0.to_le_bytes());
    out.short_bytes(s.name.as_str().as_bytes());
    out.short_bytes(s.node_type.as_str().as_bytes());
    out.long_bytes(s.description.as_bytes());
    out.extend_from_slice(&(s.properties.len().min(usize::from(u16::MAX)) as u16).to_le_bytes());
    for (k, v) in s.properties.iter().take(usize::from(u16::MAX)) {
        out.short_bytes(k.as_bytes());
        out.long_bytes(v.as_bytes());
    }
}

pub(crate) fn decode(b: &[u8], terms: &mut Interner) -> Result<NodeSummary> {
    let what = || "node summary".to_owned();
    let mut r = Reader::new(b, &what);
    r.layout(LAYOUT)?;
    let id = NodeId(uuid(r.array()?));
    let version = r.u64()?;
    let [t, st] = r.array::<2>()?;
    let status = *Status::ALL
        .get(usize::from(st))
        .ok_or_else(|| Error::integrity(what(), "unknown status"))?;
    let (confidence, created, updated) = (r.f64()?, Timestamp(r.i64()?), Timestamp(r.i64()?));
    let name = std::str::from_utf8(r.short_bytes()?).map_err(|_| Error::integrity(what(), "name is not UTF-8"))?;
    let name = Name::new(name)?;
    let node_type = terms.node_type(r.short_bytes()?)?;
    let (description, properties) = if terms.skips_text() {
        // Read past, not decoded: the record was authenticated whole.
        r.long_bytes()?;
        for _ in 0..r.u16()? {
            r.short_bytes()?;
            r.long_bytes()?;
        }
        (String::new(), crate::model::Properties::default())
    } else {
        let description = r.string()?;
        let count = r.u16()?;
        let mut pairs = Vec::with_capacity(usize::from(count));
        for _ in 0..count {
            let key =
                std::str::from_utf8(r.short_bytes()?).map_err(|_| Error::integrity(what(), "key is not UTF-8"))?;
            pairs.push((key.to_owned(), r.string()?));
        }
        (description, pairs.into_iter().collect())
    };
    if !r.is_empty() {
        return Err(Error::integrity(what(), "trailing bytes"));
    }
    Ok(NodeSummary {
        id,
        name,
        node_type,
        description,
        properties,
        tier: tier(t, &what)?,
        status,
        confidence,
        created,
        updated,
        version,
    })
}
