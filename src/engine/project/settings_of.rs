//! The projection settings a configuration makes (`[graphex.projection]`,
//! compiled): here, above `config`, which holds only what the file says.

use super::{Scrubber, Settings, TrustPolicy, Weights};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::store::Catalog;

impl Config {
    /// Projection settings, with the scrub patterns compiled and the Cortex
    /// weights checked.
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
            weights: Weights::new(&p.importance, &p.decay, p.recency_days)?,
        })
    }

    /// [`Config::projection_settings`], as approving checks them: also
    /// refuses a Cortex weight whose key names no node type or relation of
    /// graph `c` ([`Weights::check_keys`]). CPU: a pass over the catalog
    /// for each key that is not built in.
    pub fn settings_to_approve(&self, c: &Catalog) -> Result<Settings> {
        let settings = self.projection_settings()?;
        Weights::check_keys(&self.projection.importance, &self.projection.decay, c)?;
        Ok(settings)
    }
}
