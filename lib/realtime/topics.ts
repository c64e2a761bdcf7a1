/**
 * The broker topics of one service: levels separated by "/", under a namespace made of the manifest name,
 * so two services on one Redis never share a key or a topic.
 */
export class Topics {
  private readonly namespace: string

  constructor (serviceName: string) {
    // Redis pattern subscriptions read "*", and "/" separates levels: neither may come from the name. A lone
    // surrogate (which encodeURIComponent refuses) becomes U+FFFD: only a namespace, not a key.
    this.namespace = `svc:${encodeURIComponent(serviceName.toWellFormed()).replace(/\*/g, '%2A')}`
  }

  /** Every event of the service. */
  get allEvents (): string {
    return `${this.namespace}/event/+`
  }

  event (event: string): string {
    return `${this.namespace}/event/${event}`
  }

  channel (channel: string, key: string): string {
    // encodeURIComponent is one-to-one on well-formed strings: two keys never share a topic.
    return `${this.namespace}/channel/${channel}/${encodeURIComponent(key).replace(/\*/g, '%2A')}`
  }
}

/** A payload's JSON, or the caller's coded error saying why it has none. */
export function toJson (value: unknown, refuse: (reason: string) => Error): string {
  let json: string | undefined
  try {
    json = JSON.stringify(value ?? null)
  } catch (error) {
    throw refuse((error as Error).message)
  }
  if (json === undefined) throw refuse(`a ${typeof value} has no JSON form`)
  return json
}
