// Hybrid search from Node over the vectors `code-intel index --embed` wrote (the real model of
// `code-intel model fetch` / scripts/model/fetch.sh), and the lexical fallback without them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openRepo } from '../index.js'
import { tempDir, cliBinary } from './helpers.mjs'

function smallRepo(t) {
  const dir = tempDir(t)
  mkdirSync(join(dir, 'src'))
  writeFileSync(join(dir, 'src', 'tax.py'), 'RATES = {"US": 0.07}\n\ndef tax_rate(region):\n    """Sales tax rate of a region."""\n    return RATES[region]\n')
  writeFileSync(join(dir, 'src', 'mail.py'), 'def send_password_reset(user):\n    """Email the user a link to choose a new password."""\n    return f"mailto:{user}"\n')
  return dir
}

test('without vectors a hybrid search is answered lexically, with a note', async (t) => {
  const repo = openRepo(smallRepo(t))
  const r = await repo.search('password reset email', { mode: 'hybrid' })
  assert.equal(r.results.mode, 'lexical')
  assert.ok(r.results.notes.some((n) => /embeddings/.test(n)), r.results.notes.join(' | '))
})

test('index({ embed: true }) embeds from Node, reports progress, and the search is hybrid', async (t) => {
  const dir = smallRepo(t)
  const repo = openRepo(dir)
  const stages = new Set()
  const r = await repo.index({ embed: true, onProgress: (p) => stages.add(p.stage) })
  assert.ok(r.embed && r.embed.embedded > 0 && !r.embed.busy, JSON.stringify(r.embed))
  assert.equal(r.embed.coverage.pending_texts, 0, JSON.stringify(r.embed))
  await new Promise((resolve) => setImmediate(resolve))
  assert.ok(stages.has('embedding'), [...stages].join(','))
  const again = await repo.index({ embed: true })
  assert.equal(again.embed.embedded, 0, 'nothing left to embed')
  const s = await repo.search('forgot my login secret', { mode: 'hybrid', top: 2 })
  assert.equal(s.results.mode, 'hybrid', JSON.stringify(s.results.notes))
  assert.equal(s.results.hits[0]?.file, 'src/mail.py', JSON.stringify(s.results.hits.map((h) => [h.file, h.score])))
})

test('with vectors from `code-intel index --embed` the search is hybrid', async (t) => {
  const dir = smallRepo(t)
  execFileSync(cliBinary(), ['--repo', dir, 'index', '--embed'], { stdio: ['ignore', 'ignore', 'inherit'] })
  const repo = openRepo(dir)
  const r = await repo.search('forgot my login secret', { mode: 'hybrid', top: 2 })
  assert.equal(r.results.mode, 'hybrid', JSON.stringify(r.results.notes))
  assert.equal(r.results.hits[0]?.file, 'src/mail.py', JSON.stringify(r.results.hits.map((h) => [h.file, h.score])))
  const v = await repo.search('forgot my login secret', { mode: 'vector', top: 1 })
  assert.equal(v.results.mode, 'vector')
})
