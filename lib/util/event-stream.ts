/**
 * The head of every event stream the plugin answers (events, channels, MCP, a streamed execute):
 * `no-store`, and `x-accel-buffering: no` so that a proxy such as nginx passes each frame on as it comes.
 */
export const EVENT_STREAM_HEAD = { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' } as const
