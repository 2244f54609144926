//! `code-intel-pre-tool-use`: the PreToolUse hook. Denies writes the gate refuses; fails closed
//! (`code_intel_hooks::pre`).

fn main() -> std::process::ExitCode {
    code_intel_hooks::pre::run()
}
