import { spawn, type ChildProcess } from 'node:child_process'
import { Socket, createServer, type Server } from 'node:net'
import { once } from 'node:events'
import { Writable } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { requiredOptions } from './app.js'
import { listening } from './net.js'

/** A real redis-server for one test: its own free port on loopback, no persistence, stopped by `stop()`. */
export interface RedisServer {
  port: number
  url: string
  /** Stops the server (SIGTERM; a frozen one is thawed first) and resolves once the process is gone. */
  stop (): Promise<void>
  /** Kills the server (SIGKILL: no goodbye to its clients) and resolves once the process is gone. */
  kill (): Promise<void>
  /** Starts it again on the same port, as after an outage. */
  restart (): Promise<void>
  /**
   * SIGSTOP: the process stops answering while its sockets stay up and the kernel still accepts
   * connections for it, as a stuck primary or a partition looks to a client.
   */
  freeze (): void
  /** SIGCONT: it answers again, everything sent meanwhile first. */
  thaw (): void
}

export async function startRedis (): Promise<RedisServer> {
  const port = await freePort()
  let child = await launch(port)
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop () {
      await end('SIGTERM')
    },
    async kill () {
      await end('SIGKILL')
    },
    async restart () {
      await server.stop()
      child = await launch(port)
    },
    freeze () {
      child.kill('SIGSTOP')
    },
    thaw () {
      child.kill('SIGCONT')
    }
  }
  async function end (signal: NodeJS.Signals): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = once(child, 'exit')
    child.kill(signal)
    // A frozen process acts on the signal only once it runs again.
    child.kill('SIGCONT')
    await exited
  }
  return server
}

async function launch (port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on port ${port}:\n${output}`)), 10_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`redis-server exited with ${code}:\n${output}`))
    })
  })
  child.stdout?.resume()
  child.stderr?.resume()
  return child
}

/** This process's open sockets to `port`: an app's connections to its Redis. */
export function socketsTo (port: number): number {
  const handles = (process as unknown as { _getActiveHandles (): unknown[] })._getActiveHandles()
  return handles.filter((handle) => handle instanceof Socket && handle.remotePort === port).length
}

/** A port nobody listens on right now. */
export async function freePort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}

/** A TCP server that accepts connections and never writes a byte: a Redis that hangs, or a wrong port. */
export interface SilentServer {
  port: number
  url: string
  /** Connections accepted so far. */
  readonly accepted: number
  /** Connections open now (the client has not closed them). */
  readonly open: number
  /** Closes the listener and destroys the connections still open. */
  close (): Promise<void>
}

/**
 * `halfOpen`: the server never closes its side, even after the client ended its own (a client that only
 * ends its side would keep the connection open forever).
 */
export async function startSilentServer ({ halfOpen = false } = {}): Promise<SilentServer> {
  const sockets = new Set<Socket>()
  let accepted = 0
  const server: Server = createServer({ allowHalfOpen: halfOpen }, (socket) => {
    accepted++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    socket.resume()
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get accepted () { return accepted },
    get open () { return sockets.size },
    async close () {
      for (const socket of sockets) socket.destroy()
      server.close()
      await once(server, 'close')
    }
  }
}

/** One running instance of a service: its app, its origin, and every line it logged, parsed. */
export interface ServiceInstance {
  app: FastifyInstance
  origin: string
  logs: Array<Record<string, unknown>>
}

export interface InstanceSettings {
  /** The logger's level: the lines below it are not in `logs`. */
  logLevel?: 'info' | 'warn'
  /** Adds routes after the plugin, before it listens. */
  routes?: (app: FastifyInstance) => void
}

/**
 * An app with the plugin (`options` over the four required ones) whose `realtime.redis` is `redisUrl`, so
 * that instances started on one URL share their events and states; `undefined`: no Redis, the instance's
 * own broker. It listens on a free loopback port and is closed when the test ends.
 */
export async function startInstance (
  t: Test,
  redisUrl: string | undefined,
  options: Partial<SvcManifestOptions> = {},
  { logLevel = 'info', routes = () => {} }: InstanceSettings = {}
): Promise<ServiceInstance> {
  const logs: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write (chunk, _encoding, callback) {
      logs.push(JSON.parse(chunk.toString()))
      callback()
    }
  })
  const app = Fastify({ logger: { level: logLevel, stream } })
  await app.register(svcManifest, {
    ...requiredOptions,
    ...options,
    realtime: { ...options.realtime, ...(redisUrl === undefined ? {} : { redis: redisUrl }) }
  })
  routes(app)
  const origin = await listening(t, app)
  return { app, origin, logs }
}
