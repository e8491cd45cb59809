//! Per-service wire modules: decode an operation's input, call one core operation, encode
//! its output or error. Each exposes `handle(&App, AwsRequest) -> Response` and has the shape of
//! `scheduler.rs`: a `route()` that turns the request into an `Operation` enum, one decode and
//! one encode per operation, and the `From<core::Error> for WireError`.

/// Declares a service's `Operation` enum (one variant per served AWS operation, named exactly
/// as AWS names it) with `Operation::from_name` and `Operation::name`.
macro_rules! operations {
    ($(#[$meta:meta])* $($op:ident),+ $(,)?) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Operation {
            $(
                #[doc = concat!("`", stringify!($op), "`.")]
                $op,
            )+
        }

        impl Operation {
            /// The operation AWS calls `name`, if this service serves it.
            pub(crate) fn from_name(name: &str) -> Option<Operation> {
                match name {
                    $(stringify!($op) => Some(Operation::$op),)+
                    _ => None,
                }
            }

            /// AWS's name of the operation.
            #[allow(dead_code)]
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(Operation::$op => stringify!($op),)+
                }
            }
        }
    };
}
pub(crate) use operations;

pub mod cloudformation;
pub mod s3;
pub mod scheduler;
pub mod sns;
pub mod sqs;
pub mod ssm;
