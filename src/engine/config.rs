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
//!
//! [graphex.audit]
//! previews = "record"           # or "skip": people's previews are not logged
//! ```

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::project::{Counter, Scrubber, Settings, TrustPolicy};
use crate::store::Layout;

/// `[graphex.projection]`
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProjectionConfig {
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub readable_between: Option<bool>,
    pub tokenizer: Option<Counter>,
    pub scrub: Vec<String>,
    pub count_hidden_relations: bool,
}

/// `[graphex.audit]`
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditConfig {
    /// Record people's previews (as `preview`, deduplicated) or skip them.
    pub previews: PreviewPolicy,
}

/// What happens to previews in the audit log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PreviewPolicy {
    #[default]
    Record,
    Skip,
}

/// Everything Graphex reads from `.gpp/config.toml`.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub projection: ProjectionConfig,
    pub audit: AuditConfig,
}

impl Config {
    /// Reads `.gpp/config.toml`; a missing file means defaults.
    pub fn load(layout: &Layout) -> Result<Self> {
        let path = layout.gpp().join("config.toml");
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
        Ok(Self { projection, audit })
    }

    /// Projection settings, with the scrub patterns compiled.
    pub fn projection_settings(&self) -> Result<Settings> {
        let p = &self.projection;
        let d = TrustPolicy::default();
        let policy = TrustPolicy {
            low: p.low.unwrap_or(d.low),
            high: p.high.unwrap_or(d.high),
            readable_between: p.readable_between.unwrap_or(d.readable_between),
        };
        if !policy.low.is_finite() || !policy.high.is_finite() || policy.low > policy.high {
            return Err(Error::invalid(
                "trust thresholds",
                format!("{} > {}", policy.low, policy.high),
                "low must not exceed high",
            ));
        }
        Ok(Settings {
            policy,
            counter: p.tokenizer.unwrap_or_default(),
            scrubber: Scrubber::new(&p.scrub)?,
            count_hidden_relations: p.count_hidden_relations,
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
        let skip = Config::parse("c", "[graphex.audit]\npreviews = \"skip\"\n").unwrap();
        assert_eq!(skip.audit.previews, PreviewPolicy::Skip);
        assert!(Config::parse("c", "[graphex.audit]\npreviews = \"never\"\n").is_err());
    }
}
