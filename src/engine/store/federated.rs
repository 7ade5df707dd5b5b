//! Nodes pulled from another project: read-only here. The store refuses
//! any write to them, and the property that marks them, anywhere but in a
//! pull (which `federation::apply` writes).

use super::Store;
use crate::error::{Error, Result};
use crate::model::{FEDERATED_FROM, federated_origin as origin};

impl Store {
    /// The source (`project/subgraph`) the node `name` was pulled from.
    pub fn federated_origin(&self, name: &str) -> Option<String> {
        self.catalog.by_name(name).and_then(origin).map(str::to_owned)
    }

    /// [`Error::Federated`] when `name` is a pulled node.
    pub(crate) fn refuse_federated(&self, name: &str) -> Result<()> {
        match self.federated_origin(name) {
            Some(origin) => Err(Error::Federated {
                name: name.to_owned(),
                origin,
            }),
            None => Ok(()),
        }
    }

    /// Refuses the property only a pull sets.
    pub(crate) fn refuse_reserved<'a>(keys: impl IntoIterator<Item = &'a String>) -> Result<()> {
        if keys.into_iter().any(|k| k == FEDERATED_FROM) {
            return Err(Error::invalid(
                "property",
                FEDERATED_FROM,
                "reserved: only `graphex federation pull` marks a node as federated",
            ));
        }
        Ok(())
    }
}
