#!/usr/bin/env node
// A Claude Code PreToolUse hook written in TypeScript: code-intel's write gate plus one rule of
// this project's own. Install (after `npm run build:examples` in bindings/node) in
// .claude/settings.json:
//
//   "PreToolUse": [{ "matcher": "*",
//                    "hooks": [{ "type": "command",
//                                "command": "node /path/to/examples/dist/pre-tool-use.js || exit 2" }] }]
//
// (`|| exit 2`, as `code-intel init` installs the Rust hook: Claude Code runs the tool on any exit
// code but 2, so a missing node, an addon that fails to load or a killed process must still block.)
// Output contract (shared/docs/CLAUDE_CODE.md §2.4): allow = no output and exit 0, so Claude Code's
// own permission flow still applies; deny = the decision JSON on stdout, the reason on stderr and
// exit 2, which blocks even if the JSON were unreadable. Every failure of this script denies.
import { readFileSync } from 'node:fs'
import { decidePreToolUse } from '@code-intel/node'

/** This project's own rule: the agent never writes environment files (secrets), in any phase. */
const ENV_FILE = /(^|[\\/])\.env(\.[^\\/]*)?$/

/** The fields of the hook input this rule reads. */
interface HookInput {
  tool_name?: string
  tool_input?: { file_path?: unknown; notebook_path?: unknown }
}

/** Decides after this long without an answer from the gate (Claude Code's own timeout is longer). */
const WATCHDOG_MS = 5000

function deny(reason: string): number {
  const out = {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: reason,
    },
  }
  process.stdout.write(`${JSON.stringify(out)}\n`)
  process.stderr.write(`${reason}\n`)
  return 2
}

/** This project's rule on the parsed input; `undefined` when it has nothing against the call. */
export function ownRule(input: HookInput): string | undefined {
  const path = input.tool_input?.file_path ?? input.tool_input?.notebook_path
  if (typeof path === 'string' && ENV_FILE.test(path)) {
    return `project rule: ${path} is an environment file; the agent never writes those (ask the user to change it)`
  }
  return undefined
}

async function main(): Promise<number> {
  const raw = readFileSync(0, 'utf8')
  let parsed: HookInput = {}
  try {
    parsed = JSON.parse(raw) as HookInput
  } catch {
    // Unparsable input: the gate below denies it with the reason.
  }
  const own = ownRule(parsed)
  if (own !== undefined) return deny(own)
  const verdict = await decidePreToolUse(raw, {})
  return verdict.decision === 'deny' ? deny(verdict.reason ?? 'code-intel gate denied this call') : 0
}

const watchdog = setTimeout(() => {
  process.exit(deny(`code-intel gate did not decide within ${WATCHDOG_MS} ms, so this call was blocked to be safe`))
}, WATCHDOG_MS)
watchdog.unref()

main().then(
  (code) => process.exit(code),
  (e: unknown) => process.exit(deny(`code-intel hook failed (${String(e)}), so this call was blocked to be safe`)),
)
