import t from 'tap'
import {
  fieldOf, formOf, htmlPattern,
  type ArrayField, type ChoiceField, type Descriptor, type Field, type JsonField, type NumberField, type ObjectField, type TextField
} from '../../lib/ui/form-fields.js'
import { collectParams, rawOf, readJson, typed } from '../../lib/ui/form-params.js'

// The page's forms without a browser: descriptors (DESIGN §4) → fields, what was typed → params.

const only = (params: Record<string, Descriptor>, types: Record<string, Descriptor> = {}): Field => formOf(params, types).fields[0]

t.test('a form has one field per param, in the manifest\'s order', async (t) => {
  const form = formOf({ q: { type: 'string', required: true }, limit: { type: 'number', required: false, default: 10 } })
  t.same(form.fields.map((field) => [field.name, field.kind, field.required]), [['q', 'text', true], ['limit', 'number', false]])
  t.same(formOf(undefined).fields, [], 'a command without params')
})

t.test('strings: formats, lengths and patterns become input constraints', async (t) => {
  const email = only({ to: { type: 'string', required: true, format: 'email', description: 'Who' } }) as TextField
  t.match(email, { kind: 'text', input: 'email', required: true, description: 'Who', constraints: ['format: email'] })
  t.equal(email.placeholder, undefined)
  t.match(only({ at: { type: 'string', format: 'date-time' } }), { input: 'text', placeholder: '2025-01-31T12:00:00Z' })
  t.match(only({ site: { type: 'string', format: 'uri' } }), { input: 'url' })
  t.match(only({ day: { type: 'string', format: 'date' } }), { input: 'date' })
  const other = only({ re: { type: 'string', format: 'regex' } }) as TextField
  t.same([other.input, other.placeholder], ['text', undefined], 'a format without an input type or an example')

  t.match(only({ code: { type: 'string', minLength: 2, maxLength: 8 } }), { minLength: 2, maxLength: 8, constraints: ['2 to 8 characters'] })
  t.match(only({ code: { type: 'string', minLength: 3, maxLength: 3 } }), { constraints: ['exactly 3 characters'] })
  t.match(only({ code: { type: 'string', minLength: 1 } }), { constraints: ['at least 1 character'] })
  t.match(only({ code: { type: 'string', maxLength: 5 } }), { constraints: ['at most 5 characters'] })

  const sku = only({ sku: { type: 'string', pattern: '^[a-z]+$' } }) as TextField
  t.equal(sku.pattern, '[\\s\\S]*(?:^[a-z]+$)[\\s\\S]*')
  t.same(sku.constraints, ['pattern: ^[a-z]+$'])
  // Browsers compile the attribute with the `v` flag, where a bare `-` in a class is a syntax error.
  const unicodeSets = only({ sku: { type: 'string', pattern: '^[a-z-]+$' } }) as TextField
  t.equal(unicodeSets.pattern, undefined, 'a pattern the browser cannot compile is left to the route')
  t.same(unicodeSets.constraints, ['pattern: ^[a-z-]+$'], 'and still shown')
})

t.test('the pattern attribute matches where the JSON Schema pattern matches', async (t) => {
  const matches = (pattern: string, value: string): boolean => new RegExp(`^(?:${htmlPattern(pattern) as string})$`, 'v').test(value)
  t.ok(matches('b', 'abc'), 'unanchored: anywhere in the value')
  t.notOk(matches('^b', 'abc'))
  t.ok(matches('^a.c$', 'abc'))
  t.notOk(matches('\\d', 'abc'))
  t.ok(matches('x', 'line\nx'), 'across lines')
  t.equal(htmlPattern('[a-z'), undefined)
})

t.test('numbers: bounds become min and max, exclusive ones are named', async (t) => {
  t.match(only({ n: { type: 'number', minimum: 1, maximum: 50 } }), { kind: 'number', min: 1, max: 50, constraints: ['≥ 1', '≤ 50'] })
  const exclusive = only({ n: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 } }) as NumberField
  t.same([exclusive.min, exclusive.max, exclusive.constraints], [0, 1, ['> 0', '< 1']])
  const both = only({ n: { type: 'number', minimum: 2, exclusiveMinimum: 1, maximum: 8, exclusiveMaximum: 9 } }) as NumberField
  t.same([both.min, both.max], [2, 8], 'the inclusive bound is the input\'s')
  t.match(only({ n: { type: 'integer' } }), { kind: 'number', typeLabel: 'number' }, 'integer, should a manifest say it')
})

t.test('booleans, enums, null', async (t) => {
  t.match(only({ b: { type: 'boolean' } }), { kind: 'boolean', typeLabel: 'boolean' })
  const size = only({ size: { type: 'string', enum: ['S', 'M'], default: 'M' } }) as ChoiceField
  t.same(size.options, [{ label: 'S', value: 'S' }, { label: 'M', value: 'M' }])
  t.same(size.constraints, ['default "M"'])
  t.same((only({ n: { type: 'number', enum: [1, 2] } }) as ChoiceField).options.map((option) => option.label), ['1', '2'], 'values shown as JSON')
  t.match(only({ s: { type: 'string', enum: [] } }), { kind: 'text' }, 'an empty enum is no choice')
  t.match(only({ nothing: { type: 'null' } }), { kind: 'json', placeholder: 'null', constraints: ['JSON'] })
})

t.test('a field of type any is a JSON editor, wherever it is', async (t) => {
  const payload = only({ payload: { type: 'any', required: true, description: 'Whatever the hook sends' } }) as JsonField
  t.same(payload, {
    name: 'payload',
    path: 'payload',
    required: true,
    kind: 'json',
    typeLabel: 'any',
    constraints: ['any JSON value'],
    placeholder: '"text", 42, true, null, [] or {}',
    description: 'Whatever the hook sends'
  }, 'no type name to look up: any is not a registered type')
  t.match(only({ body: { type: 'any', default: { a: 1 } } }), { kind: 'json', constraints: ['any JSON value', 'default {"a":1}'] })
  t.match(only({ level: { type: 'any', enum: [1, 'high'] } }), { kind: 'choice', typeLabel: 'any' }, 'allowed values are still a select')
  const nested = only({ event: { type: 'object', properties: { data: { type: 'any', required: true } } } }) as ObjectField
  t.match(nested.fields[0], { kind: 'json', path: 'event.data', typeLabel: 'any', required: true })
  const list = only({ values: { type: 'array', items: { type: 'any' } } }) as ArrayField
  t.match(list.item, { kind: 'json', path: 'values[]', typeLabel: 'any', required: true })
  const types: Record<string, Descriptor> = { Hook: { type: 'object', properties: { payload: { type: 'any', required: false } } } }
  t.match((only({ hook: { type: 'Hook' } }, types) as ObjectField).fields[0], { kind: 'json', typeLabel: 'any' }, 'inside a registered type')
})

t.test('what is typed in a field of type any is sent as the JSON value it reads as', async (t) => {
  const form = formOf({
    payload: { type: 'any', required: true },
    extra: { type: 'any' },
    values: { type: 'array', items: { type: 'any' } }
  })
  t.same(rawOf(form, { payload: 'text', extra: null }), { payload: '"text"', extra: 'null', values: [] }, 'a given value, as JSON text')
  for (const [text, value] of [['"hello"', 'hello'], ['42', 42], [' true ', true], ['null', null], ['[1, "a"]', [1, 'a']], ['{"a": {"b": []}}', { a: { b: [] } }]] as const) {
    t.same(collectParams(form, { payload: text }), { params: { payload: value }, problems: [] }, text)
  }
  t.same(collectParams(form, { payload: '0', extra: '', values: [] }), { params: { payload: 0 }, problems: [] }, 'an optional one left empty is not sent')
  t.same(collectParams(form, { payload: '  ' }), { params: {}, problems: [{ path: 'payload', message: 'payload is required.' }] }, 'a required one left empty is asked for')
  t.same(collectParams(form, { payload: '1', values: ['"a"', '{}', 'false'] }).params, { payload: 1, values: ['a', {}, false] })
  t.same(collectParams(form, { payload: '1', values: [''] }).problems, [{ path: 'values[0]', message: 'values[0] is empty: fill it in or remove the item.' }])

  const { params, problems } = collectParams(form, { payload: 'hello', extra: '{"a": 1,}' })
  t.same(params, {}, 'text that is not JSON is not sent')
  t.same(problems.map((problem) => problem.path), ['payload', 'extra'])
  t.match(problems[0].message, /^payload is not JSON: .+\. Text is written in double quotes: "hello"\.$/, 'a bare word: the quotes are what is missing')
  t.match(problems[1].message, /^extra is not JSON: [^"]+\.$/)
  t.notMatch(problems[1].message, /double quotes/, 'no such advice for broken JSON')
})

t.test('readJson() reads the text of a JSON field, or says what is wrong with it', async (t) => {
  const any = only({ x: { type: 'any' } }) as JsonField
  t.same(readJson(any, '[1]'), { value: [1] })
  t.same(readJson(any, '"x"'), { value: 'x' })
  t.match(readJson(any, 'hello world'), { problem: /^is not JSON: .+\. Text is written in double quotes: "hello world"\.$/ })
  t.match(readJson(any, ' True '), { problem: /double quotes: "True"\.$/ })
  t.match(readJson(only({ x: { type: 'Missing' } }) as JsonField, 'abc'), { problem: /double quotes: "abc"\.$/ }, 'a type the manifest does not describe may be a string')
  for (const text of ['{', '[1,', '"open', '12abc', '{"a": x}', '']) {
    const read = readJson(any, text)
    t.ok('problem' in read && !read.problem.includes('double quotes'), `${JSON.stringify(text)}: not JSON, and not a bare word`)
  }
  for (const descriptor of [{ type: 'object' }, { type: 'array' }, { type: 'null' }] as Descriptor[]) {
    const read = readJson(only({ x: descriptor }) as JsonField, 'hello')
    t.ok('problem' in read && !read.problem.includes('double quotes'), `a field of type ${descriptor.type} never holds text`)
  }
})

t.test('objects: nested fields with their paths; without properties, JSON', async (t) => {
  const address = only({
    address: { type: 'object', required: true, properties: { city: { type: 'string', required: true }, geo: { type: 'object', required: false, properties: { lat: { type: 'number', required: true } } } } }
  }) as ObjectField
  t.same(address.fields.map((field) => field.path), ['address.city', 'address.geo'])
  t.equal(((address.fields[1] as ObjectField).fields[0]).path, 'address.geo.lat')
  t.match(only({ meta: { type: 'object' } }), { kind: 'json', placeholder: '{}', constraints: ['JSON object'] })
})

t.test('arrays: an item field, counts; without items, JSON', async (t) => {
  const tags = only({ tags: { type: 'array', required: true, minItems: 1, maxItems: 3, items: { type: 'string', minLength: 1 } } }) as ArrayField
  t.match(tags, { kind: 'array', minItems: 1, maxItems: 3, constraints: ['1 to 3 items'] })
  t.match(tags.item, { kind: 'text', path: 'tags[]', required: true, minLength: 1 })
  t.match(only({ list: { type: 'array', items: { type: 'number' }, minItems: 1 } }), { constraints: ['at least 1 item'] })
  t.match(only({ raw: { type: 'array' } }), { kind: 'json', placeholder: '[]', constraints: ['JSON array'] })
  const matrix = only({ m: { type: 'array', items: { type: 'array', items: { type: 'number' } } } }) as ArrayField
  t.match(matrix.item, { kind: 'array', path: 'm[]', item: { kind: 'number', path: 'm[][]' } })
})

t.test('type names resolve through the manifest\'s types', async (t) => {
  const types: Record<string, Descriptor> = {
    Product: { type: 'object', description: 'An article', properties: { sku: { type: 'string', required: true }, price: { type: 'number', required: true, minimum: 0 } } },
    Sku: { type: 'string', pattern: '^[a-z]+$', description: 'A SKU' },
    Code: { type: 'Sku' },
    Node: { type: 'object', properties: { name: { type: 'string', required: true }, children: { type: 'array', required: false, items: { type: 'Node' } } } }
  }
  const product = only({ product: { type: 'Product', required: true, description: 'What to add' } }, types) as ObjectField
  t.match(product, { kind: 'object', typeName: 'Product', required: true, description: 'What to add' }, 'the reference\'s own description wins')
  t.same(product.fields.map((field) => field.path), ['product.sku', 'product.price'])
  t.match(product.fields[1], { kind: 'number', min: 0 })
  t.match(only({ sku: { type: 'Sku', default: 'mug' } }, types), { kind: 'text', typeName: 'Sku', description: 'A SKU', default: 'mug', required: false })
  t.match(only({ code: { type: 'Code', required: true } }, types), { kind: 'text', typeName: 'Code', description: 'A SKU', required: true }, 'an alias keeps the name written')

  const tree = only({ root: { type: 'Node' } }, types) as ObjectField
  const children = tree.fields[1] as ArrayField
  t.match(children.item, { kind: 'json', typeName: 'Node', constraints: ['contains itself: JSON'] }, 'a type inside itself ends in JSON')
  t.match(only({ x: { type: 'Missing', description: 'Gone' } }, types), { kind: 'json', typeName: 'Missing', description: 'Gone', constraints: ['not described by the manifest: JSON'] })
  t.match(only({ x: { type: 'toString' } }, types), { kind: 'json' }, 'only the manifest\'s own types')
})

t.test('inputs start with the defaults, or with given values', async (t) => {
  const form = formOf({
    q: { type: 'string', required: true },
    limit: { type: 'number', default: 10 },
    exact: { type: 'boolean', default: false },
    size: { type: 'string', enum: ['S', 'M'], default: 'M' },
    filter: { type: 'object', properties: { min: { type: 'number', required: false, default: 1 }, max: { type: 'number', required: false } } },
    tags: { type: 'array', items: { type: 'string' }, default: ['a', 'b'] },
    lines: { type: 'array', minItems: 2, items: { type: 'object', properties: { sku: { type: 'string', required: false, default: 'mug' } } } },
    extra: { type: 'object', default: { any: 1 } },
    note: { type: 'string', default: 3 }
  })
  const raw = rawOf(form)
  t.same(raw, {
    q: '',
    limit: '10',
    exact: 'false',
    size: '1',
    filter: { min: '1', max: '' },
    tags: ['a', 'b'],
    lines: [{ sku: 'mug' }, { sku: 'mug' }],
    extra: '{\n  "any": 1\n}',
    note: '3'
  })
  t.equal(Object.getPrototypeOf(raw), null, 'names such as __proto__ are plain keys')

  const example = rawOf(form, { q: 'tea', exact: true, size: 'XL', filter: { max: 5 }, tags: 'x', lines: [{ sku: 'kettle' }, {}, {}], extra: null, note: null })
  t.match(example, { q: 'tea', limit: '10', exact: 'true', size: '', filter: { min: '1', max: '5' }, tags: [], lines: [{ sku: 'kettle' }, { sku: 'mug' }, { sku: 'mug' }], extra: 'null', note: '' })
  t.same(rawOf(formOf({ b: { type: 'boolean' } }), { b: 'yes' }), { b: '' }, 'a boolean field takes only booleans')
  t.same(rawOf(formOf({ s: { type: 'string', enum: ['a'] } })), { s: '' }, 'an enum without default starts unchosen')
  t.same(rawOf(formOf({ o: { type: 'object', properties: { a: { type: 'string', required: false } } } }), { o: [1] }), { o: { a: '' } })
})

t.test('what was typed becomes the params; empty fields are left out', async (t) => {
  const form = formOf({
    q: { type: 'string', required: true },
    limit: { type: 'number' },
    exact: { type: 'boolean' },
    size: { type: 'string', enum: ['S', { big: true }] },
    extra: { type: 'object' },
    note: { type: 'string' }
  })
  t.same(collectParams(form, { q: 'tea', limit: ' 5 ', exact: 'true', size: '1', extra: '{"a":[1]}', note: '' }), {
    params: { q: 'tea', limit: 5, exact: true, size: { big: true }, extra: { a: [1] } },
    problems: []
  })
  t.same(collectParams(form, { q: ' ', exact: 'false', limit: '' }).params, { q: ' ', exact: false }, 'text is sent as typed')
  t.same(collectParams(form, {}), { params: {}, problems: [{ path: 'q', message: 'q is required.' }] }, 'a field left out reads as empty')
  t.same(collectParams(form, 'not an object').problems.length, 1)
  t.same(collectParams(form, { q: 'x', limit: 'ten', size: '7', extra: '{' }).problems.map((problem) => problem.path), ['limit', 'size', 'extra'])
  t.match(collectParams(form, { q: 'x', limit: 'Infinity' }).problems[0].message, 'limit must be a number; got "Infinity".')
  t.match(collectParams(form, { q: 'x', extra: '{' }).problems[0].message, /^extra is not JSON: .+\.$/)
  t.same(collectParams(form, { q: 'x', limit: 'x' }).params, { q: 'x' }, 'a value that cannot be read is not sent')
})

t.test('objects are sent when something inside was typed, or when required', async (t) => {
  const form = formOf({
    filter: { type: 'object', properties: { min: { type: 'number', required: true }, max: { type: 'number', required: false } } },
    page: { type: 'object', required: true, properties: { size: { type: 'number', required: false }, cursor: { type: 'object', required: true, properties: { id: { type: 'string', required: true } } } } }
  })
  const empty = { filter: { min: '', max: '' }, page: { size: '', cursor: { id: '' } } }
  t.same(collectParams(form, empty), { params: { page: { cursor: {} } }, problems: [{ path: 'page.cursor.id', message: 'page.cursor.id is required.' }] })
  const typedFilter = { filter: { min: '', max: '3' }, page: { size: '', cursor: { id: 'c1' } } }
  t.same(collectParams(form, typedFilter), { params: { filter: { max: 3 }, page: { cursor: { id: 'c1' } } }, problems: [{ path: 'filter.min', message: 'filter.min is required.' }] })

  const optional = formOf({ filter: { type: 'object', properties: { deep: { type: 'object', required: true, properties: { x: { type: 'string', required: true } } } } } })
  t.same(collectParams(optional, { filter: { deep: { x: '' } } }), { params: {}, problems: [] }, 'an optional object left empty asks for nothing inside it')
})

t.test('arrays: each item added is sent; a required array is sent even empty', async (t) => {
  const form = formOf({
    skus: { type: 'array', required: true, items: { type: 'string' } },
    counts: { type: 'array', items: { type: 'number' } },
    lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string', required: true }, qty: { type: 'number', required: false } } } },
    grid: { type: 'array', items: { type: 'array', items: { type: 'boolean' } } }
  })
  t.same(collectParams(form, { skus: [], counts: [], lines: [], grid: [] }), { params: { skus: [] }, problems: [] })
  t.same(collectParams(form, { skus: ['mug', ''], counts: ['1', 'x'], lines: [{ sku: 'a', qty: '' }, { sku: '', qty: '2' }], grid: [['true'], []] }), {
    params: { skus: ['mug', null], counts: [1, undefined], lines: [{ sku: 'a' }, { qty: 2 }], grid: [[true], []] },
    problems: [
      { path: 'skus[1]', message: 'skus[1] is empty: fill it in or remove the item.' },
      { path: 'counts[1]', message: 'counts[1] must be a number; got "x".' },
      { path: 'lines[1].sku', message: 'lines[1].sku is required.' }
    ]
  })
  t.same(collectParams(form, { skus: 'nope' }).params, { skus: [] }, 'a raw value of the wrong shape reads as empty')
})

t.test('names such as __proto__ are ordinary param names', async (t) => {
  const form = formOf(JSON.parse('{"__proto__":{"type":"string","required":true},"constructor":{"type":"number"}}'))
  t.same(form.fields.map((field) => field.name), ['__proto__', 'constructor'])
  const raw = rawOf(form, JSON.parse('{"__proto__":"x"}'))
  t.same(Object.keys(raw), ['__proto__', 'constructor'])
  const { params, problems } = collectParams(form, raw)
  t.same(problems, [])
  t.same(Object.keys(params), ['__proto__'])
  t.equal(Object.getPrototypeOf(params), Object.prototype, 'the prototype is untouched')
  t.equal(JSON.stringify(params), '{"__proto__":"x"}')
  t.same(collectParams(form, {}).problems.map((problem) => problem.path), ['__proto__'], 'an inherited property is no value')
})

t.test('typed() tells whether anything was typed in a field', async (t) => {
  const field = fieldOf('o', 'o', { type: 'object', properties: { a: { type: 'string', required: false }, n: { type: 'number', required: false } } }, {}, [])
  t.notOk(typed(field, { a: '', n: '  ' }))
  t.ok(typed(field, { a: ' ' }), 'a space is text')
  t.notOk(typed(field, ['x']))
  const list = fieldOf('l', 'l', { type: 'array', items: { type: 'string' } }, {}, []) as ArrayField
  t.ok(typed(list, ['']))
  t.notOk(typed(list, 'x'))
  const json = fieldOf('j', 'j', { type: 'object' }, {}, []) as JsonField
  t.notOk(typed(json, { nested: 'x' }))
})

t.test('a descriptor may name its type Surf\'s way, by a $ref into types; a missing required is not required', async (t) => {
  const types = { Product: { type: 'object', properties: { sku: { type: 'string', required: true }, name: { type: 'string' } } } } as unknown as Record<string, Descriptor>
  const product = only({ item: { $ref: '#/types/Product' } as unknown as Descriptor }, types) as ObjectField
  t.match(product, { kind: 'object', typeName: 'Product', required: false })
  t.same(product.fields.map((field) => [field.name, field.kind, field.required]), [['sku', 'text', true], ['name', 'text', false]])
  const unknown = only({ item: { $ref: '#/types/Missing' } as unknown as Descriptor }) as JsonField
  t.match(unknown, { kind: 'json', typeName: 'Missing', constraints: ['not described by the manifest: JSON'] })
})
