import { Type } from '@sinclair/typebox'
import t from 'tap'
import { fetchManifest, readyApp } from '../helpers/app.js'

// The subschema keyword table lived twice and had drifted: the check of svc.params lacked draft-07's
// `dependencies`, which maps a property to a schema or to the names of the properties it needs.

t.test('svc.params with draft-07 dependencies, both forms, are installed and validate as Fastify reads them', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.post('/pay', {
      svc: {
        description: 'Pay',
        params: Type.Object({ card: Type.Optional(Type.String()), cvc: Type.Optional(Type.String()), note: Type.Optional(Type.String()) }, {
          dependencies: { card: ['cvc'], note: { properties: { note: { maxLength: 5 } } } }
        })
      }
    }, async () => ({ paid: true }))
  })
  t.same(Object.keys((await fetchManifest(app)).commands.pay.params ?? {}), ['card', 'cvc', 'note'])
  const call = async (params: object) => (await app.inject({ method: 'POST', url: '/svc/execute', payload: { command: 'pay', params } })).json()
  t.same(await call({ card: '4242', cvc: '123' }), { ok: true, result: { paid: true } })
  t.equal((await call({ card: '4242' })).error.code, 'INVALID_PARAMS', 'a card needs its cvc')
  t.equal((await call({ note: 'too long' })).error.code, 'INVALID_PARAMS', 'the schema form applies too')
})

t.test('a dependencies entry that is neither a schema nor a list of names is refused, naming it', async (t) => {
  await t.rejects(readyApp(t, {}, (app) => {
    app.post('/pay', { svc: { description: 'Pay', params: Type.Object({ card: Type.String() }, { dependencies: { card: 5 } }) } }, async () => ({}))
  }), { code: 'FST_SVC_UNMAPPABLE_SCHEMA', message: /dependencies\.card is 5, where a schema belongs/ })
})
