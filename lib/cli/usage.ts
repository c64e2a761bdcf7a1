const GENERAL = `Usage: svc-manifest <command> [options]

Commands:
  fetch <url> [--token T]        Download a manifest, verify it and print it
  check <url|file> [--strict]    Validate a manifest: schema of its layout and checksum
  diff <before> <after>          List breaking and non-breaking changes between two manifests
  generate <module> [--out file] [--all]
                                 Write the manifest of a Fastify app without starting a server
  call <url> <command> [name=value ...] [--params JSON] [--token T] [--stream | --all-pages]
                                 Call a command through the service's execute endpoint
  mcp <url> [--token T]          Serve the service's commands as MCP tools on stdio
  events <url>                   Print the service's events as they happen, one JSON line each
  watch <url> <channel> <key>    Print the states of one channel key as they change, one JSON line each

Options of every command:
  --timeout <seconds>            How long to wait: 10 per request, 30 for generate

Run svc-manifest <command> --help for the options of a command.

Exit codes: 0 ok, 1 invalid manifest, breaking changes, a failed command or a refused stream, 2 usage,
network or file error, 130 call --stream interrupted (Ctrl-C).`

const TIMEOUT = '  --timeout <seconds>   Give up on a download after this long (default 10)'

const COMMANDS: Record<string, string> = {
  fetch: `Usage: svc-manifest fetch <url> [--token T] [--timeout seconds]

Downloads the manifest at <url> (e.g. https://shop.example/.well-known/svc.json, or a bare origin:
/.well-known/svc.json, else Surf's /.well-known/surf.json), verifies its schema and checksum as any
reader does, and prints it as JSON, exactly as served.

Options:
  --token <token>       Send it (Authorization: Bearer, or the manifest's auth.scheme): the manifest is
                        then the view of that credential, with the hidden commands it may see
${TIMEOUT}

Exit codes: 0 printed, 1 invalid or tampered manifest, 2 usage or network error (a timeout included).`,

  check: `Usage: svc-manifest check <url|file> [--strict] [--timeout seconds]

Validates a manifest from a URL or a JSON file: the schema of its layout ("svc": "1.0" or "0.5.0", or
Surf's "surf") and the checksum recomputed from its commands. A reader takes everything the spec allows:
only the layout, name, commands (each with its description) and checksum are required, unknown fields
are kept, a checksum computed as Surf does is accepted and said. Prints every problem found.

Options:
  --strict              Check the manifest as this plugin serves it: every field of its layout, no
                        other field, the checksum as RFC 8785
${TIMEOUT}

Exit codes: 0 valid, 1 invalid or tampered, 2 usage, network or file error.`,

  diff: `Usage: svc-manifest diff <before> <after> [--json] [--timeout seconds]

Compares two manifests (URLs or JSON files) and prints the breaking and non-breaking changes.

Options:
  --json                Print { breaking, nonBreaking } as JSON
${TIMEOUT}

Exit codes: 0 no breaking change, 1 breaking changes (or an invalid manifest), 2 usage, network or file error.`,

  generate: `Usage: svc-manifest generate <module> [--out file] [--all] [--timeout seconds]

Imports <module> and runs its code: a JavaScript module (build a TypeScript app first) whose default
export is a Fastify instance, a function declaring no parameters that returns one (possibly async), or
a plugin (fastify, opts) as fastify-cli and @fastify/autoload apps export it. Readies the app without
listening and writes its manifest as JSON: the public one, as a caller without a credential gets it.

Options:
  -o, --out <file>      Write to <file> instead of stdout
  --all                 Every command, the hidden ones (svc.auth: 'hidden') included
  --timeout <seconds>   Give up when importing, building, ready() and close() take longer (default 30)

Exit codes: 0 written, 2 usage error, or the module could not be loaded or started in time.`,

  call: `Usage: svc-manifest call <url> <command> [name=value ...] [--params JSON] [--token T] [--stream | --all-pages] [--timeout seconds]

Calls <command> through the service's execute endpoint (found in the manifest's Link header, else
/svc/execute on the manifest's origin) and prints its result as JSON. <url> is the manifest's URL, or
the service's origin (then /.well-known/svc.json).

Each name=value is a param: the text as it is for a param the manifest declares as a string, else
parsed as JSON when it parses (limit=5, fields='["a","b"]', dryRun=true). --params gives params as one
JSON object; name=value pairs override it.

Options:
  --params <JSON>       Params as a JSON object
  --token <T>           Send "Authorization: Bearer <T>" (or the scheme the manifest names)
  --stream              Ask for a streamed execute: print one JSON line per piece as the command
                        writes it, then {"result":...} when its final result is not null. Ctrl-C
                        cancels the call on the service
  --all-pages           For a paginated command: call it page by page (its manifest's paginated says
                        how) and print every item, one JSON line each
  --timeout <seconds>   Give up on each request (manifest, then command) after this long (default 10);
                        with --stream, on the command's until its stream opens

Exit codes: 0 printed, 1 the command failed (its code, status and message on stderr), 2 usage, network
or manifest error, 130 --stream interrupted by Ctrl-C (143 by SIGTERM).`,

  mcp: `Usage: svc-manifest mcp <url> [--token T] [--timeout seconds]

Serves the commands of the service at <url> as MCP tools over stdio, for desktop MCP clients: it reads
the manifest (<url> is its URL, or the service's origin), offers one tool per command (name with "." as
"_", input schema from the params) and calls each through the service's execute endpoint. Stdout carries
the protocol only; messages go to stderr. It serves until its input ends. Needs the package
@modelcontextprotocol/server.

Options:
  --token <T>           Send "Authorization: Bearer <T>" with every call (or the scheme the manifest names)
  --timeout <seconds>   Give up on each request (manifest, then each call) after this long (default 10)

Exit codes: 0 input ended, 1 some commands cannot be tools (names too long or clashing), 2 usage,
network or manifest error, or the MCP SDK is not installed.`,

  events: `Usage: svc-manifest events <url> [--events a,b] [--token T] [--timeout seconds]

Subscribes to the events of the service whose manifest is at <url> (or the service's origin: then
/.well-known/svc.json) and prints each event as one JSON line, {"id","event","data"}, until interrupted
(Ctrl-C). A lost connection is reopened with backoff.

Options:
  --events <a,b>   Only these events (default: all)
  --token <T>      Bearer token, for a service with auth
  --timeout <s>    Give up on the first connection (and the manifest) after this long (default 10)

Exit codes: 0 interrupted, 1 invalid manifest or the service refused the stream, 2 usage or network error.`,

  watch: `Usage: svc-manifest watch <url> <channel> <key> [--token T] [--timeout seconds]

Watches one key of a channel (layout 0.5.0) of the service whose manifest is at <url> (or the service's
origin): prints its latest state, then each new one, as one JSON line, {"version","state"}, until
interrupted (Ctrl-C).

Options:
  --token <T>      Bearer token, for a service with auth
  --timeout <s>    Give up on the first connection (and the manifest) after this long (default 10)

Exit codes: 0 interrupted, 1 invalid manifest or the service refused the stream, 2 usage or network error.`
}

/** The help of a command, or the general help. */
export function helpOf (command?: string): string {
  return (command !== undefined && COMMANDS[command]) || GENERAL
}

export const COMMAND_NAMES = Object.keys(COMMANDS)
