//! `uniffi-bindgen generate target/release/libretryplan_uniffi.so --language kotlin ...` (see ../build.sh).
fn main() {
    uniffi::uniffi_bindgen_main()
}
