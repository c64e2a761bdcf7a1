import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyInstance } from 'fastify'
import type { Manifest } from '../manifest/types.js'
import { CliError } from './output.js'

/**
 * Imports a module whose default export is a Fastify instance or a (possibly async) function returning
 * one, readies the app without listening, and returns its manifest. The app is closed afterwards.
 */
export async function generateManifest (modulePath: string): Promise<Readonly<Manifest>> {
  const app = await loadApp(modulePath)
  try {
    return await manifestOf(app, modulePath)
  } finally {
    await app.close()
  }
}

async function manifestOf (app: FastifyInstance, modulePath: string): Promise<Readonly<Manifest>> {
  try {
    await app.ready()
  } catch (error) {
    throw new CliError(`${modulePath}: the app failed to start: ${(error as Error).message}`)
  }
  if (app.svc === undefined) throw new CliError(`${modulePath}: the app does not register fastify-svc-manifest`)
  return app.svc.manifest
}

async function loadApp (modulePath: string): Promise<FastifyInstance> {
  let exported: unknown
  try {
    exported = (await import(pathToFileURL(resolve(modulePath)).href)).default
  } catch (error) {
    throw new CliError(`cannot import ${modulePath}: ${(error as Error).message}`)
  }
  const app = typeof exported === 'function' ? await createApp(modulePath, exported as () => unknown) : exported
  if (!isFastifyInstance(app)) {
    throw new CliError(`${modulePath}: the default export must be a Fastify instance or a function returning one`)
  }
  return app
}

async function createApp (modulePath: string, factory: () => unknown): Promise<unknown> {
  try {
    return await factory()
  } catch (error) {
    throw new CliError(`${modulePath}: the default export threw: ${(error as Error).message}`)
  }
}

function isFastifyInstance (value: unknown): value is FastifyInstance {
  const app = value as Partial<FastifyInstance> | null
  return typeof app?.ready === 'function' && typeof app.close === 'function'
}
