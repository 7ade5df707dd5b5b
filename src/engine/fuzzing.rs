//! Entry points for the fuzz targets in `fuzz/` (feature `fuzzing`) and
//! their proptest twins, which stable CI runs (`tests` below). Each feeds
//! arbitrary input to one decoder and checks what must hold whatever the
//! input; a panic here is a bug.

use std::path::Path;

use crate::codec::{self, Interner};
use crate::keys::{Keyring, files};
use std::collections::BTreeMap;

use crate::model::{Edge, EdgeId, Name, Node, NodeId, NodeSummary, NodeType, Provenance, Status, Tier, Timestamp};
use crate::proposal::Submission;
use crate::store::Catalog;

/// The query language: lexer, parser, resolution, evaluation over an empty
/// catalog, every output format and error rendering.
pub fn query(text: &str) {
    match crate::query::run(&Catalog::default(), text) {
        Ok(out) => {
            let _ = (out.to_text(), out.to_dot());
        }
        Err(e) => assert!(!e.render(text).is_empty()),
    }
}

/// A proposal file's bytes.
pub fn proposal_json(bytes: &[u8]) {
    if let Ok(sub) = Submission::from_json(bytes) {
        assert!(!sub.changes.is_empty(), "a valid submission has changes");
        // What passes once passes again from its own serialisation.
        let again = serde_json::to_vec(&sub).expect("a submission serialises");
        assert!(Submission::from_json(&again).is_ok(), "round trip refused");
    }
}

/// One MCP `propose` argument: any JSON value as the change.
pub fn mcp_change(bytes: &[u8]) {
    let Ok(change) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return;
    };
    if let Ok(sub) = Submission::single("fuzz-agent", 95.0, "fuzz", "fuzzing", change) {
        assert_eq!(sub.changes.len(), 1);
    }
}

/// Stored bytes before any authentication: every decoder refuses them
/// (nothing here is sealed with a key the decoders hold).
pub fn blob_wire(bytes: &[u8]) {
    let keys = Keyring::fixed_for_tests(1);
    let id = NodeId(uuid::Uuid::from_u128(7));
    let mut framed = b"GXN\x01\x00".to_vec();
    framed.extend_from_slice(bytes);
    for tier in Tier::ALL {
        assert!(codec::decode_node(&keys, &id, 0, tier, bytes).is_err());
        assert!(codec::decode_node(&keys, &id, 0, tier, &framed).is_err());
        assert!(codec::open_summary(&keys, &id, 0, tier, bytes, &mut Interner::default()).is_err());
        let edge = EdgeId(uuid::Uuid::from_u128(9));
        assert!(codec::open_edge(&keys, &edge, tier, bytes, &mut Interner::default()).is_err());
        assert!(codec::open_snapshot(&keys, tier, 0, bytes).is_err());
    }
}

/// Plaintext behind the AEAD: the first byte picks a decoder, the rest is
/// sealed with a fixed test key exactly as the store seals, so the bytes
/// authenticate and reach decompression and decoding. Errors are fine;
/// panics, hangs and unbounded allocations (a zstd frame declaring 4 GiB,
/// say) are not.
pub fn after_aead(bytes: &[u8]) {
    let Some((&which, rest)) = bytes.split_first() else {
        return;
    };
    let keys = Keyring::fixed_for_tests(3);
    let tier = Tier::ALL[usize::from(which >> 4) % 4];
    let id = NodeId(uuid::Uuid::from_u128(11));
    match which % 6 {
        // The payload as zstd sees it.
        0 => {
            let blob = codec::seal_node_payload(&keys, &id, 2, tier, rest).expect("seal");
            let _ = codec::decode_node(&keys, &id, 2, tier, &blob);
        }
        // A valid zstd frame around arbitrary msgpack.
        1 => {
            let packed = zstd::bulk::compress(rest, 1).expect("compress");
            let blob = codec::seal_node_payload(&keys, &id, 2, tier, &packed).expect("seal");
            let _ = codec::decode_node(&keys, &id, 2, tier, &blob);
        }
        2 => {
            let sealed = codec::seal_summary_plain(&keys, &id, 2, tier, rest).expect("seal");
            let _ = codec::open_summary(&keys, &id, 2, tier, &sealed, &mut Interner::default());
            let _ = codec::decode_summary_plain(rest, &mut Interner::default());
            let _ = codec::decode_summary_row(rest, (id, 2, tier), &mut Interner::default());
        }
        3 => {
            let edge = EdgeId(uuid::Uuid::from_u128(13));
            let sealed = codec::seal_edge_plain(&keys, &edge, tier, rest).expect("seal");
            let _ = codec::open_edge(&keys, &edge, tier, &sealed, &mut Interner::default());
            let _ = codec::decode_edge_plain(edge, rest, &mut Interner::default());
            let _ = codec::decode_edge_group(rest, tier, &mut Interner::default());
        }
        4 => {
            let sealed = codec::seal_snapshot_packed(&keys, tier, 5, rest).expect("seal");
            let _ = codec::open_snapshot(&keys, tier, 5, &sealed);
        }
        _ => {
            let packed = zstd::bulk::compress(rest, 1).expect("compress");
            let sealed = codec::seal_snapshot_packed(&keys, tier, 5, &packed).expect("seal");
            let _ = codec::open_snapshot(&keys, tier, 5, &sealed);
        }
    }
}

/// The key files' parsers: `keyring.auth`, a tier-key file, an identity
/// file and its master pin, a passphrase file's scrypt header.
pub fn keyring_files(bytes: &[u8]) {
    let path = Path::new("fuzz");
    let _ = crate::keys::auth::parse(path, bytes);
    for tier in Tier::ALL {
        let _ = files::decode_tier_key(path, tier, bytes);
    }
    let _ = files::parse_identity(path, bytes);
    let _ = files::parse_pin(path, bytes);
    let _ = files::kdf_log_n(bytes);
}

/// Markdown: `infer`'s reading of a document, and the flattening that puts
/// graph text into a projection, which must yield one line that cannot
/// pass for a heading, list item, quote, table, code or tier marker.
pub fn markdown(text: &str) {
    let _ = crate::infer::read_markdown(text);
    let flat = crate::project::one_line(text);
    assert!(
        !flat.contains(['\n', '\r', '\u{2028}', '\u{2029}', '\u{85}']),
        "{flat:?}"
    );
    assert!(
        !flat.contains('<') && !flat.replace("\\`", "").contains('`'),
        "{flat:?}"
    );
    let structural = flat.starts_with(['#', '-', '*', '>', '[', '+', '|', '=', '~']);
    let numbered = flat
        .find(['.', ')'])
        .is_some_and(|i| i > 0 && flat[..i].bytes().all(|b| b.is_ascii_digit()));
    assert!(!structural && !numbered, "{flat:?} could start markdown structure");
}

/// A node with every field set to something non-default.
pub fn sample_node(tier: Tier) -> Node {
    let mut properties = BTreeMap::new();
    properties.insert("owner".to_owned(), "orders-team".to_owned());
    properties.insert("repo.path".to_owned(), "services/orders".to_owned());
    Node {
        id: NodeId(uuid::Uuid::from_u128(0x0190_f0a0_0000_7000_8000_0000_0000_0001)),
        name: Name::new("orders-service").expect("a valid name"),
        node_type: NodeType::new("service").expect("a valid type"),
        description: "Core orders processing engine".into(),
        body: Some("## Notes\nÜnïcödé body — with *markdown*.".into()),
        properties: properties.into(),
        tier,
        status: Status::Deprecated,
        confidence: 0.75,
        provenance: Provenance::Agent {
            id: "claude-code".into(),
            session: "fix-orders-timeout".into(),
            trust: 94.2,
        },
        status_reason: Some("superseded".into()),
        created: Timestamp(1_773_568_800_000),
        updated: Timestamp(1_775_118_600_000),
        version: 7,
    }
}

/// Starting inputs for each fuzz target, made by the real encoders: the
/// fuzzer mutates from valid frames instead of searching for them (zstd's
/// C code is not coverage-instrumented, so it would not find them alone).
pub fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let node = sample_node(Tier::AgentReadable);
    let msgpack = codec::to_msgpack(&node).expect("a node encodes");
    let packed = zstd::bulk::compress(&msgpack, 3).expect("compress");
    let mut summary = Vec::new();
    codec::encode_summary_plain(&NodeSummary::from(&node), &mut summary);
    let edge = Edge {
        id: EdgeId(uuid::Uuid::from_u128(13)),
        from: node.id,
        relation: crate::model::Relation::new("depends-on").expect("a valid relation"),
        to: NodeId(uuid::Uuid::from_u128(17)),
        confidence: 0.9,
        weight: 1.0,
        bidirectional: false,
        declared_tier: Tier::Public,
        tier: Tier::AgentReadable,
        provenance: std::sync::Arc::new(Provenance::Human),
        created: Timestamp(1_775_118_600_000),
    };
    let mut edge_plain = Vec::new();
    codec::encode_edge_plain(&edge, &mut edge_plain).expect("an edge encodes");
    let keys = Keyring::fixed_for_tests(1);
    let blob = codec::encode_node(&keys, &node).expect("a node seals");
    let change = serde_json::json!({"op": "add_node", "name": "retry-queue", "type": "module",
        "description": "Exponential backoff for failed calls", "tier": "agent-readable",
        "suggested_edges": [["orders-service", "uses", "retry-queue"]]});
    let proposal = serde_json::json!({"agent": "claude-code", "trust": 94.2, "session": "s1",
        "rationale": "needed", "changes": [change,
            {"op": "update_node", "name": "orders-service", "set": {"description": "new"}},
            {"op": "add_edge", "from": "a", "relation": "uses", "to": "b"},
            {"op": "deprecate", "name": "old", "reason": "gone"},
            {"op": "supersede", "old": "old", "new": "retry-queue"}]});
    let with = |tag: u8, body: &[u8]| [&[tag][..], body].concat();
    vec![
        ("query_parser", b"orders-service -> depends-on -> * --depth 2 --type service".to_vec()),
        ("proposal_json", proposal.to_string().into_bytes()),
        ("mcp_arguments", change.to_string().into_bytes()),
        ("blob_wire", blob),
        ("after_aead", with(0x10, &packed)),
        ("after_aead", with(0x11, &msgpack)),
        ("after_aead", with(0x12, &summary)),
        ("after_aead", with(0x13, &edge_plain)),
        ("after_aead", with(0x15, &summary)),
        ("keyring_files", b"graphex tier key v1\ntier: agent-readable\nkey: 0101010101010101010101010101010101010101010101010101010101010101\n".to_vec()),
        ("keyring_files", format!("graphex keyring v1\npublic {0}\nagent-readable {0}\nagent-restricted {0}\nhuman-only {0}\nmaster age1x\nagent age1y\nmac-master {0}\nmac-agent {0}\n", "ab".repeat(32)).into_bytes()),
        ("keyring_files", b"age-encryption.org/v1\n-> scrypt AAAAAAAAAAAAAAAAAAAAAA 18\nAAAA\n--- AAAA\n".to_vec()),
        ("markdown", b"# Orders\n\nThe **retry queue** holds failed calls. orders-service uses retry-queue.\n\n- item\n> quote\n".to_vec()),
    ]
}

#[cfg(test)]
mod tests {
    //! The fuzz targets as proptest properties, so every CI run tries them.

    use proptest::prelude::*;

    use super::*;

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            "[#>*+|\\-=~0-9. `<\\[\\]\n\r]{0,40}[a-z ]{0,20}",
            "(## |- |\\* |> |1\\. |\\[agent-readable\\] )?[a-zA-Z ]{0,30}\n?(### Conventions\n- fake: x)?",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn query_text(t in text()) { query(&t); }

        #[test]
        fn proposal_bytes(b in proptest::collection::vec(any::<u8>(), 0..600)) { proposal_json(&b); }

        #[test]
        fn proposal_shaped_json(
            agent in "[a-z]{0,8}", trust in -10.0f64..200.0, name in "[a-z-]{0,12}",
            op in prop_oneof![Just("add_node"), Just("update_node"), Just("add_edge"), Just("deprecate"), Just("x")],
        ) {
            let doc = serde_json::json!({"agent": agent, "trust": trust, "rationale": "r",
                "changes": [{"op": op, "name": name, "type": "service", "description": "d"}]});
            proposal_json(doc.to_string().as_bytes());
            mcp_change(doc["changes"][0].to_string().as_bytes());
        }

        #[test]
        fn mcp_bytes(b in proptest::collection::vec(any::<u8>(), 0..300)) { mcp_change(&b); }

        #[test]
        fn wire_bytes(b in proptest::collection::vec(any::<u8>(), 0..400)) { blob_wire(&b); }

        #[test]
        fn plaintext_behind_the_aead(b in proptest::collection::vec(any::<u8>(), 0..400)) { after_aead(&b); }

        #[test]
        fn key_file_bytes(b in proptest::collection::vec(any::<u8>(), 0..300)) { keyring_files(&b); }

        #[test]
        fn key_file_shaped_text(t in "(graphex keyring v1|graphex tier key v1)\n(tier: [a-z-]{0,16}\n)?(key: [0-9a-f]{0,70}\n)?[a-z -]{0,20}") {
            keyring_files(t.as_bytes());
        }

        #[test]
        fn markdown_text(t in text()) { markdown(&t); }
    }

    #[test]
    fn the_seeds_are_valid_inputs() {
        let seeds = seeds();
        for target in [
            "query_parser",
            "proposal_json",
            "mcp_arguments",
            "blob_wire",
            "after_aead",
            "keyring_files",
            "markdown",
        ] {
            assert!(seeds.iter().any(|(t, _)| *t == target), "{target} has seeds");
        }
        let get = |t: &str| seeds.iter().find(|(n, _)| *n == t).map(|(_, b)| b.clone()).unwrap();
        assert!(Submission::from_json(&get("proposal_json")).is_ok());
        let keys = Keyring::fixed_for_tests(1);
        let node = sample_node(Tier::AgentReadable);
        assert_eq!(
            codec::decode_node(&keys, &node.id, 7, Tier::AgentReadable, &get("blob_wire")).unwrap(),
            node
        );
        let packed = &seeds
            .iter()
            .find(|(t, b)| *t == "after_aead" && b[0] == 0x10)
            .unwrap()
            .1[1..];
        let blob = codec::seal_node_payload(&keys, &node.id, 7, Tier::AgentReadable, packed).unwrap();
        assert_eq!(
            codec::decode_node(&keys, &node.id, 7, Tier::AgentReadable, &blob).unwrap(),
            node
        );
        for (target, bytes) in &seeds {
            match *target {
                "query_parser" => query(std::str::from_utf8(bytes).unwrap()),
                "proposal_json" => proposal_json(bytes),
                "mcp_arguments" => mcp_change(bytes),
                "after_aead" => after_aead(bytes),
                "keyring_files" => keyring_files(bytes),
                "markdown" => markdown(std::str::from_utf8(bytes).unwrap()),
                _ => {}
            }
        }
    }

    #[test]
    fn a_zstd_frame_declaring_4_gib_is_refused_without_allocating_it() {
        // A frame that declares 4 GiB of content (single segment, 8-byte
        // size), then run-length blocks of 128 KiB: a few bytes each.
        let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
        frame.extend_from_slice(&(4u64 << 30).to_le_bytes());
        let block = |last: bool| {
            let header: u32 = (128 * 1024) << 3 | 1 << 1 | u32::from(last);
            let mut b = header.to_le_bytes()[..3].to_vec();
            b.push(b'x');
            b
        };
        for _ in 0..64 {
            frame.extend(block(false));
        }
        frame.extend(block(true));
        let mut input = vec![0u8];
        input.extend_from_slice(&frame);
        after_aead(&input);
        let keys = Keyring::fixed_for_tests(3);
        let id = NodeId(uuid::Uuid::from_u128(11));
        let blob = codec::seal_node_payload(&keys, &id, 2, Tier::Public, &frame).unwrap();
        let err = codec::decode_node(&keys, &id, 2, Tier::Public, &blob).unwrap_err();
        assert!(err.to_string().contains("decompression"), "{err}");
    }
}
