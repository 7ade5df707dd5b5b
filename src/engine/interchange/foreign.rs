//! Foreign items mapped by the rules in the module documentation: names,
//! types, relations, text and properties of one node or edge object, as
//! NetworkX node-link JSON (kgraph's `graph.json` is one), kgraph's
//! extractor JSON and Ash's JSONL collections hold them (`node_link`, `ash`
//! read those).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{ImportEdge, ImportNode};
use crate::model::{
    MAX_DESCRIPTION, MAX_NAME_LEN, MAX_PROPERTY_KEY, MAX_PROPERTY_VALUE, Name, NodeType, Relation, validate_confidence,
};

/// Our name for a foreign one (see the module rules), or why there is none.
pub fn normalise_name(raw: &str) -> std::result::Result<Name, String> {
    let mut out = String::with_capacity(raw.len());
    let mut dash = false;
    for c in raw.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '_' || c == '-' {
            out.push(c);
            dash = c == '-';
        } else if !dash {
            out.push('-');
            dash = true;
        }
    }
    let trimmed = out.trim_matches('-');
    if trimmed.is_empty() {
        return Err(format!("the name {raw:?} has no letter or digit to keep"));
    }
    if trimmed.len() > MAX_NAME_LEN {
        return Err(format!(
            "the name {:?}… is {} characters once normalised; at most {MAX_NAME_LEN}",
            raw.chars().take(40).collect::<String>(),
            trimmed.len()
        ));
    }
    Name::new(trimmed).map_err(|e| e.to_string())
}

/// Our node type for a foreign one: CamelCase split, lowercased, `_` and
/// spaces to `-`.
pub fn normalise_type(raw: &str) -> std::result::Result<NodeType, String> {
    let chars: Vec<char> = raw.trim().chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        if c.is_ascii_uppercase()
            && let Some(p) = prev
        {
            let word_start = p.is_ascii_lowercase()
                || p.is_ascii_digit()
                || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()));
            if word_start && !out.ends_with('-') {
                out.push('-');
            }
        }
        match c {
            '_' | ' ' | '-' | '.' | '/' => {
                if !out.ends_with('-') {
                    out.push('-');
                }
            }
            c => out.extend(c.to_lowercase()),
        }
    }
    NodeType::new(out.trim_matches('-')).map_err(|e| e.to_string())
}

/// Our relation for a foreign one: lowercased, `_` and spaces to `-`.
pub fn normalise_relation(raw: &str) -> std::result::Result<Relation, String> {
    let text: String = raw
        .trim()
        .chars()
        .map(|c| {
            if c == '_' || c == ' ' {
                '-'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    Relation::new(&text).map_err(|e| e.to_string())
}

/// A JSON value as the key a foreign edge uses to name a node.
pub(super) fn key_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn str_field<'a>(o: &'a Map<String, Value>, keys: &[&str]) -> Option<(&'static str, &'a str)> {
    const ALL: [&str; 12] = [
        "description",
        "content",
        "label",
        "title",
        "type",
        "node_type",
        "relation",
        "edge_type",
        "name",
        "body",
        "kind",
        "text",
    ];
    keys.iter().find_map(|k| {
        let s = o.get(*k)?.as_str()?;
        ALL.iter().find(|a| *a == k).map(|a| (*a, s))
    })
}

/// The fields of a foreign object left after the mapped ones, as properties.
fn properties(
    o: &Map<String, Value>,
    used: &[&str],
    into: &mut BTreeMap<String, String>,
) -> std::result::Result<(), String> {
    for (k, v) in o {
        if used.contains(&k.as_str()) {
            continue;
        }
        if k == "properties"
            && let Value::Object(inner) = v
        {
            properties(inner, &[], into)?;
            continue;
        }
        let text = match v {
            Value::Null => continue,
            Value::String(s) => s.clone(),
            Value::Bool(_) | Value::Number(_) => v.to_string(),
            Value::Array(_) | Value::Object(_) => v.to_string(),
        };
        let key: String = k
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .take(MAX_PROPERTY_KEY)
            .collect();
        if key.is_empty() {
            continue;
        }
        if text.len() > MAX_PROPERTY_VALUE {
            return Err(format!(
                "the field {k:?} holds {} bytes; a property holds at most {MAX_PROPERTY_VALUE}",
                text.len()
            ));
        }
        into.insert(key, text);
    }
    if into.len() > crate::model::MAX_PROPERTIES {
        return Err(format!(
            "{} fields to keep as properties; at most {}",
            into.len(),
            crate::model::MAX_PROPERTIES
        ));
    }
    Ok(())
}

/// Description and body from a foreign text: a text over the description's
/// limit keeps its first line (cut) and goes whole into the body.
fn text_fields(text: &str) -> (String, Option<String>) {
    if text.len() <= MAX_DESCRIPTION {
        return (text.to_owned(), None);
    }
    let first = text.lines().next().unwrap_or_default();
    let mut short: String = first.chars().take(200).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    (short, Some(text.to_owned()))
}

/// One foreign node object mapped, given its key and default type.
pub(super) fn node(
    o: &Map<String, Value>,
    item: String,
    key: &str,
    name: Name,
    default_type: &str,
) -> std::result::Result<ImportNode, String> {
    let (type_key, raw_type) = str_field(o, &["type", "node_type", "kind"]).unwrap_or(("type", default_type));
    let node_type = normalise_type(raw_type)?;
    let text = str_field(o, &["description", "content", "label", "title", "text", "name"]);
    let (description, mut body) = text_fields(text.map_or(key, |(_, s)| s));
    if let Some(b) = o.get("body").and_then(Value::as_str) {
        body = Some(b.to_owned());
    }
    let confidence = match o.get("confidence") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let c = v.as_f64().ok_or("confidence is not a number")?;
            validate_confidence(c).map_err(|e| e.to_string())?;
            Some(c)
        }
    };
    let mut used = vec!["id", "body", "confidence", type_key];
    if let Some((k, _)) = text {
        used.push(k);
    }
    let mut props = BTreeMap::new();
    properties(o, &used, &mut props)?;
    if name.as_str() != key && !props.contains_key("import.name") {
        props.insert("import.name".into(), key.chars().take(MAX_PROPERTY_VALUE / 4).collect());
    }
    Ok(ImportNode {
        item,
        name,
        node_type,
        description,
        body,
        properties: props,
        tier: None,
        status: None,
        status_reason: None,
        confidence,
        provenance: None,
        created: None,
        updated: None,
    })
}

pub(super) fn edge_fields(
    o: &Map<String, Value>,
    item: String,
    from: Name,
    to: Name,
) -> std::result::Result<ImportEdge, String> {
    let relation = match str_field(o, &["relation", "edge_type", "type", "label"]) {
        Some((_, r)) => normalise_relation(r)?,
        None => Relation::new("related-to").map_err(|e| e.to_string())?,
    };
    let number = |k: &str| -> std::result::Result<Option<f64>, String> {
        match o.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v.as_f64().map(Some).ok_or_else(|| format!("{k} is not a number")),
        }
    };
    let weight = number("weight")?;
    if let Some(w) = weight
        && crate::model::validate_weight(w).is_err()
    {
        return Err(format!("weight {w} is not a number from 0 to 1"));
    }
    let confidence = number("confidence")?;
    if let Some(c) = confidence {
        validate_confidence(c).map_err(|e| e.to_string())?;
    }
    Ok(ImportEdge {
        item,
        from,
        relation,
        to,
        tier: None,
        confidence,
        weight,
        bidirectional: o.get("bidirectional").and_then(Value::as_bool).unwrap_or(false),
        provenance: None,
        created: None,
    })
}
