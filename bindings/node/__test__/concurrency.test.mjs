// The binding, the CLI and the MCP server on one repository at once: every session update lands
// (core serialises them with a per-session file lock) and concurrent index syncs both succeed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFile } from 'node:child_process'
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'
import { openRepo } from '../index.js'
import { tempDir, cliBinary } from './helpers.mjs'

const CALLS = 20

/** A minimal MCP client over stdio (newline-delimited JSON-RPC 2.0). */
function mcpServer(t, dir) {
  const child = spawn(cliBinary(), ['--repo', dir, 'serve'], {
    cwd: dir,
    env: { ...process.env, CODE_INTEL_LOG: 'warn' },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  t.after(() => child.kill())
  const waiting = new Map()
  createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line)
    if (msg.id !== undefined && waiting.has(msg.id)) {
      waiting.get(msg.id)(msg)
      waiting.delete(msg.id)
    }
  })
  let next = 1
  const send = (obj) => child.stdin.write(`${JSON.stringify(obj)}\n`)
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = next++
      waiting.set(id, resolve)
      send({ jsonrpc: '2.0', id, method, params })
    })
  return {
    async init() {
      const r = await request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'node-test', version: '0' },
      })
      assert.ok(r.result, JSON.stringify(r))
      send({ jsonrpc: '2.0', method: 'notifications/initialized' })
    },
    async call(name, args) {
      const r = await request('tools/call', { name, arguments: args })
      assert.ok(r.result && !r.result.isError, JSON.stringify(r))
      return r.result
    },
  }
}

test('binding, CLI and MCP server at once lose no session state', async (t) => {
  const dir = tempDir(t)
  mkdirSync(join(dir, 'src'))
  for (let i = 0; i < 30; i++) {
    writeFileSync(join(dir, 'src', `m${i}.py`), `def f${i}(x):\n    return x + ${i}  # node_${i} mcp_${i}\n`)
  }
  const repo = openRepo(dir)
  const session = await repo.startSession({ intent: 'INVESTIGATE', query: 'what do the f functions return' })
  const server = mcpServer(t, dir)
  await server.init()

  const cli = promisify(execFile)(cliBinary(), ['--repo', dir, 'index'])
  const calls = []
  for (let i = 0; i < CALLS; i++) {
    calls.push(session.searchText(`node_${i}\\b`))
    calls.push(server.call('search_text', { pattern: `mcp_${i}\\b`, session_id: session.id }))
  }
  calls.push(repo.index())
  await Promise.all([cli, ...calls])

  const state = JSON.parse(readFileSync(join(dir, '.code-intel', 'sessions', `${session.id}.json`), 'utf8'))
  const patterns = new Set(state.tool_calls.filter((c) => c.tool === 'search_text').map((c) => c.params.pattern))
  for (let i = 0; i < CALLS; i++) {
    assert.ok(patterns.has(`node_${i}\\b`), `binding call ${i} lost`)
    assert.ok(patterns.has(`mcp_${i}\\b`), `MCP call ${i} lost`)
  }
  assert.equal(patterns.size, 2 * CALLS)
  const status = await session.status()
  assert.equal(status.explored_count, CALLS, 'every file matched is explored')
  assert.equal((await repo.status()).needs_sync, false)
})
