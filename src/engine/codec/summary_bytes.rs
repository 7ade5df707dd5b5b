//! The plaintext of a sealed node summary: a fixed binary layout, decoded for
//! every readable node at open.
//!
//! ```text
//! layout 1 | id (16) | version u64 | tier | status | confidence f64 | created i64 | updated i64
//!          | name (u16 length + bytes) | type (u16 length + bytes) | description (u32 length + bytes)
//!          | property count u16 | (key (u16 length + bytes), value (u32 length + bytes))*
//! layout 2 | status | confidence f64 | created (zigzag varint) | updated - created (zigzag varint)
//!          | name, type, description (varint length + bytes each)
//!          | property count varint | (key, value (varint length + bytes each))*
//! ```
//!
//! Layout 2 is an index row's (schema v11 writes it): the row's id, version
//! and tier, which the record's associated data binds, are not said again.
//! A snapshot keeps layout 1, whose records name their node.

use super::bytes::{Reader, Writer, unzigzag, zigzag};
use super::edge_bytes::{tier, uuid};
use super::interner::Interner;
use crate::error::{Error, Result};
use crate::model::{Name, NodeId, NodeSummary, Status, Timestamp};

const LAYOUT: u8 = 1;
/// An index row's layout (see the module's text).
const ROW_LAYOUT: u8 = 2;

fn text(out: &mut Vec<u8>, b: &[u8]) {
    out.varint(b.len() as u64);
    out.extend_from_slice(b);
}

/// Encodes `s` for its index row (layout 2): without its id, version and
/// tier, which the row's record is bound to.
pub(crate) fn encode_row(s: &NodeSummary, out: &mut Vec<u8>) {
    out.extend_from_slice(&[ROW_LAYOUT, status_code(s.status)]);
    out.extend_from_slice(&s.confidence.to_le_bytes());
    out.varint(zigzag(s.created.0));
    out.varint(zigzag(s.updated.0.wrapping_sub(s.created.0)));
    text(out, s.name.as_str().as_bytes());
    text(out, s.node_type.as_str().as_bytes());
    text(out, s.description.as_bytes());
    out.varint(s.properties.len() as u64);
    for (k, v) in s.properties.iter() {
        text(out, k.as_bytes());
        text(out, v.as_bytes());
    }
}

/// Decodes an index row's summary of node `id` at `version` in `tier`: in
/// layout 2, or in layout 1 (as a store before v11 wrote it).
pub(crate) fn decode_row(
    b: &[u8],
    (id, version, tier): (NodeId, u64, crate::model::Tier),
    terms: &mut Interner,
) -> Result<NodeSummary> {
    if b.first() != Some(&ROW_LAYOUT) {
        return decode(b, terms);
    }
    let what = || format!("the summary of node {id}");
    let mut r = Reader::new(&b[1..], &what);
    let status = *Status::ALL
        .get(usize::from(r.u8()?))
        .ok_or_else(|| Error::integrity(what(), "unknown status"))?;
    let confidence = r.f64()?;
    let created = unzigzag(r.varint()?);
    let updated = created.wrapping_add(unzigzag(r.varint()?));
    let name = std::str::from_utf8(r.var_bytes()?).map_err(|_| Error::integrity(what(), "name is not UTF-8"))?;
    let name = Name::new(name)?;
    let node_type = terms.node_type(r.var_bytes()?)?;
    let description = r.var_bytes()?;
    let count = r.varint()?;
    let (description, properties) = if terms.skips_text() {
        for _ in 0..count {
            r.var_bytes()?;
            r.var_bytes()?;
        }
        (String::new(), crate::model::Properties::default())
    } else {
        let description =
            String::from_utf8(description.to_vec()).map_err(|_| Error::integrity(what(), "text is not UTF-8"))?;
        let mut pairs = Vec::new();
        for _ in 0..count {
            let key = std::str::from_utf8(r.var_bytes()?).map_err(|_| Error::integrity(what(), "key is not UTF-8"))?;
            let value =
                std::str::from_utf8(r.var_bytes()?).map_err(|_| Error::integrity(what(), "text is not UTF-8"))?;
            pairs.push((key.to_owned(), value.to_owned()));
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
        tier,
        status,
        confidence,
        created: Timestamp(created),
        updated: Timestamp(updated),
        version,
    })
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Tier;

    #[test]
    fn an_index_row_s_summary_round_trips_without_its_id_version_and_tier() {
        let node = crate::fuzzing::sample_node(Tier::AgentRestricted);
        let mut s = NodeSummary::from(&node);
        s.created = Timestamp(-5_000);
        s.updated = Timestamp(i64::MAX);
        let known = (s.id, s.version, s.tier);
        let (mut row, mut full) = (Vec::new(), Vec::new());
        encode_row(&s, &mut row);
        encode(&s, &mut full);
        assert!(row.len() + 25 <= full.len(), "{} bytes for {}", row.len(), full.len());
        assert_eq!(decode_row(&row, known, &mut Interner::default()).unwrap(), s);
        // A row a store before v11 wrote (layout 1) reads as it did.
        assert_eq!(decode_row(&full, known, &mut Interner::default()).unwrap(), s);
        // Names only: the text is read past.
        let names = decode_row(&row, known, &mut Interner::for_decode(crate::codec::Decode::Names)).unwrap();
        assert_eq!((names.name, names.description.as_str()), (s.name.clone(), ""));
        // Cut anywhere, or with a byte more: refused.
        for cut in 0..row.len() {
            assert!(
                decode_row(&row[..cut], known, &mut Interner::default()).is_err(),
                "cut at {cut}"
            );
        }
        row.push(0);
        assert!(decode_row(&row, known, &mut Interner::default()).is_err());
    }
}
