//! The store's configuration: `.gpp/config.toml` (plaintext, beside the
//! graph; keep secrets out of it). Graphex reads its own sections and leaves
//! the rest of the file alone.
//!
//! ```toml
//! [graphex.projection]
//! low = 70.0                    # trust below this: public only
//! high = 90.0                   # trust above this: agent-readable too
//! readable_between = false      # trust from low to high: agent-readable too?
//! tokenizer = "bpe"             # or "estimate" (chars / 4)
//! scrub = ["ERR-[0-9]{4}"]      # extra regular expressions to redact
//! count_hidden_relations = false
//! recency_days = 180.0          # a decision's recency bonus falls to 1/e after this
//!
//! [graphex.projection.importance]  # per node type; "*" = types without a built-in value
//! service = 12.0
//!
//! [graphex.projection.decay]    # per relation type: relevance kept per hop, 0 to 1
//! relates-to = 0.5
//!
//! [graphex.audit]
//! previews = "record"           # or "skip": people's previews are not logged
//!
//! [graphex.diff]
//! check = ["tier-lowered", "credential", "mentions-higher"]  # what `graphex diff --check` fails on
//!
//! [graphex.federation]          # see `federation::config`
//! project = "webapp"
//! sources = [{ project = "org", subgraph = "glossary", access = "read-only", path = "...", key = "..." }]
//! publish = [{ subgraph = "order-domain", nodes = ["orders-*"] }]
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::federation::FederationConfig;

/// How tokens are counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Counter {
    /// Exact counts with the o200k BPE vocabulary.
    #[default]
    Bpe,
    /// About four characters per token.
    Estimate,
}

/// `[graphex.projection]`
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProjectionConfig {
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub readable_between: Option<bool>,
    pub tokenizer: Option<Counter>,
    pub scrub: Vec<String>,
    pub count_hidden_relations: bool,
    /// Cortex weights (see `project::weights`). Left out of the canonical
    /// form when unset: settings approved before they existed keep their digest.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub importance: BTreeMap<String, f64>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub decay: BTreeMap<String, f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recency_days: Option<f64>,
}

/// `[graphex.audit]`
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditConfig {
    /// Record people's previews (as `preview`, deduplicated) or skip them.
    pub previews: PreviewPolicy,
}

/// The findings `graphex diff --check` can fail on.
pub const DIFF_FINDINGS: [&str; 3] = ["tier-lowered", "credential", "mentions-higher"];

/// `[graphex.diff]`
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct DiffConfig {
    /// The findings `graphex diff --check` fails on; unset: all of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<Vec<String>>,
}

impl DiffConfig {
    pub fn is_empty(&self) -> bool {
        self.check.is_none()
    }

    /// Whether `--check` fails on a finding with this code.
    pub fn fails_on(&self, code: &str) -> bool {
        self.check.as_ref().is_none_or(|c| c.iter().any(|x| x == code))
    }
}

/// What happens to previews in the audit log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PreviewPolicy {
    #[default]
    Record,
    Skip,
}

/// Everything Graphex reads from `.gpp/config.toml`. Every setting here
/// decides what agents receive or what the audit log keeps, so the one in
/// force is the one the master approved (see [`Config::digest`] and
/// `Store::config`), not whatever the file says now.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub projection: ProjectionConfig,
    pub audit: AuditConfig,
    /// Left out of the canonical form when empty: settings approved before
    /// federation existed keep their digest.
    #[serde(default, skip_serializing_if = "FederationConfig::is_empty")]
    pub federation: FederationConfig,
    /// Left out of the canonical form when unset, likewise.
    #[serde(default, skip_serializing_if = "DiffConfig::is_empty")]
    pub diff: DiffConfig,
}

impl Config {
    /// The settings as canonical JSON: what the master approves.
    pub fn canonical(&self) -> Result<String> {
        serde_json::to_string(self).map_err(|e| Error::invalid("settings", "config", e.to_string()))
    }

    /// Parses settings stored by [`Config::canonical`].
    pub fn from_canonical(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| Error::integrity("the approved settings", format!("malformed ({e})")))
    }

    /// SHA-256 of the canonical form: what the master's seal commits to.
    pub fn digest(&self) -> Result<[u8; 32]> {
        Ok(Sha256::digest(self.canonical()?.as_bytes()).into())
    }

    /// The settings that differ between `self` (approved) and `other` (the
    /// file), as `name: approved -> file` lines.
    pub fn differences(&self, other: &Config) -> Vec<String> {
        let flat = |c: &Config| -> Vec<(String, String)> {
            let v = serde_json::to_value(c).unwrap_or_default();
            let mut out = Vec::new();
            for section in ["projection", "audit", "federation", "diff"] {
                if let Some(map) = v.get(section).and_then(|m| m.as_object()) {
                    for (k, val) in map {
                        out.push((format!("{section}.{k}"), val.to_string()));
                    }
                }
            }
            out
        };
        let (a, b) = (flat(self), flat(other));
        let keys: std::collections::BTreeSet<&String> = a.iter().chain(&b).map(|(k, _)| k).collect();
        let value = |list: &[(String, String)], key: &str| {
            list.iter()
                .find(|(k, _)| k == key)
                .map_or_else(|| "(none)".to_owned(), |(_, v)| v.clone())
        };
        keys.into_iter()
            .filter_map(|k| {
                let (x, y) = (value(&a, k), value(&b, k));
                (x != y).then(|| format!("{k}: {x} -> {y}"))
            })
            .collect()
    }

    /// Reads `.gpp/config.toml` (in the `.gpp` directory `gpp`) as it is on disk; a missing file means
    /// defaults. What is in force is `Store::config`, which checks this
    /// against the master's approval.
    pub fn load(gpp: &std::path::Path) -> Result<Self> {
        let path = gpp.join("config.toml");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(Error::io(path, e)),
        };
        Self::parse(&path.display().to_string(), &text)
    }

    /// Parses the text of a configuration file; `origin` names it in errors.
    pub fn parse(origin: &str, text: &str) -> Result<Self> {
        let bad = |reason: String| Error::Document {
            path: origin.to_owned(),
            reason,
        };
        let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| bad(e.to_string()))?;
        let section = |name: &str| doc.get("graphex").and_then(|g| g.get(name)).cloned();
        let projection = match section("projection") {
            None => ProjectionConfig::default(),
            Some(v) => v
                .try_into()
                .map_err(|e: toml::de::Error| bad(format!("[graphex.projection]: {e}")))?,
        };
        let audit = match section("audit") {
            None => AuditConfig::default(),
            Some(v) => v
                .try_into()
                .map_err(|e: toml::de::Error| bad(format!("[graphex.audit]: {e}")))?,
        };
        let federation: FederationConfig = match section("federation") {
            None => FederationConfig::default(),
            Some(v) => v
                .try_into()
                .map_err(|e: toml::de::Error| bad(format!("[graphex.federation]: {e}")))?,
        };
        federation
            .validate()
            .map_err(|e| bad(format!("[graphex.federation]: {e}")))?;
        let diff: DiffConfig = match section("diff") {
            None => DiffConfig::default(),
            Some(v) => v
                .try_into()
                .map_err(|e: toml::de::Error| bad(format!("[graphex.diff]: {e}")))?,
        };
        if let Some(unknown) = diff
            .check
            .iter()
            .flatten()
            .find(|c| !DIFF_FINDINGS.contains(&c.as_str()))
        {
            return Err(bad(format!(
                "[graphex.diff]: check names {unknown:?}; the findings are {}",
                DIFF_FINDINGS.join(", ")
            )));
        }
        Ok(Self {
            projection,
            audit,
            federation,
            diff,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_its_section_and_ignores_others() {
        let c = Config::parse(
            "config.toml",
            "[graphex.federation]\nsources = []\n[graphex.projection]\nhigh = 80.0\nscrub = [\"x+\"]\ntokenizer = \"estimate\"\n",
        )
        .unwrap();
        let s = c.projection_settings().unwrap();
        assert_eq!(
            (s.policy.high, s.policy.low, s.counter),
            (80.0, 70.0, Counter::Estimate)
        );
        let typo = Config::parse("config.toml", "[graphex.projection]\nhihg = 80.0\n").unwrap_err();
        assert!(typo.to_string().contains("unknown field `hihg`"), "{typo}");
        let order = Config::parse("c", "[graphex.projection]\nlow = 95.0\n")
            .unwrap()
            .projection_settings();
        assert!(order.unwrap_err().to_string().contains("low must not exceed high"));
        assert!(Config::parse("c", "not toml [").is_err());
        assert!(Config::parse("c", "").unwrap().projection.scrub.is_empty());
        let diff = Config::parse("c", "[graphex.diff]\ncheck = [\"credential\"]\n").unwrap();
        assert!(diff.diff.fails_on("credential") && !diff.diff.fails_on("tier-lowered"));
        assert!(Config::default().diff.fails_on("tier-lowered"), "unset: every finding");
        let e = Config::parse("c", "[graphex.diff]\ncheck = [\"tier-raised\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("tier-raised") && e.contains("tier-lowered, credential"),
            "{e}"
        );
        assert!(
            !Config::default().canonical().unwrap().contains("diff"),
            "settings approved before [graphex.diff] keep their digest"
        );
        assert!(
            diff.canonical().unwrap().contains("credential"),
            "a check set is approved with the rest"
        );
        let skip = Config::parse("c", "[graphex.audit]\npreviews = \"skip\"\n").unwrap();
        assert_eq!(skip.audit.previews, PreviewPolicy::Skip);
        assert!(Config::parse("c", "[graphex.audit]\npreviews = \"never\"\n").is_err());
    }
}
