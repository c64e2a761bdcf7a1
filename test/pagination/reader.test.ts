import t from 'tap'
import { checksumOf, verifyManifest } from '../../lib/client/index.js'

function served (command: Record<string, unknown>): Record<string, unknown> {
  const commands = { 'articles.list': { description: 'Articles', ...command } }
  return { svc: '1.0', name: 'Blog', commands, checksum: checksumOf(commands) }
}

t.test('readers take Surf\'s paginated and rateLimit as served, and what we serve strictly', async (t) => {
  const surf = { paginated: true, rateLimit: { windowMs: 60_000, maxRequests: 100, keyBy: 'ip' } }
  t.same(verifyManifest(served(surf)).errors, [])
  t.same(verifyManifest(served({ paginated: false })).errors, [], 'paginated: false')
  t.same(verifyManifest(served({ paginated: { defaultLimit: 20, maxLimit: 100, style: 'offset' } })).errors, [])
  const ours = { paginated: { style: 'offset', defaultLimit: 10, maxLimit: 50, items: 'articles', total: 'articlesCount' }, rateLimit: { maxRequests: 5, windowMs: 1000 } }
  const strict = { ...served(ours), description: 'Blog', version: '1', baseUrl: 'https://blog.example', events: {}, types: {}, updatedAt: '2025-01-01T00:00:00.000Z' }
  t.same(verifyManifest(strict, { strict: true }).errors, [])
})

t.test('what is there keeps its shape', async (t) => {
  t.match(verifyManifest(served({ rateLimit: { maxRequests: 'many', windowMs: 1000 } })).errors, [/rateLimit\/maxRequests/])
  t.match(verifyManifest(served({ paginated: { maxLimit: 0 } })).errors.join('\n'), /paginated/)
  const strict = { ...served({ rateLimit: { maxRequests: 5, windowMs: 1000, keyBy: 'ip' } }), description: 'Blog', version: '1', baseUrl: 'https://blog.example', events: {}, types: {}, updatedAt: '2025-01-01T00:00:00.000Z' }
  t.match(verifyManifest(strict, { strict: true }).errors.join('\n'), /keyBy/, 'strict: only our fields')
})
