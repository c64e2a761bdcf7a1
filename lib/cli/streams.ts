import { createManifestClient } from '../client/client.js'
import type { ManifestClientError } from '../client/errors.js'
import { manifestUrlOf } from './call.js'
import { isUrl } from './load.js'
import { CliError, EXIT_FAILED, EXIT_OK, print } from './output.js'

/** `svc-manifest events <url> [--events a,b] [--token T]`: one JSON line per event, until interrupted. */
export async function eventsCommand ([url]: string[], values: Record<string, unknown>, timeout: number, signal?: AbortSignal): Promise<number> {
  const events = typeof values.events === 'string' ? values.events.split(',').map((name) => name.trim()).filter((name) => name !== '') : undefined
  return await streaming('events', url, timeout, signal, (client, stop) => client.subscribe({ events, token: values.token as string | undefined, signal: stop }, (event) => {
    print(JSON.stringify(event))
  }))
}

/** `svc-manifest watch <url> <channel> <key> [--token T]`: one JSON line per state, until interrupted. */
export async function watchCommand ([url, channel, key]: string[], values: Record<string, unknown>, timeout: number, signal?: AbortSignal): Promise<number> {
  return await streaming('watch', url, timeout, signal, (client, stop) => client.watch(channel, key, { token: values.token as string | undefined, signal: stop }, (state) => {
    print(JSON.stringify(state))
  }))
}

type Client = ReturnType<typeof createManifestClient>

/** The service could not be reached or did not answer in time: exit 2, as for every network error. */
const NOT_REACHED = new Set(['SVC_CLIENT_NETWORK', 'SVC_CLIENT_TIMEOUT'])

async function streaming (command: string, url: string, timeout: number, signal: AbortSignal | undefined, run: (client: Client, stop: AbortSignal) => Promise<void>): Promise<number> {
  if (!isUrl(url)) throw new CliError(`${command} takes the http(s) URL of a manifest or a service; got "${url}". Run svc-manifest ${command} --help.`)
  const interrupted = signal ?? untilInterrupted()
  try {
    await run(createManifestClient({ url: manifestUrlOf(url), timeout }), interrupted)
  } catch (error) {
    // The client verifies the manifest before it subscribes: an invalid one, like a refusal, exits 1.
    const { code, message } = error as ManifestClientError
    throw new CliError(message, NOT_REACHED.has(String(code)) ? undefined : EXIT_FAILED)
  }
  return EXIT_OK
}

/** A signal aborted by Ctrl-C (SIGINT) or SIGTERM, so the command ends with exit code 0 and all it printed. */
function untilInterrupted (): AbortSignal {
  const controller = new AbortController()
  const stop = (): void => {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
    controller.abort()
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return controller.signal
}
