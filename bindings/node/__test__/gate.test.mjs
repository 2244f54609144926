// The gate functions and the error contract, on a small repository made here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openRepo, decidePreToolUse, recordPostToolUse } from '../index.js'
import { tempDir, hookInput } from './helpers.mjs'

function smallRepo(t) {
  const dir = tempDir(t)
  mkdirSync(join(dir, 'src'))
  writeFileSync(join(dir, 'src', 'tax.py'), 'RATES = {"US": 0.07}\n\ndef tax_rate(region):\n    return RATES[region]\n')
  return dir
}

test('a write without a session is denied, naming start_session', async (t) => {
  const dir = smallRepo(t)
  const input = hookInput({
    session: 'claude-1',
    cwd: dir,
    tool: 'Write',
    input: { file_path: join(dir, 'src', 'new.py'), content: 'x = 1\n' },
  })
  const v = await decidePreToolUse(input, { projectDir: dir })
  assert.equal(v.decision, 'deny')
  assert.match(v.reason, /start_session/)
})

test('a read-only tool is allowed', async (t) => {
  const dir = smallRepo(t)
  const input = hookInput({ session: 'claude-1', cwd: dir, tool: 'Read', input: { file_path: join(dir, 'src', 'tax.py') } })
  assert.equal((await decidePreToolUse(input, { projectDir: dir })).decision, 'allow')
})

test('unreadable hook input is denied, never thrown', async () => {
  const v = await decidePreToolUse('{ not json', { projectDir: '/nonexistent' })
  assert.equal(v.decision, 'deny')
  assert.match(v.reason, /hook input/)
})

test('PostToolUse binds a Claude Code session after start_session and records reads', async (t) => {
  const dir = smallRepo(t)
  const repo = openRepo(dir)
  const session = await repo.startSession({ intent: 'INVESTIGATE', query: 'how is tax computed' })
  const bound = await recordPostToolUse(
    hookInput({
      session: 'claude-2',
      cwd: dir,
      tool: 'mcp__code-intel__start_session',
      input: {},
      response: JSON.stringify({ session_id: session.id }),
    }),
    { projectDir: dir },
  )
  assert.equal(bound.bound_session, session.id)
  const read = await recordPostToolUse(
    hookInput({ session: 'claude-2', cwd: dir, tool: 'Read', input: { file_path: join(dir, 'src', 'tax.py') }, response: {} }),
    { projectDir: dir },
  )
  assert.deepEqual(read.recorded_files, ['src/tax.py'])
  assert.deepEqual(await session.exploredFiles(), ['src/tax.py'])
  await assert.rejects(recordPostToolUse('[]', { projectDir: dir }), { code: 'BAD_HOOK_INPUT' })
})

test('errors carry a stable code and a hint', async (t) => {
  const dir = smallRepo(t)
  const repo = openRepo(dir)
  assert.throws(() => openRepo(join(dir, 'missing')), (e) => e.code === 'BAD_REPOSITORY' && e.hint.length > 0)
  await assert.rejects(repo.startSession({ intent: 'REWRITE', query: 'q' }), { code: 'INVALID_ARGUMENT' })
  await assert.rejects(repo.session('20200101-000000-abcdef').status(), { code: 'UNKNOWN_SESSION' })
  await assert.rejects(repo.session('../etc').status(), { code: 'INVALID_SESSION_ID' })
  const s = await repo.startSession({ intent: 'MODIFY', query: 'change the US rate' })
  // submit_semantic is not allowed in EXPLORATION (core's phase matrix).
  await assert.rejects(
    s.submitSemantic({ hypotheses: [{ text: 'h' }], semanticReason: 'no_definition_found' }),
    (e) => e.code === 'PHASE_VIOLATION' && /EXPLORATION/.test(e.message),
  )
  await assert.rejects(s.submitUnderstanding({ symbols_identified: 'tax_rate' }), { code: 'INVALID_ARGUMENT' })
  await assert.rejects(s.recordOutcome({ outcome: 'great' }), { code: 'INVALID_ARGUMENT' })
})
