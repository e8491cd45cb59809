//! What `Ref`, `Fn::GetAtt` and `Fn::ImportValue` resolve to while a stack operation runs
//! ([`Values`]: the physical resources made so far, the region's exports; imports are
//! recorded for ListImports). Implements the template module's `ResourceValues`; planning has
//! its own pure values (`plan::PlanValues`).

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use serde_json::Value;

use crate::ids::Scope;

use super::super::shared::Shared;
use super::super::template::ResourceValues;

/// One resource's Ref and GetAtt values.
#[derive(Clone, Debug, Default)]
struct Known {
    ref_value: Option<Value>,
    attributes: IndexMap<String, Value>,
}

/// Values during execution: resources made so far, and the region's exports (imports are
/// recorded, for ListImports).
pub(crate) struct Values {
    shared: Arc<Shared>,
    scope: Scope,
    known: HashMap<String, Known>,
    imported: Mutex<BTreeSet<String>>,
}

impl Values {
    /// No resources known yet.
    pub(crate) fn new(shared: Arc<Shared>, scope: Scope) -> Values {
        Values {
            shared,
            scope,
            known: HashMap::new(),
            imported: Mutex::new(BTreeSet::new()),
        }
    }

    /// Records a resource's values.
    pub(crate) fn set(
        &mut self,
        logical_id: &str,
        ref_value: Option<Value>,
        attributes: IndexMap<String, Value>,
    ) {
        self.known.insert(
            logical_id.to_string(),
            Known {
                ref_value,
                attributes,
            },
        );
    }

    /// The export names imported so far.
    pub(crate) fn imports(&self) -> Vec<String> {
        self.imported
            .lock()
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default()
    }
}

fn export_value(shared: &Shared, scope: &Scope, name: &str) -> Option<String> {
    let state = shared.lock();
    state
        .region_ref(scope)
        .and_then(|r| r.exports().get(name))
        .map(|e| e.value.clone())
}

impl ResourceValues for Values {
    fn ref_value(&self, logical_id: &str) -> Option<Value> {
        self.known.get(logical_id)?.ref_value.clone()
    }

    fn attribute(&self, logical_id: &str, attribute: &str) -> Option<Value> {
        self.known
            .get(logical_id)?
            .attributes
            .get(attribute)
            .cloned()
    }

    fn import_value(&self, export_name: &str) -> Option<String> {
        let value = export_value(&self.shared, &self.scope, export_name)?;
        if let Ok(mut set) = self.imported.lock() {
            set.insert(export_name.to_string());
        }
        Some(value)
    }
}
