import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { readyApp } from '../helpers/app.js'
import { execute, pipeline } from '../helpers/invoke.js'
import { httpClient, textJson } from '../helpers/mcp.js'
import { listening } from '../helpers/net.js'

/**
 * An admin API shaped like real ones: its handlers answer errors in their own JSON (`{ error }`), in RFC
 * 9457 problem details, or through Fastify's error JSON. What the route said must reach the agent.
 */
async function adminApi (t: Parameters<typeof readyApp>[0], options = {}): Promise<FastifyInstance> {
  return await readyApp(t, { names: { style: 'rest' }, ...options }, (app) => {
    app.get('/queries/:id', { schema: { summary: 'One saved query' }, svc: {} }, async (request, reply) => {
      return await reply.code(400).send({ error: 'query not found' })
    })
    app.post('/queries/:id/run', { schema: { summary: 'Run a saved query' }, svc: {} }, async (request, reply) => {
      return await reply.code(500).send({ error: 'connection to the warehouse lost', code: 'WAREHOUSE_DOWN' })
    })
    app.delete('/roles/:id', { schema: { summary: 'Delete a role' }, svc: {} }, async (request, reply) => {
      return await reply.code(409).type('application/problem+json').send({
        type: 'https://admin.example/problems/role-in-use', title: 'Role in use', status: 409, detail: 'Role 7 is held by 3 users'
      })
    })
    app.put('/roles/:id', { schema: { summary: 'Rename a role' }, svc: {} }, async (request, reply) => {
      return await reply.code(422).type('application/problem+json; charset=utf-8').send({ title: 'Name taken', status: 422 })
    })
    app.get('/settings', { schema: { summary: 'Settings' }, svc: {} }, async (request, reply) => {
      // Both: Fastify's own field wins, as it always did.
      return await reply.code(403).send({ error: 'Forbidden', message: 'admins only' })
    })
    app.get('/audit', { schema: { summary: 'Audit log' }, svc: {} }, async (request, reply) => {
      // Fields that are not strings, or empty, carry no message: the next one does, else the status text.
      return await reply.code(500).send({ message: '', error: { reason: 'nested' }, detail: 42 })
    })
  })
}

t.test('execute: the message an app put in "error", "detail" or "title" reaches the caller, and no more', async (t) => {
  const app = await adminApi(t)
  const notFound = await execute(app, 'queries.get', { id: 'q1' })
  t.equal(notFound.statusCode, 400)
  t.same(notFound.json(), { ok: false, error: { code: 'INVALID_PARAMS', message: 'query not found', status: 400 } })
  t.same((await execute(app, 'queries.run.create', { id: 'q1' })).json().error,
    { code: 'INTERNAL_ERROR', message: 'connection to the warehouse lost', status: 500, cause: 'WAREHOUSE_DOWN' }, 'the route\'s own code is the cause')
  t.same((await execute(app, 'roles.delete', { id: '7' })).json().error, { code: 'CONFLICT', message: 'Role 7 is held by 3 users', status: 409 }, 'problem+json: detail')
  t.same((await execute(app, 'roles.update', { id: '7' })).json().error, { code: 'COMMAND_FAILED', message: 'Name taken', status: 422 }, 'problem+json without detail: title')
  t.same((await execute(app, 'settings.list')).json().error, { code: 'FORBIDDEN', message: 'admins only', status: 403 })
  t.same((await execute(app, 'audit.list')).json().error, { code: 'INTERNAL_ERROR', message: 'Internal Server Error', status: 500 })
})

t.test('a pipeline step fails with the route\'s message', async (t) => {
  const app = await adminApi(t)
  const response = await pipeline(app, { steps: [{ command: 'settings.list' }, { command: 'queries.get', params: { id: 'q1' } }], continueOnError: true })
  t.same(response.json().results, [
    { command: 'settings.list', ok: false, error: { code: 'FORBIDDEN', message: 'admins only', status: 403 } },
    { command: 'queries.get', ok: false, error: { code: 'INVALID_PARAMS', message: 'query not found', status: 400 } }
  ])
})

t.test('an MCP tool call fails with the route\'s message', async (t) => {
  const app = await adminApi(t, { mcp: true })
  const client = await httpClient(t, `${await listening(t, app)}/mcp`)
  const failed = await client.callTool({ name: 'queries_get', arguments: { id: 'q1' } })
  t.equal(failed.isError, true)
  t.same(textJson(failed), { code: 'INVALID_PARAMS', message: 'query not found', status: 400 })
  t.match(textJson(await client.callTool({ name: 'roles_delete', arguments: { id: '7' } })), { message: 'Role 7 is held by 3 users' })
})
