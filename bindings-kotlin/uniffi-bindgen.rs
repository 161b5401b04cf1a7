//! `uniffi-bindgen generate target/debug/libretryplan_uniffi.so --language kotlin ...`
fn main() {
    uniffi::uniffi_bindgen_main()
}
