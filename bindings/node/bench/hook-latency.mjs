// Whole-process latency of the TypeScript PreToolUse hook example (node + the addon) next to the
// Rust hook binary and a node hello-world, the same way hooks/benches/latency.rs measures the Rust
// hook: spawn the process with the hook JSON on stdin, wait for it to exit, report p50/p95/max.
//
//   node bench/hook-latency.mjs [runs]      (default 100; HOOK_BIN overrides the Rust hook's path)
//
// A benchmark, not a test: numbers depend on the machine and its load (print `uptime` with them).
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync, existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const ws = resolve(pkg, '..', '..')
const runs = Number(process.argv[2] ?? 100)
const rustHook =
  process.env.HOOK_BIN ??
  [join(ws, 'target', 'release', 'code-intel-pre-tool-use'), join(ws, 'target', 'debug', 'code-intel-pre-tool-use')].find(existsSync)
const nodeHook = join(pkg, 'examples', 'dist', 'pre-tool-use.js')
for (const f of [rustHook, nodeHook]) if (!f || !existsSync(f)) throw new Error(`missing ${f}: build it first`)

const dir = mkdtempSync(join(tmpdir(), 'hook-bench-'))
mkdirSync(join(dir, 'src'))
writeFileSync(join(dir, 'src', 'a.py'), 'x = 1\n')
const input = (tool, toolInput) =>
  JSON.stringify({ session_id: 'bench', cwd: dir, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: toolInput })
const scenarios = [
  ['Write, no session (deny)', input('Write', { file_path: join(dir, 'src', 'b.py'), content: 'y' })],
  ['Read (allow)', input('Read', { file_path: join(dir, 'src', 'a.py') })],
]
const processes = [
  ['/bin/true', '/bin/true', []],
  ['rust hook', rustHook, []],
  ['node hook example', process.execPath, [nodeHook]],
  ['node hello-world', process.execPath, ['-e', '']],
]

function time(cmd, args, stdin) {
  const out = []
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint()
    spawnSync(cmd, args, { input: stdin, cwd: dir, env: { ...process.env, CLAUDE_PROJECT_DIR: dir }, stdio: ['pipe', 'ignore', 'ignore'] })
    out.push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  out.sort((a, b) => a - b)
  const q = (p) => out[Math.min(out.length - 1, Math.floor(p * out.length))].toFixed(1)
  return `p50 ${q(0.5)}  p95 ${q(0.95)}  max ${out[out.length - 1].toFixed(1)}`
}

console.log(`runs per row: ${runs}; rust hook: ${rustHook}`)
for (const [name, stdin] of scenarios) {
  for (const [label, cmd, args] of processes) console.log(`${name.padEnd(26)} ${label.padEnd(18)} ${time(cmd, args, stdin)} ms`)
}
rmSync(dir, { recursive: true, force: true })
