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
