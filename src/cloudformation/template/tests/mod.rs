//! Table tests of the template language, one file per subject: parsing (JSON, YAML tags and
//! scalars, structure, quotas, the corpus), parameters, intrinsics, resolution (conditions,
//! rules, outputs, capabilities, the dependency graph) and `Fn::ForEach`. This file holds the
//! helpers they share: an SSM stub, pseudo parameters, created-resource values, and
//! parse-bind-resolve-evaluate shortcuts.

mod budget;
mod errors;
mod foreach;
mod intrinsics;
mod params;
mod parse;
mod resolve;

use indexmap::IndexMap;
use serde_json::Value;

use super::*;

/// No SSM parameters but those given.
struct Ssm(Vec<(&'static str, &'static str)>);

impl Environment for Ssm {
    fn ssm_parameter(&self, name: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    }
}

fn pseudo() -> Pseudo {
    Pseudo {
        account_id: "000000000000".into(),
        region: "us-east-1".into(),
        stack_name: "s".into(),
        stack_id: "arn:aws:cloudformation:us-east-1:000000000000:stack/s/1".into(),
        notification_arns: vec!["arn:aws:sns:us-east-1:000000000000:t".into()],
    }
}

/// Created resources: Ref is `<id>-phys`, GetAtt is `<id>.<attr>`; exports from a list.
struct Created {
    exports: Vec<(&'static str, &'static str)>,
}

impl ResourceValues for Created {
    fn ref_value(&self, logical_id: &str) -> Option<Value> {
        Some(Value::String(format!("{logical_id}-phys")))
    }
    fn attribute(&self, logical_id: &str, attribute: &str) -> Option<Value> {
        Some(Value::String(format!("{logical_id}.{attribute}")))
    }
    fn import_value(&self, export_name: &str) -> Option<String> {
        self.exports
            .iter()
            .find(|(k, _)| *k == export_name)
            .map(|(_, v)| v.to_string())
    }
}

fn inputs(given: &[(&str, &str)]) -> Vec<ParameterInput> {
    given
        .iter()
        .map(|(k, v)| ParameterInput {
            key: k.to_string(),
            value: Some(v.to_string()),
            use_previous_value: false,
        })
        .collect()
}

/// Parses, binds and resolves `body` with `given` parameters.
fn resolve_with(
    body: &str,
    given: &[(&str, &str)],
) -> Result<(Template, BoundParameters, Resolved), TemplateError> {
    let t = Template::parse(body)?;
    let params = t.bind_parameters(&inputs(given), None, &Ssm(vec![]))?;
    let resolved = t.resolve(&params, &pseudo())?;
    Ok((t, params, resolved))
}

fn error_of(body: &str, given: &[(&str, &str)]) -> String {
    match resolve_with(body, given) {
        Ok(_) => panic!("no error for {body}"),
        Err(e) => e.to_string(),
    }
}

/// Evaluates every resource's properties and every output of `body`.
fn run(body: &str, given: &[(&str, &str)]) -> (IndexMap<String, Value>, IndexMap<String, String>) {
    let (t, params, resolved) = resolve_with(body, given).expect("resolves");
    let pseudo = pseudo();
    let created = Created {
        exports: vec![("shared-queue", "arn:queue")],
    };
    let ev = Evaluator::new(&t, &params, &pseudo, &resolved, &created);
    let props = resolved
        .order
        .iter()
        .map(|id| (id.clone(), ev.resource_properties(id).expect("properties")))
        .collect();
    let outputs = resolved
        .outputs
        .keys()
        .map(|k| (k.clone(), ev.output(k).expect("output").value))
        .collect();
    (props, outputs)
}
