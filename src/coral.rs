//! Coral's validation message, the one every AWS service sends for a member outside its model
//! constraints: `1 validation error detected: Value '<v>' at '<path>' failed to satisfy
//! constraint: <constraint>`, or, for several, `N validation errors detected: <one>; <two>`.
//!
//! Owns the wording and the joining only; each service decides which members it checks and in
//! which order (AWS's: the model's member order, and for one member its pattern before its
//! length, as `Value 'a/b…' at 'name' failed to satisfy constraint: Member must satisfy regular
//! expression pattern: [0-9a-zA-Z-_.]+; Value 'a/b…' at 'name' failed to satisfy constraint:
//! Member must have length less than or equal to 64` from EventBridge Scheduler shows). Patterns
//! are printed without the `^…$` anchors of botocore's models, as AWS prints them. Pure: no
//! HTTP, no service types; each service turns a [`Invalid`] into its own error enum.

/// The message of one or more violations, ready to be a service's validation error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid(pub String);

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Collects violations in the order they are found; [`Violations::finish`] joins them into one
/// message.
#[derive(Debug, Default)]
pub struct Violations {
    items: Vec<String>,
}

/// `pattern` as AWS prints it: without a leading `^` and a trailing (unescaped) `$`.
pub fn shown_pattern(pattern: &str) -> &str {
    let p = pattern.strip_prefix('^').unwrap_or(pattern);
    match p.strip_suffix('$') {
        Some(rest) if !rest.ends_with('\\') => rest,
        _ => p,
    }
}

impl Violations {
    /// A violation of `constraint` by `value` (`None`: the member is absent, shown `null`) at
    /// `path` (lower camel case, `list.N.member` for list items).
    pub fn push(&mut self, value: Option<&str>, path: &str, constraint: &str) {
        let value = match value {
            Some(v) => format!("'{v}'"),
            None => "null".to_string(),
        };
        self.items.push(format!(
            "Value {value} at '{path}' failed to satisfy constraint: {constraint}"
        ));
    }

    /// A required member is missing.
    pub fn null(&mut self, path: &str) {
        self.push(None, path, "Member must not be null");
    }

    /// A required member: reports `null` when absent and returns the value otherwise.
    pub fn required<'a, T: ?Sized>(&mut self, path: &str, value: Option<&'a T>) -> Option<&'a T> {
        if value.is_none() {
            self.null(path);
        }
        value
    }

    /// String length in characters, `min..=max` (`max` none: unbounded).
    pub fn length(&mut self, path: &str, value: &str, min: usize, max: Option<usize>) {
        let n = value.chars().count();
        if n < min {
            self.push(
                Some(value),
                path,
                &format!("Member must have length greater than or equal to {min}"),
            );
        }
        if let Some(max) = max.filter(|max| n > *max) {
            self.push(
                Some(value),
                path,
                &format!("Member must have length less than or equal to {max}"),
            );
        }
    }

    /// A pattern (`ok` says whether `value` matches it), printed as AWS prints it
    /// ([`shown_pattern`]).
    pub fn pattern(&mut self, path: &str, value: &str, ok: bool, pattern: &str) {
        if !ok {
            self.push(
                Some(value),
                path,
                &format!(
                    "Member must satisfy regular expression pattern: {}",
                    shown_pattern(pattern)
                ),
            );
        }
    }

    /// An enum member.
    pub fn one_of(&mut self, path: &str, value: &str, allowed: &[&str]) {
        if !allowed.contains(&value) {
            self.push(
                Some(value),
                path,
                &format!(
                    "Member must satisfy enum value set: [{}]",
                    allowed.join(", ")
                ),
            );
        }
    }

    /// A list of enum values, shown as Java prints the list (`[a, b]`).
    pub fn each_one_of(&mut self, path: &str, values: &[String], allowed: &[&str]) {
        if values.iter().any(|v| !allowed.contains(&v.as_str())) {
            self.push(
                Some(&format!("[{}]", values.join(", "))),
                path,
                &format!(
                    "Member must satisfy constraint: [Member must satisfy enum value set: [{}]]",
                    allowed.join(", ")
                ),
            );
        }
    }

    /// An integer range.
    pub fn range(&mut self, path: &str, value: i64, min: i64, max: i64) {
        let shown = value.to_string();
        if value < min {
            self.push(
                Some(&shown),
                path,
                &format!("Member must have value greater than or equal to {min}"),
            );
        }
        if value > max {
            self.push(
                Some(&shown),
                path,
                &format!("Member must have value less than or equal to {max}"),
            );
        }
    }

    /// A list's length, with the list rendered as Java prints it (`[a, b]`).
    pub fn list_length(&mut self, path: &str, shown: &str, len: usize, min: usize, max: usize) {
        if len < min {
            self.push(
                Some(shown),
                path,
                &format!("Member must have length greater than or equal to {min}"),
            );
        }
        if len > max {
            self.push(
                Some(shown),
                path,
                &format!("Member must have length less than or equal to {max}"),
            );
        }
    }

    /// True when nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// `Ok` when nothing was reported, else the one message listing every violation
    /// (`?` turns it into the service's validation error).
    pub fn finish(self) -> Result<(), Invalid> {
        match self.items.len() {
            0 => Ok(()),
            1 => Err(Invalid(format!(
                "1 validation error detected: {}",
                self.items[0]
            ))),
            n => Err(Invalid(format!(
                "{n} validation errors detected: {}",
                self.items.join("; ")
            ))),
        }
    }
}

/// The message of a single violation.
pub fn single(value: Option<&str>, path: &str, constraint: &str) -> Invalid {
    let mut v = Violations::default();
    v.push(value, path, constraint);
    match v.finish() {
        Err(invalid) => invalid,
        Ok(()) => Invalid(String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_violation() {
        let mut v = Violations::default();
        v.null("name");
        assert_eq!(
            v.finish().unwrap_err().0,
            "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null"
        );
    }

    #[test]
    fn every_violation_is_listed_pattern_before_length_and_joined_by_semicolons() {
        let name = "a/".repeat(40);
        let mut v = Violations::default();
        v.pattern("name", &name, false, "^[0-9a-zA-Z-_.]+$");
        v.length("name", &name, 1, Some(64));
        assert_eq!(
            v.finish().unwrap_err().0,
            format!(
                "2 validation errors detected: Value '{name}' at 'name' failed to satisfy constraint: Member must satisfy regular expression pattern: [0-9a-zA-Z-_.]+; Value '{name}' at 'name' failed to satisfy constraint: Member must have length less than or equal to 64"
            )
        );
    }

    #[test]
    fn anchors_are_dropped_but_escaped_dollars_kept() {
        assert_eq!(shown_pattern("^[a-z]+$"), "[a-z]+");
        assert_eq!(shown_pattern("[a-z]+"), "[a-z]+");
        assert_eq!(shown_pattern(r"^\$"), r"\$");
        assert_eq!(shown_pattern("^a|b$"), "a|b");
    }

    #[test]
    fn nothing_reported_is_ok() {
        let v = Violations::default();
        assert!(v.is_empty());
        assert_eq!(v.finish(), Ok(()));
        assert_eq!(
            single(Some("x"), "m", "c").0,
            "1 validation error detected: Value 'x' at 'm' failed to satisfy constraint: c"
        );
    }
}
