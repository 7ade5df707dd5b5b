//! Round trips, cross-version decoding and tamper tests of the on-disk formats.

use super::*;
use crate::keys::Keyring;
use crate::model::{Name, Node, NodeId, NodeSummary, Provenance, Tier, Timestamp};

/// A node with every field set to something non-default.
pub(crate) fn full_node(tier: Tier) -> Node {
    crate::fuzzing::sample_node(tier)
}

#[test]
fn every_field_round_trips_in_every_tier() {
    let keys = Keyring::fixed_for_tests(1);
    for tier in Tier::ALL {
        let node = full_node(tier);
        let blob = encode_node(&keys, &node).unwrap();
        assert_eq!(decode_node(&keys, &node.id, node.version, tier, &blob).unwrap(), node);
        let summary = NodeSummary::from(&node);
        let sealed = seal_summary(&keys, &summary).unwrap();
        assert_eq!(
            open_summary(&keys, &node.id, node.version, tier, &sealed, &mut Interner::default()).unwrap(),
            summary
        );
    }
    let provenances = [
        Provenance::Human,
        Provenance::Inferred {
            source: "src/lib.rs".into(),
        },
        Provenance::Federated {
            project: "org".into(),
            subgraph: String::new(),
        },
        Provenance::Federated {
            project: "org".into(),
            subgraph: "glossary".into(),
        },
    ];
    for p in provenances {
        let node = Node {
            provenance: p,
            body: None,
            status_reason: None,
            ..full_node(Tier::Public)
        };
        let blob = encode_node(&keys, &node).unwrap();
        assert_eq!(decode_node(&keys, &node.id, 7, Tier::Public, &blob).unwrap(), node);
    }
}

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/node-v1-agent-readable.blob");

/// Regenerates the fixture: `cargo test -p graphex-engine write_blob_fixture -- --ignored`.
/// Only ever run when a new format version is introduced; old fixtures stay.
#[test]
#[ignore]
fn write_blob_fixture() {
    let keys = Keyring::fixed_for_tests(1);
    std::fs::write(FIXTURE, encode_node(&keys, &full_node(Tier::AgentReadable)).unwrap()).unwrap();
}

#[test]
fn a_format_1_blob_written_by_an_earlier_build_still_decodes() {
    let keys = Keyring::fixed_for_tests(1);
    let blob = std::fs::read(FIXTURE).unwrap();
    assert_eq!(blob[3], 1, "fixture is format 1");
    let node = full_node(Tier::AgentReadable);
    assert_eq!(
        decode_node(&keys, &node.id, 7, Tier::AgentReadable, &blob).unwrap(),
        node
    );
}

#[test]
fn flipping_any_byte_of_a_blob_is_an_error_never_wrong_content() {
    let keys = Keyring::fixed_for_tests(1);
    let node = full_node(Tier::AgentRestricted);
    let blob = encode_node(&keys, &node).unwrap();
    for i in 0..blob.len() {
        for bit in [0x01u8, 0x80] {
            let mut bad = blob.clone();
            bad[i] ^= bit;
            let err = decode_node(&keys, &node.id, 7, Tier::AgentRestricted, &bad)
                .expect_err(&format!("flip at byte {i} must fail"));
            assert!(
                matches!(err, Error::Integrity { .. } | Error::UnknownFormat { .. }),
                "byte {i}: {err}"
            );
        }
    }
    for cut in [0, 5, 15, blob.len() / 2, blob.len() - 1] {
        assert!(decode_node(&keys, &node.id, 7, Tier::AgentRestricted, &blob[..cut]).is_err());
    }
}

#[test]
fn a_blob_bound_to_its_id_version_and_tier() {
    let keys = Keyring::fixed_for_tests(1);
    let node = full_node(Tier::AgentReadable);
    let blob = encode_node(&keys, &node).unwrap();
    let other: NodeId = "0190f0a0-0000-7000-8000-000000000002".parse().unwrap();
    assert!(matches!(
        decode_node(&keys, &other, 7, Tier::AgentReadable, &blob),
        Err(Error::Integrity { .. })
    ));
    assert!(matches!(
        decode_node(&keys, &node.id, 6, Tier::AgentReadable, &blob),
        Err(Error::Integrity { .. })
    ));
    assert!(matches!(
        decode_node(&keys, &node.id, 7, Tier::Public, &blob),
        Err(Error::Integrity { .. })
    ));
    let summary = seal_summary(&keys, &NodeSummary::from(&node)).unwrap();
    assert!(
        open_summary(
            &keys,
            &other,
            7,
            Tier::AgentReadable,
            &summary,
            &mut Interner::default()
        )
        .is_err()
    );
    assert!(
        open_summary(
            &keys,
            &node.id,
            8,
            Tier::AgentReadable,
            &summary,
            &mut Interner::default()
        )
        .is_err()
    );
}

#[test]
fn a_different_key_cannot_open_a_blob() {
    let node = full_node(Tier::HumanOnly);
    let blob = encode_node(&Keyring::fixed_for_tests(1), &node).unwrap();
    let err = decode_node(&Keyring::fixed_for_tests(50), &node.id, 7, Tier::HumanOnly, &blob).unwrap_err();
    assert!(err.to_string().contains("failed authentication"), "{err}");
}

#[test]
fn an_unknown_future_format_is_named() {
    let keys = Keyring::fixed_for_tests(1);
    let node = full_node(Tier::Public);
    let mut blob = encode_node(&keys, &node).unwrap();
    blob[3] = 9;
    assert!(matches!(
        decode_node(&keys, &node.id, 7, Tier::Public, &blob),
        Err(Error::UnknownFormat { found: 9, .. })
    ));
}

fn full_edge(tier: Tier) -> crate::model::Edge {
    crate::model::Edge {
        id: crate::model::EdgeId::generate(),
        from: NodeId::generate(),
        relation: crate::model::Relation::new("custom-relation").unwrap(),
        to: NodeId::generate(),
        confidence: 0.25,
        weight: 3.5,
        bidirectional: true,
        declared_tier: Tier::Public,
        tier,
        provenance: std::sync::Arc::new(Provenance::Inferred {
            source: "Cargo.toml".into(),
        }),
        created: Timestamp::parse("2026-01-02T03:04:05Z").unwrap(),
    }
}

#[test]
fn edges_round_trip_and_are_bound_to_id_and_tier() {
    let keys = Keyring::fixed_for_tests(1);
    let mut cache = Interner::default();
    for tier in Tier::ALL {
        for e in [
            full_edge(tier),
            crate::model::Edge {
                provenance: std::sync::Arc::new(Provenance::Human),
                ..full_edge(tier)
            },
        ] {
            let sealed = seal_edge(&keys, &e).unwrap();
            assert_eq!(open_edge(&keys, &e.id, tier, &sealed, &mut cache).unwrap(), e);
            let other = crate::model::EdgeId::generate();
            assert!(matches!(
                open_edge(&keys, &other, tier, &sealed, &mut cache),
                Err(Error::Integrity { .. })
            ));
            let higher = if tier == Tier::HumanOnly {
                Tier::Public
            } else {
                Tier::HumanOnly
            };
            assert!(open_edge(&keys, &e.id, higher, &sealed, &mut cache).is_err());
            for i in 0..sealed.len() {
                let mut bad = sealed.clone();
                bad[i] ^= 0x10;
                assert!(open_edge(&keys, &e.id, tier, &bad, &mut cache).is_err(), "flip at {i}");
            }
        }
    }
}

#[test]
fn a_v11_summary_row_is_shorter_and_opens_as_the_older_one_does() {
    let keys = Keyring::fixed_for_tests(1);
    for tier in Tier::ALL {
        let summary = NodeSummary::from(&full_node(tier));
        let (old, lean) = (
            seal_summary(&keys, &summary).unwrap(),
            seal_summary_lean(&keys, &summary).unwrap(),
        );
        assert!(lean.len() + 25 <= old.len(), "{} against {}", lean.len(), old.len());
        for sealed in [old, lean] {
            let opened = open_summary(
                &keys,
                &summary.id,
                summary.version,
                tier,
                &sealed,
                &mut Interner::default(),
            );
            assert_eq!(opened.unwrap(), summary);
            // Bound to its node, version and tier either way.
            assert!(
                open_summary(
                    &keys,
                    &summary.id,
                    summary.version + 1,
                    tier,
                    &sealed,
                    &mut Interner::default()
                )
                .is_err()
            );
        }
    }
}

#[test]
fn snapshots_round_trip_and_are_bound_to_tier_and_seq() {
    let keys = Keyring::fixed_for_tests(1);
    let nodes: Vec<NodeSummary> = (0..3)
        .map(|i| NodeSummary {
            id: NodeId::generate(),
            name: Name::new(&format!("n{i}")).unwrap(),
            ..NodeSummary::from(&full_node(Tier::AgentReadable))
        })
        .collect();
    let edges = vec![full_edge(Tier::AgentReadable), full_edge(Tier::AgentReadable)];
    let sealed = seal_snapshot(&keys, Tier::AgentReadable, 42, nodes.iter(), edges.iter()).unwrap();
    let snap = open_snapshot(&keys, Tier::AgentReadable, 42, &sealed).unwrap();
    assert_eq!(snap, Snapshot::new(nodes.clone(), edges.clone()));
    assert!(
        open_snapshot(&keys, Tier::AgentReadable, 41, &sealed).is_err(),
        "replayed under another seq"
    );
    assert!(
        open_snapshot(&keys, Tier::AgentRestricted, 42, &sealed).is_err(),
        "moved to another tier"
    );
    let mut bad = sealed.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 1;
    assert!(matches!(
        open_snapshot(&keys, Tier::AgentReadable, 42, &bad),
        Err(Error::Integrity { .. })
    ));
    let wrong_tier = seal_snapshot(&keys, Tier::Public, 1, nodes.iter(), std::iter::empty());
    assert!(wrong_tier.is_err(), "a snapshot only holds its own tier");
    let empty = seal_snapshot(&keys, Tier::Public, 1, std::iter::empty(), std::iter::empty()).unwrap();
    assert_eq!(
        open_snapshot(&keys, Tier::Public, 1, &empty).unwrap(),
        Snapshot::default()
    );
}

#[test]
fn a_snapshot_larger_than_its_first_buffers_round_trips() {
    // Sealed through a growing output buffer: thousands of distinct
    // descriptions make it grow many times past its first 4 KiB.
    let keys = Keyring::fixed_for_tests(1);
    let nodes: Vec<NodeSummary> = (0..3000)
        .map(|i| NodeSummary {
            id: NodeId::generate(),
            name: Name::new(&format!("n{i}")).unwrap(),
            description: format!("{} {i}", NodeId::generate()),
            ..NodeSummary::from(&full_node(Tier::Public))
        })
        .collect();
    let sealed = seal_snapshot(&keys, Tier::Public, 7, nodes.iter(), std::iter::empty()).unwrap();
    assert!(sealed.len() > 32 * 1024, "{} bytes", sealed.len());
    let snap = open_snapshot(&keys, Tier::Public, 7, &sealed).unwrap();
    assert_eq!(snap, Snapshot::new(nodes, Vec::new()));
}

mod never_panics {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn decoders_return_errors_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let keys = Keyring::fixed_for_tests(1);
            let id = NodeId::generate();
            let mut framed = b"GXN\x01\x00".to_vec();
            framed.extend_from_slice(&bytes);
            prop_assert!(decode_node(&keys, &id, 0, Tier::Public, &bytes).is_err());
            prop_assert!(decode_node(&keys, &id, 0, Tier::Public, &framed).is_err());
            prop_assert!(open_summary(&keys, &id, 0, Tier::Public, &bytes, &mut Interner::default()).is_err());
            let edge_id = crate::model::EdgeId::generate();
            prop_assert!(open_edge(&keys, &edge_id, Tier::Public, &bytes, &mut Interner::default()).is_err());
            // The plaintext decoder behind the AEAD, fed arbitrary bytes directly.
            let _ = super::super::edge_bytes::decode(edge_id, &bytes, &mut Interner::default());
            let _ = super::super::summary_bytes::decode(&bytes, &mut Interner::default());
            let known = (id, 0, Tier::Public);
            let _ = super::super::summary_bytes::decode_row(&bytes, known, &mut Interner::default());
            let _ = super::super::edge_group::decode(&bytes, Tier::Public, &mut Interner::default());
            prop_assert!(open_snapshot(&keys, Tier::Public, 0, &bytes).is_err());
        }
    }
}
