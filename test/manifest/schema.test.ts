import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { Ajv } from 'ajv'
import { ManifestSchemaV05, ManifestSchemaV1, manifestJsonSchema, readerManifestJsonSchema, type Manifest, type SvcLayout } from '../../lib/schema.js'
import { addCartItemCommand, readyApp, requiredOptions } from '../helpers/app.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)

const schemaOf = { '1.0': ManifestSchemaV1, '0.5.0': ManifestSchemaV05 } as const

/** A manifest with every field the layout has, as the plugin serves it. */
async function servedManifest (t: Test, svc: SvcLayout): Promise<Manifest> {
  const app = await readyApp(t, {
    svc,
    ...(svc === '0.5.0' && { about: 'Editorial tone: friendly.', channels: { cart: { description: 'Real-time cart state' } } }),
    auth: { type: 'bearer', description: 'JWT bearer token', verify: async () => ({ sub: 'user' }) },
    types: { Product: Type.Object({ sku: Type.String({ description: 'Stock keeping unit' }), price: Type.Number() }, { description: 'A product' }) },
    events: { 'cart.updated': { description: 'Cart contents changed', data: Type.Object({ items: Type.Array(Type.String()) }) } }
  }, addCommands)
  const response = await app.inject('/.well-known/svc.json')
  await app.close()
  return response.json()
}

function addCommands (app: FastifyInstance): void {
  addCartItemCommand(app)
  app.get('/search', { svc: { description: 'Search', params: Type.Object({ q: Type.String() }), returns: Type.Array(Type.Ref('Product')) } }, async () => [])
}

/** A copy of `manifest` changed by `edit`. */
function edited (manifest: Manifest, edit: (copy: any) => void): unknown {
  const copy = structuredClone(manifest)
  edit(copy)
  return copy
}

for (const layout of ['1.0', '0.5.0'] as const) {
  t.test(`layout ${layout}: what the plugin serves matches the schema`, async (t) => {
    const manifest = await servedManifest(t, layout)
    t.ok(Value.Check(schemaOf[layout], manifest), [...Value.Errors(schemaOf[layout], manifest)].map((e) => `${e.path} ${e.message}`).join('\n'))
  })

  t.test(`layout ${layout}: a minimal manifest (no auth, nothing registered) matches the schema`, async (t) => {
    const app = await readyApp(t, { svc: layout })
    const manifest = (await app.inject('/.well-known/svc.json')).json()
    t.ok(Value.Check(schemaOf[layout], manifest))
    t.same(manifest.commands, {})
  })

  t.test(`layout ${layout}: the schema refuses what the design rules out`, async (t) => {
    const manifest = await servedManifest(t, layout)
    const refused: Record<string, (m: any) => void> = {
      'an unknown top-level field': (m) => { m.extra = true },
      'a missing commands map': (m) => { delete m.commands },
      'a missing events map': (m) => { delete m.events },
      'a missing types map': (m) => { delete m.types },
      'another layout in svc': (m) => { m.svc = layout === '1.0' ? '0.5.0' : '1.0' },
      'an auth scheme other than bearer': (m) => { m.auth.type = 'basic' },
      'an unknown auth field': (m) => { m.auth.verify = 'x' },
      'a command auth other than required or optional': (m) => { m.commands['cart.items'].auth = 'maybe' },
      'a scope with a space': (m) => { m.commands['cart.items'].requiredScopes = ['cart write'] },
      'deprecated false (only true is served)': (m) => { m.commands['cart.items'].deprecated = false },
      'an example without params': (m) => { m.commands['cart.items'].examples = [{ title: 'One' }] },
      'a nested property without required': (m) => { m.commands.search.params.q.properties = { a: { type: 'string' } } },
      'an items with required': (m) => { m.commands.search.params.q.items = { type: 'string', required: true } },
      'a negative minLength': (m) => { m.commands.search.params.q.minLength = -1 },
      'an empty enum': (m) => { m.commands.search.params.q.enum = [] },
      'an unknown command field': (m) => { m.commands.search.method = 'GET' },
      'a hint other than idempotent and sideEffects': (m) => { m.commands['cart.items'].hints.cached = true },
      'a hint that is not a boolean': (m) => { m.commands['cart.items'].hints.idempotent = 'yes' },
      'a param without required': (m) => { delete m.commands.search.params.q.required },
      'an unknown param field': (m) => { m.commands.search.params.q.min = 1 },
      'an empty tag': (m) => { m.commands['cart.items'].tags = [''] },
      'an empty command description': (m) => { m.commands.search.description = '' },
      'a command name that is not dotted words': (m) => { m.commands['1search'] = m.commands.search },
      'a type name that is not an identifier': (m) => { m.types['my.Product'] = m.types.Product },
      'an unknown type field': (m) => { m.types.Product.required = ['sku'] },
      'an unknown event field': (m) => { m.events['cart.updated'].channel = 'cart' },
      'a returns field other than type and description': (m) => { m.commands.search.returns.items = 'Product' },
      'an uppercase checksum': (m) => { m.checksum = m.checksum.toUpperCase() },
      'a short checksum': (m) => { m.checksum = m.checksum.slice(1) },
      'updatedAt without milliseconds': (m) => { m.updatedAt = m.updatedAt.replace(/\.\d{3}Z$/, 'Z') },
      'updatedAt with an offset': (m) => { m.updatedAt = m.updatedAt.replace(/Z$/, '+00:00') },
      'a baseUrl that is not http(s)': (m) => { m.baseUrl = 'ftp://shop.example' }
    }
    if (layout === '1.0') {
      refused['about in layout 1.0'] = (m) => { m.about = 'More' }
      refused['channels in layout 1.0'] = (m) => { m.channels = {} }
    } else {
      refused['layout 0.5.0 without channels'] = (m) => { delete m.channels }
      refused['an unknown channel field'] = (m) => { m.channels.cart.events = [] }
    }
    for (const [what, edit] of Object.entries(refused)) {
      t.notOk(Value.Check(schemaOf[layout], edited(manifest, edit)), what)
    }
  })
}

t.test('layout 0.5.0: about is optional, channels may be empty', async (t) => {
  const app = await readyApp(t, { svc: '0.5.0' })
  const manifest = (await app.inject('/.well-known/svc.json')).json()
  t.notOk('about' in manifest)
  t.same(manifest.channels, {})
  t.ok(Value.Check(ManifestSchemaV05, manifest))
})

t.test('the JSON Schema documents list the fields of each layout, required ones marked', async (t) => {
  const v1 = manifestJsonSchema('1.0') as { $schema: string, title: string, properties: object, required: string[], additionalProperties: boolean }
  const v05 = manifestJsonSchema('0.5.0') as typeof v1
  t.equal(v1.$schema, 'http://json-schema.org/draft-07/schema#')
  t.equal(v05.title, 'Service manifest, layout 0.5.0')
  t.same(Object.keys(v1.properties), ['svc', 'name', 'description', 'version', 'baseUrl', 'auth', 'commands', 'events', 'types', 'checksum', 'updatedAt'])
  t.same(Object.keys(v05.properties), ['svc', 'name', 'description', 'about', 'version', 'baseUrl', 'auth', 'commands', 'events', 'channels', 'types', 'checksum', 'updatedAt'])
  t.same(v1.required, ['svc', 'name', 'description', 'version', 'baseUrl', 'commands', 'events', 'types', 'checksum', 'updatedAt'])
  t.same(v05.required, ['svc', 'name', 'description', 'version', 'baseUrl', 'commands', 'events', 'channels', 'types', 'checksum', 'updatedAt'])
  t.equal(v1.additionalProperties, false)
})

t.test('docs/schema holds the current schemas', async (t) => {
  for (const layout of ['1.0', '0.5.0'] as const) {
    const committed = JSON.parse(await readFile(join(root, 'docs/schema', `manifest-${layout}.json`), 'utf8'))
    t.same(committed, manifestJsonSchema(layout), `docs/schema/manifest-${layout}.json`)
  }
  for (const layout of ['1.0', '0.5.0', 'surf'] as const) {
    const committed = JSON.parse(await readFile(join(root, 'docs/schema', `manifest-${layout}.reader.json`), 'utf8'))
    t.same(committed, readerManifestJsonSchema(layout), `docs/schema/manifest-${layout}.reader.json`)
  }
})

/**
 * A JSON Schema file of docs/schema compiled by another validator (Ajv, draft-07, strict mode; a reader's
 * descriptor says "type or $ref" as `anyOf` of two `required`, which strictRequired would take for a typo).
 */
async function validatorOf (name: string): Promise<(value: unknown) => boolean> {
  const schema = JSON.parse(await readFile(join(root, 'docs/schema', name), 'utf8'))
  return new Ajv({ strict: true, strictRequired: false, allowMatchingProperties: true }).compile(schema)
}

t.test('the reader JSON Schemas take what the spec allows and Surf serves; the strict ones only what the plugin serves', async (t) => {
  const surf = JSON.parse(await readFile(join(root, 'test/fixtures/surf/manifest.json'), 'utf8'))
  const readSurf = await validatorOf('manifest-surf.reader.json')
  t.ok(readSurf(surf), 'a real Surf manifest')
  t.notOk((await validatorOf('manifest-1.0.json'))(surf), 'not as the plugin serves')
  const readV1 = await validatorOf('manifest-1.0.reader.json')
  t.notOk(readV1(surf), 'a Surf manifest is no layout 1.0 manifest')
  const least = { svc: '1.0', name: 'Least', commands: { ping: { description: 'Ping', params: { q: { type: 'string' } }, stream: true } }, checksum: '0'.repeat(64) }
  t.ok(readV1(least), 'only what the spec requires, and fields the reader does not know')
  t.notOk(readV1({ ...least, commands: { ping: { params: {} } } }), 'a command needs its description')
  t.notOk(readV1({ ...least, commands: { ping: { description: 'Ping', returns: { description: 'untyped' } } } }), 'a descriptor needs a type or a $ref')
  t.ok(readV1({ ...least, commands: { ping: { description: 'Ping', returns: { $ref: '#/types/Pong' } } } }), 'a $ref is a type')
  t.notOk(readV1({ ...least, commands: { ping: { description: 'Ping', returns: { $ref: '#/definitions/Pong' } } } }), 'into types')
  for (const layout of ['1.0', '0.5.0'] as const) {
    const served = await servedManifest(t, layout)
    t.ok((await validatorOf(`manifest-${layout}.reader.json`))(served), `${layout}: what the plugin serves, a reader takes`)
    t.ok((await validatorOf(`manifest-${layout}.json`))(served), `${layout}: and the strict schema too`)
  }
  const v1 = readerManifestJsonSchema('1.0') as { required: string[], additionalProperties?: boolean }
  t.same(v1.required, ['svc', 'name', 'commands', 'checksum'])
  t.equal(v1.additionalProperties, undefined, 'unknown fields allowed')
})

t.test('schema:check passes on docs/schema, and fails with a message on stale or missing files', async (t) => {
  const current = await run(process.execPath, ['scripts/check-schemas.js'], { cwd: root })
  t.match(current.stdout, 'the manifest JSON Schemas are current')

  const dir = t.testdir({ 'manifest-1.0.json': '{}\n' })
  const stale = await run(process.execPath, ['scripts/check-schemas.js', dir], { cwd: root }).catch((error) => error)
  t.equal(stale.code, 1)
  t.match(stale.stderr, /manifest-1\.0\.json is out of date\n.*manifest-0\.5\.0\.json is missing\n.*manifest-1\.0\.reader\.json is missing\n.*manifest-0\.5\.0\.reader\.json is missing\n.*manifest-surf\.reader\.json is missing\n.*run `npm run schema:build`/)
})

t.test('schema:build writes files that schema:check accepts', async (t) => {
  const dir = t.testdir({})
  const written = await run(process.execPath, ['scripts/write-schemas.js', dir], { cwd: root })
  t.match(written.stdout, /wrote .*manifest-1\.0\.json\nwrote .*manifest-0\.5\.0\.json\nwrote .*manifest-1\.0\.reader\.json\nwrote .*manifest-0\.5\.0\.reader\.json\nwrote .*manifest-surf\.reader\.json\n/)
  const checked = await run(process.execPath, ['scripts/check-schemas.js', dir], { cwd: root })
  t.match(checked.stdout, 'current')
  await writeFile(join(dir, 'manifest-0.5.0.json'), JSON.stringify(manifestJsonSchema('0.5.0')))
  const reformatted = await run(process.execPath, ['scripts/check-schemas.js', dir], { cwd: root }).catch((error) => error)
  t.equal(reformatted.code, 1, 'the exact text is compared, so the committed files stay reviewable')
})

t.test('the required options alone give a valid layout 1.0 manifest', async (t) => {
  const app = await readyApp(t)
  const manifest = (await app.inject('/.well-known/svc.json')).json()
  t.equal(manifest.name, requiredOptions.name)
  t.ok(Value.Check(ManifestSchemaV1, manifest))
  t.notOk(Value.Check(ManifestSchemaV05, manifest))
})
