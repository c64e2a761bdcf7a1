// Defect: `max-age=1e308` gave Infinity freshness (the client never asked again), a negative `Age`
// extended freshness, and `max-age=0x10` was read as 16. RFC 9111 §1.2.2: delta-seconds are digits
// only, and one too large to represent counts as 2^31 seconds.
import t, { type Test } from 'tap'
import { createManifestClient } from '../../lib/client/index.js'
import { manifestOf, rawServer, sendJson } from '../helpers/raw-server.js'

const START = Date.parse('2025-01-01T00:00:00.000Z')

/** The status of a first get() and then of one get() after each advance of the clock. */
async function statuses (t: Test, headers: Record<string, string>, advances: number[]): Promise<string[]> {
  const { origin } = await rawServer(t, (request, response) => sendJson(response, manifestOf(), headers))
  const clock = { ms: START }
  const client = createManifestClient({ url: `${origin}/svc.json`, now: () => clock.ms })
  const seen = [(await client.get()).status]
  for (const ms of advances) {
    clock.ms += ms
    seen.push((await client.get()).status)
  }
  return seen
}

const TWO_TO_31_SECONDS = 2 ** 31 * 1000

t.test('max-age=1e308 is not a number of seconds: no max-age, so every get() asks', async (t) => {
  t.same(await statuses(t, { 'cache-control': 'max-age=1e308' }, [0]), ['fetched', 'revalidated'])
})

t.test('a huge max-age in digits counts as 2^31 seconds: long, never forever', async (t) => {
  const huge = { 'cache-control': `max-age=${'9'.repeat(400)}` }
  t.same(await statuses(t, huge, [TWO_TO_31_SECONDS - 1, 1]), ['fetched', 'fresh', 'revalidated'])
  const justOver = { 'cache-control': 'max-age=2147483649' }
  t.same(await statuses(t, justOver, [TWO_TO_31_SECONDS - 1, 1]), ['fetched', 'fresh', 'revalidated'])
})

t.test('a negative Age does not extend freshness', async (t) => {
  t.same(await statuses(t, { 'cache-control': 'max-age=60', age: '-100' }, [59_999, 1]), ['fetched', 'fresh', 'revalidated'])
  t.same(await statuses(t, { 'cache-control': 'max-age=60', age: '1e1' }, [59_999, 1]), ['fetched', 'fresh', 'revalidated'])
  t.same(await statuses(t, { 'cache-control': 'max-age=60', age: ' 10 ' }, [49_999, 1]), ['fetched', 'fresh', 'revalidated'], 'digits, trimmed, count')
  t.same(await statuses(t, { 'cache-control': 'max-age=60', age: '99999999999' }, [0]), ['fetched', 'revalidated'], 'an Age past max-age: stale')
})

t.test('max-age other than digits is no max-age: 0x10, -1, 1.5, +5, empty', async (t) => {
  for (const value of ['0x10', '-1', '1.5', '+5', '', ' 5', '5s']) {
    t.same(await statuses(t, { 'cache-control': `public, max-age=${value}` }, [0]), ['fetched', 'revalidated'], `max-age=${value}`)
  }
})

t.test('the quoted form is accepted (RFC 9111 §5.2); conflicting duplicates mean stale', async (t) => {
  t.same(await statuses(t, { 'cache-control': 'max-age="60"' }, [59_999, 1]), ['fetched', 'fresh', 'revalidated'])
  t.same(await statuses(t, { 'cache-control': 'max-age="0x10"' }, [0]), ['fetched', 'revalidated'])
  t.same(await statuses(t, { 'cache-control': 'max-age=60, max-age=600' }, [0]), ['fetched', 'revalidated'])
  t.same(await statuses(t, { 'cache-control': 'MAX-AGE=0010' }, [9_999, 1]), ['fetched', 'fresh', 'revalidated'], 'case-insensitive, leading zeros')
})
