//! Fuzz target `sns_filter_policy`: hands libFuzzer's input to `cumulo::fuzzing::sns_filter_policy` (see that function
//! for the input's shape and the properties checked).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cumulo::fuzzing::sns_filter_policy(data));
