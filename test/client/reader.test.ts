import t from 'tap'
import { checksumOf, createManifestClient, diffManifests, type ServedManifest } from '../../lib/client/index.js'
import { rawServer, sendJson } from '../helpers/raw-server.js'

/** A manifest with only what the spec requires, plus `extra` fields; its checksum computed here. */
function least (commands: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { svc: '1.0', name: 'Least', commands, ...extra, checksum: checksumOf(commands as never) }
}

t.test('the client reads a manifest with only what the spec requires: empty events and types, no service fields made up', async (t) => {
  const served = least({ ping: { description: 'Ping', params: { loud: { type: 'boolean' } } } })
  const server = await rawServer(t, (request, response) => sendJson(response, served))
  const result = await createManifestClient({ url: `${server.origin}/m.json` }).get()
  t.same(result.served, served)
  t.equal(result.checksumMethod, undefined, 'an RFC 8785 checksum is the norm: nothing to report')
  t.same(result.manifest, { ...served, events: {}, types: {}, commands: { ping: { description: 'Ping', params: { loud: { type: 'boolean', required: false } } } } })
  t.notOk('description' in result.manifest || 'version' in result.manifest || 'baseUrl' in result.manifest)
})

t.test('names such as __proto__ stay ordinary keys of the view', async (t) => {
  const commands = { get: { description: 'Get', params: JSON.parse('{"__proto__":{"type":"__proto__"}}'), returns: { $ref: '#/types/__proto__' } } }
  const served = least(commands, { types: JSON.parse('{"__proto__":{"type":"object","properties":{"__proto__":{"type":"string"}}}}') })
  const server = await rawServer(t, (request, response) => sendJson(response, served))
  const { manifest } = await createManifestClient({ url: `${server.origin}/m.json` }).get()
  const params = manifest.commands.get.params!
  t.ok(Object.hasOwn(params, '__proto__'), 'an own param')
  t.same(Object.getPrototypeOf(params), Object.prototype, 'the prototype untouched')
  t.same(Object.getOwnPropertyDescriptor(params, '__proto__')?.value, { type: '__proto__', required: false })
  t.ok(Object.hasOwn(manifest.types, '__proto__'))
  const type = Object.getOwnPropertyDescriptor(manifest.types, '__proto__')?.value
  t.same(Object.getOwnPropertyDescriptor(type.properties, '__proto__')?.value, { type: 'string', required: false })
  t.equal(manifest.commands.get.returns!.type, '__proto__')
})

t.test('diffManifests takes manifests as served: a missing required is false, missing maps are empty', async (t) => {
  const before = least({ search: { description: 'Search', params: { q: { type: 'string' } } } })
  const sameAfter = least({ search: { description: 'Search', params: { q: { type: 'string', required: false } } } }, { events: {}, types: {} })
  t.same(diffManifests(before as ServedManifest, sameAfter as ServedManifest), { breaking: [], nonBreaking: [] }, 'the same manifest, said two ways')
  const after = least({ search: { description: 'Search', params: { q: { type: 'string', required: true } } } }, { events: { done: { description: 'Done' } } })
  t.same(diffManifests(before as ServedManifest, after as ServedManifest), {
    breaking: [{ kind: 'param.required-changed', name: 'search(q)', message: 'command search: param q is now required instead of optional' }],
    nonBreaking: [{ kind: 'event.added', name: 'done', message: 'event done was added' }]
  })
})
