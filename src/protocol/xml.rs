//! A small writer for awsQuery / restXml response documents (`<{Op}Response>` with its
//! `<{Op}Result>` wrapper, `<member>` lists, `<ResponseMetadata>`), on quick-xml's escaping.
//! aws-contract.md §2.2: every operation with an output shape emits its Result element, even
//! empty; an empty list is an empty element, an absent member is no element at all.

use std::borrow::Cow;

/// XML-escapes text for an element body or attribute value.
pub fn escape(text: &str) -> Cow<'_, str> {
    quick_xml::escape::escape(text)
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
    fn escapes_text() {
        let mut w = XmlWriter::bare("X", "ns");
        w.elem("M", "a<b&\"c\"");
        assert!(w.finish("r").contains("<M>a&lt;b&amp;&quot;c&quot;</M>"));
    }
}
