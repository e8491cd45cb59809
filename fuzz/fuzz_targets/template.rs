//! Fuzz target `template`: hands libFuzzer's input to `cumulo::fuzzing::template` (see that function
//! for the input's shape and the properties checked).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cumulo::fuzzing::template(data));
