import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'

/** `app.ready()` as a Promise: Fastify types it as a thenable instance, which t.rejects does not take. */
function ready (fastify: FastifyInstance): Promise<unknown> {
  return Promise.resolve(fastify.ready())
}

/** An app that registers the plugin with `options` (not awaited) and then `routes`; not ready yet. */
function app (options: Record<string, unknown> = {}, routes: (app: FastifyInstance) => void = () => {}): FastifyInstance {
  const fastify = Fastify()
  fastify.register(svcManifest, { ...requiredOptions, ...options } as never)
  fastify.after(() => routes(fastify))
  return fastify
}

/** An app with one route, `GET /x` by default, carrying `svc`. */
function route (svc: unknown, extra: Record<string, unknown> = {}, method = 'GET', url = '/x'): FastifyInstance {
  return app({}, (fastify) => {
    fastify.route({ method, url, svc, handler: async () => ({}), ...extra } as never)
  })
}

t.test('errors carry stable codes and are Errors', async (t) => {
  const error = await ready(route({ description: 'X', hints: { fast: true } })).catch((caught: Error & { code?: string }) => caught)
  t.type(error, Error)
  t.match(error, { code: 'FST_SVC_INVALID_ROUTE_OPTION', message: /^Invalid svc route option: / })
})

t.test('the first error is the one reported, and nothing is served', async (t) => {
  const fastify = route({ description: 'X', tags: 'one' })
  await t.rejects(ready(fastify), { code: 'FST_SVC_INVALID_ROUTE_OPTION', message: /svc\.tags/ })
  t.throws(() => fastify.svc.manifest, { code: 'FST_SVC_NOT_READY' })
})

t.test('after a rejected ready(), a request for the manifest gets an error that says why, never a partial body', async (t) => {
  const fastify = route({ description: 'X', hints: 'fast' })
  await t.rejects(ready(fastify), { code: 'FST_SVC_INVALID_ROUTE_OPTION' })
  for (const method of ['GET', 'HEAD'] as const) {
    const response = await fastify.inject({ method, url: '/.well-known/svc.json' })
    t.equal(response.statusCode, 500, method)
    t.notOk(response.headers.etag, `${method}: no ETag`)
    if (method === 'GET') t.match(response.json(), { code: 'FST_SVC_NOT_READY', message: /ready\(\) rejected/ })
  }
})

t.test('duplicate command names name both routes', async (t) => {
  await t.rejects(ready(app({}, (fastify) => {
    fastify.get('/a', { svc: { name: 'same', description: 'A' } }, async () => ({}))
    fastify.post('/b', { svc: { name: 'same', description: 'B' } }, async () => ({}))
  })), { code: 'FST_SVC_DUPLICATE_NAME', message: /routes GET \/a and POST \/b are both command "same"\. Set svc\.name/ })
})

/** An app with the plugin loaded, so `app.svc` calls throw at the call site. */
async function loaded (options: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const fastify = Fastify()
  await fastify.register(svcManifest, { ...requiredOptions, ...options } as never)
  return fastify
}

t.test('duplicate type, event and channel names', async (t) => {
  const fastify = await loaded({ svc: '0.5.0', types: { Product: Type.String() }, events: { 'a.b': { description: 'A' } }, channels: { c: { description: 'C' } } })
  t.throws(() => fastify.svc.type('Product', Type.String()), { code: 'FST_SVC_DUPLICATE_NAME', message: /type "Product" is registered twice/ })
  t.throws(() => fastify.svc.event('a.b', { description: 'A' }), { code: 'FST_SVC_DUPLICATE_NAME', message: /event "a\.b"/ })
  t.throws(() => fastify.svc.channel('c', { description: 'C' }), { code: 'FST_SVC_DUPLICATE_NAME', message: /channel "c"/ })
})

t.test('invalid names name the route or the option', async (t) => {
  await t.rejects(ready(route({ name: 'Not a name', description: 'X' })), { code: 'FST_SVC_INVALID_NAME', message: /"Not a name" \(route GET \/x, svc\.name\)/ })
  await t.rejects(ready(app({ events: { '9lives': { description: 'E' } } })), { code: 'FST_SVC_INVALID_NAME', message: /event name "9lives" \(events\)/ })
  await t.rejects(ready(app({ svc: '0.5.0', channels: { 'a..b': { description: 'C' } } })), { code: 'FST_SVC_INVALID_NAME', message: /channel name "a\.\.b" \(channels\)/ })
  await t.rejects(ready(app({ types: { 'my-type': Type.String() } })), { code: 'FST_SVC_INVALID_NAME', message: /type name "my-type" \(types\)/ })
})

t.test('a name that cannot be derived names the route', async (t) => {
  await t.rejects(ready(route({ description: 'Root' }, {}, 'GET', '/:id')), { code: 'FST_SVC_NAME_NOT_DERIVABLE', message: /route GET \/:id gives no name/ })
})

for (const [label, svc] of [
  ['empty', { description: '' }],
  ['blank', { description: '   ' }],
  ['not a string', { description: 42 }]
] as const) {
  t.test(`svc.description ${label}: FST_SVC_MISSING_DESCRIPTION naming the route`, async (t) => {
    await t.rejects(ready(route(svc)), { code: 'FST_SVC_MISSING_DESCRIPTION', message: /route GET \/x \(svc\.description\) needs a non-empty "description"/ })
  })
}

t.test('svc.description missing with requireDescriptions: FST_SVC_MISSING_DESCRIPTION naming the route', async (t) => {
  await t.rejects(ready(app({ requireDescriptions: true }, (fastify) => { fastify.get('/x', { svc: {} }, async () => ({})) })), { code: 'FST_SVC_MISSING_DESCRIPTION', message: /route GET \/x \(svc\.description\) needs a non-empty "description"/ })
})

t.test('event and channel options without a description', async (t) => {
  await t.rejects(ready(app({ events: { 'a.b': {} } })), { code: 'FST_SVC_MISSING_DESCRIPTION', message: /event "a\.b"/ })
  await t.rejects(ready(app({ svc: '0.5.0', channels: { c: { description: '' } } })), { code: 'FST_SVC_MISSING_DESCRIPTION', message: /channel "c"/ })
})

for (const [label, svc, field] of [
  ['svc that is not an object', 'yes', 'svc'],
  ['svc that is an array', [], 'svc'],
  ['an unknown svc key', { description: 'X', summary: 'Y' }, 'svc\\.summary'],
  ['hints that are not an object', { description: 'X', hints: 'idempotent' }, 'svc\\.hints'],
  ['an unknown hint', { description: 'X', hints: { cacheable: true } }, 'svc\\.hints\\.cacheable'],
  ['a hint that is not a boolean', { description: 'X', hints: { idempotent: 'yes' } }, 'svc\\.hints\\.idempotent'],
  ['tags that are not an array', { description: 'X', tags: 'catalog' }, 'svc\\.tags'],
  ['an empty tag', { description: 'X', tags: ['catalog', ''] }, 'svc\\.tags'],
  ['a blank tag', { description: 'X', tags: [' '] }, 'svc\\.tags'],
  ['a tag that is not a string', { description: 'X', tags: [1] }, 'svc\\.tags'],
  ['an auth value other than "required" or "optional"', { description: 'X', auth: 'always' }, 'svc\\.auth'],
  ['auth: true', { description: 'X', auth: true }, 'svc\\.auth'],
  ['returns that is not a schema object', { description: 'X', returns: 'string' }, 'svc\\.returns'],
  ['params that are not a schema object', { description: 'X', params: null }, 'svc\\.params']
] as const) {
  t.test(`${label}: FST_SVC_INVALID_ROUTE_OPTION naming the route and field`, async (t) => {
    await t.rejects(ready(route(svc)), { code: 'FST_SVC_INVALID_ROUTE_OPTION', message: new RegExp(`route GET /x: ${field} must be`) })
  })
}

t.test('the bad value is quoted in the message', async (t) => {
  await t.rejects(ready(route({ description: 'X', auth: 'always' })), { message: /got "always"/ })
  await t.rejects(ready(route({ description: 'X', hints: { idempotent: undefined } })), { message: /svc\.hints\.idempotent must be a boolean; got nothing/ })
})

t.test('unknown $ref: in svc.params (checked when the route is added), svc.returns, events and types', async (t) => {
  await t.rejects(ready(route({ description: 'X', params: Type.Object({ p: Type.Array(Type.Ref('Missing')) }) })),
    { code: 'FST_SVC_UNKNOWN_REF', message: /GET \/x svc\.params refers to "Missing", which is not a registered type/ })
  await t.rejects(ready(route({ description: 'X', returns: Type.Ref('Missing') })), { code: 'FST_SVC_UNKNOWN_REF', message: /GET \/x svc\.returns refers to "Missing"/ })
  await t.rejects(ready(app({ events: { 'a.b': { description: 'A', data: Type.Object({ p: Type.Ref('Missing') }) } } })), { code: 'FST_SVC_UNKNOWN_REF', message: /event "a\.b" data\.p/ })
  await t.rejects(ready(app({ types: { Cart: Type.Object({ p: Type.Ref('Missing') }) } })), { code: 'FST_SVC_UNKNOWN_REF', message: /type "Cart"\.p/ })
})

t.test('a $ref in svc.params to a type registered before the route is fine', async (t) => {
  const fastify = app({ types: { Product: Type.Object({ sku: Type.String() }) } }, (fastify) => {
    fastify.svc.type('Sku', Type.String())
    fastify.post('/x', { svc: { description: 'X', params: Type.Object({ p: Type.Ref('Product'), s: Type.Ref('Sku#') as never }) } }, async () => ({}))
  })
  await t.resolves(ready(fastify))
})

t.test('unmappable schemas name the route and field', async (t) => {
  await t.rejects(ready(route({ description: 'X', params: Type.Object({ none: { allOf: [{ type: 'string' }, { type: 'number' }] } as never }) })), { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /GET \/x svc\.params\.none: it allows no value/ })
  await t.rejects(ready(route({ description: 'X', returns: Type.Union([Type.String(), Type.Number()]) })), { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /GET \/x svc\.returns: it allows string, number/ })
  await t.rejects(ready(route({ description: 'X', params: Type.String() })), { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /route GET \/x: svc\.params must be an object schema/ })
  await t.rejects(ready(route({ description: 'X', params: { type: 'object' } })), { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /svc\.params must be an object schema with properties/ })
  await t.rejects(ready(route({ description: 'X', params: { type: 'array', properties: {} } })), { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /svc\.params must be an object schema/ })
  await t.rejects(ready(route({ description: 'X' }, { schema: { body: Type.Union([Type.String(), Type.Number()]) } }, 'POST')), { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /POST \/x schema\.body: it allows string, number/ })
  await t.rejects(ready(route({ description: 'X' }, { schema: { querystring: Type.Object({ a: Type.Union([Type.String(), Type.Number()]) }) } })), { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /GET \/x schema\.querystring\.a/ })
})

t.test('a route with several methods', async (t) => {
  await t.rejects(ready(route({ description: 'X' }, { method: ['GET', 'DELETE'] })), { code: 'FST_SVC_MULTI_METHOD', message: /GET,DELETE \/x.*each with its own svc\.name/ })
})

t.test('params declared twice: svc.params and a route schema at that place', async (t) => {
  await t.rejects(ready(route({ description: 'X', params: Type.Object({ q: Type.String() }) }, { schema: { querystring: Type.Object({ q: Type.String() }) } })),
    { code: 'FST_SVC_PARAMS_DECLARED_TWICE', message: /route GET \/x has both svc\.params and schema\.querystring/ })
  await t.rejects(ready(route({ description: 'X', params: Type.Object({ q: Type.String() }) }, { schema: { body: Type.Object({ q: Type.String() }) } }, 'POST')),
    { code: 'FST_SVC_PARAMS_DECLARED_TWICE', message: /route POST \/x has both svc\.params and schema\.body/ })
})

t.test('svc.params next to a route schema at the other place is fine', async (t) => {
  await t.resolves(ready(route({ description: 'X', params: Type.Object({ q: Type.String() }) }, { schema: { body: Type.Object({ b: Type.String() }) } }, 'DELETE')))
})

t.test('params declared twice: one name in two route schemas', async (t) => {
  await t.rejects(ready(route({ description: 'X' }, { schema: { params: Type.Object({ id: Type.String() }), querystring: Type.Object({ id: Type.String() }) } }, 'GET', '/x/:id')),
    { code: 'FST_SVC_PARAMS_DECLARED_TWICE', message: /param "id" is in GET \/x\/:id schema\.params and in GET \/x\/:id schema\.querystring/ })
  await t.rejects(ready(route({ description: 'X' }, { schema: { querystring: Type.Object({ q: Type.String() }), body: Type.Object({ q: Type.String() }) } }, 'POST')),
    { code: 'FST_SVC_PARAMS_DECLARED_TWICE', message: /param "q" is in POST \/x schema\.querystring and in POST \/x schema\.body/ })
})

t.test('layout-only fields in layout 1.0', async (t) => {
  await t.rejects(ready(app({ about: 'Context' })), { code: 'FST_SVC_LAYOUT_FIELD', message: /"about" exists only in layout "0\.5\.0"\. Set svc: '0\.5\.0' or remove "about"/ })
  await t.rejects(ready(app({ svc: '1.0', channels: { cart: { description: 'Cart' } } })), { code: 'FST_SVC_LAYOUT_FIELD', message: /"channels" exists only in layout "0\.5\.0"/ })
  const fastify = await loaded()
  t.throws(() => fastify.svc.channel('cart', { description: 'Cart' }), { code: 'FST_SVC_LAYOUT_FIELD', message: /channel "cart": channels exist only in layout "0\.5\.0"/ })
})

for (const key of ['name', 'description', 'version', 'baseUrl'] as const) {
  t.test(`option ${key} is required`, async (t) => {
    const options: Record<string, unknown> = { ...requiredOptions }
    delete options[key]
    const fastify = Fastify()
    fastify.register(svcManifest, options as never)
    await t.rejects(ready(fastify), { code: 'FST_SVC_INVALID_OPTION', message: new RegExp(`"${key}" must be .*; got nothing`) })
    await t.rejects(ready(app({ [key]: '' })), { code: 'FST_SVC_INVALID_OPTION', message: new RegExp(`"${key}" must be`) })
    await t.rejects(ready(app({ [key]: 42 })), { code: 'FST_SVC_INVALID_OPTION', message: new RegExp(`"${key}" must be .*; got 42`) })
  })
}

t.test('the register call itself rejects on bad options', async (t) => {
  await t.rejects(async () => { await Fastify().register(svcManifest, { ...requiredOptions, name: ' ' }) }, { code: 'FST_SVC_INVALID_OPTION', message: /"name" must be a non-empty string/ })
  await t.rejects(async () => { await Fastify().register(svcManifest, undefined as never) }, { code: 'FST_SVC_INVALID_OPTION', message: /"name"/ })
})

for (const baseUrl of ['shop.example', '/api', 'ftp://shop.example', 'mailto:a@shop.example', 'https//shop.example']) {
  t.test(`baseUrl ${baseUrl} is refused: not an absolute http(s) URL`, async (t) => {
    await t.rejects(ready(app({ baseUrl })), { code: 'FST_SVC_INVALID_OPTION', message: /"baseUrl" must be an absolute http\(s\) URL/ })
  })
}

for (const path of ['svc.json', '', '/a b', '/svc.json?x=1', '/svc#top', 42]) {
  t.test(`path ${JSON.stringify(path)} is refused`, async (t) => {
    await t.rejects(ready(app({ path })), { code: 'FST_SVC_INVALID_OPTION', message: /"path" must be a URL path starting with "\/"/ })
  })
}

for (const maxAge of [-1, 1.5, '300', Number.NaN, Infinity, null]) {
  t.test(`maxAge ${String(maxAge)} is refused`, async (t) => {
    await t.rejects(ready(app({ maxAge })), { code: 'FST_SVC_INVALID_OPTION', message: /"maxAge" must be a whole number of seconds, 0 or more/ })
  })
}

t.test('an unknown option is refused and the known ones are listed', async (t) => {
  await t.rejects(ready(app({ baseURL: 'https://x.example' })), { code: 'FST_SVC_INVALID_OPTION', message: /unknown option "baseURL"\. Known options: svc, name, .*maxAge, unseenRoutes, basePath, invoke, realtime, mcp, (ui, )?allowedOrigins, allowedHosts\b/ })
})

for (const svc of ['2.0', '0.5', 1, '']) {
  t.test(`layout svc ${JSON.stringify(svc)} is refused`, async (t) => {
    await t.rejects(ready(app({ svc })), { code: 'FST_SVC_INVALID_OPTION', message: /"svc" must be "1\.0" or "0\.5\.0"/ })
  })
}

t.test('about must be a string', async (t) => {
  await t.rejects(ready(app({ svc: '0.5.0', about: 42 })), { code: 'FST_SVC_INVALID_OPTION', message: /"about" must be a string/ })
})

for (const [label, auth, field] of [
  ['not an object', 'bearer', 'auth'],
  ['an array', [], 'auth'],
  ['another scheme', { type: 'basic', description: 'Basic' }, 'auth\\.type'],
  ['no type', { description: 'JWT' }, 'auth\\.type'],
  ['no description', { type: 'bearer' }, 'auth\\.description'],
  ['a blank description', { type: 'bearer', description: ' ' }, 'auth\\.description'],
  ['verify that is not a function', { type: 'bearer', description: 'JWT', verify: 'jwt' }, 'auth\\.verify'],
  ['an unknown key', { type: 'bearer', description: 'JWT', realm: 'shop' }, 'auth\\.realm']
] as const) {
  t.test(`auth with ${label} is refused`, async (t) => {
    await t.rejects(ready(app({ auth })), { code: 'FST_SVC_INVALID_OPTION', message: new RegExp(`"${field}" must be`) })
  })
}

t.test('types, events and channels options must be objects of definitions', async (t) => {
  await t.rejects(ready(app({ types: [Type.String()] })), { code: 'FST_SVC_INVALID_OPTION', message: /"types" must be an object that maps names to definitions/ })
  await t.rejects(ready(app({ events: 'cart.updated' })), { code: 'FST_SVC_INVALID_OPTION', message: /"events" must be an object/ })
  await t.rejects(ready(app({ svc: '0.5.0', channels: null })), { code: 'FST_SVC_INVALID_OPTION', message: /"channels" must be an object/ })
  await t.rejects(ready(app({ types: { Product: 'string' } })), { code: 'FST_SVC_INVALID_OPTION', message: /type "Product" must be a JSON Schema object/ })
  await t.rejects(ready(app({ events: { 'a.b': 'A' } })), { code: 'FST_SVC_INVALID_OPTION', message: /event "a\.b" must be an object/ })
  await t.rejects(ready(app({ events: { 'a.b': { description: 'A', data: 'x' } } })), { code: 'FST_SVC_INVALID_OPTION', message: /event "a\.b": "data" must be an object schema/ })
  await t.rejects(ready(app({ svc: '0.5.0', channels: { c: true } })), { code: 'FST_SVC_INVALID_OPTION', message: /channel "c" must be an object/ })
})

t.test('a function as an option value is described as such', async (t) => {
  await t.rejects(ready(app({ name: () => 'Shop' })), { message: /"name" must be a non-empty string; got a function/ })
})

t.test('options given as a function must give an object', async (t) => {
  for (const given of [null, 'Shop']) {
    const fastify = Fastify()
    fastify.register(svcManifest, (() => given) as never)
    await t.rejects(ready(fastify), { code: 'FST_SVC_INVALID_OPTION', message: new RegExp(`"options" must be an object; got ${JSON.stringify(given)}`) })
  }
})

t.test('a value JSON cannot write is still named', async (t) => {
  await t.rejects(ready(app({ version: Symbol('2.3.0') })), { code: 'FST_SVC_INVALID_OPTION', message: /"version" must be a non-empty string; got Symbol\(2\.3\.0\)/ })
})

t.test('every problem of every kind is reported at once, in one error', async (t) => {
  const error = await ready(app({}, (fastify) => {
    fastify.get('/a', { svc: { name: 'same', description: 'A' } }, async () => ({}))
    fastify.post('/b', { svc: { name: 'same', description: 'B' } }, async () => ({}))
    fastify.get('/cart', { svc: { description: 'Cart' } }, async () => ({}))
    fastify.post('/cart', { svc: { description: 'Cart' } }, async () => ({}))
    fastify.get('/:only', { svc: { description: 'Nameless' } }, async () => ({}))
    fastify.get('/hinted', { svc: { description: 'Hinted', hints: { fast: true } as never } }, async () => ({}))
    fastify.get('/secret', { svc: { description: 'Secret', auth: 'required' } }, async () => ({}))
  })).catch((caught: Error) => caught) as Error & { errors: Error[] }
  t.match(error, { code: 'FST_SVC_INVALID_ROUTES', statusCode: 500 })
  t.equal(error.message, [
    '5 problems:',
    '- FST_SVC_INVALID_ROUTE_OPTION: Invalid svc route option: route GET /hinted: svc.hints.fast must be absent: hints are idempotent and sideEffects; got true.',
    '- FST_SVC_AUTH_NOT_CONFIGURED: Auth is not configured: GET /secret require auth but the plugin has no "auth" option. Add auth: { type: \'bearer\', description, verify }.',
    '- FST_SVC_DUPLICATE_NAME: Duplicate name: routes GET /a and POST /b are both command "same". Set svc.name on one of them.',
    '- FST_SVC_DUPLICATE_NAME: Duplicate name: routes GET /cart and POST /cart are both command "cart". Set svc.name on one of them, or name commands by their method too: names: { style: \'rest\' }.',
    '- FST_SVC_NAME_NOT_DERIVABLE: Cannot derive a command name: route GET /:only gives no name. Set svc.name, for example svc: { name: \'cart.get\', ... }.'
  ].join('\n'), 'one line per problem: its code, then its own message naming the route, the field and the fix')
  t.same(error.errors.map((each) => (each as { code?: string }).code), [
    'FST_SVC_INVALID_ROUTE_OPTION', 'FST_SVC_AUTH_NOT_CONFIGURED', 'FST_SVC_DUPLICATE_NAME', 'FST_SVC_DUPLICATE_NAME', 'FST_SVC_NAME_NOT_DERIVABLE'
  ], 'each coded error, to handle one by one')
})

t.test('one problem is its own coded error', async (t) => {
  const error = await ready(app({}, (fastify) => {
    fastify.get('/a', { svc: { description: 'A', hints: { fast: true } as never } }, async () => ({}))
  })).catch((caught: Error) => caught)
  t.match(error, { code: 'FST_SVC_INVALID_ROUTE_OPTION', message: /^Invalid svc route option: route GET \/a: svc\.hints\.fast/ })
  t.notOk('errors' in (error as object))
})

t.test('problems of one kind from several routes are reported together, each once', async (t) => {
  const error = await ready(app({}, (fastify) => {
    fastify.get('/a', { svc: { description: 'A', hints: { fast: true } as never } }, async () => ({}))
    fastify.get('/b', { svc: { description: 'B', tags: 'b' as never } }, async () => ({}))
    fastify.get('/c', { svc: { description: 'C', auth: 'maybe' as never } }, async () => ({}))
  })).catch((caught: Error) => caught)
  t.match(error, { code: 'FST_SVC_INVALID_ROUTES', message: /^3 problems:\n- FST_SVC_INVALID_ROUTE_OPTION: Invalid svc route option: route GET \/a: svc\.hints\.fast .*\n- FST_SVC_INVALID_ROUTE_OPTION: .*route GET \/b: svc\.tags .*\n- FST_SVC_INVALID_ROUTE_OPTION: .*route GET \/c: svc\.auth / })
})

t.test('mapping problems of several commands are reported together', async (t) => {
  const error = await ready(app({}, (fastify) => {
    fastify.get('/a', { schema: { response: { 200: { anyOf: [{ type: 'string' }, { type: 'number' }] } } }, svc: { description: 'A' } }, async () => 1)
    fastify.get('/b', { svc: { description: 'B', returns: { allOf: [{ type: 'string' }, { type: 'number' }] } } }, async () => ({}))
  })).catch((caught: Error) => caught)
  t.match(error, { code: 'FST_SVC_INVALID_ROUTES', message: /2 problems:\n- FST_SVC_UNMAPPABLE_SCHEMA: .*GET \/a schema\.response\.200: it allows string, number\. .*\n- FST_SVC_UNMAPPABLE_SCHEMA: .*GET \/b svc\.returns: it allows no value/ })
})

t.test('unseen routes in "error" mode join the list', async (t) => {
  const fastify = Fastify()
  fastify.get('/early', async () => ({}))
  await fastify.register(svcManifest, { ...requiredOptions, unseenRoutes: 'error' })
  fastify.get('/a', { svc: { description: 'A', hints: { fast: true } as never } }, async () => ({}))
  const error = await ready(fastify).catch((caught: Error) => caught) as Error & { errors: Error[] }
  t.same(error.errors.map((each) => (each as { code?: string }).code), ['FST_SVC_INVALID_ROUTE_OPTION', 'FST_SVC_UNSEEN_ROUTES'])
})

t.test('svc.params check the refs of the types they refer to, since the validator compiles those too', async (t) => {
  await t.rejects(ready(app({ types: { Cart: { type: 'object', properties: { line: { $ref: 'Line' } } } } }, (fastify) => {
    fastify.post('/cart', { svc: { description: 'Cart', params: Type.Object({ cart: Type.Ref('Cart') }) } }, async () => ({}))
  })), { code: 'FST_SVC_INVALID_ROUTES', errors: [{ code: 'FST_SVC_UNKNOWN_REF', message: /POST \/cart svc\.params → type "Cart" refers to "Line", which is not a registered type/ }, { code: 'FST_SVC_UNKNOWN_REF', message: /type "Cart"/ }] })
  const types = {
    Node: { type: 'object', properties: { next: { $ref: 'Link' } } },
    Link: { anyOf: [{ $ref: 'Node' }, { type: 'null' }] }
  }
  await t.resolves(ready(app({ types }, (fastify) => {
    fastify.post('/node', { svc: { description: 'Node', params: Type.Object({ node: Type.Ref('Node') }) } }, async () => ({}))
  })), 'types that refer to each other')
})

t.test('a response schema Fastify tolerates but the manifest cannot name points at svc.returns', async (t) => {
  await t.rejects(ready(app({}, (fastify) => {
    fastify.get('/a', { schema: { response: { 200: { type: ['string', 'number'], description: 'OK' } } }, svc: { description: 'A' } }, async () => ({}))
  })), { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /^Cannot map schema to a manifest type: GET \/a schema\.response\.200: it allows string, number\. .* Or set svc\.returns to describe the return type without changing the route's response schema\.$/ })
  await t.resolves(ready(app({}, (fastify) => {
    fastify.get('/a', { schema: { response: { 200: { type: ['string', 'number'], description: 'OK' } } }, svc: { description: 'A', returns: Type.Object({}) } }, async () => ({}))
  })), 'svc.returns describes it instead')
  await t.rejects(ready(app({}, (fastify) => {
    fastify.get('/a', { svc: { description: 'A', returns: { type: ['string', 'number'] } } }, async () => ({}))
  })), { message: /svc\.returns: it allows string, number\. Give it exactly one type \(nullable and enums of one type are fine\)\.$/ }, 'no such hint for svc.returns itself')
})
