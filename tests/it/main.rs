//! The one integration-test binary: every test drives a real emulator over HTTP with the
//! official AWS SDK for Rust (or the aws CLI), under a manual clock.

mod cfn_fidelity;
mod cfn_providers;
mod cfn_validation;
mod cfn_wire;
mod cli;
mod cloudformation;
mod cloudformation_durability;
mod cloudformation_resources;
mod control;
mod corpus;
mod dispatch;
mod expressions;
mod fixtures;
mod lifecycle_property;
mod process;
mod protocol;
mod restart;
mod rollback_doc;
mod rollback_plan;
mod rollback_property;
mod rollback_recovery;
mod rollback_schedule;
mod rollback_support;
mod s3;
mod scheduler;
mod sns;
mod sqs;
mod ssm;
mod support;
mod tidy;
