import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { fetchManifest, readyApp } from '../helpers/app.js'

const searchParams = () => Type.Object({
  q: Type.String({ description: 'Search words' }),
  limit: Type.Optional(Type.Integer({ default: 10, minimum: 1 }))
})

t.test('svc.params become the command params: type, required, default, description', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/search', { svc: { description: 'Search', params: searchParams() } }, async () => [])
  }))
  t.same(manifest.commands.search.params, {
    q: { type: 'string', required: true, description: 'Search words' },
    limit: { type: 'number', required: false, default: 10, minimum: 1 }
  })
  t.same(Object.keys(manifest.commands.search.params ?? {}), ['q', 'limit'], 'in the order the schema declares them, as the spec\'s own example')
})

t.test('required is always a boolean, false when the schema has no required list', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/find', { svc: { description: 'Find', params: { type: 'object', properties: { q: { type: 'string' } } } } }, async () => [])
  }))
  t.same(manifest.commands.find.params, { q: { type: 'string', required: false } })
})

t.test('object and array defaults are served as given', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.post('/filter', {
      svc: {
        description: 'Filter',
        params: Type.Object({
          tags: Type.Optional(Type.Array(Type.String(), { default: ['new'] })),
          range: Type.Optional(Type.Object({ min: Type.Number() }, { default: { min: 0 } })),
          strict: Type.Optional(Type.Boolean({ default: false }))
        })
      }
    }, async () => [])
  }))
  t.same(manifest.commands.filter.params, {
    range: { type: 'object', required: false, default: { min: 0 }, properties: { min: { type: 'number', required: true } } },
    strict: { type: 'boolean', required: false, default: false },
    tags: { type: 'array', required: false, default: ['new'], items: { type: 'string' } }
  })
})

/** An app whose `method /thing` command echoes what its handler received. */
async function echoApp (t: Test, method: 'GET' | 'HEAD' | 'DELETE' | 'OPTIONS' | 'POST' | 'PUT' | 'PATCH'): Promise<FastifyInstance> {
  return readyApp(t, {}, (app) => {
    app.route({
      method,
      url: '/thing',
      svc: { description: `${method} a thing`, params: searchParams() },
      handler: async (request, reply) => {
        if (method === 'HEAD') return reply.header('x-query', JSON.stringify(request.query)).send()
        return { query: request.query ?? null, body: request.body ?? null }
      }
    })
  })
}

for (const method of ['POST', 'PUT', 'PATCH'] as const) {
  t.test(`${method}: svc.params validate the body`, async (t) => {
    const app = await echoApp(t, method)
    const bad = await app.inject({ method, url: '/thing', payload: { limit: 5 } })
    t.equal(bad.statusCode, 400, 'a body without the required param is refused')
    t.match(bad.json().message, /body/)
    const wrongType = await app.inject({ method, url: '/thing', payload: { q: 'x', limit: 'many' } })
    t.equal(wrongType.statusCode, 400, 'a param of the wrong type is refused')
    const good = await app.inject({ method, url: '/thing', payload: { q: 'books' } })
    t.equal(good.statusCode, 200)
    t.same(good.json().body, { q: 'books', limit: 10 }, 'defaults are applied to the body')
    const queryOnly = await app.inject({ method, url: '/thing?q=books', payload: {} })
    t.equal(queryOnly.statusCode, 400, 'the querystring does not satisfy body params')
  })
}

for (const method of ['GET', 'DELETE', 'OPTIONS'] as const) {
  t.test(`${method}: svc.params validate the querystring`, async (t) => {
    const app = await echoApp(t, method)
    const bad = await app.inject({ method, url: '/thing?limit=5' })
    t.equal(bad.statusCode, 400, 'a query without the required param is refused')
    t.match(bad.json().message, /querystring/)
    t.equal((await app.inject({ method, url: '/thing?q=x&limit=0' })).statusCode, 400, 'the schema constraints apply')
    const good = await app.inject({ method, url: '/thing?q=books&limit=3' })
    t.equal(good.statusCode, 200)
    t.same(good.json().query, { q: 'books', limit: 3 }, 'params are coerced to their types')
    const defaulted = await app.inject({ method, url: '/thing?q=books' })
    t.same(defaulted.json().query, { q: 'books', limit: 10 }, 'defaults are applied to the query')
  })
}

t.test('HEAD: svc.params validate the querystring', async (t) => {
  const app = await echoApp(t, 'HEAD')
  t.equal((await app.inject({ method: 'HEAD', url: '/thing' })).statusCode, 400)
  const good = await app.inject({ method: 'HEAD', url: '/thing?q=books' })
  t.equal(good.statusCode, 200)
  t.same(JSON.parse(good.headers['x-query'] as string), { q: 'books', limit: 10 })
})

t.test('the automatic HEAD twin of a GET command validates the querystring too', async (t) => {
  const app = await echoApp(t, 'GET')
  t.equal((await app.inject({ method: 'HEAD', url: '/thing' })).statusCode, 400)
  t.equal((await app.inject({ method: 'HEAD', url: '/thing?q=x' })).statusCode, 200)
})

t.test('a GET command with svc.params gets no body schema', async (t) => {
  const app = await echoApp(t, 'GET')
  const response = await app.inject({ method: 'GET', url: '/thing?q=x', headers: { 'content-type': 'application/json' }, payload: '{"anything":1}' })
  t.equal(response.statusCode, 200)
})

t.test('svc.params keep the rest of the route schema (params, response) working', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.post('/carts/:id/items', {
      schema: { params: Type.Object({ id: Type.Integer() }), response: { 200: Type.Object({ id: Type.Number() }) } },
      svc: { description: 'Add to cart', params: Type.Object({ sku: Type.String() }) }
    }, async (request) => ({ id: (request.params as { id: number }).id, leak: 'x' }))
  })
  t.equal((await app.inject({ method: 'POST', url: '/carts/abc/items', payload: { sku: 'a' } })).statusCode, 400)
  const ok = await app.inject({ method: 'POST', url: '/carts/7/items', payload: { sku: 'a' } })
  t.same(ok.json(), { id: 7 }, 'response schema still serialises')
  const manifest = await fetchManifest(app)
  t.same(manifest.commands['carts.items'].params, { id: { type: 'number', required: true }, sku: { type: 'string', required: true } }, 'the path params from schema.params, then svc.params')
})

t.test('without svc.params, params come from schema.params, schema.querystring and schema.body, in that order', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.put('/carts/:id/items/:sku', {
      schema: {
        body: Type.Object({ quantity: Type.Integer({ default: 1 }), note: Type.Optional(Type.String({ description: 'Gift note' })) }),
        querystring: Type.Object({ dryRun: Type.Optional(Type.Boolean()) }),
        params: Type.Object({ sku: Type.String(), id: Type.String({ description: 'Cart id' }) })
      },
      svc: { description: 'Set an item quantity' }
    }, async () => ({}))
  }))
  const params = manifest.commands['carts.items'].params ?? {}
  t.same(Object.keys(params), ['sku', 'id', 'dryRun', 'quantity', 'note'], 'path params, then querystring, then body, each in declaration order')
  t.same(params, {
    id: { type: 'string', required: true, description: 'Cart id' },
    sku: { type: 'string', required: true },
    dryRun: { type: 'boolean', required: false },
    note: { type: 'string', required: false, description: 'Gift note' },
    quantity: { type: 'number', required: false, default: 1 }
  }, 'a param with a default is not required, even when the schema lists it')
})

t.test('path params are required even when the schema does not list them', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/users/:id', { schema: { params: { type: 'object', properties: { id: { type: 'string' } } } }, svc: { description: 'User' } }, async () => ({}))
  }))
  t.same(manifest.commands.users.params, { id: { type: 'string', required: true } })
})

t.test('an app that already has route schemas gets its params by adding svc: { description }', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/search', { schema: { querystring: searchParams() }, svc: { description: 'Search' } }, async (request) => request.query)
  })
  t.same((await fetchManifest(app)).commands.search.params, {
    q: { type: 'string', required: true, description: 'Search words' },
    limit: { type: 'number', required: false, default: 10, minimum: 1 }
  })
  t.equal((await app.inject({ method: 'GET', url: '/search' })).statusCode, 400, 'the route schema still validates')
})

t.test('a command without any params has no params field', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.get('/ping', { schema: { response: { 200: Type.String() } }, svc: { description: 'Ping' } }, async () => 'pong')
  }))
  t.notOk('params' in manifest.commands.ping)
})

t.test('an empty params object is served as an empty map', async (t) => {
  const manifest = await fetchManifest(await readyApp(t, {}, (app) => {
    app.post('/reset', { svc: { description: 'Reset', params: Type.Object({}) } }, async () => ({}))
  }))
  t.same(manifest.commands.reset.params, {})
})
