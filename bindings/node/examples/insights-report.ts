#!/usr/bin/env node
// A small report of code-intel's learning loop for a repository: outcomes of recent sessions,
// the tools and risk levels that go with failures, and the commonest failure points.
//
//   node examples/dist/insights-report.js <repo> [limit]
import { openRepo, type Correlation } from '@code-intel/node'

function rate(c: Correlation): string {
  return `${c.sessions} session(s), ${c.successes} success, ${c.failures} failure, ${c.partials} partial (failure rate ${(c.failure_rate * 100).toFixed(0)} %)`
}

async function main(): Promise<void> {
  const [path, limit] = process.argv.slice(2)
  if (path === undefined) throw new Error('usage: insights-report <repo> [limit]')
  const repo = openRepo(path)
  const i = await repo.insights(limit === undefined ? {} : { limit: Number(limit) })
  const lines = [
    `# code-intel insights for ${repo.root}`,
    '',
    `Sessions with an outcome: ${i.total_sessions_with_outcomes} (of the last ${i.limit} analysed)`,
    `Outcomes: ${rate(i.outcomes)}`,
    '',
    '## Tools',
    ...Object.entries(i.tool_failure_correlation).map(([tool, c]) => `- ${tool}: ${rate(c)}`),
    '',
    '## Risk levels',
    ...Object.entries(i.risk_level_correlation).map(([risk, c]) => `- ${risk}: ${rate(c)}`),
    '',
    '## Common failure points',
    ...Object.entries(i.common_failure_points)
      .sort((a, b) => b[1] - a[1])
      .map(([point, n]) => `- ${point}: ${n}`),
  ]
  console.log(lines.join('\n'))
}

main().catch((e: unknown) => {
  console.error(`insights-report: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(1)
})
