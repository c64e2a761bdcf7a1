import { buildShop } from '../examples/shop/app.js'
for (const layout of ['1.0', '0.5.0']) {
  const app = await buildShop({ layout })
  await app.ready()
  const m = app.svc.manifest
  console.log(JSON.stringify(m, null, 2))
  console.log('=====')
}
