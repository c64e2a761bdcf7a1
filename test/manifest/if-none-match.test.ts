import t, { type Test } from 'tap'
import { readyApp } from '../helpers/app.js'

/**
 * Defect: If-None-Match was split on every comma, so the single entity-tag `"x,<checksum>,y"` got a 304,
 * and so did a `*` inside a list. It is now read by its grammar (RFC 9110 §13.1.2): quoted entity-tags may
 * contain commas, and `*` counts only as the whole field value.
 */

const MANIFEST = '/.well-known/svc.json'

async function statusFor (t: Test, ifNoneMatch: string, method: 'GET' | 'HEAD' = 'GET'): Promise<{ status: number, checksum: string }> {
  const app = await readyApp(t, {}, (app) => {
    app.get('/ping', { svc: { description: 'Ping' } }, async () => 'pong')
  })
  const checksum = app.svc.checksum
  const response = await app.inject({ method, url: MANIFEST, headers: { 'if-none-match': ifNoneMatch.replaceAll('SUM', checksum) } })
  return { status: response.statusCode, checksum }
}

const cases: Array<[string, number]> = [
  ['"x,SUM,y"', 200],
  ['W/"x,SUM,y"', 200],
  ['"x, SUM"', 200],
  ['"nope", *', 200],
  ['*, "nope"', 200],
  ['"SUM" *', 200],
  ['"a,b", "SUM"', 304],
  ['"a,b",W/"SUM"', 304],
  ['*', 304],
  ['  *  ', 304],
  ['"SUM"', 304],
  ['SUM', 304]
]

for (const [value, expected] of cases) {
  t.test(`If-None-Match: ${value} → ${expected}`, async (t) => {
    for (const method of ['GET', 'HEAD'] as const) {
      t.equal((await statusFor(t, value, method)).status, expected, method)
    }
  })
}
