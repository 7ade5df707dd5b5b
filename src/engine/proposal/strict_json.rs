//! A pre-pass over JSON input that serde's derive does not do: duplicate
//! object keys and excessive nesting are errors, not "last one wins".

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::error::{Error, Result};

/// How deeply objects and arrays may nest.
pub const MAX_DEPTH: usize = 16;

/// Fails on a duplicate key, nesting deeper than [`MAX_DEPTH`] or invalid JSON.
pub fn check(bytes: &[u8]) -> Result<()> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    Strict(0)
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .map_err(|e| Error::Document {
            path: "proposal".into(),
            reason: e.to_string(),
        })
}

struct Strict(usize);

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        if self.0 > MAX_DEPTH {
            return Err(de::Error::custom(format!("nested deeper than {MAX_DEPTH} levels")));
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        while seq.next_element_seed(Strict(self.0 + 1))?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        let mut keys = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !keys.insert(key.clone()) {
                return Err(de::Error::custom(format!("duplicate key {key:?}")));
            }
            map.next_value_seed(Strict(self.0 + 1))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_and_depth_are_refused() {
        assert!(check(br#"{"a": [1, {"b": null}], "c": "x"}"#).is_ok());
        let dup = check(br#"{"a": 1, "b": {"k": 1, "k": 2}}"#).unwrap_err().to_string();
        assert!(dup.contains("duplicate key \"k\""), "{dup}");
        let deep = format!("{}{}", "[".repeat(40), "]".repeat(40));
        assert!(
            check(deep.as_bytes())
                .unwrap_err()
                .to_string()
                .contains("nested deeper")
        );
        assert!(check(b"{} trailing").is_err());
    }
}
