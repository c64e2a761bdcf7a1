import { EventEmitter } from 'node:events'
import type { IncomingHttpHeaders, OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http'
import { Readable, Writable } from 'node:stream'
import type { CallLink } from '../util/call-control.js'
import type { RouteResponse } from './outcome.js'

/**
 * The inner request and response of a command call, handed to Fastify's own router (`app.routing`): the
 * route runs its whole lifecycle on them — hooks, body parsing, validation, serialisation, error handler,
 * `onSend` and `onResponse` — as on a request off the wire. They are what `app.inject()` builds, less what
 * a call inside the process never needs: a `ServerResponse` over a null socket, header copies by regular
 * expressions, a timer per write, WHATWG URL parsing.
 */

/** What an inner request reports of the caller's connection. */
interface CallerSocket {
  remotePort?: number
  remoteFamily?: string
  encrypted?: boolean
  localAddress?: string
  localPort?: number
}

/** The connection an inner request reports: the caller's address and transport, no socket to write on. */
export class InnerSocket extends EventEmitter {
  destroyed = false

  /** The caller's connection, read only when the route asks (each is a getter of Node's socket), and never handed out. */
  readonly #caller: CallerSocket | undefined

  constructor (readonly remoteAddress: string, caller: CallerSocket | undefined) {
    super()
    this.#caller = caller
  }

  get remotePort (): number | undefined {
    return this.#caller?.remotePort
  }

  get remoteFamily (): string | undefined {
    return this.#caller?.remoteFamily
  }

  get encrypted (): boolean | undefined {
    return this.#caller?.encrypted
  }

  get localAddress (): string | undefined {
    return this.#caller?.localAddress
  }

  get localPort (): number | undefined {
    return this.#caller?.localPort
  }

  setTimeout (): this {
    return this
  }

  /** As a socket's: `close` once, so a route that watches `request.socket` sees its caller go too. */
  destroy (): this {
    if (this.destroyed) return this
    this.destroyed = true
    this.emit('close', false)
    return this
  }
}

/** An `IncomingMessage` as Fastify and plugins read one: a readable of the JSON body, with its head. */
export class InnerRequest extends Readable {
  readonly httpVersion = '1.1'
  readonly httpVersionMajor = 1
  readonly httpVersionMinor = 1
  readonly trailers: Record<string, string> = {}
  readonly rawTrailers: string[] = []
  aborted = false
  complete = false
  /** The call this request is made for: what the route's `request.svc` reads. */
  svcCall: CallLink | undefined

  constructor (
    readonly method: string,
    public url: string,
    readonly headers: IncomingHttpHeaders,
    readonly socket: InnerSocket,
    private body: string | undefined
  ) {
    // As Node's: reading the body to its end does not close the request; its response ending does.
    super({ autoDestroy: false })
  }

  /** The headers as name, value pairs, as Node gives them (a repeated header once per value). */
  get rawHeaders (): string[] {
    const pairs: string[] = []
    for (const name of Object.keys(this.headers)) {
      const value = this.headers[name]
      if (Array.isArray(value)) for (const item of value) pairs.push(name, item)
      else if (value !== undefined) pairs.push(name, value)
    }
    return pairs
  }

  get connection (): InnerSocket {
    return this.socket
  }

  override _read (): void {
    const body = this.body
    this.body = undefined
    if (body !== undefined) this.push(body)
    this.complete = true
    this.push(null)
  }
}

function headersSentError (): Error {
  return Object.assign(new Error('Cannot set headers after they are sent to the client'), { code: 'ERR_HTTP_HEADERS_SENT' })
}

/**
 * Sees an inner response's body as the route writes it. `write` returns true when it took the chunk (then
 * it is neither held nor counted against the response's limit), false to leave it to the response.
 */
export interface ResponseTap {
  write: (response: InnerResponse, chunk: string | Buffer) => boolean
}

/**
 * A `ServerResponse` as Fastify and plugins write one: status, headers and body are collected in memory;
 * `finish` means the route is done with it (`onResponse` hooks run then, as on the wire).
 */
export class InnerResponse extends Writable {
  statusCode = 200
  statusMessage = ''
  headersSent = false
  sendDate = false
  trailers: OutgoingHttpHeaders | undefined
  /** What was written: most routes write one string or one buffer. */
  readonly chunks: Array<string | Buffer> = []
  /** The bytes written so far, counted as they arrive. */
  bytes = 0
  /** Set when a write passed `limit`: the response was destroyed there and holds nothing. */
  overLimit = false
  private fields: OutgoingHttpHeaders = {}

  /** `limit`: the most bytes of body the response holds; a write past it destroys the response. */
  constructor (readonly req: InnerRequest, private readonly limit = Infinity, private readonly tap?: ResponseTap) {
    super({ decodeStrings: false })
  }

  get socket (): InnerSocket {
    return this.req.socket
  }

  get connection (): InnerSocket {
    return this.req.socket
  }

  get finished (): boolean {
    return this.writableEnded
  }

  setHeader (name: string, value: OutgoingHttpHeader): this {
    if (this.headersSent) throw headersSentError()
    this.fields[name.toLowerCase()] = value
    return this
  }

  appendHeader (name: string, value: string | readonly string[]): this {
    const key = name.toLowerCase()
    const current = this.fields[key]
    const values: string[] = []
    if (Array.isArray(current)) values.push(...current)
    else if (current !== undefined) values.push(String(current))
    if (typeof value === 'string') values.push(value)
    else values.push(...value)
    this.fields[key] = values.length === 1 ? values[0] : values
    return this
  }

  getHeader (name: string): OutgoingHttpHeader | undefined {
    return this.fields[name.toLowerCase()]
  }

  getHeaders (): OutgoingHttpHeaders {
    return { ...this.fields }
  }

  getHeaderNames (): string[] {
    return Object.keys(this.fields)
  }

  hasHeader (name: string): boolean {
    return this.fields[name.toLowerCase()] !== undefined
  }

  removeHeader (name: string): void {
    if (this.headersSent) throw headersSentError()
    delete this.fields[name.toLowerCase()]
  }

  /** `writeHead(status[, message][, headers])`, headers as an object or as name, value pairs. */
  writeHead (statusCode: number, message?: string | OutgoingHttpHeaders | OutgoingHttpHeader[], headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this {
    if (this.headersSent) throw headersSentError()
    if (typeof message === 'string') this.statusMessage = message
    else headers = message
    this.statusCode = statusCode
    if (Array.isArray(headers)) {
      for (let index = 0; index + 1 < headers.length; index += 2) this.fields[String(headers[index]).toLowerCase()] = headers[index + 1]
    } else if (headers !== undefined) {
      for (const name of Object.keys(headers)) {
        const value = headers[name]
        if (value !== undefined) this.fields[name.toLowerCase()] = value
      }
    }
    this.headersSent = true
    return this
  }

  flushHeaders (): void {
    this.headersSent = true
  }

  writeEarlyHints (hints: unknown, callback?: () => void): void {
    if (callback !== undefined) callback()
  }

  writeContinue (): void {}

  addTrailers (trailers: OutgoingHttpHeaders): void {
    this.trailers = { ...this.trailers, ...trailers }
  }

  setTimeout (): this {
    return this
  }

  override _write (chunk: string | Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.headersSent = true
    const bytes = typeof chunk === 'string' && encoding !== 'utf8' && encoding !== 'utf-8' ? Buffer.from(chunk, encoding) : chunk
    if (this.tap?.write(this, bytes) === true) {
      callback()
      return
    }
    this.bytes += typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length
    if (this.bytes > this.limit) {
      this.overLimit = true
      this.chunks.length = 0
      // The write fails, which destroys the response: Fastify then destroys a stream the route sent.
      callback(new Error(`The response passed ${this.limit} bytes.`))
      return
    }
    this.chunks.push(bytes)
    callback()
  }

  override _final (callback: (error?: Error | null) => void): void {
    this.headersSent = true
    callback()
  }
}

/** The inner response once the route is done with it: what the outcome is read from. */
export function answerOf (response: InnerResponse): RouteResponse {
  const { chunks } = response
  let body: string | Buffer
  if (chunks.length === 1) body = chunks[0]
  else if (chunks.length === 0) body = ''
  else body = Buffer.concat(chunks.map((chunk) => typeof chunk === 'string' ? Buffer.from(chunk) : chunk))
  return { statusCode: response.statusCode, headers: response.getHeaders(), body }
}
