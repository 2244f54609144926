// Shared helpers of the node --test suite: the real-code corpus, temporary copies, processes.
import { cpSync, mkdtempSync, existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const workspaceDir = resolve(packageDir, '..', '..')

/** The directory of a corpus fetched by scripts/fetch-corpora.sh (CODE_INTEL_CORPORA overrides). */
export function corpus(name) {
  const base = process.env.CODE_INTEL_CORPORA ?? join(workspaceDir, '.e2e-cache', 'corpora')
  const dir = join(base, name)
  if (!existsSync(join(dir, '.done'))) {
    throw new Error(`corpus ${name} missing in ${base}: run scripts/fetch-corpora.sh (or set CODE_INTEL_CORPORA)`)
  }
  return dir
}

/** A private copy of `src` in a temporary directory (removed when the test ends). */
export function copyTree(t, src) {
  const dir = mkdtempSync(join(tmpdir(), 'code-intel-node-'))
  cpSync(src, dir, { recursive: true, filter: (p) => !p.endsWith('.done') && !p.includes('.code-intel') })
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** An empty temporary directory (removed when the test ends). */
export function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'code-intel-node-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The code-intel CLI binary (CODE_INTEL_BIN overrides; built by `cargo build --workspace --bins`). */
export function cliBinary() {
  const bin = process.env.CODE_INTEL_BIN ?? join(workspaceDir, 'target', 'debug', 'code-intel')
  if (!existsSync(bin)) {
    throw new Error(`${bin} missing: run cargo build --workspace --bins (or set CODE_INTEL_BIN)`)
  }
  return bin
}

/** Hook input JSON as Claude Code sends it on stdin (shared/docs/CLAUDE_CODE.md §2.3). */
export function hookInput({ session, cwd, tool, input, response }) {
  return JSON.stringify({
    session_id: session,
    cwd,
    hook_event_name: response === undefined ? 'PreToolUse' : 'PostToolUse',
    tool_name: tool,
    tool_input: input,
    ...(response === undefined ? {} : { tool_response: response }),
  })
}
