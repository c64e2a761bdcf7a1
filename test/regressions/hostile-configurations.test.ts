import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { verifyManifest } from '../../lib/client/index.js'

/**
 * A seeded fuzz of whole configurations (issue 11, "Prove it"): options, types, events and routes drawn at
 * random, with hostile names (`__proto__`, `constructor`, index-like, empty, non-BMP) and hostile schemas
 * (boolean, null, cyclic, very deep, non-JSON constants and defaults, unknown types and refs), some of them
 * on routes that Fastify's own Ajv compiles. For each, `ready()` either rejects with an FST_SVC_* error, or
 * the app serves a manifest that passes verifyManifest, whose checksum is sha256 of the `canonicalize`
 * package's RFC 8785 form of its commands, and in which every param, field, property and type of the input
 * is present, in order. Object.prototype is never touched. A failure names its seed: rerun it alone with
 * `SEED=<n>`.
 */

const CASES = 2400
/** One case in this many runs with Fastify's real validator compiler (Ajv); the rest stub the compilers. */
const AJV_EVERY = 16

/** mulberry32: a small seeded generator, so a failure replays with its seed. */
class Dice {
  private state: number
  constructor (seed: number) { this.state = seed >>> 0 }
  next (): number {
    this.state = (this.state + 0x6D2B79F5) >>> 0
    let x = this.state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }

  int (below: number): number { return Math.floor(this.next() * below) }
  chance (probability: number): boolean { return this.next() < probability }
  pick<T> (list: readonly T[]): T { return list[this.int(list.length)] }
}

const FIELD_NAMES = [
  '__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'a', 'b', 'q', 'limit', 'type', 'properties',
  'required', 'default', '$ref', '$id', '0', '10', '01', 'é', '\u{1F600}', 'two words', ''
]
const PATH_PARAM_NAMES = ['id', 'sku', '__proto__', 'constructor', 'x', 'toString']
const GOOD_TYPE_NAMES = ['Product', 'Cart', '$money', '_Tag', 'Item9']
const BAD_TYPE_NAMES = ['__proto__', 'constructor', 'string', 'undefined', '9lives', 'a-b']
const COMMAND_NAMES = ['search', 'cart.add', 'cart.get', 'items', 'constructor', 'toString', 'a.b.c', 'valueOf']
const EVENT_NAMES = ['cart.updated', 'order.placed', 'constructor', 'hasOwnProperty']
const SEGMENTS = ['search', 'cart', 'items', 'orders', 'x']
const PRIMITIVES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']

/** An object with these own keys, whatever they are (`__proto__` included), as JSON.parse builds one. */
function withKeys (entries: Array<[string, unknown]>): Record<string, unknown> {
  const object: Record<string, unknown> = {}
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
  return object
}

/** A JSON value with hostile keys. */
function jsonValue (dice: Dice, depth = 0): unknown {
  const pick = dice.next()
  if (depth > 2 || pick < 0.4) return dice.pick([0, -1.5, 1e21, 'text', '\u{1F600}', '', true, false, null])
  if (pick < 0.6) return Array.from({ length: dice.int(3) }, () => jsonValue(dice, depth + 1))
  return withKeys(Array.from({ length: dice.int(3) }, () => [dice.pick(FIELD_NAMES), jsonValue(dice, depth + 1)]))
}

function deepSchema (levels: number, wrap: (inner: unknown) => unknown): unknown {
  let schema: unknown = { type: 'string' }
  for (let index = 0; index < levels; index++) schema = wrap(schema)
  return schema
}

/** Schemas the manifest cannot describe, or the validator could not compile, each refused by the plugin. */
const HOSTILE_SCHEMAS: Array<(dice: Dice) => unknown> = [
  () => true,
  () => false,
  () => null,
  () => ({}),
  () => ({ type: 'date' }),
  () => ({ type: ['string', 'number'] }),
  () => ({ const: undefined }),
  () => ({ enum: [10n] }),
  () => ({ const: Symbol('s') }),
  () => ({ const: () => 1 }),
  () => ({ anyOf: [true] }),
  () => ({ anyOf: 'x' }),
  () => ({ type: 'object', properties: { a: null } }),
  () => ({ $ref: 'Nowhere' }),
  () => ({ type: 'string', default: () => 'x' }),
  () => ({ type: 'integer', default: 10n }),
  () => ({ type: 'string', default: new Date(0) }),
  () => ({ type: 'number', default: Number.NaN }),
  () => ({ type: 'string', default: '\uD800' }),
  () => ({ type: 'string', description: '\uDC00' }),
  () => ({ type: 'array', default: [1, undefined] }),
  () => {
    const value: Record<string, unknown> = {}
    value.self = value
    return { type: 'object', default: value }
  },
  () => deepSchema(80, (inner) => ({ anyOf: [inner] })),
  () => deepSchema(3000, (inner) => ({ type: 'object', properties: { a: inner } })),
  () => {
    const schema: Record<string, unknown> = { type: 'object', properties: {} }
    ;(schema.properties as Record<string, unknown>).self = schema
    return schema
  },
  () => {
    const schema: Record<string, unknown> = {}
    schema.anyOf = [schema]
    return schema
  }
]

interface Registered { name: string, schema: object }

/** A schema the manifest describes with one type; sometimes a registered type, by $ref or as the object itself. */
function goodSchema (dice: Dice, types: Registered[], param: boolean): Record<string, unknown> {
  const pick = dice.next()
  let schema: Record<string, unknown>
  if (types.length > 0 && pick < 0.15) {
    const type = dice.pick(types)
    // The very object (identity) is used as is: no default or description may be added to it.
    if (dice.chance(0.5)) return type.schema as Record<string, unknown>
    schema = { $ref: type.name }
  } else if (pick < 0.55) {
    schema = { type: dice.pick(PRIMITIVES) }
  } else if (pick < 0.7) {
    schema = { type: [dice.pick(PRIMITIVES.slice(0, 6)), 'null'] }
  } else if (pick < 0.8) {
    schema = { enum: ['s', 'm', dice.pick(['l', 'xl'])] }
  } else if (pick < 0.9) {
    schema = { anyOf: [{ const: jsonValue(dice, 3) }, { type: 'null' }] }
  } else {
    schema = { type: 'object', properties: withKeys([[dice.pick(FIELD_NAMES), { type: 'string' }]]) }
  }
  if (dice.chance(0.3)) schema.description = dice.pick(['A field', 'é', '\u{1F600} emoji'])
  if (param && dice.chance(0.3)) schema.default = jsonValue(dice)
  return schema
}

function fieldSchema (dice: Dice, types: Registered[], hostility: number, param: boolean): unknown {
  return dice.chance(hostility) ? dice.pick(HOSTILE_SCHEMAS)(dice) : goodSchema(dice, types, param)
}

/**
 * The order of keys inserted in this order, as every JavaScript object (and so every JSON serialiser
 * written in JavaScript) keeps it: keys that look like array indices ("0", "10") come first, ascending.
 * That is the declaration order of a schema's properties as any reader of the schema sees it.
 */
function keyOrder (names: string[]): string[] {
  return Object.keys(withKeys(names.map((name) => [name, true])))
}

/** An object schema with distinct random property names, and its names in their declaration order. */
function objectSchema (dice: Dice, types: Registered[], hostility: number, param: boolean): { schema: Record<string, unknown>, names: string[] } {
  const drawn = [...new Set(Array.from({ length: 1 + dice.int(4) }, () => dice.pick(FIELD_NAMES)))]
  const properties = withKeys(drawn.map((name) => [name, fieldSchema(dice, types, hostility, param)]))
  const required = drawn.filter(() => dice.chance(0.5))
  return { schema: { type: 'object', properties, ...(required.length > 0 && { required }) }, names: Object.keys(properties) }
}

interface Expected {
  commands: Array<[string, string[]]>
  events: Array<[string, string[]]>
  types: Array<[string, string[] | undefined]>
}

interface Configuration {
  options: Record<string, unknown>
  routes: Array<Record<string, unknown>>
  expected: Expected
  ajv: boolean
}

function configuration (seed: number): Configuration {
  const dice = new Dice(seed)
  const ajv = seed % AJV_EVERY === 0
  const hostility = dice.pick([0, 0.02, 0.05, 0.15])
  const options: Record<string, unknown> = { name: 'Fuzz', description: 'Hostile configurations', version: '1.0.0', baseUrl: 'https://fuzz.example' }
  const expected: Expected = { commands: [], events: [], types: [] }

  const types: Registered[] = []
  const typeEntries: Array<[string, unknown]> = []
  for (let index = dice.int(4); index > 0; index--) {
    const name = dice.chance(0.1) ? dice.pick(BAD_TYPE_NAMES) : dice.pick(GOOD_TYPE_NAMES)
    if (typeEntries.some(([existing]) => existing === name)) continue
    const object = dice.chance(0.7)
    // A type's properties are shared with Fastify, which cannot hold a __proto__ key: those are refused.
    const { schema, names } = object ? objectSchema(dice, types, hostility, false) : { schema: goodSchema(dice, types, false), names: undefined }
    typeEntries.push([name, schema])
    types.push({ name, schema })
    expected.types.push([name, names])
  }
  if (typeEntries.length > 0) options.types = withKeys(typeEntries)

  const eventEntries: Array<[string, unknown]> = []
  for (let index = dice.int(3); index > 0; index--) {
    const name = dice.pick(EVENT_NAMES)
    if (eventEntries.some(([existing]) => existing === name)) continue
    const withData = dice.chance(0.7)
    const data = withData ? objectSchema(dice, types, hostility, false) : undefined
    eventEntries.push([name, { description: `Event ${name}`, ...(data !== undefined && { data: data.schema }) }])
    expected.events.push([name, data?.names ?? []])
  }
  if (eventEntries.length > 0) options.events = withKeys(eventEntries)
  if (dice.chance(0.3)) options.auth = { type: 'bearer', description: 'Token', verify: () => ({ sub: 'x' }) }
  if (dice.chance(hostility)) {
    Object.assign(options, dice.pick<Record<string, unknown>>([
      { maxAge: 10n }, { maxAge: -1 }, { name: 10n }, { colour: 'red' }, { svc: '2.0' }, { channels: {} }, { auth: { type: 'bearer' } },
      { unseenRoutes: 'loud' }, { version: Symbol('v') }, { path: 'no-slash' }
    ]))
  }

  const routes: Array<Record<string, unknown>> = []
  const urls = new Set<string>()
  for (let index = 1 + dice.int(3); index > 0; index--) {
    const method = dice.pick(['GET', 'POST', 'PUT', 'DELETE'])
    const pathParams = [...new Set(Array.from({ length: dice.int(3) }, () => dice.pick(PATH_PARAM_NAMES)))]
    const url = `/${dice.pick(SEGMENTS)}${index}${pathParams.map((name) => `/:${name}`).join('')}`
    if (urls.has(`${method} ${url}`)) continue
    urls.add(`${method} ${url}`)
    const name = dice.pick(COMMAND_NAMES)
    const svc: Record<string, unknown> = { name, description: `Command ${name}` }
    const schema: Record<string, unknown> = {}
    const params: string[] = []
    const useSvcParams = ajv || dice.chance(0.5)
    if (!useSvcParams && pathParams.length > 0 && dice.chance(0.5)) {
      const declared = pathParams.filter(() => dice.chance(0.7))
      schema.params = { type: 'object', properties: withKeys(declared.map((param) => [param, { type: dice.pick(['string', 'integer']) }])) }
      params.push(...declared)
    }
    params.push(...pathParams.filter((param) => !params.includes(param)))
    if (useSvcParams) {
      const drawn = objectSchema(dice, types, hostility, true)
      svc.params = drawn.schema
      params.push(...drawn.names)
    } else {
      // Fastify compiles route schemas itself in the Ajv cases: only sound ones there, without types, whose
      // problems the plugin reports from svc.params (which it installs) but not from the app's own schemas.
      const routeHostility = ajv ? 0 : hostility
      const routeTypes = ajv ? [] : types
      if (dice.chance(0.6)) {
        const drawn = objectSchema(dice, routeTypes, routeHostility, true)
        schema.querystring = drawn.schema
        params.push(...drawn.names)
      }
      if (method !== 'GET' && dice.chance(0.6)) {
        const drawn = objectSchema(dice, routeTypes, routeHostility, true)
        schema.body = drawn.schema
        params.push(...drawn.names)
      }
    }
    if (dice.chance(0.4)) svc.returns = fieldSchema(dice, types, hostility, false)
    else if (!ajv && dice.chance(0.3)) schema.response = { 200: fieldSchema(dice, types, hostility, false) }
    if (dice.chance(0.3)) svc.tags = ['t', dice.pick(['x', 'é'])]
    if (dice.chance(0.3)) svc.hints = { idempotent: dice.chance(0.5), sideEffects: dice.chance(0.5) }
    if (dice.chance(0.2)) svc.auth = 'required'
    if (dice.chance(0.15)) {
      // Described by its swagger documentation instead.
      delete svc.description
      schema.summary = `Documented ${name}`
    }
    if (dice.chance(hostility)) {
      Object.assign(svc, dice.pick<Record<string, unknown>>([
        { description: '' }, { description: 10n }, { hints: { idempotent: 10n } }, { hints: { fast: true } }, { tags: [''] },
        { tags: 'x' }, { name: 'not a name' }, { auth: 'optional' }, { colour: 'red' }, { params: true }, { params: { type: 'string' } },
        { returns: null }
      ]))
    }
    routes.push({ method, url, svc, ...(Object.keys(schema).length > 0 && { schema }) })
    expected.commands.push([name, keyOrder(params)])
  }
  return { options, routes, expected, ajv }
}

function sha256 (text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

type Outcome = { kind: 'rejected', code: string } | { kind: 'served' } | { kind: 'failed', why: string }

async function run (seed: number): Promise<Outcome> {
  const { options, routes, expected, ajv } = configuration(seed)
  const app = Fastify()
  if (!ajv) {
    app.setValidatorCompiler(() => () => true)
    app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  }
  try {
    app.register(svcManifest, options as never)
    app.after(() => {
      for (const route of routes) app.route({ ...route, handler: async () => ({}) } as never)
    })
    await app.ready()
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (error instanceof Error && typeof code === 'string' && code.startsWith('FST_SVC_')) return { kind: 'rejected', code }
    return { kind: 'failed', why: `ready() rejected with ${String(code)}: ${String((error as Error)?.message).slice(0, 300)}` }
  }
  try {
    return await check(app, expected)
  } finally {
    await app.close()
  }
}

async function check (app: ReturnType<typeof Fastify>, expected: Expected): Promise<Outcome> {
  const response = await app.inject('/.well-known/svc.json')
  if (response.statusCode !== 200) return { kind: 'failed', why: `the manifest answered ${response.statusCode}` }
  const manifest = response.json()
  const verified = verifyManifest(manifest)
  if (!verified.ok) return { kind: 'failed', why: `verifyManifest: ${verified.errors.join('; ')}` }
  if (manifest.checksum !== sha256(canonicalize(manifest.commands) as string)) return { kind: 'failed', why: 'checksum differs from sha256(canonicalize(commands))' }
  for (const [name, params] of expected.commands) {
    const served = Object.keys(manifest.commands[name]?.params ?? {})
    if (served.join('\n') !== params.join('\n')) return { kind: 'failed', why: `command ${name}: params ${JSON.stringify(served)}, expected ${JSON.stringify(params)}` }
  }
  for (const [name, fields] of expected.events) {
    const served = Object.keys(manifest.events[name]?.data ?? {})
    if (served.join('\n') !== fields.join('\n')) return { kind: 'failed', why: `event ${name}: data ${JSON.stringify(served)}, expected ${JSON.stringify(fields)}` }
  }
  const typeNames = expected.types.map(([name]) => name).sort()
  if (Object.keys(manifest.types).join('\n') !== typeNames.join('\n')) return { kind: 'failed', why: `types ${JSON.stringify(Object.keys(manifest.types))}, expected ${JSON.stringify(typeNames)}` }
  for (const [name, properties] of expected.types) {
    const served = manifest.types[name].properties === undefined ? undefined : Object.keys(manifest.types[name].properties)
    if (properties !== undefined && served?.join('\n') !== properties.join('\n')) return { kind: 'failed', why: `type ${name}: properties ${JSON.stringify(served)}, expected ${JSON.stringify(properties)}` }
  }
  return { kind: 'served' }
}

function prototypeSnapshot (): string {
  return Object.getOwnPropertyNames(Object.prototype).sort().map((name) => {
    const descriptor = Object.getOwnPropertyDescriptor(Object.prototype, name) as PropertyDescriptor
    return `${name}:${typeof descriptor.value}:${String(descriptor.enumerable)}`
  }).join(',')
}

t.test(`${CASES} hostile configurations: a coded rejection, or a faithful manifest`, async (t) => {
  const only = process.env.SEED === undefined ? undefined : Number(process.env.SEED)
  const prototypeBefore = prototypeSnapshot()
  const failures: string[] = []
  const counts: Record<string, number> = { served: 0, rejected: 0 }
  const codes = new Set<string>()
  for (let seed = 1; seed <= CASES; seed++) {
    if (only !== undefined && seed !== only) continue
    const outcome = await run(seed)
    if (outcome.kind === 'failed') failures.push(`seed ${seed}: ${outcome.why}`)
    else counts[outcome.kind]++
    if (outcome.kind === 'rejected') codes.add(outcome.code)
  }
  t.same(failures, [], 'every configuration is refused with an FST_SVC_* error or described faithfully')
  t.equal(prototypeSnapshot(), prototypeBefore, 'Object.prototype unchanged')
  t.equal(({} as Record<string, unknown>).self, undefined, 'nothing inherited by plain objects')
  if (only === undefined) {
    t.ok(counts.served > CASES * 0.3, `enough configurations are served to check (${counts.served})`)
    t.ok(counts.rejected > CASES * 0.2, `enough are refused to check (${counts.rejected})`)
    t.ok(codes.size >= 8, `the refusals cover many codes: ${[...codes].sort().join(', ')}`)
  }
})
