//! The identifiers CloudFormation passes around as text, as distinct types so a signature says
//! which one it takes: [`StackId`] (the stack's ARN), [`LogicalId`] (a resource's name in its
//! template) and [`PhysicalId`] (what the provider made: a queue URL, a schedule name, ...).
//! Each is a `String` underneath, serialised as that string (the durable store's JSON is the
//! same as before they existed), compared and hashed as it, and borrowable as `&str` so maps
//! keyed by one are looked up by text. No validation: the shapes are checked where the values
//! are made (the stack-name pattern, the template's logical-id rule).

use std::borrow::Borrow;
use std::fmt;

use serde::{Deserialize, Serialize};

/// Declares a string newtype with the conversions every id shares.
macro_rules! string_id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The id's text, owned.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> Self {
                $name(text)
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> Self {
                $name(text.to_string())
            }
        }

        impl From<&String> for $name {
            fn from(text: &String) -> Self {
                $name(text.clone())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }
    };
}

string_id! {
    /// A stack's id: `arn:aws:cloudformation:<region>:<account>:stack/<name>/<uuid>`.
    StackId
}

string_id! {
    /// A resource's logical id: its key under the template's `Resources`.
    LogicalId
}

string_id! {
    /// A resource's physical id (`PhysicalResourceId`): what its provider made.
    PhysicalId
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_serialise_as_their_text_and_look_up_by_it() {
        let id = LogicalId::from("Queue");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"Queue\"");
        assert_eq!(serde_json::from_str::<LogicalId>("\"Queue\"").unwrap(), id);
        let mut map = indexmap::IndexMap::new();
        map.insert(id.clone(), 1);
        assert_eq!(map.get("Queue"), Some(&1));
        assert_eq!(id, "Queue");
        assert_eq!(id.to_string(), "Queue");
    }
}
