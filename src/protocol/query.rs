//! awsQuery request input: `application/x-www-form-urlencoded` pairs (body, or URL query for a
//! GET), read the way botocore's `QuerySerializer` writes them (aws-contract.md §2.1):
//! structures as `Outer.Inner`, lists as `Name.member.N` (N from 1), an empty list as `Name=`,
//! maps as `Name.entry.N.key` / `.value`.

use indexmap::IndexMap;

use super::error::WireError;

/// The decoded pairs of one request, or of one nested structure of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueryInput {
    pairs: IndexMap<String, String>,
}

impl QueryInput {
    /// Decodes a urlencoded body and/or URL query string; a later duplicate key wins.
    pub fn parse(body: &[u8], url_query: Option<&str>) -> QueryInput {
        let mut pairs = IndexMap::new();
        if let Some(q) = url_query {
            for (k, v) in form_urlencoded::parse(q.as_bytes()) {
                pairs.insert(k.into_owned(), v.into_owned());
            }
        }
        for (k, v) in form_urlencoded::parse(body) {
            pairs.insert(k.into_owned(), v.into_owned());
        }
        QueryInput { pairs }
    }

    /// Builds an input from explicit pairs (tests).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> QueryInput {
        QueryInput {
            pairs: pairs
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// The `Action` parameter.
    pub fn action(&self) -> Option<&str> {
        self.str("Action")
    }

    /// A scalar member; `None` when absent.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.pairs.get(key).map(String::as_str)
    }

    /// A scalar member that is present and not empty.
    pub fn non_empty(&self, key: &str) -> Option<&str> {
        self.str(key).filter(|s| !s.is_empty())
    }

    /// True when any key equals `key` or starts with `key.`.
    pub fn has(&self, key: &str) -> bool {
        let dotted = format!("{key}.");
        self.pairs
            .keys()
            .any(|k| k == key || k.starts_with(&dotted))
    }

    /// A boolean member (`true`/`false`, case-insensitive); anything else is a
    /// ValidationError naming the member.
    pub fn bool(&self, key: &str) -> Result<Option<bool>, WireError> {
        match self.str(key) {
            None => Ok(None),
            Some(v) if v.eq_ignore_ascii_case("true") => Ok(Some(true)),
            Some(v) if v.eq_ignore_ascii_case("false") => Ok(Some(false)),
            Some(v) => Err(WireError::validation_error(
                crate::coral::single(Some(v), &lower_camel(key), "Member must be a boolean").0,
            )),
        }
    }

    /// An integer member; a non-integer is a ValidationError naming the member.
    pub fn int(&self, key: &str) -> Result<Option<i64>, WireError> {
        match self.str(key) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| {
                WireError::validation_error(
                    crate::coral::single(Some(v), &lower_camel(key), "Member must be an integer").0,
                )
            }),
        }
    }

    /// A list of scalars `key.member.N`: `None` when absent, `Some(vec![])` for `key=`.
    pub fn list(&self, key: &str) -> Option<Vec<String>> {
        self.indexed(key, "member").map(|items| {
            items
                .into_iter()
                .filter_map(|sub| sub.str("").map(str::to_string))
                .collect()
        })
    }

    /// A list of structures `key.member.N.Field`: each element's pairs with the prefix removed.
    /// `None` when absent, `Some(vec![])` for `key=`.
    pub fn struct_list(&self, key: &str) -> Option<Vec<QueryInput>> {
        self.indexed(key, "member")
    }

    /// A flattened list `key.N` / `key.N.Field` (SQS-query and SNS style attribute lists).
    pub fn flat_list(&self, key: &str) -> Option<Vec<QueryInput>> {
        self.elements(key, &format!("{key}."))
    }

    /// A map `key.entry.N.<k>` / `key.entry.N.<v>` (`k`/`v` are the key and value member
    /// names, `key`/`value` in CloudFormation and SNS attributes).
    pub fn map(&self, key: &str, k: &str, v: &str) -> Option<IndexMap<String, String>> {
        self.indexed(key, "entry").map(|items| {
            items
                .into_iter()
                .filter_map(|sub| {
                    Some((
                        sub.str(k)?.to_string(),
                        sub.str(v).unwrap_or("").to_string(),
                    ))
                })
                .collect()
        })
    }

    /// The structure under `key.` (e.g. `RollbackConfiguration.`); `None` when absent.
    pub fn structure(&self, key: &str) -> Option<QueryInput> {
        let prefix = format!("{key}.");
        let pairs: IndexMap<String, String> = self
            .pairs
            .iter()
            .filter_map(|(k, v)| {
                k.strip_prefix(&prefix)
                    .map(|rest| (rest.to_string(), v.clone()))
            })
            .collect();
        if pairs.is_empty() && !self.pairs.contains_key(key) {
            None
        } else {
            Some(QueryInput { pairs })
        }
    }

    /// The elements of `key.<word>.N...`, in index order.
    fn indexed(&self, key: &str, word: &str) -> Option<Vec<QueryInput>> {
        self.elements(key, &format!("{key}.{word}."))
    }

    /// The elements under `prefix` (`<prefix>N` / `<prefix>N.Field`), in index order; `None`
    /// when neither `key` nor any element is present. Every index is kept, whatever its size
    /// (`member.99999999999`) or spelling: an element is never dropped, and indices are
    /// compared, never used to allocate.
    fn elements(&self, key: &str, prefix: &str) -> Option<Vec<QueryInput>> {
        let mut by_index: std::collections::BTreeMap<ListIndex, QueryInput> = Default::default();
        let mut seen = self.pairs.contains_key(key);
        for (k, v) in &self.pairs {
            let Some(rest) = k.strip_prefix(prefix) else {
                continue;
            };
            seen = true;
            let (idx, tail) = rest.split_once('.').unwrap_or((rest, ""));
            by_index
                .entry(ListIndex::of(idx))
                .or_default()
                .pairs
                .insert(tail.to_string(), v.clone());
        }
        seen.then(|| by_index.into_values().collect())
    }
}

/// The `N` of `Name.member.N`, ordered as a number of any size (`2` < `10` <
/// `99999999999`; `01` is `1`), then the indices that are not numbers, in text order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum ListIndex {
    /// Decimal digits without leading zeros (ordered by length, then text: numeric order).
    Number(usize, String),
    /// Anything else, as written.
    Other(String),
}

impl ListIndex {
    fn of(text: &str) -> ListIndex {
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            let digits = text.trim_start_matches('0');
            ListIndex::Number(digits.len(), digits.to_string())
        } else {
            ListIndex::Other(text.to_string())
        }
    }
}

/// `StackName` → `stackName`: the member spelling of AWS's Coral validation messages.
pub fn lower_camel(member: &str) -> String {
    let mut chars = member.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_list_is_present_and_empty() {
        let q = QueryInput::parse(b"Action=CreateChangeSet&Capabilities=&Tags=", None);
        assert_eq!(q.list("Capabilities"), Some(vec![]));
        assert_eq!(q.struct_list("Tags"), Some(vec![]));
        assert_eq!(q.list("NotificationARNs"), None);
    }

    #[test]
    fn lists_of_structures_keep_member_order() {
        let q = QueryInput::parse(
            b"Parameters.member.2.ParameterKey=B&Parameters.member.1.ParameterKey=A&Parameters.member.1.ParameterValue=x%20y&Parameters.member.2.UsePreviousValue=true",
            None,
        );
        let ps = q.struct_list("Parameters").unwrap();
        assert_eq!(ps.len(), 2);
        assert_eq!(ps[0].str("ParameterKey"), Some("A"));
        assert_eq!(ps[0].str("ParameterValue"), Some("x y"));
        assert_eq!(ps[1].bool("UsePreviousValue").unwrap(), Some(true));
    }

    #[test]
    fn scalar_lists_and_maps() {
        let q = QueryInput::parse(
            b"Capabilities.member.1=CAPABILITY_IAM&Attributes.entry.1.key=RawMessageDelivery&Attributes.entry.1.value=true",
            None,
        );
        assert_eq!(
            q.list("Capabilities"),
            Some(vec!["CAPABILITY_IAM".to_string()])
        );
        let m = q.map("Attributes", "key", "value").unwrap();
        assert_eq!(
            m.get("RawMessageDelivery").map(String::as_str),
            Some("true")
        );
    }

    #[test]
    fn list_members_are_kept_in_index_order_whatever_the_index() {
        let q = QueryInput::parse(
            b"Capabilities.member.10=C&Capabilities.member.99999999999=E&Capabilities.member.2=B&Capabilities.member.184467440737095516160=F&Capabilities.member.01=A&Capabilities.member.x=G",
            None,
        );
        assert_eq!(
            q.list("Capabilities").unwrap(),
            ["A", "B", "C", "E", "F", "G"]
        );
        let q = QueryInput::parse(
            b"Parameters.member.99999999999.ParameterKey=a&Parameters.member.5.ParameterKey=b",
            None,
        );
        let keys: Vec<String> = q
            .struct_list("Parameters")
            .unwrap()
            .iter()
            .map(|p| p.str("ParameterKey").unwrap().to_string())
            .collect();
        assert_eq!(keys, ["b", "a"]);
        let q = QueryInput::parse(b"Attribute.4294967296.Name=x&Attribute.1.Name=y", None);
        let names: Vec<String> = q
            .flat_list("Attribute")
            .unwrap()
            .iter()
            .map(|p| p.str("Name").unwrap().to_string())
            .collect();
        assert_eq!(names, ["y", "x"]);
    }

    #[test]
    fn bad_booleans_are_validation_errors() {
        let q = QueryInput::parse(b"DisableRollback=maybe", None);
        let err = q.bool("DisableRollback").unwrap_err();
        assert_eq!(err.code, "ValidationError");
        assert!(err.message.contains("'disableRollback'"));
    }
}
