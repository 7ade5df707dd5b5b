//! An export in the other formats: JSONL (lossless, one record a line),
//! GraphML (every field, XML-escaped), DOT and Mermaid (names, types, a cut
//! description, relations; for looking at, not for import).

use std::fmt::Write as _;

use super::native::{ExportDoc, LineRef};
use crate::error::{Error, Result};
use crate::query::diagram::{self, DiagramEdge, DiagramNode};

/// A header line, then one node a line, then one edge a line.
pub fn jsonl(doc: &ExportDoc) -> Result<String> {
    let mut out = Vec::new();
    write_jsonl(doc, &mut out)?;
    String::from_utf8(out).map_err(|e| Error::Document {
        path: "export".into(),
        reason: e.to_string(),
    })
}

/// [`jsonl`] written to `out` a line at a time (a large export is never
/// held whole as text).
pub fn write_jsonl(doc: &ExportDoc, out: &mut dyn std::io::Write) -> Result<()> {
    let failed = |e: &dyn std::fmt::Display| Error::Document {
        path: "export".into(),
        reason: e.to_string(),
    };
    // Each line is made in one buffer and written whole: serde's many
    // small writes stay off the (dynamic) writer.
    let mut buf = Vec::with_capacity(4096);
    let mut line = |record: &LineRef<'_>| -> Result<()> {
        buf.clear();
        serde_json::to_writer(&mut buf, record).map_err(|e| failed(&e))?;
        buf.push(b'\n');
        out.write_all(&buf).map_err(|e| failed(&e))
    };
    line(&LineRef::Header {
        format: &doc.format,
        version: doc.version,
        exported_at: &doc.exported_at,
        tier_cap: doc.tier_cap,
    })?;
    doc.nodes.iter().try_for_each(|n| line(&LineRef::Node(n)))?;
    doc.edges.iter().try_for_each(|e| line(&LineRef::Edge(e)))
}

/// Text for XML character data and attribute values. Characters XML 1.0
/// cannot hold (controls other than tab, newline, return) become visible
/// `\u{..}` text.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

const NODE_KEYS: [&str; 11] = [
    "type",
    "description",
    "body",
    "tier",
    "status",
    "status_reason",
    "confidence",
    "provenance",
    "created",
    "updated",
    "version",
];
const EDGE_KEYS: [&str; 7] = [
    "relation",
    "tier",
    "declared_tier",
    "confidence",
    "weight",
    "bidirectional",
    "provenance",
];

fn data(s: &mut String, key: &str, value: &str) {
    let _ = writeln!(
        s,
        "      <data key=\"{}\">{}</data>",
        xml_escape(key),
        xml_escape(value)
    );
}

/// GraphML: node fields as `n_*` keys, properties as `p_*` keys (declared
/// from the properties present), edge fields as `e_*` keys.
pub fn graphml(doc: &ExportDoc) -> Result<String> {
    let mut s = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n",
    );
    for k in NODE_KEYS {
        let _ = writeln!(
            s,
            "  <key id=\"n_{k}\" for=\"node\" attr.name=\"{k}\" attr.type=\"string\"/>"
        );
    }
    let props: std::collections::BTreeSet<&str> = doc
        .nodes
        .iter()
        .flat_map(|n| n.current.properties.keys().map(String::as_str))
        .collect();
    for k in &props {
        let k = xml_escape(k);
        let _ = writeln!(
            s,
            "  <key id=\"p_{k}\" for=\"node\" attr.name=\"{k}\" attr.type=\"string\"/>"
        );
    }
    for k in EDGE_KEYS {
        let _ = writeln!(
            s,
            "  <key id=\"e_{k}\" for=\"edge\" attr.name=\"{k}\" attr.type=\"string\"/>"
        );
    }
    s.push_str("  <graph id=\"graphex\" edgedefault=\"directed\">\n");
    for n in &doc.nodes {
        let r = &n.current;
        let _ = writeln!(s, "    <node id=\"{}\">", xml_escape(r.name.as_str()));
        data(&mut s, "n_type", r.node_type.as_str());
        data(&mut s, "n_description", &r.description);
        if let Some(b) = &r.body {
            data(&mut s, "n_body", b);
        }
        data(&mut s, "n_tier", r.tier.as_str());
        data(&mut s, "n_status", &r.status.to_string());
        if let Some(why) = &r.status_reason {
            data(&mut s, "n_status_reason", why);
        }
        data(&mut s, "n_confidence", &r.confidence.to_string());
        data(&mut s, "n_provenance", &r.provenance.to_string());
        data(&mut s, "n_created", &r.created.to_rfc3339());
        data(&mut s, "n_updated", &r.updated.to_rfc3339());
        data(&mut s, "n_version", &r.version.to_string());
        for (k, v) in &r.properties {
            data(&mut s, &format!("p_{k}"), v);
        }
        s.push_str("    </node>\n");
    }
    for e in &doc.edges {
        let _ = writeln!(
            s,
            "    <edge source=\"{}\" target=\"{}\">",
            xml_escape(e.from.as_str()),
            xml_escape(e.to.as_str())
        );
        data(&mut s, "e_relation", e.relation.as_str());
        data(&mut s, "e_tier", e.tier.as_str());
        data(&mut s, "e_declared_tier", e.declared_tier.as_str());
        data(&mut s, "e_confidence", &e.confidence.to_string());
        data(&mut s, "e_weight", &e.weight.to_string());
        data(&mut s, "e_bidirectional", &e.bidirectional.to_string());
        data(&mut s, "e_provenance", &e.provenance.to_string());
        s.push_str("    </edge>\n");
    }
    s.push_str("  </graph>\n</graphml>\n");
    Ok(s)
}

fn views(doc: &ExportDoc) -> (Vec<DiagramNode<'_>>, Vec<DiagramEdge<'_>>) {
    let nodes = doc
        .nodes
        .iter()
        .map(|n| DiagramNode {
            name: n.current.name.as_str(),
            node_type: n.current.node_type.as_str(),
            description: Some(&n.current.description),
        })
        .collect();
    let edges = doc
        .edges
        .iter()
        .map(|e| DiagramEdge {
            from: e.from.as_str(),
            relation: e.relation.as_str(),
            to: e.to.as_str(),
            bidirectional: e.bidirectional,
        })
        .collect();
    (nodes, edges)
}

/// A Graphviz digraph of the export.
pub fn dot(doc: &ExportDoc) -> String {
    let (n, e) = views(doc);
    diagram::dot(&n, &e)
}

/// A Mermaid flowchart of the export.
pub fn mermaid(doc: &ExportDoc) -> String {
    let (n, e) = views(doc);
    diagram::mermaid(&n, &e)
}
