//! What `Ref`, `Fn::GetAtt` and `Fn::ImportValue` resolve to while a stack operation runs
//! ([`Values`]: the physical resources made so far, the region's exports) and while a change
//! set is planned ([`PlanValues`]: current values, with AWS's `{{changeSet:KNOWN_AFTER_APPLY}}`
//! for values an update will change). Implements the template module's `ResourceValues`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use serde_json::Value;

use crate::ids::Scope;

use super::super::model::ResourceRecord;
use super::super::template::ResourceValues;
use super::super::Shared;

/// The value AWS shows for what is only known once a change set is applied.
pub const KNOWN_AFTER_APPLY: &str = "{{changeSet:KNOWN_AFTER_APPLY}}";

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
        .and_then(|r| r.exports.get(name))
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

/// Values while planning an update: the stack's current resources, except that the Ref of a
/// resource being added or replaced, and the attributes of one being added, replaced or
/// moved, are [`KNOWN_AFTER_APPLY`]; exports are a snapshot of the region's. Pure data, so
/// planning is a pure function.
pub(crate) struct PlanValues<'a> {
    current: &'a IndexMap<String, ResourceRecord>,
    exports: HashMap<String, String>,
    /// Logical ids whose Ref is unknown until applied.
    pub unknown_ref: HashSet<String>,
    /// Logical ids whose attributes are unknown until applied.
    pub unknown_attributes: HashSet<String>,
}

impl<'a> PlanValues<'a> {
    /// Values from `current`, importing from `exports` (name → value).
    pub(crate) fn new(
        current: &'a IndexMap<String, ResourceRecord>,
        exports: HashMap<String, String>,
    ) -> PlanValues<'a> {
        PlanValues {
            current,
            exports,
            unknown_ref: HashSet::new(),
            unknown_attributes: HashSet::new(),
        }
    }
}

impl ResourceValues for PlanValues<'_> {
    fn ref_value(&self, logical_id: &str) -> Option<Value> {
        if self.unknown_ref.contains(logical_id) {
            return Some(Value::String(KNOWN_AFTER_APPLY.into()));
        }
        match self.current.get(logical_id) {
            Some(r) if r.exists => r.ref_value.clone(),
            _ => Some(Value::String(KNOWN_AFTER_APPLY.into())),
        }
    }

    fn attribute(&self, logical_id: &str, attribute: &str) -> Option<Value> {
        if self.unknown_attributes.contains(logical_id) {
            return Some(Value::String(KNOWN_AFTER_APPLY.into()));
        }
        match self.current.get(logical_id) {
            Some(r) if r.exists => r
                .attributes
                .get(attribute)
                .cloned()
                .or_else(|| Some(Value::String(KNOWN_AFTER_APPLY.into()))),
            _ => Some(Value::String(KNOWN_AFTER_APPLY.into())),
        }
    }

    fn import_value(&self, export_name: &str) -> Option<String> {
        self.exports.get(export_name).cloned()
    }
}
