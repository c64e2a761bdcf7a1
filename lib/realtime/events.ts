import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { FST_SVC_AUTH_NOT_CONFIGURED, FST_SVC_INVALID_EVENT_DATA, FST_SVC_INVALID_OPTION } from '../errors.js'
import type { BrokerListener, BrokerMessage, MessageBus } from './broker.js'
import type { OpenStreams } from './open-streams.js'
import type { PayloadCheck } from './payload.js'
import { EventFrames, eventFrameOverhead, type SseStream } from './stream.js'
import { toJson, type Topics } from './topics.js'
import { unknownEvent } from './refusals.js'

export interface EmitOptions {
  /** A subject: only subscribers whose credential has it receive the event. Needs `auth`. */
  to?: string
}

/** An event on its way: serialised once by the instance that emitted it. */
interface EventMessage extends BrokerMessage {
  event: string
  json: string
  to?: string
}

/** One subscriber of the events stream. Its ids start after the client's `Last-Event-ID`, or at 1. */
class EventSubscriber {
  constructor (
    readonly stream: SseStream,
    readonly events: ReadonlySet<string>,
    readonly subject: string | undefined,
    private nextId: number
  ) {}

  deliver (frames: EventFrames): void {
    this.stream.write(frames.withId(this.nextId++))
  }
}

export interface EventHubSetup {
  /** Events need message passing only: they are not stored. */
  bus: MessageBus
  streams: OpenStreams
  topics: Topics
  /** The declared events, by name. */
  events: ReadonlyMap<string, unknown>
  /** Each event's data check, compiled at `ready()`. */
  checks: ReadonlyMap<string, PayloadCheck>
  /** Whether the plugin has `auth`: `to` needs it. */
  authConfigured: boolean
  log: FastifyBaseLogger
}

/**
 * Emit and the events streams. Each event reaches this instance once, from the broker, whoever emitted it;
 * it is framed once here, then written to each subscriber it is addressed to: with `to`, only to the
 * streams whose subject is `to`.
 */
export class EventHub {
  private readonly byEvent = new Map<string, Set<EventSubscriber>>()
  private readonly bySubject = new Map<string, Set<EventSubscriber>>()

  private constructor (private readonly setup: EventHubSetup) {}

  /** Subscribes to every event of the service on the bus. */
  static async start (setup: EventHubSetup): Promise<EventHub> {
    const hub = new EventHub(setup)
    await setup.bus.subscribe(setup.topics.allEvents, hub.onMessage)
    return hub
  }

  emit (event: string, data: unknown, options?: EmitOptions): void {
    const { bus, streams, events, checks } = this.setup
    if (!events.has(event)) {
      throw unknownEvent(event, events.keys())
    }
    const to = this.targetOf(event, options)
    const problem = checks.get(event)?.(data)
    if (problem !== undefined) throw new FST_SVC_INVALID_EVENT_DATA(`event "${event}": ${problem}. Nothing was delivered.`)
    const json = toJson(data, (reason) => new FST_SVC_INVALID_EVENT_DATA(`event "${event}": the payload is not JSON (${reason}). Nothing was delivered.`))
    const tooLarge = streams.tooLarge(`app.svc.emit("${event}")`, 'its frame', eventFrameOverhead(event), json, 'Nothing was delivered')
    if (tooLarge !== undefined) throw tooLarge
    const message: EventMessage = { topic: this.setup.topics.event(event), event, json }
    if (to !== undefined) message.to = to
    bus.send(message).catch((error) => {
      this.setup.log.error({ err: error, event }, `fastify-svc-manifest: event "${event}" could not be handed to the realtime broker; its subscribers may not receive it`)
    })
  }

  /** Opens an events stream for a subscriber who asked for `events`. `lastEventId`: the client's header. */
  open (request: FastifyRequest, reply: FastifyReply, events: ReadonlySet<string>, subject: string | undefined, lastEventId: unknown): void {
    const stream = this.setup.streams.start(request, reply, () => this.remove(subscriber))
    const subscriber = new EventSubscriber(stream, events, subject, firstIdAfter(lastEventId))
    if (!stream.open) return
    for (const event of events) addTo(this.byEvent, event, subscriber)
    if (subject !== undefined) addTo(this.bySubject, subject, subscriber)
  }

  private readonly onMessage: BrokerListener = (message, done) => {
    const { event, json, to } = message as EventMessage
    if (this.setup.streams.refusedOnArrival(eventFrameOverhead(event), json, { event })) return done()
    const frames = new EventFrames(event, json)
    if (to === undefined) {
      for (const subscriber of this.byEvent.get(event) ?? []) subscriber.deliver(frames)
    } else {
      for (const subscriber of this.bySubject.get(to) ?? []) {
        if (subscriber.events.has(event)) subscriber.deliver(frames)
      }
    }
    done()
  }

  private remove (subscriber: EventSubscriber): void {
    for (const event of subscriber.events) removeFrom(this.byEvent, event, subscriber)
    if (subscriber.subject !== undefined) removeFrom(this.bySubject, subscriber.subject, subscriber)
  }

  private targetOf (event: string, options: EmitOptions | undefined): string | undefined {
    const to = options?.to
    if (to === undefined) return undefined
    if (!this.setup.authConfigured) {
      throw new FST_SVC_AUTH_NOT_CONFIGURED(`app.svc.emit("${event}", data, { to }): "to" addresses a subject, and subjects come from credentials; the plugin has no "auth" option.`)
    }
    if (typeof to !== 'string' || to === '') {
      throw new FST_SVC_INVALID_OPTION(`app.svc.emit("${event}", data, { to }): "to" must be a subject, a non-empty string; got ${JSON.stringify(to) ?? typeof to}.`)
    }
    return to
  }
}

/** The first id of a stream: one past the client's `Last-Event-ID` when it is a whole number, else 1. */
function firstIdAfter (lastEventId: unknown): number {
  if (typeof lastEventId !== 'string' || !/^\d{1,15}$/.test(lastEventId)) return 1
  return Number(lastEventId) + 1
}

function addTo<K, V> (map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key)
  if (set === undefined) map.set(key, (set = new Set()))
  set.add(value)
}

function removeFrom<K, V> (map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key) as Set<V>
  set.delete(value)
  if (set.size === 0) map.delete(key)
}
