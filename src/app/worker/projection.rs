//! The worker's share of the Projection pane: every tier's preview of a
//! subject, on the current graph, each distinct text recorded once.

use super::{Reply, Worker};
use crate::app::panes::projection::work::{self, Spec};

impl Worker {
    pub(super) fn preview(&mut self, generation: u64, spec: &Spec) {
        let settings = self.settings.clone();
        let mut recorded = std::mem::take(&mut self.recorded);
        let range = self.range.take();
        let result = match (self.current(), settings) {
            (Err(e), _) => Err(e.to_string()),
            (Ok(_), None) => Err("no preview: the settings in force have an error".to_owned()),
            (Ok(store), Some(settings)) => match store.config() {
                Ok(config) => {
                    let base = range.as_ref().map(|r| r.store.catalog());
                    work::preview(store, &config.config, &settings, spec, &mut recorded, base)
                }
                Err(e) => Err(e.to_string()),
            },
        };
        self.recorded = recorded;
        self.range = range;
        self.send(Reply::Previewed {
            generation,
            result: Box::new(result),
        });
    }
}
