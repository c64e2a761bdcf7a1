// A field whose schema allows any JSON value (`{}`, `Type.Unknown()`, `Type.Any()`) is `type: 'any'`, and an
// object with such a property keeps all its other properties (a trial app's response schema lost them all).
import { Type } from '@sinclair/typebox'
import t from 'tap'
import { diffManifests, verifyManifest, type Manifest } from '../../lib/client/index.js'
import { fetchManifest, readyApp } from '../helpers/app.js'
import { execute } from '../helpers/invoke.js'

const Setting = Type.Object({
  key: Type.String({ minLength: 1 }),
  value: Type.Unknown({ description: 'Any JSON value' }),
  meta: Type.Optional(Type.Any())
})

async function adminApp (t: Parameters<typeof readyApp>[0]) {
  return await readyApp(t, {}, (app) => {
    app.put('/settings/:key', {
      schema: {
        summary: 'Store a setting',
        params: Type.Object({ key: Type.String() }),
        body: Type.Object({ value: Type.Unknown(), note: Type.Optional(Type.String({ maxLength: 80 })) }),
        response: { 200: Setting }
      },
      svc: { name: 'settings.put' }
    }, async (request) => {
      const { key } = request.params as { key: string }
      return { key, ...(request.body as object) }
    })
    app.get('/status', {
      schema: {
        summary: 'Server status',
        response: {
          200: {
            type: 'object',
            properties: {
              uptime: { type: 'number' },
              extra: {},
              either: { anyOf: [{ type: 'string' }, { type: 'number' }], description: 'A name or an id' },
              version: { type: 'string' }
            },
            required: ['uptime', 'either']
          }
        }
      },
      svc: {}
    }, async () => ({ uptime: 1, extra: [1], either: 'x', version: '1' }))
  })
}

t.test('a field that allows any JSON value is described as any, with its description and required', async (t) => {
  const manifest = await fetchManifest(await adminApp(t))
  const command = manifest.commands['settings.put']
  t.same(command.params, {
    key: { type: 'string', required: true },
    value: { type: 'any', required: true },
    note: { type: 'string', required: false, maxLength: 80 }
  })
  t.same(command.returns, {
    type: 'object',
    properties: {
      key: { type: 'string', required: true, minLength: 1 },
      value: { type: 'any', required: true, description: 'Any JSON value' },
      meta: { type: 'any', required: false }
    }
  })
  t.same(verifyManifest(manifest, { strict: true }), { ok: true, errors: [] }, 'the wire schema takes any')
})

t.test('one property the manifest cannot name leaves its siblings described', async (t) => {
  const manifest = await fetchManifest(await adminApp(t))
  t.same(manifest.commands.status.returns, {
    type: 'object',
    properties: {
      uptime: { type: 'number', required: true },
      extra: { type: 'any', required: false },
      either: { type: 'any', required: true, description: 'A name or an id' },
      version: { type: 'string', required: false }
    }
  })
})

t.test('any value goes through execute as sent', async (t) => {
  const app = await adminApp(t)
  const value = { nested: [1, 'two', null, { three: true }] }
  const response = await execute(app, 'settings.put', { key: 'theme', value })
  t.same(response.json(), { ok: true, result: { key: 'theme', value } })
})

t.test('a registered type cannot be named any', async (t) => {
  await t.rejects(readyApp(t, { types: { any: Type.Object({ a: Type.String() }) } }), { code: 'FST_SVC_INVALID_NAME', message: /type name "any"/ })
})

t.test('readers take any; a manifest naming an unknown type is still refused', async (t) => {
  const manifest = await fetchManifest(await adminApp(t))
  t.equal(verifyManifest(manifest).ok, true)
  const broken = structuredClone(manifest) as Manifest
  broken.commands['settings.put'].params!.value.type = 'anything'
  t.match(verifyManifest(broken).errors, ['/commands/settings.put/params/value/type: "anything" is neither a JSON type nor a type defined in /types'])
})

t.test('drift: a field that becomes any does not break callers; one that was any and gets a type does', async (t) => {
  const before = await fetchManifest(await adminApp(t))
  const widened = structuredClone(before) as Manifest
  widened.commands['settings.put'].params!.note.type = 'any'
  widened.commands['settings.put'].returns!.properties!.key.type = 'any'
  let diff = diffManifests(before, widened)
  t.same(diff.breaking, [])
  t.same(diff.nonBreaking.map((change) => change.kind), ['param.type-changed', 'field.type-changed'])
  diff = diffManifests(widened, before)
  t.same(diff.breaking.map((change) => change.kind), ['param.type-changed', 'field.type-changed'])

  const types = (type: string): Manifest => ({
    ...before,
    events: { 'setting.changed': { description: 'Changed', data: { value: { type, required: true } } } },
    types: { Setting: { type: 'object', properties: { value: { type, required: true }, tags: { type: 'array', required: false, items: { type } } } } }
  })
  diff = diffManifests(types('string'), types('any'))
  t.same(diff.breaking.map((change) => `${change.kind} ${change.name}`), ['event.data-changed setting.changed'], 'an event is read: any breaks its readers')
  t.same(diff.nonBreaking.map((change) => `${change.kind} ${change.name}`), ['type.changed Setting', 'field.type-changed Setting(tags)'])
  diff = diffManifests(types('any'), types('string'))
  t.same(diff.breaking.map((change) => `${change.kind} ${change.name}`), ['event.data-changed setting.changed', 'type.changed Setting', 'field.type-changed Setting(tags)'])
  const typeItself = (type: string): Manifest => ({ ...before, types: { Blob: { type } } })
  t.same(diffManifests(typeItself('string'), typeItself('any')).breaking, [], 'a type that becomes any')
  t.same(diffManifests(typeItself('any'), typeItself('string')).breaking.map((change) => change.kind), ['type.changed'])
})
