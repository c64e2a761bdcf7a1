// Defect: "type Cart: property total retyped" named only the new state's field, not what it was or had
// become. Each retyped field and each flipped required flag now names both sides, in the diff result and
// in what `svc-manifest diff` prints.
import t from 'tap'
import { diffManifests } from '../../lib/client/index.js'
import { manifestOf, rawServer, sendJson } from '../helpers/raw-server.js'
import { cli } from '../helpers/cli.js'

const commands = { 'cart.get': { description: 'Read a cart', params: { id: { type: 'string', required: true } }, returns: { type: 'Cart' } } }
const before = manifestOf(commands, {
  types: { Cart: { type: 'object', properties: { total: { type: 'number', required: true }, items: { type: 'array', required: true } } } },
  events: { 'cart.updated': { description: 'Changed', data: { count: { type: 'integer', required: true } } } }
})
const after = manifestOf({ 'cart.get': { ...commands['cart.get'], params: { id: { type: 'string', required: false } } } }, {
  types: { Cart: { type: 'object', properties: { total: { type: 'string', required: true }, items: { type: 'object', required: true } } } },
  events: { 'cart.updated': { description: 'Changed', data: { count: { type: 'string', required: true } } } }
})

t.test('diffManifests: from what to what', async (t) => {
  const diff = diffManifests(before, after)
  t.same(diff.breaking.map((change) => change.message), [
    'event cart.updated: data field count retyped from integer to string',
    'type Cart: property items retyped from array to object; property total retyped from number to string'
  ])
  t.same(diff.nonBreaking.map((change) => change.message), ['command cart.get: param id is now optional instead of required'])
})

t.test('svc-manifest diff prints the same', async (t) => {
  const { origin } = await rawServer(t, (request, response) => sendJson(response, request.url === '/before.json' ? before : after))
  const run = await cli('diff', `${origin}/before.json`, `${origin}/after.json`)
  t.equal(run.code, 1)
  t.equal(run.stdout, [
    '2 breaking changes:',
    '  event.data-changed      event cart.updated: data field count retyped from integer to string',
    '  type.changed            type Cart: property items retyped from array to object; property total retyped from number to string',
    '1 non-breaking change:',
    '  param.required-changed  command cart.get: param id is now optional instead of required',
    ''
  ].join('\n'))
})
