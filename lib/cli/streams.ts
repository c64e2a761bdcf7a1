import type { ManifestClient } from '../client/client.js'
import type { ManifestClientError } from '../client/errors.js'
import { connectTo, isUrl } from './load.js'
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

type Client = ManifestClient

/**
 * Exit 2, as for every network error: the service could not be reached or did not answer in time, or it
 * sent more than the client reads (a manifest over 8 MiB, or a frame of its stream over 8 MiB).
 */
const NETWORK_ERRORS = new Set(['SVC_CLIENT_NETWORK', 'SVC_CLIENT_TIMEOUT', 'SVC_CLIENT_BODY_TOO_LARGE', 'SVC_CLIENT_TOO_LARGE'])

async function streaming (command: string, url: string, timeout: number, signal: AbortSignal | undefined, run: (client: Client, stop: AbortSignal) => Promise<void>): Promise<number> {
  if (!isUrl(url)) throw new CliError(`${command} takes the http(s) URL of a manifest or a service; got "${url}". Run svc-manifest ${command} --help.`)
  const end = signal === undefined ? untilInterrupted() : { signal, release: () => {} }
  try {
    // A bare origin is looked up as every command does: svc.json, else Surf's surf.json.
    await run((await connectTo(url, timeout, end.signal)).client, end.signal)
  } catch (error) {
    // The client verifies the manifest before it subscribes: an invalid one, like a refusal, exits 1.
    const { code, message } = error as ManifestClientError
    throw new CliError(message, NETWORK_ERRORS.has(String(code)) ? undefined : EXIT_FAILED)
  } finally {
    // A stream that failed leaves no handler behind: a program running main() keeps its own Ctrl-C.
    end.release()
  }
  return EXIT_OK
}

/**
 * A signal aborted by Ctrl-C (SIGINT) or SIGTERM, with the signal's name as its reason, so the command ends
 * with all it printed; `release` removes the handlers.
 */
export function untilInterrupted (): { signal: AbortSignal, release: () => void } {
  const controller = new AbortController()
  const release = (): void => {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
  const stop = (name: NodeJS.Signals): void => {
    release()
    controller.abort(name)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return { signal: controller.signal, release }
}
