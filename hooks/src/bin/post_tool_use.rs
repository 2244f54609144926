//! `code-intel-post-tool-use`: the PostToolUse hook. Binds Claude Code sessions to code-intel
//! sessions and records files read or edited; never blocks (`code_intel_hooks::post`).

fn main() -> std::process::ExitCode {
    code_intel_hooks::post::run()
}
