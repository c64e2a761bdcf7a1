// `svc-manifest mcp` builds each tool's input schema from the manifest's descriptors alone: a client (or a
// model) sees nested objects, array items, allowed values and bounds, and can build a valid call first time.
import { Client } from '@modelcontextprotocol/client'
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import svcManifest, { checksumOf } from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'
import { compileInputSchema, inProcessCli, textJson } from '../helpers/mcp.js'
import { listening } from '../helpers/net.js'
import { manifestOf, rawServer, sendJson } from '../helpers/raw-server.js'

async function bridge (t: Test, origin: string) {
  const cli = inProcessCli('mcp', origin)
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(cli.transport)
  t.teardown(() => client.close())
  return { client, cli }
}

t.test('a tool\'s input schema keeps nested properties, items, enums, formats, patterns, bounds and types', async (t) => {
  const Tag = Type.Object({ label: Type.String({ minLength: 1 }), weight: Type.Optional(Type.Number({ exclusiveMinimum: 0 })) }, { description: 'A label' })
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, types: { Tag } })
  app.post('/users', {
    svc: {
      description: 'Create a user',
      params: Type.Object({
        user: Type.Object({
          email: Type.String({ format: 'email', description: 'Where to write' }),
          age: Type.Optional(Type.Integer({ minimum: 13, maximum: 130 })),
          role: Type.Union([Type.Literal('admin'), Type.Literal('member')], { default: 'member' }),
          tags: Type.Optional(Type.Array(Type.Ref('Tag'), { maxItems: 3 }))
        }),
        code: Type.Optional(Type.String({ pattern: '^[0-9]{6}$' })),
        scores: Type.Optional(Type.Array(Type.Object({ value: Type.Number({ maximum: 10 }) }), { minItems: 1 }))
      })
    }
  }, async (request) => request.body)
  const { client } = await bridge(t, await listening(t, app))
  const [tool] = (await client.listTools()).tools
  t.same(tool.inputSchema, {
    type: 'object',
    properties: {
      user: {
        type: 'object',
        properties: {
          email: { type: 'string', description: 'Where to write', format: 'email' },
          age: { type: 'number', minimum: 13, maximum: 130 },
          role: { type: 'string', default: 'member', enum: ['admin', 'member'] },
          tags: { type: 'array', maxItems: 3, items: { $ref: '#/$defs/Tag' } }
        },
        required: ['email']
      },
      code: { type: 'string', pattern: '^[0-9]{6}$' },
      scores: { type: 'array', minItems: 1, items: { type: 'object', properties: { value: { type: 'number', maximum: 10 } }, required: ['value'] } }
    },
    required: ['user'],
    $defs: {
      Tag: { type: 'object', description: 'A label', properties: { label: { type: 'string', minLength: 1 }, weight: { type: 'number', exclusiveMinimum: 0 } }, required: ['label'] }
    }
  }, 'an integer is a manifest number, and a JSON Schema number; role has a default, so it may be left out')

  const validate = compileInputSchema(tool)
  const good = { user: { email: 'ada@example.com', age: 36, role: 'admin', tags: [{ label: 'vip', weight: 2 }] }, code: '123456', scores: [{ value: 9.5 }] }
  t.ok(validate(good), 'a call the route accepts')
  for (const [why, bad] of [
    ['age above maximum', { user: { email: 'ada@example.com', age: 200 } }],
    ['role not in enum', { user: { email: 'ada@example.com', role: 'owner' } }],
    ['email not an email', { user: { email: 'ada' } }],
    ['nested required missing', { user: {} }],
    ['too many tags', { user: { email: 'a@b.example', tags: [{ label: 'a' }, { label: 'b' }, { label: 'c' }, { label: 'd' }] } }],
    ['a type\'s required property missing', { user: { email: 'a@b.example', tags: [{ weight: 1 }] } }],
    ['a type\'s exclusive bound', { user: { email: 'a@b.example', tags: [{ label: 'a', weight: 0 }] } }],
    ['pattern', { user: { email: 'a@b.example' }, code: '12ab' }],
    ['items of an inline array', { user: { email: 'a@b.example' }, scores: [{ value: 11 }] }],
    ['too few items', { user: { email: 'a@b.example' }, scores: [] }]
  ] as const) t.notOk(validate(bad), why)

  const created = await client.callTool({ name: 'users', arguments: good })
  t.same(created.structuredContent, good, 'the call the schema accepts, the service accepts')
  const refused = await client.callTool({ name: 'users', arguments: { user: { email: 'ada@example.com', age: 200 } } })
  t.equal(refused.isError, true)
  t.match(textJson(refused), { code: 'INVALID_PARAMS' }, 'what the schema refuses, the service refuses too')
})

t.test('control characters: stripped from nested descriptions; a default, enum or pattern holding one left out; a nested name holding one refused', async (t) => {
  const commands = {
    pick: {
      description: 'Pick',
      params: {
        choice: {
          type: 'object',
          required: true,
          description: 'What\u001b[2J to pick',
          default: { color: 're\u001bd' },
          properties: {
            count: { type: 'number', required: false, default: 2 },
            extra: { type: 'object', required: false, default: { note: null } },
            color: { type: 'string', required: true, enum: ['red', 'gr\u202eeen'], description: 'A\u0007 color' },
            code: { type: 'string', required: false, pattern: '^a\u0000$', maxLength: 4 },
            list: { type: 'array', required: false, items: { type: 'string', enum: ['x', 'y'], description: 'One\u009b of' } }
          }
        }
      }
    }
  }
  const { origin } = await rawServer(t, (request, response) => sendJson(response, manifestOf(commands)))
  const { client } = await bridge(t, origin)
  const [tool] = (await client.listTools()).tools
  t.same(tool.inputSchema.properties, {
    choice: {
      type: 'object',
      description: 'What[2J to pick',
      properties: {
        count: { type: 'number', default: 2 },
        extra: { type: 'object', default: { note: null } },
        color: { type: 'string', description: 'A color' },
        code: { type: 'string', maxLength: 4 },
        list: { type: 'array', items: { type: 'string', description: 'One of', enum: ['x', 'y'] } }
      },
      required: ['color']
    }
  })

  const named = manifestOf({
    pick: {
      description: 'Pick',
      params: { choice: { type: 'object', required: true, properties: { 'co\u001blor': { type: 'string', required: true } } } }
    }
  }, { types: { Box: { type: 'array', items: { type: 'object', properties: { 'si\u200eze': { type: 'number', required: false } } } } } })
  named.commands.pick.params!.box = { type: 'Box', required: false }
  const { origin: other } = await rawServer(t, (request, response) => sendJson(response, { ...named, checksum: checksumOf(named.commands) }))
  const cli = inProcessCli('mcp', other)
  t.equal(await cli.exit, 1)
  t.match(cli.stderr(), 'command "pick": param "choice.co\\u001blor" has control characters in its name')
  t.match(cli.stderr(), 'command "pick": field "[].si\\u200eze" of type Box has control characters in its name')
})
