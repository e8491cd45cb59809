//! A small writer for awsQuery / restXml response documents (`<{Op}Response>` with its
//! `<{Op}Result>` wrapper, `<member>` lists, `<ResponseMetadata>`), on quick-xml's escaping.
//! aws-contract.md §2.2: every operation with an output shape emits its Result element, even
//! empty; an empty list is an empty element, an absent member is no element at all.

use std::borrow::Cow;

/// Whether XML 1.0 allows `c` in a document at all (its `Char` production): not the C0 controls
/// other than tab, line feed and carriage return, nor U+FFFE / U+FFFF. No character reference
/// can carry the others either (`&#x1;` is as ill-formed as the byte).
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\u{9}' | '\u{A}' | '\u{D}' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Whether every character of `text` can be written in an XML 1.0 document.
pub fn is_xml_text(text: &str) -> bool {
    text.chars().all(is_xml_char)
}

/// XML-escapes text for an element body or attribute value, so that every document Cumulo
/// writes is well-formed XML 1.0 and parses with every SDK: `<`, `>`, `&`, `'`, `"` become
/// entities, a carriage return `&#xD;` (a parser would otherwise fold it into a line feed), and
/// a character XML 1.0 forbids (a C0 control echoed from a request, e.g. `StackName=a%01b`)
/// becomes U+FFFD. AWS writes those as `&#x1;`-style references, which XML 1.0 forbids too and
/// every SDK's parser rejects (botocore raises `ResponseParserError` instead of the service's
/// error); S3 keys in listings keep theirs through `encoding-type=url` (`wire::s3`).
pub fn escape(text: &str) -> Cow<'_, str> {
    let escaped = quick_xml::escape::escape(text);
    if !escaped.contains('\r') && is_xml_text(&escaped) {
        return escaped;
    }
    let mut out = String::with_capacity(escaped.len() + 8);
    for c in escaped.chars() {
        match c {
            '\r' => out.push_str("&#xD;"),
            c if is_xml_char(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    Cow::Owned(out)
}

/// Builds one response document.
#[derive(Debug)]
pub struct XmlWriter {
    buf: String,
    op: String,
    has_result: bool,
}

impl XmlWriter {
    /// `<{op}Response xmlns="{xmlns}"><{op}Result>`; close with [`XmlWriter::finish`].
    pub fn response(op: &str, xmlns: &str) -> XmlWriter {
        let mut w = XmlWriter::bare(op, xmlns);
        w.buf.push('<');
        w.buf.push_str(op);
        w.buf.push_str("Result>");
        w.has_result = true;
        w
    }

    /// `<{op}Response xmlns="{xmlns}">` without a Result element (operations with no output
    /// shape: DeleteStack, CancelUpdateStack, SetStackPolicy, ...).
    pub fn bare(op: &str, xmlns: &str) -> XmlWriter {
        let mut buf = String::with_capacity(512);
        buf.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<");
        buf.push_str(op);
        buf.push_str("Response xmlns=\"");
        buf.push_str(xmlns);
        buf.push_str("\">");
        XmlWriter {
            buf,
            op: op.to_string(),
            has_result: false,
        }
    }

    /// A document whose root is `root` (restXml bodies such as S3's), no Response wrapper.
    pub fn root(root: &str, xmlns: Option<&str>) -> XmlWriter {
        let mut buf = String::with_capacity(512);
        buf.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<");
        buf.push_str(root);
        if let Some(ns) = xmlns {
            buf.push_str(" xmlns=\"");
            buf.push_str(ns);
            buf.push('"');
        }
        buf.push('>');
        XmlWriter {
            buf,
            op: root.to_string(),
            has_result: false,
        }
    }

    /// Opens `<name>`.
    pub fn open(&mut self, name: &str) -> &mut Self {
        self.buf.push('<');
        self.buf.push_str(name);
        self.buf.push('>');
        self
    }

    /// Closes `</name>`.
    pub fn close(&mut self, name: &str) -> &mut Self {
        self.buf.push_str("</");
        self.buf.push_str(name);
        self.buf.push('>');
        self
    }

    /// `<name>text</name>` (escaped).
    pub fn elem(&mut self, name: &str, text: &str) -> &mut Self {
        self.open(name);
        self.buf.push_str(&escape(text));
        self.close(name)
    }

    /// Escaped character data inside the element opened last.
    pub fn text(&mut self, text: &str) -> &mut Self {
        self.buf.push_str(&escape(text));
        self
    }

    /// `<name>text</name>` when `text` is `Some`, nothing otherwise.
    pub fn opt_elem(&mut self, name: &str, text: Option<&str>) -> &mut Self {
        if let Some(t) = text {
            self.elem(name, t);
        }
        self
    }

    /// `<name>true|false</name>`.
    pub fn bool_elem(&mut self, name: &str, value: bool) -> &mut Self {
        self.elem(name, if value { "true" } else { "false" })
    }

    /// `<name/>` (parses as an empty list or empty structure).
    pub fn empty(&mut self, name: &str) -> &mut Self {
        self.buf.push('<');
        self.buf.push_str(name);
        self.buf.push_str("/>");
        self
    }

    /// `<name><member>..</member>...</name>` with one `<member>` text per item.
    pub fn string_list<'a>(
        &mut self,
        name: &str,
        items: impl IntoIterator<Item = &'a str>,
    ) -> &mut Self {
        self.open(name);
        for item in items {
            self.elem("member", item);
        }
        self.close(name)
    }

    /// Closes the Result and Response elements, adding `<ResponseMetadata><RequestId>`.
    pub fn finish(mut self, request_id: &str) -> String {
        if self.has_result {
            self.buf.push_str("</");
            self.buf.push_str(&self.op);
            self.buf.push_str("Result>");
        }
        self.buf.push_str("<ResponseMetadata><RequestId>");
        self.buf.push_str(&escape(request_id));
        self.buf.push_str("</RequestId></ResponseMetadata></");
        self.buf.push_str(&self.op);
        self.buf.push_str("Response>");
        self.buf
    }

    /// Closes a document opened with [`XmlWriter::root`].
    pub fn finish_root(mut self) -> String {
        self.buf.push_str("</");
        self.buf.push_str(&self.op);
        self.buf.push('>');
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_result_wrapper_even_when_empty() {
        let w = XmlWriter::response(
            "ExecuteChangeSet",
            "http://cloudformation.amazonaws.com/doc/2010-05-15/",
        );
        let doc = w.finish("req-1");
        assert!(doc.contains("<ExecuteChangeSetResponse xmlns=\"http://cloudformation.amazonaws.com/doc/2010-05-15/\"><ExecuteChangeSetResult></ExecuteChangeSetResult>"));
        assert!(doc.ends_with("<ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></ExecuteChangeSetResponse>"));
    }

    #[test]
    fn characters_xml_forbids_never_reach_a_document() {
        assert_eq!(escape("a\u{1}b\u{1b}c"), "a\u{FFFD}b\u{FFFD}c");
        assert_eq!(escape("tab\tlf\ncr\r"), "tab\tlf\ncr&#xD;");
        assert_eq!(escape("\u{FFFE}é\u{1F600}"), "\u{FFFD}é\u{1F600}");
        assert!(matches!(escape("plain <x>"), Cow::Owned(_)));
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        assert!(!is_xml_text("a\u{0}"));
        assert!(is_xml_text("a\tb"));
    }

    #[test]
    fn escapes_text() {
        let mut w = XmlWriter::bare("X", "ns");
        w.elem("M", "a<b&\"c\"");
        assert!(w.finish("r").contains("<M>a&lt;b&amp;&quot;c&quot;</M>"));
    }
}
