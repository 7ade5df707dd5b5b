//! A node's properties (and its summary's). A node has a few, so they are a vector kept
//! sorted by key rather than a tree: a `BTreeMap` allocates a whole node of
//! eleven slots for its first entry, about half a kilobyte for every summary
//! a session holds. Order, equality, `Debug` and the serialized form are a
//! sorted map's.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Keys and values, sorted by key, each key once. A boxed slice, not a
/// vector: two words in every summary instead of three (a summary then fits
/// a smaller allocation), and no spare capacity.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Properties(Box<[(String, String)]>);

/// What iterating borrowed properties yields, as a map's iterator does.
pub type Iter<'a> =
    std::iter::Map<std::slice::Iter<'a, (String, String)>, fn(&'a (String, String)) -> (&'a String, &'a String)>;

fn pair(p: &(String, String)) -> (&String, &String) {
    (&p.0, &p.1)
}

impl Properties {
    pub fn new() -> Self {
        Self::default()
    }

    /// Changes the pairs as a vector (properties change rarely, and a node
    /// has few).
    fn edit<R>(&mut self, change: impl FnOnce(&mut Vec<(String, String)>) -> R) -> R {
        let mut pairs = std::mem::take(&mut self.0).into_vec();
        let out = change(&mut pairs);
        self.0 = pairs.into_boxed_slice();
        out
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&String> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Sets `key`; returns the value it replaced.
    pub fn insert(&mut self, key: String, value: String) -> Option<String> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                self.edit(|pairs| pairs.insert(i, (key, value)));
                None
            }
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<String> {
        let i = self.find(key).ok()?;
        Some(self.edit(|pairs| pairs.remove(i).1))
    }

    pub fn iter(&self) -> Iter<'_> {
        self.0.iter().map(pair as fn(&(String, String)) -> (&String, &String))
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The properties as a sorted map.
    pub fn to_map(&self) -> BTreeMap<String, String> {
        self.0.iter().cloned().collect()
    }
}

impl<'a> IntoIterator for &'a Properties {
    type Item = (&'a String, &'a String);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl FromIterator<(String, String)> for Properties {
    /// Later pairs win over earlier ones with the same key, as in a map.
    fn from_iter<I: IntoIterator<Item = (String, String)>>(pairs: I) -> Self {
        let mut pairs: Vec<(String, String)> = pairs.into_iter().collect();
        // Reversed, then sorted stably: the last pair of a key comes first
        // among its equals, and is the one kept.
        pairs.reverse();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        pairs.dedup_by(|later, kept| later.0 == kept.0);
        Properties(pairs.into_boxed_slice())
    }
}

impl From<BTreeMap<String, String>> for Properties {
    fn from(map: BTreeMap<String, String>) -> Self {
        // Already sorted and unique.
        Properties(map.into_iter().collect())
    }
}

impl Extend<(String, String)> for Properties {
    /// Later pairs win over earlier ones and over those already there.
    fn extend<I: IntoIterator<Item = (String, String)>>(&mut self, pairs: I) {
        let mut all = std::mem::take(&mut self.0).into_vec();
        all.extend(pairs);
        *self = all.into_iter().collect();
    }
}

impl std::ops::Index<&str> for Properties {
    type Output = String;

    /// The value of `key`; panics when there is none, as a map's index does.
    fn index(&self, key: &str) -> &String {
        self.get(key).unwrap_or_else(|| panic!("no property {key:?}"))
    }
}

impl From<&BTreeMap<String, String>> for Properties {
    fn from(map: &BTreeMap<String, String>) -> Self {
        // Already sorted and unique.
        Properties(map.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
    }
}

impl std::fmt::Debug for Properties {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Properties {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Properties {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        BTreeMap::<String, String>::deserialize(d).map(|m| Properties::from(&m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_behaves_as_a_sorted_map() {
        let pairs = [("b", "2"), ("a", "1"), ("c", "3"), ("a", "again")];
        let props: Properties = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let map: BTreeMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert_eq!(props.to_map(), map);
        assert_eq!(format!("{props:?}"), format!("{map:?}"));
        assert_eq!(
            serde_json::to_string(&props).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        let back: Properties = serde_json::from_str(&serde_json::to_string(&map).unwrap()).unwrap();
        assert_eq!(back, props);
        let mut p = props.clone();
        assert_eq!(p.insert("b".into(), "two".into()), Some("2".into()));
        assert_eq!(p.remove("a"), Some("again".into()));
        assert_eq!(p.get("b").map(String::as_str), Some("two"));
        assert!(!p.contains_key("a") && p.len() == 2);
        assert_eq!(p.keys().map(String::as_str).collect::<Vec<_>>(), ["b", "c"]);
        // Extended as a map is: later pairs win, over those already there too.
        let mut m = map.clone();
        let more = [("c", "three"), ("d", "4"), ("d", "four")].map(|(k, v)| (k.to_string(), v.to_string()));
        m.extend(more.clone());
        let mut q = props.clone();
        q.extend(more);
        assert_eq!(q.to_map(), m);
        assert_eq!(q["d"], "four");
        assert_eq!(Properties::from(m.clone()), q);
    }

    /// A node's properties cost what they hold: one pair is one small
    /// allocation, not a tree node of eleven slots.
    #[test]
    fn one_pair_takes_one_small_allocation() {
        let one: Properties = [("owner".to_string(), "orders-team".to_string())].into_iter().collect();
        assert_eq!(std::mem::size_of_val(&one), 16);
        assert_eq!(one.0.len(), 1);
    }
}
