import { FST_SVC_UNKNOWN_CHANNEL, FST_SVC_UNKNOWN_EVENT } from '../errors.js'

/** `app.svc.emit()` of an event the app did not declare. */
export function unknownEvent (event: string, declared: Iterable<string>): Error {
  return new FST_SVC_UNKNOWN_EVENT(`app.svc.emit("${event}"): no such event is declared (declared: ${listOf(declared)}). Declare it in the "events" option or with app.svc.event().`)
}

/** `app.svc.publish()` to a channel the app did not declare. */
export function unknownChannel (channel: string, declared: Iterable<string>): Error {
  return new FST_SVC_UNKNOWN_CHANNEL(`app.svc.publish("${channel}"): no such channel is declared (declared: ${listOf(declared)}).`)
}

/** Declared names for an error message: `"a", "b"`, or `none`. */
function listOf (names: Iterable<string>): string {
  const all = [...names].map((name) => `"${name}"`)
  return all.length === 0 ? 'none' : all.join(', ')
}
