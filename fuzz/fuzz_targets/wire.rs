//! Fuzz target `wire`: hands libFuzzer's input to `cumulo::fuzzing::wire` (see that function
//! for the input's shape and the properties checked).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cumulo::fuzzing::wire(data));
