//! Table tests of `validate` (filled next).
