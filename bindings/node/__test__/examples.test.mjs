// The examples (compiled by `npm run build:examples`) run as the processes users would run.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync, appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { openRepo, recordPostToolUse } from '../index.js'
import { packageDir, tempDir, hookInput } from './helpers.mjs'

function example(name) {
  const file = join(packageDir, 'examples', 'dist', `${name}.js`)
  if (!existsSync(file)) throw new Error(`${file} missing: run npm run build:examples in bindings/node`)
  return file
}

function run(name, args, stdin) {
  const env = { ...process.env }
  delete env.CLAUDE_PROJECT_DIR
  return spawnSync(process.execPath, [example(name), ...args], { input: stdin ?? '', encoding: 'utf8', env })
}

function gitRepo(t) {
  const dir = tempDir(t)
  mkdirSync(join(dir, 'src'))
  writeFileSync(join(dir, 'src', 'tax.py'), 'RATES = {"US": 0.07}\n\ndef tax_rate(region):\n    return RATES[region]\n')
  writeFileSync(join(dir, 'src', 'cart.py'), 'def total(items):\n    return sum(items)\n')
  writeFileSync(join(dir, '.gitignore'), '.code-intel/\n')
  const git = (...a) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...a])
  git('init', '-q')
  git('add', '.')
  git('commit', '-qm', 'init')
  return dir
}

test('pre-tool-use hook: the gate denies, its own rule denies, reads pass', (t) => {
  const dir = gitRepo(t)
  const write = (file) =>
    hookInput({ session: 'c1', cwd: dir, tool: 'Write', input: { file_path: join(dir, file), content: 'x' } })

  const gated = run('pre-tool-use', [], write('src/new.py'))
  assert.equal(gated.status, 2, gated.stderr)
  const out = JSON.parse(gated.stdout)
  assert.equal(out.hookSpecificOutput.permissionDecision, 'deny')
  assert.equal(out.hookSpecificOutput.hookEventName, 'PreToolUse')
  assert.match(gated.stderr, /start_session/)

  const own = run('pre-tool-use', [], write('.env.local'))
  assert.equal(own.status, 2)
  assert.match(JSON.parse(own.stdout).hookSpecificOutput.permissionDecisionReason, /^project rule: /)

  const read = run('pre-tool-use', [], hookInput({ session: 'c1', cwd: dir, tool: 'Read', input: { file_path: join(dir, 'src', 'tax.py') } }))
  assert.equal(read.status, 0, read.stderr)
  assert.equal(read.stdout, '', 'allow is silence')

  const garbage = run('pre-tool-use', [], 'not json')
  assert.equal(garbage.status, 2, 'unreadable input fails closed')
})

test('ci-check: passes for explored files, fails for a change outside them', async (t) => {
  const dir = gitRepo(t)
  const repo = openRepo(dir)
  const session = await repo.startSession({ intent: 'MODIFY', query: 'change the US rate' })
  await recordPostToolUse(
    hookInput({ session: 'c2', cwd: dir, tool: 'mcp__code-intel__start_session', input: {}, response: { session_id: session.id } }),
    { projectDir: dir },
  )
  await recordPostToolUse(
    hookInput({ session: 'c2', cwd: dir, tool: 'Read', input: { file_path: join(dir, 'src', 'tax.py') }, response: {} }),
    { projectDir: dir },
  )

  appendFileSync(join(dir, 'src', 'tax.py'), '# 0.08 from 2027\n')
  const inside = run('ci-check', [dir, '--session', session.id])
  assert.equal(inside.status, 0, inside.stderr)
  assert.match(inside.stdout, /1 changed file\(s\), all explored/)

  appendFileSync(join(dir, 'src', 'cart.py'), '# rounding\n')
  writeFileSync(join(dir, 'src', 'new.py'), 'x = 1\n')
  const outside = run('ci-check', [dir]) // the latest session by default
  assert.equal(outside.status, 1, outside.stdout)
  assert.match(outside.stderr, /2 changed file\(s\) outside/)
  assert.match(outside.stderr, /src\/cart\.py/)
  assert.match(outside.stderr, /src\/new\.py/)
  assert.doesNotMatch(outside.stderr, /src\/tax\.py/)

  const unknown = run('ci-check', [dir, '--session', '20200101-000000-abcdef'])
  assert.equal(unknown.status, 2)
  assert.match(unknown.stderr, /unknown session/)
})

test('insights-report prints the outcomes', async (t) => {
  const dir = gitRepo(t)
  const repo = openRepo(dir)
  const a = await repo.startSession({ intent: 'MODIFY', query: 'change the US rate' })
  await a.recordOutcome({ outcome: 'failure', analysis: 'edited the wrong file' })
  const b = await repo.startSession({ intent: 'INVESTIGATE', query: 'where is tax computed' })
  await b.recordOutcome({ outcome: 'success' })
  const r = run('insights-report', [dir])
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stdout, /Sessions with an outcome: 2/)
  assert.match(r.stdout, /1 success, 1 failure/)
})
