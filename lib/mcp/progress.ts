import type { Progress } from '../util/call-control.js'

/** The least time between two progress reports sent for one call; the last one is always sent. */
export const PROGRESS_INTERVAL_MS = 50

/** The most characters of a piece's JSON text sent as a notification's `message`. */
export const MAX_PIECE_MESSAGE = 1000

/**
 * The `notifications/progress` of one `tools/call` that carried a progress token: the route's progress
 * reports, at most one per `PROGRESS_INTERVAL_MS` (one held back is sent once the interval has passed, or
 * when the call ends), and each piece of a `stream: true` command's stream, never held back nor dropped,
 * its JSON text as `message` (cut to `MAX_PIECE_MESSAGE` characters). Both share one counter: each
 * notification's `progress` is above the one before it (a report's own figure when it is, else one more
 * than the last sent; a piece's, one more), and `total` comes only from reports.
 */
export class ProgressNotifier {
  private last = 0
  private sentAt = -Infinity
  private held: Progress | undefined
  private timer: NodeJS.Timeout | undefined
  private ended = false

  constructor (private readonly send: (params: Progress) => void) {}

  readonly report = (report: Progress): void => {
    if (this.ended) return
    const wait = this.sentAt + PROGRESS_INTERVAL_MS - Date.now()
    if (wait <= 0) {
      this.sendReport(report)
      return
    }
    this.held = report
    this.timer ??= setTimeout(() => {
      this.timer = undefined
      this.flush()
    }, wait)
  }

  /** A piece, as its JSON text. */
  readonly piece = (text: string): void => {
    if (this.ended) return
    this.notify({ progress: this.last + 1, message: text.length > MAX_PIECE_MESSAGE ? text.slice(0, MAX_PIECE_MESSAGE) : text })
  }

  /** The call ended: a report held back is sent now (`send`: false when the call was cancelled), and nothing after. */
  end (send: boolean): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (send) this.flush()
    this.ended = true
  }

  private flush (): void {
    const held = this.held
    if (held !== undefined) this.sendReport(held)
  }

  private sendReport ({ progress, total, message }: Progress): void {
    this.held = undefined
    this.sentAt = Date.now()
    const params: Progress = { progress: progress > this.last ? progress : this.last + 1 }
    if (total !== undefined) params.total = total
    if (message !== undefined) params.message = message
    this.notify(params)
  }

  private notify (params: Progress): void {
    this.last = params.progress
    this.send(params)
  }
}
