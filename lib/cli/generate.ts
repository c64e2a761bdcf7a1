import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { formatDuration } from '../client/http.js'
import type { Manifest } from '../manifest/types.js'
import { CliError } from './output.js'

/** How long `generate` waits for the module to give its manifest unless `--timeout` says otherwise. */
export const DEFAULT_GENERATE_TIMEOUT_MS = 30_000

/** The app, and every context registered in it: the plugin may sit in any of them. */
interface LoadedApp {
  app: FastifyInstance
  contexts: FastifyInstance[]
  /** How the default export was read, for the error when no context has the plugin. */
  shape: 'instance' | 'factory' | 'plugin'
}

/**
 * Imports a module and readies its app without listening, then returns the app's manifest and closes it.
 * The default export is a Fastify instance, a function that declares no parameters and returns one (a
 * factory, possibly async), or a function that declares parameters: a plugin `(fastify, opts)`, as
 * fastify-cli and @fastify/autoload apps export it, registered on a new `Fastify()` of the app's own
 * fastify. All of it (import, build, ready, close) must finish within `timeout` milliseconds.
 */
export async function generateManifest (modulePath: string, timeout: number, all = false): Promise<Readonly<Manifest>> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CliError(
      `${modulePath}: no manifest within ${formatDuration(timeout)}: importing the module, building the app, ready() or close() ` +
      'did not finish. Look for a promise that never settles (a connection that never opens?), or raise --timeout.'
    )), timeout)
  })
  try {
    return await Promise.race([generate(modulePath, all), expired])
  } finally {
    clearTimeout(timer)
  }
}

async function generate (modulePath: string, all: boolean): Promise<Readonly<Manifest>> {
  const loaded = await loadApp(modulePath)
  try {
    return await manifestOf(loaded, modulePath, all)
  } finally {
    await loaded.app.close()
  }
}

/** The public manifest (what a caller without a credential is served), or with `all` every command, the hidden ones included. */
async function manifestOf ({ app, contexts, shape }: LoadedApp, modulePath: string, all: boolean): Promise<Readonly<Manifest>> {
  try {
    await app.ready()
  } catch (error) {
    throw new CliError(`${modulePath}: the app failed to start: ${(error as Error).message}`)
  }
  // Children inherit decorators, so the first context that has `svc` holds the app's registry.
  const registry = contexts.find((context) => context.svc !== undefined)?.svc
  if (registry === undefined) {
    const hint = shape === 'plugin'
      ? ' (its default export declares parameters, so it was registered as a plugin; a function that builds and returns the app must declare none)'
      : ''
    throw new CliError(`${modulePath}: the app does not register fastify-svc-manifest${hint}`)
  }
  return all ? registry.manifest : registry.publicManifest
}

async function loadApp (modulePath: string): Promise<LoadedApp> {
  let exported: unknown
  try {
    exported = (await import(pathToFileURL(resolve(modulePath)).href)).default
  } catch (error) {
    throw new CliError(`cannot import ${modulePath}: ${(error as Error).message}`)
  }
  if (isFastifyInstance(exported)) return { app: exported, contexts: [exported], shape: 'instance' }
  if (typeof exported !== 'function') throw notAnApp(modulePath, `it is ${describe(exported)}`)
  if (exported.length > 0) return await appFromPlugin(modulePath, exported as FastifyPluginAsync)
  const app = await createApp(modulePath, exported as () => unknown)
  if (!isFastifyInstance(app)) {
    throw notAnApp(modulePath, `it is a function that declares no parameters, so it was called to build the app, and it returned ${describe(app)}`)
  }
  return { app, contexts: [app], shape: 'factory' }
}

function notAnApp (modulePath: string, why: string): CliError {
  return new CliError(`${modulePath}: the default export must be a Fastify instance, a function that returns one, or a plugin (fastify, opts); ${why}`)
}

function describe (value: unknown): string {
  if (value === null || value === undefined) return String(value)
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

async function createApp (modulePath: string, factory: () => unknown): Promise<unknown> {
  try {
    return await factory()
  } catch (error) {
    throw new CliError(`${modulePath}: the default export threw: ${(error as Error).message}`)
  }
}

/** Registers the plugin on a new app, as fastify-cli does, and keeps each context the app creates. */
async function appFromPlugin (modulePath: string, plugin: FastifyPluginAsync): Promise<LoadedApp> {
  const Fastify = await fastifyOf(modulePath)
  const app = Fastify()
  const contexts = [app]
  app.addHook('onRegister', (context) => { contexts.push(context) })
  app.register(plugin)
  return { app, contexts, shape: 'plugin' }
}

/** The fastify the module itself would import: the app's own copy, not one beside this package. */
async function fastifyOf (modulePath: string): Promise<() => FastifyInstance> {
  let entry: string
  try {
    entry = createRequire(resolve(modulePath)).resolve('fastify')
  } catch {
    throw new CliError(`${modulePath}: its default export is a plugin, but fastify cannot be found from the module to create the app; install fastify in the app`)
  }
  return (await import(pathToFileURL(entry).href)).default
}

function isFastifyInstance (value: unknown): value is FastifyInstance {
  const app = value as Partial<FastifyInstance> | null
  return typeof app?.ready === 'function' && typeof app.close === 'function'
}
