//! Build script: napi-rs link arguments for a Node addon.
fn main() {
    napi_build::setup();
}
