// The binding against a real corpus (the Flask sdist of scripts/fetch-corpora.sh): index, search,
// exploration, a MODIFY session to READY with an allowed and a denied write (as a session call and
// through the gate), an outcome recorded, and the map.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openRepo, decidePreToolUse } from '../index.js'
import { corpus, copyTree, hookInput } from './helpers.mjs'

const REQUEST =
  'When a blueprint is registered twice under the same name, the app silently accepts it; ' +
  'change register_blueprint to raise a ValueError.'

function pyFiles(dir, rel = '') {
  const out = []
  for (const name of readdirSync(join(dir, rel))) {
    const r = rel ? `${rel}/${name}` : name
    if (statSync(join(dir, r)).isDirectory()) out.push(...pyFiles(dir, r))
    else if (name.endsWith('.py')) out.push(r)
  }
  return out
}

test('Flask: index, search, a session to READY, the gate, an outcome and the map', async (t) => {
  const dir = copyTree(t, corpus('flask'))
  const repo = openRepo(dir, { claudeSessionId: 'node-corpus-test' })

  // Index, with progress reported on the JavaScript thread.
  const stages = new Set()
  const report = await repo.index({ onProgress: (p) => stages.add(p.stage) })
  assert.ok(report.sync, 'a first index() syncs')
  assert.ok(report.sync.files_added > 50, `files indexed: ${report.sync.files_added}`)
  assert.ok(report.stats.chunks > report.stats.files)
  await new Promise((r) => setImmediate(r)) // let queued progress calls run
  assert.ok(stages.has('walked') && stages.has('committing'), [...stages].join(','))
  const again = await repo.index()
  assert.equal(again.sync, null, 'an unchanged repository needs no sync')

  // Ranked search with score explanations.
  const found = await repo.search('register a blueprint on the application', { top: 5 })
  assert.equal(found.results.mode, 'lexical')
  assert.ok(found.results.hits.length > 0)
  assert.ok(
    found.results.hits.some((h) => h.file.includes('blueprints.py') || h.file.endsWith('app.py')),
    found.results.hits.map((h) => h.file).join(', '),
  )
  for (const h of found.results.hits) assert.ok(h.explanation.parts.length > 0, JSON.stringify(h))
  await assert.rejects(repo.search('x', { mode: 'telepathy' }), { code: 'INVALID_ARGUMENT' })

  // Exploration tools without a session.
  const defs = await repo.findDefinitions('register_blueprint')
  assert.ok(defs.total >= 1)
  const defFiles = [...new Set(defs.definitions.map((d) => d.file))]
  assert.ok(defFiles.every((f) => f.startsWith('src/flask/')), defFiles.join(', '))
  const structure = await repo.analyzeStructure(defFiles[0])
  assert.ok(structure.files[0].symbols.length > 0)
  const def = defs.definitions[0]
  const at = await repo.functionAtLine(def.file, def.line + 1)
  assert.equal(at.function?.name, 'register_blueprint')
  await assert.rejects(repo.searchText('(unclosed'), { code: 'BAD_REGEX' })
  await assert.rejects(repo.analyzeStructure('../outside'), (e) => {
    assert.equal(e.code, 'OUTSIDE_REPOSITORY')
    assert.ok(e.hint.length > 0)
    return true
  })

  // A MODIFY session to READY.
  const session = await repo.startSession({ intent: 'MODIFY', query: REQUEST })
  assert.match(session.id, /^\d{8}-\d{6}-[0-9a-f]{6}$/)
  const frame = await session.setQueryFrame({
    target_feature: { value: 'blueprint registration', quote: 'register_blueprint' },
    trigger_condition: {
      value: 'same blueprint name registered twice',
      quote: 'When a blueprint is registered twice under the same name',
    },
    observed_issue: { value: 'accepted silently', quote: 'the app silently accepts it' },
    desired_action: { value: 'raise ValueError', quote: 'raise a ValueError' },
  })
  assert.ok(frame.success, JSON.stringify(frame))
  const early = await session.checkWriteTarget(defFiles[0])
  assert.equal(early.allowed, false, 'no write in EXPLORATION')
  await session.findDefinitions('register_blueprint')
  const refs = await session.findReferences('register_blueprint')
  assert.ok(refs.total > 0)
  await session.searchText('def register_blueprint', { literal: true })
  // The symbol that implements the target feature, confirmed with evidence (the real model).
  const confirmed = await session.confirmSymbolRelevance({
    claims: [
      {
        symbol: 'register_blueprint',
        code_evidence: 'App.register_blueprint(blueprint, **options) registers a Blueprint on the application',
      },
    ],
  })
  assert.equal(confirmed.results[0]?.approved, true, JSON.stringify(confirmed))
  const understood = await session.submitUnderstanding({
    symbols_identified: ['register_blueprint', 'Blueprint', 'BlueprintSetupState'],
    entry_points: ['App.register_blueprint'],
    files_analyzed: defFiles,
    existing_patterns: ['blueprints record deferred setup functions run by register()'],
  })
  assert.equal(understood.next_phase, 'READY', JSON.stringify(understood))
  const status = await session.status()
  assert.equal(status.phase, 'READY')
  assert.ok(status.tools_used.includes('find_references'), status.tools_used.join(','))

  // An allowed and a denied write, as session calls ...
  const explored = await session.exploredFiles()
  const target = defFiles[0]
  assert.ok(explored.includes(target))
  const allowed = await session.checkWriteTarget(target)
  assert.equal(allowed.allowed, true, JSON.stringify(allowed))
  const unexplored = pyFiles(dir, 'src/flask').map((f) => `src/flask/${f}`).find((f) => !explored.includes(f))
  assert.ok(unexplored, 'some Flask module was not explored')
  const denied = await session.checkWriteTarget(unexplored)
  assert.equal(denied.allowed, false)
  assert.ok(Object.keys(denied.recovery_options).length > 0, JSON.stringify(denied))

  // ... and through the gate, as a Claude Code hook bound to this session sees them.
  const edit = (file) =>
    hookInput({
      session: 'node-corpus-test',
      cwd: dir,
      tool: 'Edit',
      input: { file_path: join(dir, file), old_string: 'a', new_string: 'b' },
    })
  const gateAllowed = await decidePreToolUse(edit(target), { projectDir: dir })
  assert.equal(gateAllowed.decision, 'allow', gateAllowed.reason)
  assert.equal(gateAllowed.reason, undefined)
  const gateDenied = await decidePreToolUse(edit(unexplored), { projectDir: dir })
  assert.equal(gateDenied.decision, 'deny')
  assert.ok(gateDenied.reason.includes(unexplored), gateDenied.reason)

  // The outcome ends the session, teaches the map the confirmed symbol and shows in insights().
  const outcome = await session.recordOutcome({ outcome: 'success', analysis: 'duplicate names now raise' })
  assert.equal(outcome.session_ended, true)
  assert.equal(outcome.map_updated, true, JSON.stringify(outcome))
  assert.equal((await session.status()).ended?.outcome, 'success')
  const insights = await repo.insights()
  assert.equal(insights.total_sessions_with_outcomes, 1)
  assert.equal(insights.outcomes.successes, 1)
  const map = await repo.searchMap('how is a blueprint registration done')
  assert.equal(map.hits[0]?.symbol, 'register_blueprint', JSON.stringify(map))
  assert.equal(map.hits[0]?.strong, true)
  assert.equal(map.hits[0]?.session_id, session.id)
  // A pair added by hand joins it.
  const added = await repo.addAgreement({
    nlTerm: 'blueprint mounting',
    symbol: 'register_blueprint',
    codeEvidence: 'App.register_blueprint calls Blueprint.register with the options',
    relatedFiles: [target],
    sessionId: session.id,
  })
  assert.deepEqual(added.warnings, [], 'register_blueprint is defined, so the entry is not stale')
  assert.equal((await repo.listAgreements()).total, 2)
  assert.equal((await repo.searchMap('blueprint mounting')).hits[0]?.nl_term, 'blueprint mounting')
  const listing = await repo.listSessions()
  assert.equal(listing[0].session_id, session.id)
})
