// node --test reporter: one PASS/FAIL/SKIP line per test and the closing line
// "interop-node: N passed, M failed".
export default async function* reporter(source) {
  let passed = 0
  let failed = 0
  for await (const ev of source) {
    if (ev.type !== 'test:pass' && ev.type !== 'test:fail') continue
    const d = ev.data
    if (d.details?.type === 'suite') {
      if (ev.type === 'test:fail' && d.details?.error?.failureType !== 'subtestsFailed') {
        failed++
        yield `FAIL suite ${d.name}: ${d.details.error?.cause ?? d.details.error}\n`
      }
      continue
    }
    const ms = Math.round(d.details?.duration_ms ?? 0)
    if (d.skip !== undefined) {
      yield `SKIP ${d.name} (${d.skip})\n`
    } else if (ev.type === 'test:pass') {
      passed++
      yield `PASS ${d.name} (${ms} ms)\n`
    } else {
      failed++
      const err = d.details?.error
      yield `FAIL ${d.name} (${ms} ms): ${err?.cause?.stack ?? err?.cause ?? err}\n`
    }
  }
  yield `interop-node: ${passed} passed, ${failed} failed\n`
}
