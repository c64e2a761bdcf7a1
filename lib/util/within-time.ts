/** `promise`, or a rejection with `message` (`%d`: `ms`) once `ms` have passed first; the timer never outlives it. */
export function withinTime<T> (promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message.replace('%d', String(ms)))), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
