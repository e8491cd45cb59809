//! AWS's template quotas and Cumulo's evaluation budget: the numbers every part of the template
//! language checks against. Plain constants; no logic.

/// Resources per template (CloudFormation quotas).
pub const MAX_RESOURCES: usize = 500;
/// Parameters per template.
pub const MAX_PARAMETERS: usize = 200;
/// Outputs per template.
pub const MAX_OUTPUTS: usize = 200;
/// Mappings per template.
pub const MAX_MAPPINGS: usize = 200;
/// Deepest nesting of intrinsic functions evaluated (Cumulo's cap; AWS documents none).
pub const MAX_DEPTH: usize = 100;
/// Evaluation steps allowed per evaluation (minijinja-style fuel).
pub const FUEL: u64 = 2_000_000;
/// Most elements `Fn::ForEach` may produce in one template.
pub const MAX_EXPANSION: usize = 10_000;
/// Largest parameter value, in bytes (CloudFormation quotas, "Parameter value: Maximum size of a
/// parameter value: 4,096 bytes"). Given values and defaults alike.
pub const MAX_PARAMETER_VALUE_BYTES: usize = 4_096;
/// Largest template `Description`, in bytes (CloudFormation quotas, "Template description:
/// 1,024 bytes").
pub const MAX_DESCRIPTION_BYTES: usize = 1_024;
/// Largest template CloudFormation processes, in bytes: the quota on a template body read from
/// S3 ("Template body size in an Amazon S3 object: 1 MB"; `cloudformation::source` reads it as
/// cfn-lint does, 1,000,000 bytes). The user guide applies it to the processed template too
/// ("Fn::ForEach ... does not change the quotas, which apply to the resultant template";
/// "Troubleshoot the processed template": 1 MB), so it bounds `Fn::ForEach`'s expansion,
/// measured as the expanded sections' compact JSON.
pub const MAX_TEMPLATE_BYTES: usize = 1_000_000;
/// Largest value one intrinsic function may produce, in bytes (a string's length, a list's or
/// map's compact JSON). Cumulo's limit (AWS documents none): no value can be larger than the
/// largest template AWS processes, [`MAX_TEMPLATE_BYTES`].
pub const MAX_VALUE_BYTES: usize = MAX_TEMPLATE_BYTES;
/// Most bytes one evaluation may produce, every intermediate value counted (each JSON node
/// counts [`NODE_BYTES`] besides its text, so the count follows memory, not only text). One
/// evaluation is a `Template::parse` (the static `Fn::ForEach` expansion), a `Template::resolve`
/// (rules, conditions, `Fn::ForEach`, the static evaluation of every resource and output), or
/// one resource's properties or one output at execution. Cumulo's limit: a template of the
/// largest size AWS accepts evaluates in a fraction of it.
pub const EVALUATION_BYTES: u64 = 32 * 1024 * 1024;
/// Most bytes the execution-time evaluations of one stack operation may produce in all (the
/// values the engine keeps: every resource's properties and every output), counted like
/// [`EVALUATION_BYTES`]. Cumulo's limit.
pub const OPERATION_BYTES: u64 = 64 * 1024 * 1024;
/// What each JSON node (string, number, list, map entry, ...) counts besides its text in
/// [`EVALUATION_BYTES`] and [`OPERATION_BYTES`]: about the memory of one `serde_json::Value`.
pub const NODE_BYTES: u64 = 32;
