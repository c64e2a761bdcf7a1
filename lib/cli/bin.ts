#!/usr/bin/env node
import { main } from './main.js'

const code = await main(process.argv.slice(2))
// The command is done. A timer, socket or pool that an imported app left open must not keep the process
// alive, so exit once what was written has reached stdout and stderr.
await Promise.all([flushed(process.stdout), flushed(process.stderr)])
process.exit(code)

function flushed (stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()))
}
