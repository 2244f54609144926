// The SEMANTIC → VERIFICATION → READY path, addExploredFiles and revertToExploration, on a small
// repository made here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openRepo } from '../index.js'
import { tempDir } from './helpers.mjs'

test('a thin understanding goes through SEMANTIC and VERIFICATION to READY', async (t) => {
  const dir = tempDir(t)
  mkdirSync(join(dir, 'src'))
  writeFileSync(join(dir, 'src', 'tax.py'), 'RATES = {"US": 0.07}\n\ndef tax_rate(region):\n    return RATES[region]\n')
  writeFileSync(
    join(dir, 'src', 'invoice.py'),
    'from tax import tax_rate\n\nclass Invoice:\n    def total(self, region, amount):\n        return amount * (1 + tax_rate(region))\n',
  )
  mkdirSync(join(dir, 'lib'))
  writeFileSync(join(dir, 'lib', 'other.py'), 'X = 1\n')
  const repo = openRepo(dir)
  const s = await repo.startSession({ intent: 'MODIFY', query: 'change the US tax rate to 0.08' })
  await s.findDefinitions('tax_rate')
  await s.findReferences('tax_rate')
  const u = await s.submitUnderstanding({
    symbols_identified: ['tax_rate'],
    entry_points: [],
    files_analyzed: ['src/tax.py'],
    existing_patterns: [],
  })
  assert.equal(u.next_phase, 'SEMANTIC', JSON.stringify(u))
  assert.ok(u.missing_requirements.some((m) => m.requirement === 'entry_points'))
  assert.equal((await s.checkWriteTarget('src/tax.py')).allowed, false, 'no write in SEMANTIC')

  const sem = await s.submitSemantic({
    hypotheses: [{ text: 'Invoice.total applies tax_rate', symbol: 'Invoice' }],
    semanticReason: u.allowed_semantic_reasons[0],
  })
  assert.equal(sem.next_phase, 'VERIFICATION', JSON.stringify(sem))
  await s.findReferences('tax_rate')
  const v = await s.submitVerification([
    {
      hypothesis_id: 'h1',
      status: 'confirmed',
      evidence: { tool: 'find_references', target: 'tax_rate', result: 'Invoice.total calls tax_rate in src/invoice.py' },
    },
  ])
  assert.equal(v.next_phase, 'READY', JSON.stringify(v))
  assert.equal((await s.checkWriteTarget('src/tax.py')).allowed, true)

  // A new file in an explored directory needs allowNewFiles; addExploredFiles refuses a file never
  // read in this session (it is neither explored nor new).
  assert.equal((await s.checkWriteTarget('src/vat.py')).allowed, false)
  assert.equal((await s.checkWriteTarget('src/vat.py', { allowNewFiles: true })).allowed, true)
  const added = await s.addExploredFiles(['lib/other.py'])
  assert.deepEqual(added.added, [])
  assert.equal(added.rejected.length, 1, JSON.stringify(added))

  const back = await s.revertToExploration({ keepResults: true })
  assert.deepEqual([back.previous_phase, back.phase, back.kept_results], ['READY', 'EXPLORATION', true])
  assert.equal((await s.checkWriteTarget('src/tax.py')).allowed, false)
  assert.ok((await s.exploredFiles()).includes('src/tax.py'))
})
