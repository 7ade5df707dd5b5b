//! Ash's JSONL collections, read a line at a time: one object per line; a
//! line with `edge_type`, `source_id` and `target_id` is an edge, any other
//! a node of its file's collection (or its own `node_type`). Node names are
//! `TYPE-NAME` (or `TYPE-ID` when it has no name), so that a person and a
//! user of one name stay apart. Edges wait for every node (they name nodes
//! by id), keeping only the fields an edge maps.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::foreign::{edge_fields, key_text, node, normalise_name};
use super::lines::each_line;
use super::{Input, Mapped};
use crate::error::Result;
use crate::model::Name;

/// The fields of an edge line that mapping reads; the rest is dropped as
/// soon as the line is parsed.
const EDGE_FIELDS: [&str; 11] = [
    "source_id",
    "target_id",
    "source_type",
    "target_type",
    "relation",
    "edge_type",
    "type",
    "label",
    "weight",
    "confidence",
    "bidirectional",
];

/// The node type an Ash collection file holds (`people.jsonl` → `person`).
fn collection_type(file: &str) -> String {
    let stem = std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match stem.as_str() {
        "people" => "person".into(),
        "memories" => "memory".into(),
        s => s.strip_suffix('s').unwrap_or(s).to_owned(),
    }
}

/// Reads every input's lines into `m`.
pub(super) fn read(inputs: &mut [Input<'_>], m: &mut Mapped) -> Result<()> {
    let mut by_id: HashMap<String, Name> = HashMap::new();
    let mut edges: Vec<(usize, String, Map<String, Value>)> = Vec::new();
    for (index, input) in inputs.iter_mut().enumerate() {
        let file = input.file;
        let collection = collection_type(file);
        each_line(input.read, file, 1, m, |m, item, line| {
            let o = match serde_json::from_slice::<Value>(line) {
                Ok(Value::Object(o)) => o,
                Ok(_) => {
                    m.refuse(file, item, "not a JSON object");
                    return;
                }
                Err(e) => {
                    m.refuse(file, item, format!("not valid JSON: {e}"));
                    return;
                }
            };
            if o.contains_key("edge_type") && o.contains_key("source_id") && o.contains_key("target_id") {
                let mut o = o;
                o.retain(|k, _| EDGE_FIELDS.contains(&k.as_str()));
                edges.push((index, item, o));
                return;
            }
            node_line(file, &collection, item, o, m, &mut by_id);
        })?;
    }
    for (index, item, o) in edges {
        let file = inputs[index].file;
        let end = |id_key: &str, type_key: &str| -> std::result::Result<Name, String> {
            let id = o
                .get(id_key)
                .and_then(key_text)
                .ok_or_else(|| format!("no \"{id_key}\""))?;
            if let Some(n) = by_id.get(&id) {
                return Ok(n.clone());
            }
            // Not in this import: the node an earlier import made, if any.
            let ty = o.get(type_key).and_then(Value::as_str).ok_or_else(|| {
                format!("{id_key} {id:?} is not a node of this import and there is no {type_key} to find it by")
            })?;
            normalise_name(&format!("{ty}-{id}"))
        };
        let r = end("source_id", "source_type").and_then(|f| end("target_id", "target_type").map(|t| (f, t)));
        match r.and_then(|(f, t)| edge_fields(&o, item.clone(), f, t)) {
            Ok(e) => m.edges.push(e),
            Err(e) => m.refuse(file, item, e),
        }
    }
    Ok(())
}

/// A node line mapped: named `TYPE-NAME` (or `TYPE-ID`), its id kept.
fn node_line(
    file: &str,
    collection: &str,
    item: String,
    mut o: Map<String, Value>,
    m: &mut Mapped,
    by_id: &mut HashMap<String, Name>,
) {
    let Some(id) = o.get("id").and_then(key_text) else {
        m.refuse(file, item, "no \"id\"");
        return;
    };
    let ty = o
        .get("node_type")
        .and_then(Value::as_str)
        .unwrap_or(collection)
        .to_owned();
    let label = o.get("name").and_then(Value::as_str).unwrap_or(&id);
    let name = match normalise_name(&format!("{ty}-{label}")) {
        Ok(n) => n,
        Err(e) => {
            m.refuse(file, item, e);
            return;
        }
    };
    o.insert("node_type".into(), Value::String(ty.clone()));
    o.insert("import.id".into(), Value::String(id.clone()));
    match node(&o, format!("{item} ({id})"), name.as_str(), name.clone(), &ty) {
        Ok(n) => {
            by_id.insert(id, name);
            m.nodes.push(n);
        }
        Err(e) => m.refuse(file, format!("{item} ({id})"), e),
    }
}
