import t from 'tap'
import { checksumOf, diffManifests, type Manifest } from '../../lib/client/index.js'

/** A manifest whose one command `teas` has `fields` (paginated, rateLimit). */
function manifest (fields: Record<string, unknown>): Manifest {
  const commands = { teas: { description: 'Teas', params: { cursor: { type: 'string', required: false }, limit: { type: 'number', required: false } }, ...fields } }
  return { svc: '1.0', name: 'Shop', description: 'Shop', version: '1', baseUrl: 'https://shop.example', commands, events: {}, types: {}, checksum: checksumOf(commands), updatedAt: '2025-01-01T00:00:00.000Z' } as Manifest
}

/** The changes from `before` to `after` as `breaking|safe: message`. */
function changes (before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const { breaking, nonBreaking } = diffManifests(manifest(before), manifest(after))
  return [...breaking.map((change) => `breaking ${change.kind}: ${change.message}`), ...nonBreaking.map((change) => `safe ${change.kind}: ${change.message}`)]
}

t.test('a rate limit that comes, goes or changes never breaks a client', async (t) => {
  const limit = { maxRequests: 100, windowMs: 60_000 }
  t.same(changes({}, { rateLimit: limit }), ['safe rateLimit.changed: command teas is now rate-limited to 100 requests per 60000 ms'])
  t.same(changes({ rateLimit: limit }, { rateLimit: { maxRequests: 10, windowMs: 60_000 } }), ['safe rateLimit.changed: command teas rate limit changed from 100 requests per 60000 ms to 10 requests per 60000 ms'])
  t.same(changes({ rateLimit: limit }, {}), ['safe rateLimit.changed: command teas is no longer rate-limited'])
  t.same(changes({ rateLimit: limit }, { rateLimit: { ...limit } }), [])
})

t.test('becoming paginated, or walking pages another way, breaks; new limits or no pages do not', async (t) => {
  t.same(changes({}, { paginated: true }), ['breaking paginated.changed: command teas is now paginated: it answers one page at a time'])
  t.same(changes({ paginated: true }, {}), ['safe paginated.changed: command teas is no longer paginated'])
  t.same(changes({ paginated: true }, { paginated: { style: 'cursor', defaultLimit: 10, maxLimit: 50 } }), ['safe paginated.changed: command teas: pagination changed (defaultLimit 20 → 10, maxLimit 100 → 50)'])
  t.same(changes({ paginated: true }, { paginated: { style: 'offset', defaultLimit: 20, maxLimit: 100 } }), ['breaking paginated.changed: command teas: pagination changed (style "cursor" → "offset")'])
  t.same(changes({ paginated: { style: 'cursor', defaultLimit: 20, maxLimit: 100, items: 'teas' } }, { paginated: true }), ['breaking paginated.changed: command teas: pagination changed (items "teas" → "items")'])
  t.same(changes({ paginated: false }, { paginated: true }), ['breaking paginated.changed: command teas is now paginated: it answers one page at a time'], 'Surf\'s paginated: false is no pages')
  t.same(changes({ paginated: true }, { paginated: true }), [])
})
