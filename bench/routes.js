// The routes every benchmark registers: the same definitions whether or not the plugin or
// @fastify/swagger is there, so each variant can be compared with a plain Fastify start.

export const MANIFEST_PATH = '/.well-known/svc.json'
/** A route serving the manifest's bytes and headers from a prebuilt Buffer: what the manifest is measured against. */
export const BASELINE_PATH = '/.well-known/baseline.json'

/** The manifest options used by every benchmark. */
export const manifestOptions = {
  name: 'Bench',
  description: 'Benchmark service',
  version: '1.0.0',
  baseUrl: 'https://bench.example'
}

/**
 * Validation and response serialisation are compiled by Ajv and fast-json-stringify, which would dominate
 * start-up and are the same work with or without the plugin: every variant stubs them out.
 */
export function stubCompilers (app) {
  app.setValidatorCompiler(() => () => true)
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
}

const PRODUCTS = [
  { sku: 'kettle', name: 'Electric kettle', price: 24 },
  { sku: 'mug', name: 'Tea mug', price: 8 },
  { sku: 'tea-black', name: 'Black tea', price: 3.9 }
]

const PRODUCT = { type: 'object', properties: { sku: { type: 'string' }, name: { type: 'string' }, price: { type: 'number' } } }

/**
 * The invocation and MCP benchmarks' command, `products.find` at `GET /shelves/:shelf/products`: path and
 * query params validated by its schemas, its answer serialised by its response schema. `inObject`: the
 * products are answered as `{ products }` rather than as the array, since an MCP tool's structured content
 * is an object.
 */
export function addProductsRoute (app, { inObject = false } = {}) {
  const products = { type: 'array', items: PRODUCT }
  app.get('/shelves/:shelf/products', {
    schema: {
      params: { type: 'object', properties: { shelf: { type: 'string' } }, required: ['shelf'] },
      querystring: {
        type: 'object',
        properties: { q: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 } },
        required: ['q']
      },
      response: { 200: inObject ? { type: 'object', properties: { products } } : products }
    },
    svc: { name: 'products.find', description: 'Products of a shelf whose name contains q' }
  }, async (request) => {
    const needle = request.query.q.toLowerCase()
    const found = PRODUCTS.filter((product) => product.name.toLowerCase().includes(needle)).slice(0, request.query.limit)
    return inObject ? { products: found } : found
  })
}

/**
 * Registers `count` routes tagged as commands: half `GET /rN/items/:id` with path and querystring schemas,
 * half `POST /rN/orders` with a body schema, each with a response schema, a description, tags and hints.
 */
export function addCommandRoutes (app, count) {
  for (let i = 0; i < count; i++) {
    if (i % 2 === 0) app.get(`/r${i}/items/:id`, readRoute(i), handler)
    else app.post(`/r${i}/orders`, writeRoute(i), handler)
  }
}

function handler () {
  return { ok: true }
}

function readRoute (i) {
  return {
    svc: { description: `Reads item list ${i}`, tags: ['items'], hints: { idempotent: true, sideEffects: false } },
    schema: {
      params: { type: 'object', properties: { id: { type: 'string', description: 'Item id' } }, required: ['id'] },
      querystring: {
        type: 'object',
        properties: {
          q: { type: 'string', description: 'Search text' },
          limit: { type: 'integer', default: 10 }
        }
      },
      response: { 200: itemSchema() }
    }
  }
}

function writeRoute (i) {
  return {
    svc: { description: `Places order ${i}`, tags: ['orders'], hints: { idempotent: false, sideEffects: true } },
    schema: {
      body: {
        type: 'object',
        properties: {
          sku: { type: 'string' },
          quantity: { type: 'integer', minimum: 1 },
          note: { type: ['string', 'null'] }
        },
        required: ['sku', 'quantity']
      },
      response: { 201: itemSchema() }
    }
  }
}

function itemSchema () {
  return {
    type: 'object',
    properties: { id: { type: 'string' }, price: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } }
  }
}
