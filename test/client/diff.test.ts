import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { cli } from '../helpers/cli.js'
import { checksumOf, diffManifests, type Change, type Manifest } from '../../lib/client/index.js'

/** A layout 0.5.0 manifest with a bit of everything; each test changes a copy of it. */
function base (): Manifest {
  const commands: Manifest['commands'] = {
    'cart.add': {
      description: 'Add an item to the cart',
      params: {
        quantity: { type: 'number', required: false, default: 1 },
        sku: { type: 'string', required: true, description: 'Product SKU' }
      },
      returns: { type: 'Cart' },
      tags: ['cart', 'write'],
      hints: { idempotent: false, sideEffects: true },
      auth: 'required'
    },
    search: {
      description: 'Search the catalogue',
      params: { q: { type: 'string', required: true } },
      returns: { type: 'array', description: 'Matching products' },
      hints: { idempotent: true, sideEffects: false }
    }
  }
  return {
    svc: '0.5.0',
    name: 'Shop',
    description: 'Demo shop',
    about: 'Friendly tone',
    version: '2.3.0',
    baseUrl: 'https://shop.example',
    auth: { type: 'bearer', description: 'JWT bearer token' },
    commands,
    events: { 'cart.updated': { description: 'Cart contents changed', data: { items: { type: 'array', required: true }, total: { type: 'number', required: true, description: 'In cents' } } } },
    channels: { cart: { description: 'Real-time cart state' } },
    types: { Cart: { type: 'object', description: 'A cart', properties: { items: { type: 'array', required: true }, total: { type: 'number', required: true } } } },
    checksum: checksumOf(commands),
    updatedAt: '2025-01-01T00:00:00.000Z'
  }
}

/** The base manifest after `edit`, with its checksum recomputed as the plugin would. */
function changed (edit: (m: any) => void): Manifest {
  const manifest = structuredClone(base())
  edit(manifest)
  manifest.checksum = checksumOf(manifest.commands)
  manifest.updatedAt = '2025-06-01T12:00:00.000Z'
  return manifest
}

const kinds = (changes: Change[]) => changes.map((change) => `${change.kind} ${change.name}`)

/** The diff of base → changed(edit), as `kind name` lines. */
function diffOf (edit: (m: any) => void) {
  const diff = diffManifests(base(), changed(edit))
  return { breaking: kinds(diff.breaking), nonBreaking: kinds(diff.nonBreaking), diff }
}

t.test('the same manifest built again has no changes: checksum and updatedAt are not compared', async (t) => {
  t.same(diffManifests(base(), changed(() => {})), { breaking: [], nonBreaking: [] })
})

t.test('command.removed breaks, command.added does not', async (t) => {
  const { breaking, nonBreaking, diff } = diffOf((m) => {
    delete m.commands.search
    m.commands['cart.clear'] = { description: 'Empty the cart' }
  })
  t.same(breaking, ['command.removed search'])
  t.same(nonBreaking, ['command.added cart.clear'])
  t.same(diff.breaking[0], { kind: 'command.removed', name: 'search', message: 'command search was removed' })
})

t.test('param.added breaks only when required without a default', async (t) => {
  const { breaking, nonBreaking, diff } = diffOf((m) => {
    m.commands.search.params.limit = { type: 'number', required: false }
    m.commands.search.params.page = { type: 'number', required: true, default: 1 }
    m.commands.search.params.locale = { type: 'string', required: true }
  })
  t.same(breaking, ['param.added search(locale)'])
  t.same(nonBreaking, ['param.added search(limit)', 'param.added search(page)'])
  t.match(diff.breaking[0].message, 'required param locale was added')
  t.match(diff.nonBreaking[0].message, 'optional param limit')
  t.match(diff.nonBreaking[1].message, 'required param with a default page')
})

t.test('params appear on a command that had none', async (t) => {
  const before = changed((m) => { delete m.commands.search.params })
  const diff = diffManifests(before, base())
  t.same(kinds(diff.breaking), ['param.added search(q)'])
})

t.test('a command that loses all its params: each is removed', async (t) => {
  const { breaking } = diffOf((m) => { delete m.commands['cart.add'].params })
  t.same(breaking, ['param.removed cart.add(quantity)', 'param.removed cart.add(sku)'])
})

t.test('param.removed and param.type-changed break', async (t) => {
  const { breaking, nonBreaking } = diffOf((m) => {
    delete m.commands['cart.add'].params.quantity
    m.commands['cart.add'].params.sku.type = 'number'
  })
  t.same(breaking, ['param.removed cart.add(quantity)', 'param.type-changed cart.add(sku)'])
  t.same(nonBreaking, [])
})

t.test('param.required-changed breaks from optional to required only', async (t) => {
  const tightened = diffOf((m) => { m.commands['cart.add'].params.quantity.required = true })
  t.same(tightened.breaking, ['param.required-changed cart.add(quantity)'])
  t.equal(tightened.diff.breaking[0].message, 'command cart.add: param quantity is now required instead of optional')

  const relaxed = diffOf((m) => { m.commands.search.params.q.required = false })
  t.same(relaxed.breaking, [])
  t.same(relaxed.nonBreaking, ['param.required-changed search(q)'])
  t.equal(relaxed.diff.nonBreaking[0].message, 'command search: param q is now optional instead of required')
})

t.test('param.default-changed does not break: changed, added or removed', async (t) => {
  const { breaking, nonBreaking, diff } = diffOf((m) => {
    m.commands['cart.add'].params.quantity.default = 2
    m.commands['cart.add'].params.sku.default = 'ABC'
    delete m.commands.search.params.q.required
    m.commands.search.params.q = { type: 'string', required: true, default: { deep: [1] } }
  })
  t.same(breaking, [])
  t.same(nonBreaking, ['param.default-changed cart.add(quantity)', 'param.default-changed cart.add(sku)', 'param.default-changed search(q)'])
  t.match(diff.nonBreaking[0].message, 'default changed from 1 to 2')
  t.match(diff.nonBreaking[1].message, 'from none to "ABC"')
})

t.test('an equal default in another object is no change', async (t) => {
  const before = changed((m) => { m.commands.search.params.q.default = { sort: ['price'] } })
  const after = changed((m) => { m.commands.search.params.q.default = { sort: ['price'] } })
  t.same(diffManifests(before, after), { breaking: [], nonBreaking: [] })
})

t.test('returns.changed breaks: another type, a new one, or none any more', async (t) => {
  const { breaking, diff } = diffOf((m) => {
    m.commands['cart.add'].returns = { type: 'object' }
    delete m.commands.search.returns
  })
  t.same(breaking, ['returns.changed cart.add', 'returns.changed search'])
  t.match(diff.breaking[0].message, 'returns object instead of Cart')
  t.match(diff.breaking[1].message, 'returns nothing instead of array')
  const added = diffManifests(changed((m) => { delete m.commands.search.returns }), base())
  t.same(kinds(added.breaking), ['returns.changed search'])
})

t.test('auth.changed breaks when auth becomes required', async (t) => {
  const { breaking, nonBreaking, diff } = diffOf((m) => {
    delete m.commands['cart.add'].auth
    m.commands.search.auth = 'required'
  })
  t.same(breaking, ['auth.changed search'])
  t.same(nonBreaking, ['auth.changed cart.add'])
  t.match(diff.breaking[0].message, 'command search now requires auth')
  t.match(diff.nonBreaking[0].message, 'command cart.add no longer requires auth')
})

t.test('hints.changed breaks when a promise is withdrawn', async (t) => {
  const notIdempotent = diffOf((m) => { m.commands.search.hints.idempotent = false })
  t.same(notIdempotent.breaking, ['hints.changed search'])
  t.match(notIdempotent.diff.breaking[0].message, 'no longer idempotent')

  const sideEffects = diffOf((m) => { m.commands.search.hints.sideEffects = true })
  t.same(sideEffects.breaking, ['hints.changed search'])
  t.match(sideEffects.diff.breaking[0].message, 'may now have side effects')

  const dropped = diffOf((m) => { delete m.commands.search.hints })
  t.same(dropped.breaking, ['hints.changed search'], 'dropping the hints withdraws both promises')
  t.match(dropped.diff.breaking[0].message, 'no longer idempotent, may now have side effects')

  const stronger = diffOf((m) => { m.commands['cart.add'].hints = { idempotent: true, sideEffects: true } })
  t.same(stronger.breaking, [])
  t.same(stronger.nonBreaking, ['hints.changed cart.add'])
  t.notMatch(stronger.diff.nonBreaking[0].message, '(')

  const declared = diffManifests(changed((m) => { delete m.commands['cart.add'].hints }), base())
  t.same(kinds(declared.nonBreaking), ['hints.changed cart.add'], 'declaring hints promises more')
})

t.test('description.changed does not break, wherever the description is', async (t) => {
  const { breaking, nonBreaking } = diffOf((m) => {
    m.description = 'Demo shop, renamed'
    m.about = 'Formal tone'
    m.auth.description = 'Opaque token'
    m.commands.search.description = 'Find products'
    m.commands['cart.add'].params.sku.description = 'Stock keeping unit'
    m.commands.search.returns.description = 'Products'
    m.events['cart.updated'].description = 'The cart changed'
    m.events['cart.updated'].data.total.description = 'In euro cents'
    m.channels.cart.description = 'Cart state, live'
    m.types.Cart.description = 'A shopping cart'
    m.types.Cart.properties.total.description = 'Sum'
  })
  t.same(breaking, [])
  t.same(nonBreaking, [
    'description.changed description',
    'description.changed about',
    'description.changed auth.description',
    'description.changed cart.add(sku)',
    'description.changed search',
    'description.changed search',
    'description.changed cart.updated(total)',
    'description.changed cart.updated',
    'description.changed cart',
    'description.changed Cart(total)',
    'description.changed Cart'
  ])
})

t.test('tags.changed does not break; the order of tags does not matter', async (t) => {
  const { breaking, nonBreaking, diff } = diffOf((m) => {
    m.commands['cart.add'].tags = ['cart', 'checkout']
    m.commands.search.tags = ['catalog']
  })
  t.same(breaking, [])
  t.same(nonBreaking, ['tags.changed cart.add', 'tags.changed search'])
  t.match(diff.nonBreaking[0].message, 'tags added ["checkout"], removed ["write"]')
  t.match(diff.nonBreaking[1].message, 'tags added ["catalog"]')
  const removed = diffManifests(base(), changed((m) => { delete m.commands['cart.add'].tags }))
  t.match(removed.nonBreaking[0].message, 'tags removed ["cart","write"]')
  t.same(diffOf((m) => { m.commands['cart.add'].tags.reverse() }).nonBreaking, [])
})

t.test('event.removed breaks, event.added does not', async (t) => {
  const { breaking, nonBreaking } = diffOf((m) => {
    delete m.events['cart.updated']
    m.events['order.placed'] = { description: 'An order was placed' }
  })
  t.same(breaking, ['event.removed cart.updated'])
  t.same(nonBreaking, ['event.added order.placed'])
})

t.test('event.data-changed breaks when a field is removed or retyped, not when one is added', async (t) => {
  const removed = diffOf((m) => { delete m.events['cart.updated'].data.total })
  t.same(removed.breaking, ['event.data-changed cart.updated'])
  t.match(removed.diff.breaking[0].message, 'data field total removed')

  const retyped = diffOf((m) => {
    m.events['cart.updated'].data.items.type = 'object'
    m.events['cart.updated'].data.currency = { type: 'string' }
  })
  t.same(retyped.breaking, ['event.data-changed cart.updated'])
  t.equal(retyped.diff.breaking[0].message, 'event cart.updated: data field items retyped from array to object; data field currency added')

  const added = diffOf((m) => { m.events['cart.updated'].data.currency = { type: 'string' } })
  t.same(added.breaking, [])
  t.same(added.nonBreaking, ['event.data-changed cart.updated'])

  const noData = diffOf((m) => { delete m.events['cart.updated'].data })
  t.same(noData.breaking, ['event.data-changed cart.updated'])
  t.match(noData.diff.breaking[0].message, 'data field items, total removed')
})

t.test('channel.removed breaks, channel.added does not', async (t) => {
  const { breaking, nonBreaking } = diffOf((m) => {
    delete m.channels.cart
    m.channels.orders = { description: 'Live orders' }
  })
  t.same(breaking, ['channel.removed cart'])
  t.same(nonBreaking, ['channel.added orders'])
})

t.test('from layout 0.5.0 to 1.0 the channels and about go away', async (t) => {
  const { breaking, nonBreaking } = diffOf((m) => {
    m.svc = '1.0'
    delete m.channels
    delete m.about
  })
  t.same(breaking, ['channel.removed cart'])
  t.same(nonBreaking, ['service.changed svc', 'description.changed about'])
})

t.test('type.removed breaks, type.added does not', async (t) => {
  const { breaking, nonBreaking } = diffOf((m) => {
    delete m.types.Cart
    m.types.Product = { type: 'object', properties: { sku: { type: 'string' } } }
  })
  t.same(breaking, ['type.removed Cart'])
  t.same(nonBreaking, ['type.added Product'])
})

t.test('type.changed breaks when a property is removed or retyped, or the type itself changes', async (t) => {
  const removed = diffOf((m) => { delete m.types.Cart.properties.total })
  t.same(removed.breaking, ['type.changed Cart'])
  t.match(removed.diff.breaking[0].message, 'type Cart: property total removed')

  const retyped = diffOf((m) => { m.types.Cart.properties.items.type = 'string' })
  t.same(retyped.breaking, ['type.changed Cart'])
  t.equal(retyped.diff.breaking[0].message, 'type Cart: property items retyped from array to string')

  const itself = diffOf((m) => { m.types.Cart = { type: 'string' } })
  t.same(itself.breaking, ['type.changed Cart'])
  t.match(itself.diff.breaking[0].message, 'type Cart: is now string instead of object; property items, total removed')

  const added = diffOf((m) => { m.types.Cart.properties.currency = { type: 'string' } })
  t.same(added.breaking, [])
  t.same(added.nonBreaking, ['type.changed Cart'])
  t.match(added.diff.nonBreaking[0].message, 'property currency added')
})

t.test('service.changed: a new baseUrl or auth scheme breaks, a new version, name or layout does not', async (t) => {
  const { breaking, nonBreaking, diff } = diffOf((m) => {
    m.name = 'Shop 2'
    m.version = '3.0.0'
    m.baseUrl = 'https://api.shop.example'
  })
  t.same(breaking, ['service.changed baseUrl'])
  t.same(nonBreaking, ['service.changed name', 'service.changed version'])
  t.match(diff.breaking[0].message, 'service baseUrl changed from "https://shop.example" to "https://api.shop.example"')

  const auth = diffManifests(changed((m) => { delete m.auth }), base())
  t.same(kinds(auth.breaking), ['service.changed auth.type'])
  t.same(kinds(auth.nonBreaking), ['description.changed auth.description'])
  t.match(auth.breaking[0].message, 'from none to "bearer"')
})

t.test('changes come in a fixed order whatever the key order of the inputs', async (t) => {
  const edit = (m: any) => {
    m.version = '3.0.0'
    delete m.commands.search
    m.commands.aaa = { description: 'First by name' }
    m.commands['cart.add'].params.sku.type = 'number'
    delete m.events['cart.updated']
    m.types.Cart.properties.total.type = 'string'
  }
  const diff = diffManifests(base(), changed(edit))
  t.same(kinds(diff.breaking), ['param.type-changed cart.add(sku)', 'command.removed search', 'event.removed cart.updated', 'type.changed Cart'])
  t.same(kinds(diff.nonBreaking), ['service.changed version', 'command.added aaa'])

  const reversed = (m: Manifest): Manifest => JSON.parse(JSON.stringify(m, (key, value) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).reverse()) : value))
  t.same(diffManifests(reversed(base()), reversed(changed(edit))), diff)
})

/**
 * A manifest whose fields carry descriptors: a param that is an inline object with nested properties and an
 * array of objects, bounds, enums, a format and a pattern; a return value and a type with the same.
 */
function described (): Manifest {
  const commands: Manifest['commands'] = {
    login: {
      description: 'Sign in',
      params: {
        user: {
          type: 'object',
          required: true,
          properties: {
            email: { type: 'string', required: true, format: 'email', maxLength: 254 },
            age: { type: 'number', required: false, minimum: 13, maximum: 130 },
            roles: {
              type: 'array',
              required: false,
              minItems: 1,
              maxItems: 5,
              items: { type: 'object', properties: { name: { type: 'string', required: true, enum: ['admin', 'user'] } } }
            }
          }
        },
        code: { type: 'string', required: false, pattern: '^[0-9]{6}$', minLength: 6 },
        ttl: { type: 'number', required: false, exclusiveMinimum: 0, exclusiveMaximum: 86400 }
      },
      returns: { type: 'object', properties: { status: { type: 'string', required: true, enum: ['ok', 'mfa'] } } },
      auth: 'optional',
      requiredScopes: ['login']
    }
  }
  return {
    svc: '1.0',
    name: 'Accounts',
    description: 'Accounts',
    version: '1.0.0',
    baseUrl: 'https://accounts.example',
    commands,
    events: { 'user.seen': { description: 'A user was seen', data: { at: { type: 'string', required: true, format: 'date-time' } } } },
    types: { Level: { type: 'number', enum: [1, 2, 3] }, Profile: { type: 'object', properties: { nick: { type: 'string', required: false, maxLength: 20 } } } },
    checksum: checksumOf(commands),
    updatedAt: '2025-01-01T00:00:00.000Z'
  }
}

function describedDiff (edit: (m: any) => void, reverse = false) {
  const after = structuredClone(described()) as any
  edit(after)
  after.checksum = checksumOf(after.commands)
  const diff = reverse ? diffManifests(after, described()) : diffManifests(described(), after)
  const lines = (changes: Change[]) => changes.map((change) => `${change.kind} ${change.path ?? change.name}`)
  return { breaking: lines(diff.breaking), nonBreaking: lines(diff.nonBreaking), diff }
}

const user = (m: any) => m.commands.login.params.user.properties

t.test('constraint.changed: a narrowed enum breaks, a widened one does not, the order of values is no change', async (t) => {
  const narrowed = describedDiff((m) => { user(m).roles.items.properties.name.enum = ['user'] })
  t.same(narrowed.breaking, ['constraint.changed commands.login.params.user.properties.roles.items.properties.name.enum'])
  t.same(narrowed.nonBreaking, [])
  t.equal(narrowed.diff.breaking[0].name, 'login(user)')
  t.equal(narrowed.diff.breaking[0].message, 'command login: param user.roles[].name: enum narrowed: ["admin"] removed')

  const widened = describedDiff((m) => { user(m).roles.items.properties.name.enum = ['admin', 'user', 'guest'] })
  t.same(widened.breaking, [])
  t.same(widened.nonBreaking, ['constraint.changed commands.login.params.user.properties.roles.items.properties.name.enum'])
  t.match(widened.diff.nonBreaking[0].message, 'enum widened: ["guest"] added')

  const swapped = describedDiff((m) => { user(m).roles.items.properties.name.enum = ['admin', 'guest'] })
  t.equal(swapped.diff.breaking[0].message, 'command login: param user.roles[].name: enum narrowed: ["user"] removed, ["guest"] added')

  t.same(describedDiff((m) => { user(m).roles.items.properties.name.enum.reverse() }).diff, { breaking: [], nonBreaking: [] })

  const appeared = describedDiff((m) => { m.commands.login.params.code.enum = ['123456'] })
  t.same(appeared.breaking, ['constraint.changed commands.login.params.code.enum'], 'an enum where there was none narrows')
  const gone = describedDiff((m) => { m.commands.login.params.code.enum = ['123456'] }, true)
  t.same(gone.nonBreaking, ['constraint.changed commands.login.params.code.enum'])
  t.match(gone.diff.nonBreaking[0].message, 'enum ["123456"] removed')
})

t.test('constraint.changed: a tightened bound breaks, a loosened or dropped one does not', async (t) => {
  const tightened = describedDiff((m) => {
    user(m).age.minimum = 18
    user(m).age.maximum = 120
    user(m).email.maxLength = 100
    user(m).roles.minItems = 2
    user(m).roles.maxItems = 3
    m.commands.login.params.code.minLength = 8
    m.commands.login.params.ttl.exclusiveMinimum = 60
    m.commands.login.params.ttl.exclusiveMaximum = 3600
  })
  t.same(tightened.breaking, [
    'constraint.changed commands.login.params.code.minLength',
    'constraint.changed commands.login.params.ttl.exclusiveMinimum',
    'constraint.changed commands.login.params.ttl.exclusiveMaximum',
    'constraint.changed commands.login.params.user.properties.age.minimum',
    'constraint.changed commands.login.params.user.properties.age.maximum',
    'constraint.changed commands.login.params.user.properties.email.maxLength',
    'constraint.changed commands.login.params.user.properties.roles.minItems',
    'constraint.changed commands.login.params.user.properties.roles.maxItems'
  ])
  t.same(tightened.nonBreaking, [])
  t.equal(tightened.diff.breaking[3].message, 'command login: param user.age: minimum raised from 13 to 18')
  t.equal(tightened.diff.breaking[4].message, 'command login: param user.age: maximum lowered from 130 to 120')

  const loosened = describedDiff((m) => {
    user(m).age.minimum = 0
    user(m).age.maximum = 200
    delete user(m).email.maxLength
    m.commands.login.params.code.minLength = 4
    delete m.commands.login.params.ttl.exclusiveMaximum
  })
  t.same(loosened.breaking, [])
  t.same(loosened.nonBreaking, [
    'constraint.changed commands.login.params.code.minLength',
    'constraint.changed commands.login.params.ttl.exclusiveMaximum',
    'constraint.changed commands.login.params.user.properties.age.minimum',
    'constraint.changed commands.login.params.user.properties.age.maximum',
    'constraint.changed commands.login.params.user.properties.email.maxLength'
  ])
  t.match(loosened.diff.nonBreaking[1].message, 'exclusiveMaximum 86400 removed')

  const added = describedDiff((m) => { m.commands.login.params.code.maxLength = 6 })
  t.same(added.breaking, ['constraint.changed commands.login.params.code.maxLength'], 'a bound where there was none tightens')
  t.match(added.diff.breaking[0].message, 'maxLength 6 added')
})

t.test('constraint.changed: a new or changed pattern or format breaks, a dropped one does not', async (t) => {
  const { breaking, nonBreaking, diff } = describedDiff((m) => {
    m.commands.login.params.code.pattern = '^[0-9]{8}$'
    user(m).age.format = 'int32'
    delete user(m).email.format
  })
  t.same(breaking, ['constraint.changed commands.login.params.code.pattern', 'constraint.changed commands.login.params.user.properties.age.format'])
  t.same(nonBreaking, ['constraint.changed commands.login.params.user.properties.email.format'])
  t.equal(diff.breaking[0].message, 'command login: param code: pattern changed from "^[0-9]{6}$" to "^[0-9]{8}$"')
  t.equal(diff.breaking[1].message, 'command login: param user.age: format "int32" added')
  t.equal(diff.nonBreaking[0].message, 'command login: param user.email: format "email" removed')
})

t.test('nested properties: a new required one breaks, a new optional one does not; removing or retyping one breaks', async (t) => {
  const { breaking, nonBreaking, diff } = describedDiff((m) => {
    user(m).password = { type: 'string', required: true, minLength: 12 }
    user(m).remember = { type: 'boolean', required: false }
    user(m).locale = { type: 'string', required: true, default: 'en' }
    user(m).roles.items.properties.since = { type: 'string', required: true }
    delete user(m).age
  })
  t.same(breaking, [
    'property.removed commands.login.params.user.properties.age',
    'property.added commands.login.params.user.properties.password',
    'property.added commands.login.params.user.properties.roles.items.properties.since'
  ])
  t.same(nonBreaking, ['property.added commands.login.params.user.properties.locale', 'property.added commands.login.params.user.properties.remember'])
  t.equal(diff.breaking[0].message, 'command login: param user.age was removed')
  t.equal(diff.breaking[1].message, 'command login: param user: required property password was added')
  t.equal(diff.breaking[2].message, 'command login: param user.roles[]: required property since was added')
  t.match(diff.nonBreaking[0].message, 'required property with a default locale was added')
  t.match(diff.nonBreaking[1].message, 'optional property remember was added')

  const retyped = describedDiff((m) => {
    user(m).age.type = 'string'
    user(m).age.minimum = 99
  })
  t.same(retyped.breaking, ['field.type-changed commands.login.params.user.properties.age.type'], 'the bounds of another type are not compared')
  t.equal(retyped.diff.breaking[0].message, 'command login: param user.age is now string instead of number')
})

t.test('nested properties: becoming required breaks, becoming optional, a default or a description does not', async (t) => {
  const { breaking, nonBreaking, diff } = describedDiff((m) => {
    user(m).age.required = true
    user(m).email.required = false
    user(m).email.default = 'a@b.example'
    user(m).roles.description = 'What the user may do'
    user(m).roles.items.description = 'A role'
  })
  t.same(breaking, ['property.required-changed commands.login.params.user.properties.age.required'])
  t.same(nonBreaking, [
    'property.required-changed commands.login.params.user.properties.email.required',
    'default.changed commands.login.params.user.properties.email.default',
    'description.changed commands.login.params.user.properties.roles.description',
    'description.changed commands.login.params.user.properties.roles.items.description'
  ])
  t.equal(diff.breaking[0].message, 'command login: param user.age is now required instead of optional')
  t.equal(diff.nonBreaking[1].message, 'command login: param user.email: default changed from none to "a@b.example"')
})

t.test('items: items where there were none or of another type break; items that go do not', async (t) => {
  const retyped = describedDiff((m) => { user(m).roles.items = { type: 'string' } })
  t.same(retyped.breaking, ['field.type-changed commands.login.params.user.properties.roles.items.type'])
  t.equal(retyped.diff.breaking[0].message, 'command login: param user.roles[] is now string instead of object')

  const gone = describedDiff((m) => { delete user(m).roles.items })
  t.same(gone.breaking, [])
  t.same(gone.nonBreaking, ['field.type-changed commands.login.params.user.properties.roles.items.type'])
  t.equal(gone.diff.nonBreaking[0].message, 'command login: param user.roles[] is now anything instead of object')
  t.same(describedDiff((m) => { delete user(m).roles.items }, true).breaking, ['field.type-changed commands.login.params.user.properties.roles.items.type'])
})

t.test('return values, event data and types are compared in depth too', async (t) => {
  const { breaking, nonBreaking, diff } = describedDiff((m) => {
    m.commands.login.returns.properties.status.enum = ['ok']
    m.commands.login.returns.description = 'The outcome'
    m.events['user.seen'].data.at.format = 'date'
    m.events['user.seen'].data.at.required = false
    m.types.Level.enum = [1, 2, 3, 4]
    m.types.Level.maximum = 4
    m.types.Profile.properties.nick.maxLength = 10
    m.types.Profile.properties.bio = { type: 'string', required: true }
  })
  t.same(breaking, [
    'constraint.changed commands.login.returns.properties.status.enum',
    'constraint.changed events.user.seen.data.at.format',
    'constraint.changed types.Level.maximum',
    'type.changed Profile',
    'constraint.changed types.Profile.properties.nick.maxLength'
  ])
  t.same(nonBreaking, [
    'description.changed login',
    'property.required-changed events.user.seen.data.at.required',
    'constraint.changed types.Level.enum'
  ])
  t.equal(diff.breaking[0].message, 'command login: return value.status: enum narrowed: ["mfa"] removed')
  t.equal(diff.breaking[0].name, 'login')
  t.equal(diff.breaking[1].name, 'user.seen(at)')
  t.equal(diff.breaking[3].message, 'type Profile: required property bio added', 'a type can be a param: a property its callers must supply breaks them')
  t.equal(diff.breaking[4].name, 'Profile(nick)')

  const event = describedDiff((m) => { m.events['user.seen'].data.ip = { type: 'string', required: true } })
  t.same(event.breaking, [], 'an event is only read: a new required data field does not break')
  t.equal(event.diff.nonBreaking[0].message, 'event user.seen: required data field ip added')

  const retyped = describedDiff((m) => { m.types.Level = { type: 'string', enum: ['low'] } })
  t.same(retyped.breaking, ['type.changed Level'], 'the enum of another type is not compared')
})

t.test('auth becoming required and a new required scope break; the reverse does not', async (t) => {
  const tightened = describedDiff((m) => {
    m.commands.login.auth = 'required'
    m.commands.login.requiredScopes = ['login', 'admin']
  })
  t.same(tightened.breaking, ['auth.changed login', 'scopes.changed login'])
  t.equal(tightened.diff.breaking[0].message, 'command login now requires auth')
  t.equal(tightened.diff.breaking[1].message, 'command login: required scopes added ["admin"]')

  const relaxed = describedDiff((m) => {
    m.commands.login.auth = 'required'
    m.commands.login.requiredScopes = ['login', 'admin']
  }, true)
  t.same(relaxed.breaking, [])
  t.same(relaxed.nonBreaking, ['auth.changed login', 'scopes.changed login'])
  t.equal(relaxed.diff.nonBreaking[1].message, 'command login: required scopes removed ["admin"]')

  const declared = describedDiff((m) => { delete m.commands.login.auth }, true)
  t.same(declared.nonBreaking, ['auth.changed login'], 'optional auth where there was none lets every call through')
  t.equal(declared.diff.nonBreaking[0].message, 'command login auth changed from none to "optional"')

  const fromNone = describedDiff((m) => { delete m.commands.login.requiredScopes }, true)
  t.same(fromNone.breaking, ['scopes.changed login'])
  const swapped = describedDiff((m) => { m.commands.login.requiredScopes = ['signin'] })
  t.equal(swapped.diff.breaking[0].message, 'command login: required scopes added ["signin"], removed ["login"]')
  t.same(describedDiff((m) => { m.commands.login.requiredScopes = ['login'] }).diff, { breaking: [], nonBreaking: [] })
})

t.test('examples and deprecated never break', async (t) => {
  const { breaking, nonBreaking, diff } = describedDiff((m) => {
    m.commands.login.examples = [{ title: 'Sign in', params: { user: { email: 'a@b.example' } } }]
    m.commands.login.deprecated = true
  })
  t.same(breaking, [])
  t.same(nonBreaking, ['examples.changed login', 'deprecated.changed login'])
  t.equal(diff.nonBreaking[1].message, 'command login is now deprecated')
  const undone = describedDiff((m) => { m.commands.login.deprecated = true }, true)
  t.equal(undone.diff.nonBreaking[0].message, 'command login is no longer deprecated')
  t.same(describedDiff((m) => { m.commands.login.examples = [] }).nonBreaking, ['examples.changed login'])
})

t.test('svc-manifest diff prints descriptor changes one per line, messages in one column, paths in --json', async (t) => {
  const dir = t.testdir()
  const after = structuredClone(described()) as any
  user(after).age.required = true
  user(after).email.format = 'idn-email'
  after.commands.login.deprecated = true
  after.checksum = checksumOf(after.commands)
  await writeFile(join(dir, 'before.json'), JSON.stringify(described()))
  await writeFile(join(dir, 'after.json'), JSON.stringify(after))
  const run = await cli('diff', join(dir, 'before.json'), join(dir, 'after.json'))
  t.equal(run.code, 1)
  t.equal(run.stdout, [
    '2 breaking changes:',
    '  property.required-changed  command login: param user.age is now required instead of optional',
    '  constraint.changed         command login: param user.email: format changed from "email" to "idn-email"',
    '1 non-breaking change:',
    '  deprecated.changed         command login is now deprecated',
    ''
  ].join('\n'))
  const json = await cli('diff', join(dir, 'before.json'), join(dir, 'after.json'), '--json')
  t.same(JSON.parse(json.stdout).breaking[1], {
    kind: 'constraint.changed',
    name: 'login(user)',
    message: 'command login: param user.email: format changed from "email" to "idn-email"',
    path: 'commands.login.params.user.properties.email.format'
  })
})
