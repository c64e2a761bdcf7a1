// A small shop that describes itself: a catalogue search and a cart behind a bearer token, and (with
// `longRunning`) a live feed of orders and a report that takes a few seconds.
// Register the manifest plugin first (awaited), then the routes it should see.
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import rateLimit from '@fastify/rate-limit'
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import svcManifest from 'fastify-svc-manifest'

/** The token the cart commands accept. A real service verifies a JWT or asks its session store. */
export const DEMO_TOKEN = 'demo-token'

/** The shop keeper's token: it grants the `admin` scope, the only one that sees `admin.sales`. */
export const ADMIN_TOKEN = 'admin-token'

const Product = Type.Object({
  sku: Type.String(),
  name: Type.String(),
  price: Type.Number({ description: 'Unit price in EUR' })
}, { description: 'An article of the catalogue' })

const Cart = Type.Object({
  items: Type.Array(Type.Object({ sku: Type.String(), quantity: Type.Integer() })),
  total: Type.Number({ description: 'Sum of the lines in EUR' })
}, { description: 'The caller\'s cart' })

const CATALOGUE = [
  { sku: 'kettle', name: 'Electric kettle', price: 24 },
  { sku: 'mug', name: 'Tea mug', price: 8 },
  { sku: 'tea-black', name: 'Black tea', price: 3.9 },
  { sku: 'tea-green', name: 'Green tea', price: 4.5 }
]

/**
 * Builds the shop without listening. `baseUrl` is the address it will be reached at (server.js passes the
 * one it listens on). `layout` is the manifest layout: '1.0' (default) or '0.5.0',
 * which adds `about` and the `cart` channel. `mcp: true` also serves every command as an MCP tool at
 * /mcp (it needs the package @modelcontextprotocol/server). `redis` (a redis:// URL) shares events and
 * channel states with every other instance that uses the same Redis. `ui: true` serves the human page at
 * /svc/ui: browse the manifest, run the commands, watch the events. `discovery: true` serves
 * /.well-known/api-catalog and /llms.txt, for agents that know only the address. `longRunning: true` adds
 * two commands that take a few seconds (server.js turns it on): `orders.live`, a stream of orders, and
 * `report.build`, a job that reports its progress; `{ tick }` sets the milliseconds between their steps
 * (default 600). `products: true` adds `products`, the catalogue page by page, rate-limited by
 * @fastify/rate-limit (server.js turns it on).
 */
export async function buildShop ({ layout = '1.0', baseUrl = 'http://127.0.0.1:3000', mcp = false, ui = false, discovery = false, redis, longRunning = false, products = false } = {}) {
  const app = Fastify()
  await app.register(svcManifest, {
    svc: layout,
    name: 'Shop',
    description: 'Demo shop',
    version: '2.3.0',
    baseUrl,
    mcp,
    ui,
    discovery,
    auth: { type: 'bearer', description: 'JWT bearer token', verify: verifyDemoToken },
    types: { Product, Cart },
    events: {
      'cart.updated': { description: 'Cart contents changed', data: Type.Object({ items: Type.Array(Type.String()) }) }
    },
    ...(layout === '0.5.0' && {
      about: 'A tea shop. Search the catalogue without a token; the cart needs "Authorization: Bearer demo-token".',
      channels: { cart: { description: 'Real-time cart state' } }
    }),
    ...(redis !== undefined && { realtime: { redis } })
  })
  registerCatalogue(app)
  registerCart(app, layout)
  if (longRunning !== false) registerLongRunning(app, longRunning === true ? DEFAULT_TICK : longRunning.tick)
  if (products) await registerProducts(app)
  return app
}

export default buildShop

function verifyDemoToken (token) {
  if (token === ADMIN_TOKEN) return { sub: 'shop-keeper', scope: 'admin' }
  return token === DEMO_TOKEN ? { sub: 'demo-user' } : null
}

function registerCatalogue (app) {
  // No svc.name: the command is called "search", after the URL.
  app.get('/search', {
    svc: {
      description: 'Search the catalogue by name',
      params: Type.Object({
        q: Type.String({ description: 'Part of the product name' }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 }))
      }),
      returns: Type.Array(Type.Ref('Product')),
      tags: ['catalogue'],
      hints: { idempotent: true, sideEffects: false }
    }
  }, async (request) => {
    const { q, limit } = request.query
    const needle = q.toLowerCase()
    return CATALOGUE.filter((product) => product.name.toLowerCase().includes(needle)).slice(0, limit)
  })
}

/**
 * The whole catalogue, two products a page: a paginated command (Surf's cursor style) whose manifest entry
 * tells an agent how to walk the pages, and how fast it may call (the route's own @fastify/rate-limit config,
 * read into the manifest as `rateLimit`).
 */
async function registerProducts (app) {
  await app.register(rateLimit, { global: false })
  app.get('/products', {
    config: { rateLimit: { max: 60, timeWindow: '1 minute' } },
    svc: {
      description: 'Every product of the catalogue, a page at a time',
      params: Type.Object({
        cursor: Type.Optional(Type.String({ description: 'The nextCursor of the page before' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 2 }))
      }),
      returns: Type.Object({ items: Type.Array(Type.Ref('Product')), nextCursor: Type.Union([Type.String(), Type.Null()]) }),
      tags: ['catalogue'],
      hints: { idempotent: true, sideEffects: false },
      paginated: { defaultLimit: 2, maxLimit: 10 }
    }
  }, async (request) => {
    const { cursor, limit } = request.query
    // The cursor is the index of the page's first product: opaque to the caller, who only sends it back.
    const start = cursor === undefined ? 0 : Number(cursor)
    const end = start + limit
    return { items: CATALOGUE.slice(start, end), nextCursor: end < CATALOGUE.length ? String(end) : null }
  })
}

function registerCart (app, layout) {
  /** Quantities by SKU, one cart per caller (the `sub` of the verified token). */
  const carts = new Map()
  const cartOf = (request) => {
    const { sub } = request.svcCredential
    if (!carts.has(sub)) carts.set(sub, new Map())
    return carts.get(sub)
  }
  /**
   * Tells the cart's owner, and only them, that it changed: the `cart.updated` event, and in layout 0.5.0
   * the `cart` channel's state under their subject. The change itself is done: a broker failure is logged.
   */
  const changed = (request, cart) => {
    const { sub } = request.svcCredential
    const view = cartView(cart)
    app.svc.emit('cart.updated', { items: view.items.map((line) => line.sku) }, { to: sub })
    if (layout === '0.5.0') {
      app.svc.publish('cart', sub, view).catch((error) => request.log.error({ err: error }, 'the cart state was not published'))
    }
    return view
  }

  // Hidden: listed, callable and even found (its URL) only with a token that grants `admin`; to anyone
  // else it does not exist, in the manifest, MCP, execute and on its own URL (404, never 401 or 403).
  app.get('/admin/sales', {
    svc: {
      name: 'admin.sales',
      description: 'Open carts and what they are worth, for the shop keeper',
      returns: Type.Object({ carts: Type.Integer(), total: Type.Number({ description: 'Sum of every open cart in EUR' }) }),
      tags: ['admin'],
      hints: { idempotent: true, sideEffects: false },
      auth: 'hidden',
      scopes: ['admin']
    }
  }, async () => {
    const totals = [...carts.values()].map((cart) => cartView(cart).total)
    return { carts: totals.length, total: Math.round(totals.reduce((sum, total) => sum + total, 0) * 100) / 100 }
  })

  app.get('/cart', {
    svc: { name: 'cart.get', description: 'The caller\'s cart', returns: Type.Ref('Cart'), tags: ['cart'], auth: 'required' }
  }, async (request) => cartView(cartOf(request)))

  app.post('/cart/items', {
    svc: {
      name: 'cart.add',
      description: 'Add a product to the cart',
      params: Type.Object({
        sku: Type.String(),
        quantity: Type.Optional(Type.Integer({ minimum: 1, default: 1 }))
      }),
      returns: Type.Ref('Cart'),
      tags: ['cart'],
      hints: { idempotent: false, sideEffects: true },
      auth: 'required'
    }
  }, async (request, reply) => {
    const { sku, quantity } = request.body
    if (!CATALOGUE.some((product) => product.sku === sku)) {
      return reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `No product with SKU "${sku}"` })
    }
    const cart = cartOf(request)
    cart.set(sku, (cart.get(sku) ?? 0) + quantity)
    return changed(request, cart)
  })

  // Params derived from the route's own schema: a path param, always required.
  app.delete('/cart/items/:sku', {
    schema: { params: Type.Object({ sku: Type.String() }) },
    svc: {
      name: 'cart.remove',
      description: 'Remove a product from the cart',
      returns: Type.Ref('Cart'),
      tags: ['cart'],
      hints: { idempotent: true, sideEffects: true },
      auth: 'required'
    }
  }, async (request) => {
    const cart = cartOf(request)
    cart.delete(request.params.sku)
    return changed(request, cart)
  })
}

function cartView (cart) {
  const items = [...cart].map(([sku, quantity]) => ({ sku, quantity }))
  const cents = items.reduce((sum, { sku, quantity }) => sum + priceInCents(sku) * quantity, 0)
  return { items, total: cents / 100 }
}

function priceInCents (sku) {
  return Math.round(CATALOGUE.find((product) => product.sku === sku).price * 100)
}

/** Milliseconds between two steps of the long-running commands: a few seconds in all, to watch them. */
const DEFAULT_TICK = 600

/**
 * Two commands that take a while, as a person sees them in the page (run streamed: pieces, a progress bar,
 * Stop). Both stop as soon as their answer is no longer wanted: `request.svc.signal` aborts when the
 * caller goes away (Stop in the page, Ctrl-C, a deadline), and every wait takes that signal.
 */
function registerLongRunning (app, tick) {
  // An NDJSON stream (`reply.send(Readable)`): each line is one piece of a streamed execute.
  app.get('/orders/live', {
    svc: {
      name: 'orders.live',
      description: 'Orders as they are placed: one NDJSON line each, a few over a few seconds',
      params: Type.Object({
        count: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'How many orders to wait for' }))
      }),
      tags: ['orders'],
      hints: { idempotent: true, sideEffects: false },
      stream: true
    }
  }, async (request, reply) => {
    const { count } = request.query
    const { signal } = request.svc
    async function * orders () {
      for (let id = 1; id <= count; id++) {
        await sleep(tick, undefined, { signal })
        const product = CATALOGUE[(id - 1) % CATALOGUE.length]
        yield `${JSON.stringify({ id, sku: product.sku, quantity: 1 + (id % 3) })}\n`
      }
    }
    return reply.type('application/x-ndjson').send(Readable.from(orders()))
  })

  // A job that answers JSON at its end and reports progress on the way. Declared `stream: true` so that a
  // caller reading the manifest (the page, among others) calls it streamed and sees the progress frames.
  app.post('/reports', {
    svc: {
      name: 'report.build',
      description: 'Sales of the last days, by product: one day after another, with its progress',
      params: Type.Object({
        days: Type.Optional(Type.Integer({ minimum: 1, maximum: 30, default: 7, description: 'How many days back' }))
      }),
      returns: Type.Object({
        days: Type.Integer(),
        sold: Type.Array(Type.Object({ sku: Type.String(), quantity: Type.Integer() })),
        revenue: Type.Number({ description: 'In EUR' })
      }),
      tags: ['reports'],
      hints: { idempotent: true, sideEffects: false },
      stream: true
    }
  }, async (request) => {
    // The route's validation filled in the default: a body is always an object with its days.
    const total = request.body.days
    const { signal } = request.svc
    const sold = new Map(CATALOGUE.map((product) => [product.sku, 0]))
    for (let day = 1; day <= total; day++) {
      signal.throwIfAborted()
      await sleep(tick, undefined, { signal })
      // A made-up day of sales: the same for the same day, so the report can be checked.
      CATALOGUE.forEach((product, index) => sold.set(product.sku, sold.get(product.sku) + (day + index) % 4))
      request.svc.progress(day, { total, message: `day ${day} of ${total}` })
    }
    const lines = [...sold].map(([sku, quantity]) => ({ sku, quantity }))
    const cents = lines.reduce((sum, { sku, quantity }) => sum + priceInCents(sku) * quantity, 0)
    return { days: total, sold: lines, revenue: cents / 100 }
  })
}
