//! The plaintext of an edge group (schema v11): every edge leaving one node
//! in one tier, sealed once under the tier's index key (see `record`). The
//! group's source and tier are said once; each edge keeps what is its own.
//!
//! ```text
//! layout 1 | source (16) | relation count varint | relation (u16 length + bytes)*
//!          | edge count varint | edge*
//! edge:      id (16) | to (16) | declared tier | flags | relation index varint
//!          | confidence f64 LE | weight f64 LE (flag 2) | created, zigzag varint of its
//!            difference from the edge before's (the first's from 0)
//!          | provenance (flag 4: u32 length + MessagePack; absent = human)
//! flags:     1 bidirectional, 2 a weight other than 1.0, 4 a provenance
//! ```
//!
//! The edges are in order of their ids, each once: a group has one
//! encoding, so its digest names its content. A group may hold none: one a
//! commit emptied still names its source.

use super::bytes::{Reader, Writer, unzigzag, zigzag};
use super::edge_bytes::{tier, uuid};
use super::interner::Interner;
use super::{from_msgpack, to_msgpack};
use crate::error::{Error, Result};
use crate::model::{Edge, EdgeId, NodeId, Provenance, Relation, Tier, Timestamp};

const LAYOUT: u8 = 1;
const BIDIRECTIONAL: u8 = 1;
const WEIGHTED: u8 = 2;
const PROVENANCE: u8 = 4;

/// The weight an edge has unless it says otherwise.
const DEFAULT_WEIGHT: f64 = 1.0;

/// Encodes `edges` (all leaving `source`, in one tier, in order of their
/// ids, each once: see [`ordered`]).
pub(crate) fn encode(source: &NodeId, edges: &[&Edge], out: &mut Vec<u8>) -> Result<()> {
    let mut relations: Vec<&Relation> = Vec::new();
    for e in edges {
        if e.from != *source {
            return Err(Error::integrity(
                format!("edge {}", e.id),
                "it does not leave its group's node",
            ));
        }
        if !relations.contains(&&e.relation) {
            relations.push(&e.relation);
        }
    }
    out.push(LAYOUT);
    out.extend_from_slice(source.as_bytes());
    out.varint(relations.len() as u64);
    for r in &relations {
        out.short_bytes(r.as_str().as_bytes());
    }
    out.varint(edges.len() as u64);
    let mut previous = 0i64;
    for e in edges {
        let weighted = e.weight.to_bits() != DEFAULT_WEIGHT.to_bits();
        let provenance = *e.provenance != Provenance::Human;
        out.extend_from_slice(e.id.as_bytes());
        out.extend_from_slice(e.to.as_bytes());
        let flags =
            u8::from(e.bidirectional) | if weighted { WEIGHTED } else { 0 } | if provenance { PROVENANCE } else { 0 };
        out.extend_from_slice(&[e.declared_tier.code(), flags]);
        let index = relations.iter().position(|r| **r == e.relation).unwrap_or_default();
        out.varint(index as u64);
        out.extend_from_slice(&e.confidence.to_le_bytes());
        if weighted {
            out.extend_from_slice(&e.weight.to_le_bytes());
        }
        out.varint(zigzag(e.created.0.wrapping_sub(previous)));
        previous = e.created.0;
        if provenance {
            out.long_bytes(&to_msgpack(&e.provenance)?);
        }
    }
    Ok(())
}

/// Whether `edges` are in the order a group holds them (by id, each once).
pub(crate) fn ordered(edges: &[&Edge]) -> bool {
    edges.windows(2).all(|w| w[0].id < w[1].id)
}

/// Decodes a group sealed under `tier` (each edge gets that tier): its
/// source and its edges.
pub(crate) fn decode(b: &[u8], group_tier: Tier, terms: &mut Interner) -> Result<(NodeId, Vec<Edge>)> {
    let what = || "an edge group".to_string();
    let mut r = Reader::new(b, &what);
    r.layout(LAYOUT)?;
    let source = NodeId(uuid(r.array()?));
    let what = || format!("the edge group of node {source}");
    let mut r = Reader::new(r.rest(), &what);
    let count = bounded(r.varint()?, b.len(), &what)?;
    let mut relations = Vec::with_capacity(count);
    for _ in 0..count {
        relations.push(terms.relation(r.short_bytes()?)?);
    }
    // An edge takes at least 44 bytes: the count cannot ask for more room.
    let count = bounded(r.varint()?, b.len() / 44, &what)?;
    let mut edges: Vec<Edge> = Vec::with_capacity(count);
    let mut previous = 0i64;
    for _ in 0..count {
        let id = EdgeId(uuid(r.array()?));
        if edges.last().is_some_and(|e| e.id >= id) {
            return Err(Error::integrity(what(), "its edges are not in order"));
        }
        let to = NodeId(uuid(r.array()?));
        let [declared, flags] = r.array::<2>()?;
        if flags & !(BIDIRECTIONAL | WEIGHTED | PROVENANCE) != 0 {
            return Err(Error::integrity(what(), "an edge has unknown flags"));
        }
        let declared_tier = tier(declared, &what)?;
        if declared_tier > group_tier {
            return Err(Error::integrity(what(), "an edge asks for a tier above its group's"));
        }
        let index = usize::try_from(r.varint()?).unwrap_or(usize::MAX);
        let relation = relations
            .get(index)
            .cloned()
            .ok_or_else(|| Error::integrity(what(), "an edge names no relation of its group"))?;
        let confidence = r.f64()?;
        let weight = if flags & WEIGHTED != 0 {
            r.f64()?
        } else {
            DEFAULT_WEIGHT
        };
        let created = previous.wrapping_add(unzigzag(r.varint()?));
        previous = created;
        let provenance = if flags & PROVENANCE != 0 {
            std::sync::Arc::new(from_msgpack(&what(), r.long_bytes()?)?)
        } else {
            terms.human()
        };
        edges.push(Edge {
            id,
            from: source,
            relation,
            to,
            confidence,
            weight,
            bidirectional: flags & BIDIRECTIONAL != 0,
            declared_tier,
            tier: group_tier,
            provenance,
            created: Timestamp(created),
        });
    }
    if !r.is_empty() {
        return Err(Error::integrity(what(), "bytes after its last edge"));
    }
    Ok((source, edges))
}

/// A count read from a record, refused when the record cannot hold that
/// many (so a forged count reserves nothing).
fn bounded(n: u64, most: usize, what: &dyn Fn() -> String) -> Result<usize> {
    usize::try_from(n)
        .ok()
        .filter(|n| *n <= most)
        .ok_or_else(|| Error::integrity(what(), "a count larger than the record"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;

    fn group() -> (NodeId, Vec<Edge>) {
        let sample = testkit::sample();
        let first = sample.edges().next().cloned().expect("an edge");
        let mut edges: Vec<Edge> = (0..5u8)
            .map(|i| Edge {
                id: EdgeId::generate(),
                weight: if i == 1 { 0.25 } else { 1.0 },
                bidirectional: i == 2,
                created: Timestamp(first.created.0 - i64::from(i) * 1000),
                provenance: if i == 3 {
                    std::sync::Arc::new(Provenance::Agent {
                        id: "scout".into(),
                        session: "s-1".into(),
                        trust: 0.5,
                    })
                } else {
                    first.provenance.clone()
                },
                relation: if i == 4 {
                    Relation::new("uses").expect("relation")
                } else {
                    first.relation.clone()
                },
                ..first.clone()
            })
            .collect();
        edges.sort_by_key(|e| e.id);
        (first.from, edges)
    }

    #[test]
    fn a_group_round_trips_and_says_its_source_once() {
        let (source, edges) = group();
        let refs: Vec<&Edge> = edges.iter().collect();
        assert!(ordered(&refs));
        let mut out = Vec::new();
        encode(&source, &refs, &mut out).expect("encode");
        let (back_source, back) = decode(&out, edges[0].tier, &mut Interner::default()).expect("decode");
        assert_eq!(back_source, source);
        assert_eq!(back, edges);
        let mut one = Vec::new();
        crate::codec::encode_edge_plain(&edges[0], &mut one).expect("encode one");
        assert!(
            out.len() < one.len() * edges.len(),
            "{} bytes for {} edges",
            out.len(),
            edges.len()
        );
    }

    #[test]
    fn malformed_groups_are_refused_not_trusted() {
        let (source, edges) = group();
        let refs: Vec<&Edge> = edges.iter().collect();
        let mut good = Vec::new();
        encode(&source, &refs, &mut good).expect("encode");
        let tier = edges[0].tier;
        let terms = &mut Interner::default();
        // Cut anywhere, or with a byte more: refused.
        for cut in 0..good.len() {
            assert!(decode(&good[..cut], tier, terms).is_err(), "cut at {cut}");
        }
        let mut longer = good.clone();
        longer.push(0);
        assert!(decode(&longer, tier, terms).is_err());
        // Out of order, or an edge of another node.
        let reversed: Vec<&Edge> = refs.iter().rev().copied().collect();
        assert!(!ordered(&reversed));
        let mut out = Vec::new();
        encode(&source, &reversed, &mut out).expect("encodes as told");
        assert!(decode(&out, tier, terms).is_err(), "out of order");
        let stranger = Edge {
            from: edges[0].to,
            ..edges[0].clone()
        };
        assert!(encode(&source, &[&stranger], &mut Vec::new()).is_err());
        // An emptied group still names its source.
        let mut empty = Vec::new();
        encode(&source, &[], &mut empty).expect("encode");
        assert_eq!(decode(&empty, tier, terms).expect("decode"), (source, Vec::new()));
        // A count far larger than the record reserves nothing.
        let mut huge = good[..17].to_vec();
        huge.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert!(decode(&huge, tier, terms).is_err());
        // A tier below an edge's declared one.
        if let Some(lower) = Tier::ALL.into_iter().rfind(|t| *t < edges[0].declared_tier) {
            assert!(decode(&good, lower, terms).is_err());
        }
    }

    #[test]
    fn numbers_round_trip_at_their_edges() {
        let what = || "n".to_string();
        for n in [0u64, 1, 127, 128, 16_383, 16_384, u64::MAX / 2, u64::MAX] {
            let mut out = Vec::new();
            out.varint(n);
            assert_eq!(Reader::new(&out, &what).varint().expect("read"), n);
        }
        for n in [0i64, 1, -1, i64::MAX, i64::MIN] {
            assert_eq!(unzigzag(zigzag(n)), n);
        }
        // A redundant zero or an eleventh byte is refused.
        assert!(Reader::new(&[0x80, 0x00], &what).varint().is_err());
        assert!(Reader::new(&[0xff; 11], &what).varint().is_err());
    }
}
