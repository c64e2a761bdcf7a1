import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import t from 'tap'
import { checksumOf } from '../../lib/index.js'

/**
 * checksumOf must equal sha256 of the `canonicalize` package's RFC 8785 output for every JSON value, whatever
 * the keys: array-index-like keys, `__proto__` and other Object.prototype names, unicode outside the BMP.
 */

/** mulberry32: a small seeded generator, so a failure replays with its seed. */
function random (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6D2B79F5) >>> 0
    let x = state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

const KEYS = [
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '0', '1', '10', '2', '01', '-1', '1.5',
  '4294967294', '4294967295', '9007199254740993', '', ' ', 'a', 'B', 'b', 'é', 'e\u0301', '\u{1F600}', '\uFFFF',
  '\u00e9t\u00e9', 'a\u0000b', 'description', 'params', 'type', 'required', 'default', 'Z', 'z', '\u2028', '"', '\\'
]
const NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 123456789012, -3.5, 2 ** 53, 1 / 3]
// A backslash then `ud` reads like the escape of a lone surrogate in JSON text: such values take the slower path.
const STRINGS = ['', 'plain', 'é', '\u{1F600}', 'line\nbreak', '\u0000\u001f', '"quoted"', '\\', '\u2028\u2029', '<script>', 'Ω≈ç√', 'C:\\udir', '\\ud800']

function valueOf (next: () => number, depth: number): unknown {
  const pick = next()
  if (depth > 4 || pick < 0.35) return leaf(next)
  if (pick < 0.55) return Array.from({ length: Math.floor(next() * 5) }, () => valueOf(next, depth + 1))
  return objectOf(next, depth)
}

function leaf (next: () => number): unknown {
  const pick = next()
  if (pick < 0.1) return null
  if (pick < 0.2) return next() < 0.5
  if (pick < 0.5) return NUMBERS[Math.floor(next() * NUMBERS.length)]
  if (pick < 0.6) return Math.round((next() - 0.5) * 1e6) / (next() < 0.5 ? 1 : 1000)
  if (pick < 0.85) return STRINGS[Math.floor(next() * STRINGS.length)]
  return String.fromCodePoint(...Array.from({ length: Math.floor(next() * 6) }, () => Math.floor(next() * 0x2ffff) % 0xd800))
}

/** Keys defined as own data properties, so `__proto__` is a key and not the prototype. */
function objectOf (next: () => number, depth: number): Record<string, unknown> {
  const object: Record<string, unknown> = next() < 0.5 ? {} : Object.create(null)
  // Now and then more keys than an object of the wire format has, which are sorted another way.
  const count = next() < 0.05 ? 17 + Math.floor(next() * 12) : Math.floor(next() * 7)
  for (let index = 0; index < count; index++) {
    const key = KEYS[Math.floor(next() * KEYS.length)]
    Object.defineProperty(object, key, { value: valueOf(next, depth + 1), enumerable: true, writable: true, configurable: true })
  }
  return object
}

/** A commands map shaped like the wire format, with random names, params and defaults. */
function commandsOf (next: () => number): Record<string, unknown> {
  const commands: Record<string, unknown> = {}
  const count = 1 + Math.floor(next() * 4)
  for (let index = 0; index < count; index++) {
    const params = objectOf(next, 3)
    for (const name of Object.keys(params)) {
      params[name] = { type: 'string', required: next() < 0.5, default: valueOf(next, 2), description: leaf(next) }
    }
    commands[`cmd${index}.${Math.floor(next() * 100)}`] = { description: 'Command', params, tags: ['a', 'b'], hints: { sideEffects: next() < 0.5, idempotent: true } }
  }
  return commands
}

function reference (value: unknown): string {
  return createHash('sha256').update(canonicalize(value) as string, 'utf8').digest('hex')
}

const CASES = 3000

t.test('checksumOf equals sha256(canonicalize()) on random JSON values', async (t) => {
  let mismatches = 0
  for (let seed = 1; seed <= CASES; seed++) {
    const value = seed % 2 === 0 ? commandsOf(random(seed)) : objectOf(random(seed), 0)
    if (checksumOf(value as never) !== reference(value)) {
      mismatches++
      t.fail(`seed ${seed}: ${canonicalize(value)}`)
    }
  }
  t.equal(mismatches, 0, `${CASES} seeded values`)
})

t.test('a __proto__ key is kept in the checksum, at any depth, and leaves Object.prototype alone', async (t) => {
  const commands = JSON.parse('{"x":{"description":"X","params":{"__proto__":{"type":"object","required":false,"default":{"__proto__":{"b":1,"a":2}}}}}}')
  const withoutIt = JSON.parse('{"x":{"description":"X","params":{}}}')
  t.equal(checksumOf(commands), reference(commands))
  t.not(checksumOf(commands), checksumOf(withoutIt), 'the key counts')
  t.notOk('a' in Object.prototype || 'b' in Object.prototype, 'no prototype was written')
})

t.test('a command field added to the wire format is in the checksum without any other change', async (t) => {
  const { default: Fastify } = await import('fastify')
  const { default: svcManifest } = await import('../../lib/index.js')
  const app = Fastify()
  await app.register(svcManifest, { name: 'S', description: 'S', version: '1.0.0', baseUrl: 'https://s.example' })
  app.get('/search', { svc: { description: 'Search', hints: { idempotent: true } } }, async () => [])
  await app.ready()
  const served = structuredClone(app.svc.manifest.commands) as Record<string, Record<string, unknown>>
  const extended = structuredClone(served)
  extended.search.deprecated = { since: '2.0.0', use: 'find' }
  t.equal(checksumOf(served as never), app.svc.checksum, 'the served checksum verifies')
  t.equal(checksumOf(extended as never), reference(extended), 'the new field is canonicalised like any other')
  t.not(checksumOf(extended as never), app.svc.checksum, 'and changes the checksum')
  await app.close()
})
