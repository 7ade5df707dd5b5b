//! Reading inputs as streams: node-link arrays in any order (`links` over
//! `edges`), shape errors named, JSONL lines over the limit refused while
//! reading goes on, our own export in whole JSON (also on one line) and
//! JSONL, and reads through a reader that hands out a few bytes at a time.

use std::io::BufRead;

use super::*;

fn parse_text(format: ImportFormat, text: &str) -> Result<Mapped> {
    parse(
        format,
        &[Source {
            file: "in.json",
            bytes: text.as_bytes(),
        }],
    )
}

fn edges(m: &Mapped) -> Vec<String> {
    m.edges
        .iter()
        .map(|e| format!("{} {} {}", e.from, e.relation, e.to))
        .collect()
}

#[test]
fn links_may_come_before_the_nodes_and_links_win_over_edges() {
    let m = parse_text(
        ImportFormat::NodeLink,
        r#"{"edges":[{"source":"A","target":"B","relation":"old"}],
            "links":[{"source":"A","target":"B","relation":"uses"},{"source":"A"}],
            "nodes":[{"id":"A"},{"id":"B"}],"graph":{"x":[1,{"y":2}]}}"#,
    )
    .unwrap();
    assert_eq!(m.nodes.len(), 2);
    assert_eq!(
        edges(&m),
        ["a uses b"],
        "the links' names map through the nodes read later"
    );
    assert_eq!(m.refused.len(), 1, "{:?}", m.refused);
    assert_eq!(m.refused[0].item, "link 1");

    let m = parse_text(
        ImportFormat::NodeLink,
        r#"{"nodes":[{"id":"A"},{"id":"B"}],"edges":[{"source":"A","target":"B","relation":"old"}]}"#,
    )
    .unwrap();
    assert_eq!(edges(&m), ["a old b"], "edges is read when there is no links");

    let m = parse_text(
        ImportFormat::NodeLink,
        r#"{"nodes":[{"id":"A"},{"id":"B"}],"links":[],"edges":[{"source":"A","target":"B"}]}"#,
    )
    .unwrap();
    assert!(edges(&m).is_empty(), "links, even empty, wins");
}

#[test]
fn a_node_link_document_of_the_wrong_shape_is_named() {
    let reason = |text: &str| match parse_text(ImportFormat::NodeLink, text) {
        Err(Error::Document { path, reason }) => {
            assert_eq!(path, "in.json");
            reason
        }
        other => panic!("{text}: {:?}", other.map(|m| m.nodes.len())),
    };
    assert!(
        reason("[1,2]").starts_with("expected a JSON object"),
        "{}",
        reason("[1,2]")
    );
    assert_eq!(reason(r#"{"links":[]}"#), "no \"nodes\" array");
    assert_eq!(reason(r#"{"nodes":{"a":1}}"#), "no \"nodes\" array");
    assert_eq!(reason(r#"{"nodes":[],"links":7}"#), "\"links\" is not an array");
    let broken = reason(r#"{"nodes":[{"id":"a"},"#);
    assert!(
        broken.starts_with("not valid JSON") && broken.contains("line 1"),
        "{broken}"
    );
    let trailing = reason(r#"{"nodes":[]} {"#);
    assert!(trailing.starts_with("not valid JSON"), "{trailing}");
}

#[test]
fn an_overlong_jsonl_line_is_refused_and_reading_goes_on() {
    let long = format!("{{\"id\":\"x\",\"content\":\"{}\"}}", "a".repeat(MAX_LINE_BYTES));
    let text = format!("{{\"id\":\"p1\",\"name\":\"Bob\"}}\n\n{long}\r\n{{\"id\":\"p2\"}}");
    let m = parse(
        ImportFormat::AshJsonl,
        &[Source {
            file: "people.jsonl",
            bytes: text.as_bytes(),
        }],
    )
    .unwrap();
    let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["person-bob", "person-p2"]);
    assert_eq!(m.refused.len(), 1);
    assert_eq!(m.refused[0].item, "line 3");
    assert!(
        m.refused[0].problem.starts_with(&format!("{} bytes", long.len() + 1)),
        "the length counts the whole line: {}",
        m.refused[0].problem
    );
}

/// An export of two nodes and an edge, as whole JSON.
fn export_text() -> String {
    let node = |name: &str| {
        format!(
            r#"{{"name":"{name}","type":"service","description":"d","tier":"public","status":"active",
                "confidence":1.0,"created":1,"updated":1,"version":1}}"#
        )
    };
    format!(
        r#"{{"format":"graphex-export","version":1,"exported_at":"t","tier_cap":"public",
            "nodes":[{},{}],
            "edges":[{{"from":"a","relation":"uses","to":"b","tier":"public","declared_tier":"public",
                       "confidence":1.0,"weight":1.0,"bidirectional":false,"created":1}}]}}"#,
        node("a"),
        node("b")
    )
}

#[test]
fn our_export_reads_whole_on_many_lines_or_one_and_stays_strict() {
    let pretty = parse_text(ImportFormat::Json, &export_text()).unwrap();
    let one_line = parse_text(ImportFormat::Json, &export_text().replace('\n', " ")).unwrap();
    for m in [&pretty, &one_line] {
        assert!(m.lossless && m.refused.is_empty());
        assert_eq!(
            m.nodes.iter().map(|n| n.item.as_str()).collect::<Vec<_>>(),
            ["node 0 (a)", "node 1 (b)"]
        );
        assert_eq!(edges(m), ["a uses b"]);
    }
    let reason = |text: String| match parse_text(ImportFormat::Json, &text) {
        Err(Error::Document { reason, .. }) => reason,
        other => panic!("{:?}", other.map(|m| m.nodes.len())),
    };
    assert!(
        reason(export_text().replace("\"tier_cap\"", "\"extra\":1,\"tier_cap\"")).contains("unknown field `extra`")
    );
    assert!(reason(export_text().replace("\"exported_at\":\"t\",", "")).contains("missing field `exported_at`"));
    assert!(reason(export_text().replace("\"version\":1", "\"version\":9")).contains("export format version 9"));
    assert!(reason(export_text().replace("graphex-export", "other")).contains("\"format\" is \"other\""));
}

#[test]
fn our_jsonl_export_reads_line_by_line_after_its_header() {
    let text = concat!(
        r#"{"kind":"header","format":"graphex-export","version":1,"exported_at":"t","tier_cap":"public"}"#,
        "\n",
        r#"{"kind":"node","name":"a","type":"service","description":"d","tier":"public","status":"active","confidence":1.0,"created":1,"updated":1,"version":1}"#,
        "\n\nnot json\n",
        r#"{"kind":"header","format":"graphex-export","version":1,"exported_at":"t","tier_cap":"public"}"#,
        "\n"
    );
    let m = parse_text(ImportFormat::Json, text).unwrap();
    assert_eq!(m.nodes[0].item, "line 2 (a)");
    let refused: Vec<&str> = m.refused.iter().map(|r| r.item.as_str()).collect();
    assert_eq!(refused, ["line 4", "line 5"]);
}

/// A reader that hands out at most 3 bytes a call, so every parser meets
/// lines and tokens cut across reads.
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(3).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn reads_cut_anywhere_give_the_same_result() {
    let cases = [
        (ImportFormat::Json, export_text()),
        (
            ImportFormat::NodeLink,
            r#"{"nodes":[{"id":"A","description":"x\"y"},{"id":"B"}],"links":[{"source":"A","target":"B"}]}"#.to_owned(),
        ),
        (
            ImportFormat::AshJsonl,
            "{\"id\":\"p1\",\"name\":\"Bob\"}\n{\"id\":\"e\",\"edge_type\":\"KNOWS\",\"source_id\":\"p1\",\"target_id\":\"p1\"}\n"
                .to_owned(),
        ),
    ];
    for (format, text) in cases {
        let whole = parse_text(format, &text).unwrap();
        let mut read: Box<dyn BufRead> = Box::new(std::io::BufReader::with_capacity(2, Trickle(text.as_bytes())));
        let mut inputs = [Input {
            file: "in.json",
            read: &mut *read,
        }];
        let cut = parse_inputs(format, &mut inputs).unwrap();
        assert_eq!(cut.nodes, whole.nodes, "{format}");
        assert_eq!(cut.edges, whole.edges, "{format}");
        assert_eq!(cut.refused, whole.refused, "{format}");
    }
}
