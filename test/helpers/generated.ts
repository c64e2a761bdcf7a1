import { Readable } from 'node:stream'

export interface GeneratedOptions {
  /** Bytes a chunk (the last may be shorter). */
  chunkBytes: number
  /** Each chunk a new Buffer, as a file stream makes them (else one Buffer, sent again and again). */
  fresh?: boolean
  /**
   * When a chunk is made once it is asked for: at once (`now`: the whole stream may flow in one synchronous
   * run), a turn of the event loop later (`immediate`, as from a socket), or a millisecond later (`timer`).
   */
  pace?: 'now' | 'immediate' | 'timer'
  /** Told of each chunk made: its length, and the bytes of this stream so far. */
  made?: (length: number, total: number) => void
  /** Told when the stream is destroyed. */
  destroyed?: () => void
}

/** A stream of `size` bytes of 'x' (Infinity: endless), made as it is read, as a generated download is. */
export function generatedStream (size: number, { chunkBytes, fresh = false, pace = 'now', made, destroyed }: GeneratedOptions): Readable {
  const shared = fresh ? undefined : Buffer.alloc(chunkBytes, 'x')
  let sent = 0
  const next = (stream: Readable): void => {
    // A read scheduled before the stream was destroyed makes nothing.
    if (stream.destroyed) return
    if (sent >= size) {
      stream.push(null)
      return
    }
    const length = Math.min(chunkBytes, size - sent)
    sent += length
    made?.(length, sent)
    stream.push(shared === undefined ? Buffer.alloc(length, 'x') : length === chunkBytes ? shared : shared.subarray(0, length))
  }
  return new Readable({
    read () {
      if (pace === 'timer') setTimeout(() => { next(this) }, 1)
      else if (pace === 'immediate') setImmediate(() => { next(this) })
      else next(this)
    },
    destroy (error, callback) {
      destroyed?.()
      callback(error)
    }
  })
}
