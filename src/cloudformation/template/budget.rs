//! What an evaluation may cost, counted as it happens: steps and nesting (CPU), bytes produced
//! (memory), and the size of each value an intrinsic function returns. A [`Meter`] is shared by
//! everything one evaluation does (`Template::parse`'s static `Fn::ForEach`, one
//! `Template::resolve`, one resource or output at execution); an [`OperationMeter`] by the
//! execution-time evaluations of one stack operation. The figures and their sources are in
//! `limits`.
//!
//! Every value the interpreter makes is charged when it is made, before the memory is taken
//! where the size is known in advance (`Fn::Base64`, `Fn::Join`, `Fn::Split`, `Fn::Sub`,
//! `Fn::ToJsonString`, copies out of mappings and parameters), so the bytes one evaluation
//! holds never exceed what it was charged: [`limits::EVALUATION_BYTES`] bounds its memory
//! whatever the template, and [`limits::MAX_VALUE_BYTES`] the largest single value. Pure; no
//! clock (steps, not time, bound the CPU).

use std::cell::Cell;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde_json::Value;

use super::error::{Budget, ErrorKind, Function, TemplateError};
use super::limits;

/// The size of a JSON value: the length of its compact text (`text`, strings counted without
/// escapes) and how many nodes it has (`nodes`: scalars, lists, maps, map entries' keys).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Size {
    pub text: u64,
    pub nodes: u64,
}

impl Size {
    /// A string of `len` bytes.
    pub fn string(len: usize) -> Size {
        Size {
            text: len as u64 + 2,
            nodes: 1,
        }
    }

    /// What it counts against [`limits::EVALUATION_BYTES`]: the text plus
    /// [`limits::NODE_BYTES`] per node.
    pub fn weight(self) -> u64 {
        self.text
            .saturating_add(self.nodes.saturating_mul(limits::NODE_BYTES))
    }

    fn add(&mut self, other: Size) {
        self.text = self.text.saturating_add(other.text);
        self.nodes = self.nodes.saturating_add(other.nodes);
    }
}

/// The size of `value` (one walk; numbers by their printed length).
pub(crate) fn measure(value: &Value) -> Size {
    let mut size = Size::default();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Null => size.add(Size { text: 4, nodes: 1 }),
            Value::Bool(b) => size.add(Size {
                text: if *b { 4 } else { 5 },
                nodes: 1,
            }),
            Value::Number(n) => size.add(Size {
                text: n.to_string().len() as u64,
                nodes: 1,
            }),
            Value::String(s) => size.add(Size::string(s.len())),
            Value::Array(items) => {
                size.add(Size {
                    text: 2 + (items.len() as u64).saturating_sub(1),
                    nodes: 1,
                });
                stack.extend(items.iter());
            }
            Value::Object(map) => {
                size.add(Size {
                    text: 2 + (map.len() as u64).saturating_sub(1),
                    nodes: 1,
                });
                for (k, v) in map {
                    size.add(Size {
                        text: k.len() as u64 + 3,
                        nodes: 1,
                    });
                    stack.push(v);
                }
            }
        }
    }
    size
}

/// The budget of one evaluation: steps, nesting and bytes. Interior mutability, so the
/// interpreter's `&self` methods share it.
#[derive(Debug)]
pub(crate) struct Meter {
    steps: Cell<u64>,
    bytes: Cell<u64>,
}

impl Default for Meter {
    fn default() -> Meter {
        Meter::new(limits::FUEL, limits::EVALUATION_BYTES)
    }
}

impl Meter {
    /// A meter allowing `steps` steps and `bytes` bytes (tests use small ones).
    pub fn new(steps: u64, bytes: u64) -> Meter {
        Meter {
            steps: Cell::new(steps),
            bytes: Cell::new(bytes),
        }
    }

    /// One evaluation step at nesting `depth`.
    pub fn step(&self, depth: usize) -> Result<(), TemplateError> {
        if depth > limits::MAX_DEPTH {
            return Err(ErrorKind::Budget(Budget::Depth).into());
        }
        let left = self.steps.get();
        if left == 0 {
            return Err(ErrorKind::Budget(Budget::Steps).into());
        }
        self.steps.set(left - 1);
        Ok(())
    }

    /// Charges `size` (a value about to be made).
    pub fn charge(&self, size: Size) -> Result<(), TemplateError> {
        let weight = size.weight();
        let left = self.bytes.get();
        if weight > left {
            self.bytes.set(0);
            return Err(ErrorKind::Budget(Budget::Bytes).into());
        }
        self.bytes.set(left - weight);
        Ok(())
    }

    /// Checks that `function` may return a value of `bytes` bytes ([`limits::MAX_VALUE_BYTES`]:
    /// a string's length, a list's or map's compact JSON) and charges its `size`.
    pub fn produce(&self, function: Function, bytes: u64, size: Size) -> Result<(), TemplateError> {
        if bytes > limits::MAX_VALUE_BYTES as u64 {
            return Err(ErrorKind::ValueTooLarge {
                function,
                max: limits::MAX_VALUE_BYTES,
            }
            .into());
        }
        self.charge(size)
    }

    /// [`Meter::produce`] for a string of `len` bytes.
    pub fn produce_string(&self, function: Function, len: usize) -> Result<(), TemplateError> {
        self.produce(function, len as u64, Size::string(len))
    }

    /// [`Meter::produce`] for `value`, measured.
    pub fn produce_value(&self, function: Function, value: &Value) -> Result<(), TemplateError> {
        let size = measure(value);
        let bytes = match value {
            Value::String(s) => s.len() as u64,
            _ => size.text,
        };
        self.produce(function, bytes, size)
    }
}

/// The bytes the execution-time evaluations of one stack operation produced, shared by every
/// evaluator made from the same [`super::Resolved`] (cloning shares the count). It compares
/// equal to any other: it is bookkeeping, not part of what a template resolves to.
#[derive(Clone, Debug, Default)]
pub struct OperationMeter(Arc<AtomicU64>);

impl PartialEq for OperationMeter {
    fn eq(&self, _: &OperationMeter) -> bool {
        true
    }
}

impl OperationMeter {
    /// Adds the weight of `size` (a value the engine keeps); over
    /// [`limits::OPERATION_BYTES`] in all it is refused.
    pub(crate) fn charge(&self, size: Size) -> Result<(), TemplateError> {
        let weight = size.weight();
        let before = self.0.fetch_add(weight, Ordering::Relaxed);
        if before.saturating_add(weight) > limits::OPERATION_BYTES {
            return Err(ErrorKind::Budget(Budget::OperationBytes).into());
        }
        Ok(())
    }
}

/// An `io::Write` that keeps at most `max` bytes and fails past them: `Fn::ToJsonString`
/// serializes into it, so an oversized value is refused before it is built.
pub(crate) struct CappedWriter {
    buf: Vec<u8>,
    max: usize,
}

impl CappedWriter {
    /// A writer keeping at most `max` bytes.
    pub fn new(max: usize) -> CappedWriter {
        CappedWriter {
            buf: Vec::new(),
            max,
        }
    }

    /// The bytes written.
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }
}

impl io::Write for CappedWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.buf.len() + data.len() > self.max {
            return Err(io::Error::other("over the limit"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn sizes_follow_compact_json() {
        for v in [
            json!("abc"),
            json!(12.5),
            json!(true),
            json!([1, "a", [false]]),
            json!({"k": "v", "n": {"m": [1, 2]}}),
            json!([]),
        ] {
            assert_eq!(measure(&v).text, v.to_string().len() as u64, "{v}");
        }
        assert_eq!(measure(&json!({"k": ["a", 1]})).nodes, 5);
    }

    #[test]
    fn a_meter_refuses_past_its_budgets() {
        let meter = Meter::new(2, 100);
        assert!(meter.step(0).is_ok());
        assert!(meter.step(limits::MAX_DEPTH).is_ok());
        assert_eq!(
            meter.step(0).unwrap_err().kind(),
            &ErrorKind::Budget(Budget::Steps)
        );
        assert_eq!(
            meter.step(limits::MAX_DEPTH + 1).unwrap_err().kind(),
            &ErrorKind::Budget(Budget::Depth)
        );
        // 100 bytes: a 30-byte string weighs 32 + 32 = 64; a second one does not fit.
        assert!(meter.charge(Size::string(30)).is_ok());
        assert_eq!(
            meter.charge(Size::string(30)).unwrap_err().kind(),
            &ErrorKind::Budget(Budget::Bytes)
        );
    }

    #[test]
    fn one_value_is_at_most_max_value_bytes() {
        let meter = Meter::new(10, u64::MAX);
        assert!(meter
            .produce_string(Function::Sub, limits::MAX_VALUE_BYTES)
            .is_ok());
        assert_eq!(
            meter
                .produce_string(Function::Sub, limits::MAX_VALUE_BYTES + 1)
                .unwrap_err()
                .kind(),
            &ErrorKind::ValueTooLarge {
                function: Function::Sub,
                max: limits::MAX_VALUE_BYTES
            }
        );
    }

    #[test]
    fn the_operation_meter_is_shared_by_clones() {
        let meter = OperationMeter::default();
        let clone = meter.clone();
        let half = Size {
            text: limits::OPERATION_BYTES / 2,
            nodes: 0,
        };
        assert!(meter.charge(half).is_ok());
        assert!(clone.charge(half).is_ok());
        assert_eq!(
            clone.charge(Size::string(1)).unwrap_err().kind(),
            &ErrorKind::Budget(Budget::OperationBytes)
        );
    }

    #[test]
    fn the_capped_writer_stops_at_its_limit() {
        let mut w = CappedWriter::new(4);
        assert!(io::Write::write_all(&mut w, b"abcd").is_ok());
        assert!(io::Write::write_all(&mut w, b"e").is_err());
        assert_eq!(w.into_inner(), b"abcd");
    }
}
