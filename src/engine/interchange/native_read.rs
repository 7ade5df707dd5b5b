//! Reading our own export as a stream: JSONL a line at a time, whole JSON
//! node by node and edge by edge, so neither the file nor the whole
//! document is ever held. Whole JSON is told from JSONL by its first line,
//! which is put back in front of the rest when it is not a header.

use std::fmt;
use std::io::{BufRead, Read as _};

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::lines::{each_line, read_error};
use super::native::{ExportEdge, ExportNode, Line, check_header, edge, node};
use super::{Input, MAX_LINE_BYTES, Mapped};
use crate::error::{Error, Result};
use crate::model::Tier;

fn bad(file: &str, reason: impl Into<String>) -> Error {
    Error::Document {
        path: file.to_owned(),
        reason: reason.into(),
    }
}

/// Reads our export (whole JSON, or JSONL when the first line is a header).
pub(super) fn read(input: &mut Input<'_>, m: &mut Mapped) -> Result<()> {
    let file = input.file;
    let first = first_line(input.read, file)?;
    if let Ok(Line::Header { format, version, .. }) = serde_json::from_slice::<Line>(&first) {
        check_header(file, &format, version)?;
        return each_line(input.read, file, 2, m, |m, item, line| {
            match serde_json::from_slice::<Line>(line) {
                Ok(Line::Node(n)) => m.nodes.push(node(&n.current, format!("{item} ({})", n.current.name))),
                Ok(Line::Edge(e)) => m.edges.push(edge(&e, item)),
                Ok(Line::Header { .. }) => m.refuse(file, item, "a second header"),
                Err(e) => m.refuse(file, item, e.to_string()),
            }
        });
    }
    let whole = std::io::BufReader::new(first.as_slice().chain(&mut *input.read));
    let mut de = serde_json::Deserializer::from_reader(whole);
    let mut header = Header::default();
    let parsed = Doc { header: &mut header, m }
        .deserialize(&mut de)
        .and_then(|()| de.end());
    if let Err(e) = parsed {
        return Err(match e.classify() {
            serde_json::error::Category::Io => bad(file, e.to_string()),
            _ => bad(file, format!("not a Graphex export: {e}")),
        });
    }
    check_header(file, &header.format, header.version)
}

/// The first line, its newline included, or its first [`MAX_LINE_BYTES`]
/// and one when it is longer (a header is never that long).
fn first_line(read: &mut dyn BufRead, file: &str) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    while out.len() <= MAX_LINE_BYTES {
        let chunk = read.fill_buf().map_err(|e| read_error(file, &e))?;
        if chunk.is_empty() {
            break;
        }
        let take = chunk
            .iter()
            .position(|b| *b == b'\n')
            .map_or(chunk.len(), |n| n + 1)
            .min(MAX_LINE_BYTES + 1 - out.len());
        out.extend_from_slice(&chunk[..take]);
        read.consume(take);
        if out.last() == Some(&b'\n') {
            break;
        }
    }
    Ok(out)
}

#[derive(Default)]
struct Header {
    format: String,
    version: u32,
}

const FIELDS: &[&str] = &[
    "format",
    "version",
    "exported_at",
    "tier_cap",
    "center",
    "depth",
    "nodes",
    "edges",
];

/// The whole export: the header fields kept, nodes and edges mapped one by
/// one; as strict as the document type (unknown and missing fields refused).
struct Doc<'a> {
    header: &'a mut Header,
    m: &'a mut Mapped,
}

impl<'de> DeserializeSeed<'de> for Doc<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_struct("ExportDoc", FIELDS, self)
    }
}

impl<'de> Visitor<'de> for Doc<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Graphex export object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        let mut seen = [false; 8];
        while let Some(key) = map.next_key::<String>()? {
            let Some(at) = FIELDS.iter().position(|f| *f == key) else {
                return Err(de::Error::unknown_field(&key, FIELDS));
            };
            if std::mem::replace(&mut seen[at], true) {
                return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
            }
            match FIELDS[at] {
                "format" => self.header.format = map.next_value()?,
                "version" => self.header.version = map.next_value()?,
                "exported_at" => {
                    let _: String = map.next_value()?;
                }
                "tier_cap" => {
                    let _: Tier = map.next_value()?;
                }
                "center" => {
                    let _: Option<String> = map.next_value()?;
                }
                "depth" => {
                    let _: Option<u32> = map.next_value()?;
                }
                "nodes" => map.next_value_seed(Items { m: self.m, nodes: true })?,
                _ => map.next_value_seed(Items {
                    m: self.m,
                    nodes: false,
                })?,
            }
        }
        for (at, field) in FIELDS.iter().enumerate() {
            if !seen[at] && !matches!(*field, "center" | "depth") {
                return Err(de::Error::missing_field(field));
            }
        }
        Ok(())
    }
}

/// The `nodes` or `edges` array, each item mapped as soon as it is read.
struct Items<'a> {
    m: &'a mut Mapped,
    nodes: bool,
}

impl<'de> DeserializeSeed<'de> for Items<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Items<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        let mut i = 0;
        if self.nodes {
            while let Some(n) = seq.next_element::<ExportNode>()? {
                self.m
                    .nodes
                    .push(node(&n.current, format!("node {i} ({})", n.current.name)));
                i += 1;
            }
        } else {
            while let Some(e) = seq.next_element::<ExportEdge>()? {
                self.m.edges.push(edge(&e, format!("edge {i}")));
                i += 1;
            }
        }
        Ok(())
    }
}
