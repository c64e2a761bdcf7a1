import { Type } from '@sinclair/typebox'
import t, { type Test } from 'tap'
import { readyApp } from '../helpers/app.js'
import { pipeline } from '../helpers/invoke.js'

const PRODUCTS = [
  { sku: 'mug', name: 'Tea mug', tags: ['kitchen', 'tea'], stock: { store: 3, 'back-room': 9 } },
  { sku: 'kettle', name: 'Electric kettle', tags: ['kitchen'], stock: { store: 0, 'back-room': 1 } }
]

async function shopApp (t: Test, options = {}) {
  const calls: string[] = []
  const app = await readyApp(t, options, (app) => {
    app.get<{ Querystring: { q: string } }>('/products', { svc: { name: 'products.search', description: 'Search', params: Type.Object({ q: Type.String() }) } }, async (request) => {
      calls.push('search')
      return PRODUCTS.filter((product) => product.name.toLowerCase().includes(request.query.q))
    })
    app.get<{ Params: { sku: string } }>('/products/:sku', { svc: { name: 'products.get', description: 'One product' } }, async (request, reply) => {
      calls.push(`get ${request.params.sku}`)
      return PRODUCTS.find((product) => product.sku === request.params.sku) ?? reply.code(404).send({ message: `No product "${request.params.sku}"` })
    })
    app.post('/echo', { svc: { name: 'echo', description: 'Echoes its params' } }, async (request) => {
      calls.push('echo')
      return request.body
    })
    app.get('/note', { svc: { name: 'note', description: 'Text' } }, async () => 'hello')
  })
  return { app, calls }
}

t.test('steps run in order, each like execute, and references reach into arrays and objects', async (t) => {
  const { app, calls } = await shopApp(t)
  const response = await pipeline(app, {
    steps: [
      { command: 'products.search', params: { q: 'tea' }, as: 'found' },
      { command: 'products.get', params: { sku: '$found[0].sku' }, as: 'mug' },
      { command: 'note', as: 'text' },
      {
        command: 'echo',
        params: {
          sku: '$mug.sku',
          firstTag: '$prev',
          tag: '$mug.tags[1]',
          backRoom: '$mug.stock.back-room',
          whole: '$found',
          nested: { list: ['$found[0].stock.store', 'plain', 4, null, true] },
          price: '$$5',
          dollars: '$$',
          text: '$text',
          first: '$found[0]'
        }
      }
    ]
  })
  t.equal(response.statusCode, 200)
  const { ok, results } = response.json()
  t.equal(ok, true)
  t.same(calls, ['search', 'get mug', 'echo'])
  t.same(results.map((result: { command: string, ok: boolean }) => [result.command, result.ok]), [['products.search', true], ['products.get', true], ['note', true], ['echo', true]])
  t.same(results[0].result, [PRODUCTS[0]])
  t.same(results[2], { command: 'note', ok: true, result: 'hello' })
  t.same(results[3].result, {
    sku: 'mug',
    firstTag: 'hello',
    tag: 'tea',
    backRoom: 9,
    whole: [PRODUCTS[0]],
    nested: { list: [3, 'plain', 4, null, true] },
    price: '$5',
    dollars: '$',
    text: 'hello',
    first: PRODUCTS[0]
  })
})

t.test('a reference that does not resolve fails its step with INVALID_PARAMS naming it', async (t) => {
  const { app, calls } = await shopApp(t)
  const cases: Array<[unknown, string]> = [
    ['$prev[3]', 'Reference "$prev[3]" does not resolve: $prev has no item 3.'],
    ['$found', 'Reference "$found" does not resolve: no earlier step that succeeded has as: "found".'],
    ['$first[0].nope', 'Reference "$first[0].nope" does not resolve: $first[0] has no key "nope".'],
    ['$first[5]', 'Reference "$first[5]" does not resolve: $first has no item 5.'],
    ['$first.length', 'Reference "$first.length" does not resolve: $first has no key "length".'],
    ['$first[0].tags.0', 'Reference "$first[0].tags.0" does not resolve: $first[0].tags has no key "0".'],
    ['$first[0].sku[0]', 'Reference "$first[0].sku[0]" does not resolve: $first[0].sku has no item 0.'],
    ['$first[0].__proto__', 'Reference "$first[0].__proto__" does not resolve: $first[0] has no key "__proto__".'],
    ['$first[0].constructor', 'Reference "$first[0].constructor" does not resolve: $first[0] has no key "constructor".'],
    [['ok', { deep: '$first[-1]' }], '"$first[-1]" is not a reference ($prev or $<as>, then .key or [index] segments); write "$$first[-1]" for the literal text.'],
    ['$', '"$" is not a reference ($prev or $<as>, then .key or [index] segments); write "$$" for the literal text.'],
    ['$first..sku', '"$first..sku" is not a reference ($prev or $<as>, then .key or [index] segments); write "$$first..sku" for the literal text.']
  ]
  for (const [value, message] of cases) {
    calls.length = 0
    const response = await pipeline(app, {
      steps: [
        { command: 'products.search', params: { q: 'tea' }, as: 'first' },
        { command: 'echo', params: { value } },
        { command: 'note' }
      ]
    })
    t.equal(response.statusCode, 200, JSON.stringify(value))
    const { ok, results } = response.json()
    t.equal(ok, false)
    t.equal(results.length, 2, 'it stops at the failed step')
    t.equal(results[1].command, 'echo')
    t.equal(results[1].error.code, 'INVALID_PARAMS')
    t.equal(results[1].error.status, 400)
    t.equal(results[1].error.message, message)
    t.same(calls, ['search'], 'the failed step\'s route never ran')
  }
  const first = await pipeline(app, { steps: [{ command: 'echo', params: { a: '$prev' } }] })
  t.same(first.json().results[0].error.message, 'Reference "$prev" does not resolve: there is no earlier step that succeeded.', 'no step before the first')
})

t.test('a failing middle step stops the pipeline, or not with continueOnError', async (t) => {
  const { app, calls } = await shopApp(t)
  const steps = [
    { command: 'products.get', params: { sku: 'mug' }, as: 'mug' },
    { command: 'products.get', params: { sku: 'teapot' }, as: 'teapot' },
    { command: 'echo', params: { sku: '$mug.sku' } },
    { command: 'echo', params: { after: '$prev' } },
    { command: 'echo', params: { sku: '$teapot.sku' } },
    { command: 'echo', params: { before: '$prev' } }
  ]
  const stopped = await pipeline(app, { steps })
  t.equal(stopped.statusCode, 200, 'the envelope was valid: 200 whatever the steps did')
  t.same(stopped.json(), {
    ok: false,
    results: [
      { command: 'products.get', ok: true, result: PRODUCTS[0] },
      { command: 'products.get', ok: false, error: { code: 'NOT_FOUND', message: 'No product "teapot"', status: 404 } }
    ]
  })
  t.same(calls, ['get mug', 'get teapot'])

  calls.length = 0
  const continued = await pipeline(app, { steps, continueOnError: true })
  const { ok, results } = continued.json()
  t.equal(ok, false)
  t.equal(results.length, 6, 'every step ran')
  t.same(results[2], { command: 'echo', ok: true, result: { sku: 'mug' } }, 'an alias of an earlier step still resolves')
  t.same(results[3], { command: 'echo', ok: true, result: { after: { sku: 'mug' } } })
  t.equal(results[4].error.message, 'Reference "$teapot.sku" does not resolve: no earlier step that succeeded has as: "teapot".', 'a failed step cannot be referenced')
  t.equal(results[5].error.message, 'Reference "$prev" does not resolve: there is no earlier step that succeeded.', '$prev after a failure')
  t.same(calls, ['get mug', 'get teapot', 'echo', 'echo'])

  const allGood = await pipeline(app, { steps: [{ command: 'note' }], continueOnError: true })
  t.same(allGood.json(), { ok: true, results: [{ command: 'note', ok: true, result: 'hello' }] })
})

t.test('an unknown command fails its step', async (t) => {
  const { app } = await shopApp(t)
  const response = await pipeline(app, { steps: [{ command: 'note' }, { command: 'admin' }] })
  t.same(response.json().results[1], { command: 'admin', ok: false, error: { code: 'UNKNOWN_COMMAND', message: 'Unknown command "admin". The manifest lists the commands.', status: 404 } })
})

t.test('malformed pipelines are refused before any step runs', async (t) => {
  const { app, calls } = await shopApp(t)
  const note = { command: 'note' }
  const cases: Array<[unknown, string]> = [
    [[note], 'The body must be a JSON object { steps: [{ command, params?, as? }], continueOnError? }.'],
    [{}, '"steps" must be an array of 1 to 16 steps { command, params?, as? }; got no array.'],
    [{ steps: note }, '"steps" must be an array of 1 to 16 steps { command, params?, as? }; got no array.'],
    [{ steps: [] }, '"steps" must be an array of 1 to 16 steps { command, params?, as? }; got 0 steps.'],
    [{ steps: Array(17).fill(note) }, '"steps" must be an array of 1 to 16 steps { command, params?, as? }; got 17 steps.'],
    [{ steps: [note], continueOnError: 'yes' }, '"continueOnError" must be true or false when present.'],
    [{ steps: [note, 'echo'] }, 'steps[1] must be an object { command, params?, as? }.'],
    [{ steps: [note, {}] }, 'steps[1].command must be a string: the name of a command of the manifest.'],
    [{ steps: [{ command: 'echo', params: [1] }] }, 'steps[0].params must be an object of param values when present.'],
    [{ steps: [{ command: 'note', as: 'prev' }] }, 'steps[0].as must be a name of letters, digits and "_" (not starting with a digit), other than "prev"; got "prev".'],
    [{ steps: [{ command: 'note', as: '1st' }] }, 'steps[0].as must be a name of letters, digits and "_" (not starting with a digit), other than "prev"; got "1st".'],
    [{ steps: [{ command: 'note', as: 'a.b' }] }, 'steps[0].as must be a name of letters, digits and "_" (not starting with a digit), other than "prev"; got "a.b".'],
    [{ steps: [{ command: 'note', as: 3 }] }, 'steps[0].as must be a name of letters, digits and "_" (not starting with a digit), other than "prev"; got 3.'],
    [{ steps: [{ command: 'note', as: 'x' }, { command: 'note', as: 'x' }] }, 'steps[1].as "x" is already the name of an earlier step.']
  ]
  for (const [body, message] of cases) {
    const response = await pipeline(app, body)
    t.equal(response.statusCode, 400, message)
    t.same(response.json(), { ok: false, error: { code: 'INVALID_REQUEST', message, status: 400 } })
  }
  t.same(calls, [], 'no step ran')
  t.equal((await pipeline(app, { steps: Array(16).fill(note) })).json().results.length, 16, '16 steps are allowed')
})

t.test('invoke.maxSteps sets the limit', async (t) => {
  const { app } = await shopApp(t, { invoke: { maxSteps: 2 } })
  t.equal((await pipeline(app, { steps: [{ command: 'note' }, { command: 'note' }] })).statusCode, 200)
  const tooMany = await pipeline(app, { steps: [{ command: 'note' }, { command: 'note' }, { command: 'note' }] })
  t.equal(tooMany.statusCode, 400)
  t.equal(tooMany.json().error.message, '"steps" must be an array of 1 to 2 steps { command, params?, as? }; got 3 steps.')
})

t.test('binary results keep their encoding; headers of every step are relayed', async (t) => {
  const app = await readyApp(t, {}, (app) => {
    app.get('/icon', { svc: { description: 'Binary' } }, async (request, reply) => reply.type('image/x-icon').header('set-cookie', 'a=1').send(Buffer.from([0, 1])))
    app.get('/limited', { svc: { description: 'Sets headers' } }, async (request, reply) => reply.header('set-cookie', 'b=2').header('x-ratelimit-remaining', '5').send({}))
  })
  const response = await pipeline(app, { steps: [{ command: 'icon' }, { command: 'limited' }] })
  t.same(response.json().results[0], { command: 'icon', ok: true, result: 'AAE=', encoding: 'base64', contentType: 'image/x-icon' })
  t.same(response.headers['set-cookie'], ['a=1', 'b=2'], 'cookies of every step')
  t.equal(response.headers['x-ratelimit-remaining'], '5')
})
