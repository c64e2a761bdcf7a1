import { createServer } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'

/** Starts `app` on a free loopback port; resolves to its origin. The caller closes it. */
export async function listen (app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }
  return `http://127.0.0.1:${port}`
}

/** Starts `app` on a free loopback port and closes it when the test ends; resolves to its origin. */
export async function listening (t: Test, app: FastifyInstance): Promise<string> {
  const origin = await listen(app)
  t.teardown(() => app.close())
  return origin
}

/** A port that was free a moment ago and has nobody listening now. */
export async function closedPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}
