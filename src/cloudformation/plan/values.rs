//! What `Ref`, `Fn::GetAtt` and `Fn::ImportValue` resolve to while a change set is planned:
//! the stack's current values, with AWS's `{{changeSet:KNOWN_AFTER_APPLY}}` for values an
//! update will change. Pure data (a snapshot of the resources and exports), so planning stays a
//! pure function; execution has its own values (`engine::Values`).

use std::collections::{HashMap, HashSet};

use indexmap::IndexMap;
use serde_json::Value;

use super::super::id::LogicalId;
use super::super::store::ResourceRecord;
use super::super::template::ResourceValues;

/// The value AWS shows for what is only known once a change set is applied.
pub const KNOWN_AFTER_APPLY: &str = "{{changeSet:KNOWN_AFTER_APPLY}}";

/// Values while planning an update: the stack's current resources, except that the Ref of a
/// resource being added or replaced, and the attributes of one being added, replaced or
/// moved, are [`KNOWN_AFTER_APPLY`]; exports are a snapshot of the region's. Pure data, so
/// planning is a pure function.
pub struct PlanValues<'a> {
    current: &'a IndexMap<LogicalId, ResourceRecord>,
    exports: HashMap<String, String>,
    /// Logical ids whose Ref is unknown until applied.
    pub unknown_ref: HashSet<String>,
    /// Logical ids whose attributes are unknown until applied.
    pub unknown_attributes: HashSet<String>,
}

impl<'a> PlanValues<'a> {
    /// Values from `current`, importing from `exports` (name → value).
    pub fn new(
        current: &'a IndexMap<LogicalId, ResourceRecord>,
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
