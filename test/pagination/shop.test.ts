import t from 'tap'
import { buildShop } from '../../examples/shop/app.js'
import { createManifestClient, type Manifest } from '../../lib/client/index.js'
import { listening } from '../helpers/net.js'

t.test('the shop\'s products: a paginated, rate-limited command an agent walks from its manifest', async (t) => {
  const shop = await buildShop({ products: true })
  const origin = await listening(t, shop)
  const client = createManifestClient({ url: `${origin}/.well-known/svc.json` })
  const { manifest } = await client.get()
  const products = (manifest as Manifest).commands.products
  t.same(products.paginated, { style: 'cursor', defaultLimit: 2, maxLimit: 10 })
  t.same(products.rateLimit, { maxRequests: 60, windowMs: 60_000 })
  t.same(await client.execute('products'), {
    items: [{ sku: 'kettle', name: 'Electric kettle', price: 24 }, { sku: 'mug', name: 'Tea mug', price: 8 }],
    nextCursor: '2'
  })
  const skus: string[] = []
  for await (const product of client.paginate<{ sku: string }>('products')) skus.push(product.sku)
  t.same(skus, ['kettle', 'mug', 'tea-black', 'tea-green'])
  const response = await fetch(`${origin}/products?limit=3`)
  t.equal(response.headers.get('x-ratelimit-limit'), '60', 'the limit the manifest states is the one applied')
})
