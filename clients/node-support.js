'use strict'
// The plumbing the Node adapters share (node-client.js, axios-client.js), none of it an HTTP library's API:
// reading the AUTHMOCK_* inputs, and turning main()'s outcome into the exit the client contract asks for
// (README, "The client contract"): its status; 1 with one line for an error the library documents; 70
// (EX_SOFTWARE, the profiles' `crash: exit-status`) with the stack for anything else, a crash.

// The exit status of a crash (sysexits.h EX_SOFTWARE).
const CRASHED = 70

function crash (error) {
  process.stderr.write('Crash: ' + ((error && error.stack) || String(error)) + '\n')
  process.exit(CRASHED)
}
process.on('uncaughtException', crash)
process.on('unhandledRejection', crash)

// An AUTHMOCK_* input; unset or empty (an input that does not apply to the case) is `fallback`.
function env (name, fallback) {
  const value = process.env[name]
  return value ? value : fallback
}

// Runs `main` (async, resolving to the exit status). `documented(error)` gives the one line for an error the
// library documents, or null for a crash. A promise that never settles lets the event loop empty, and Node
// then exits 0 with nothing printed: no outcome a library documents, so it is reported as a crash (`what`
// never settled), as undici 5.15's ProxyAgent does when an HTTPS proxy's certificate names another host.
function run (main, what, documented) {
  let settled = false
  process.on('beforeExit', () => {
    if (!settled) crash(new Error(`${what} never settled: the event loop emptied with the request still pending`))
  })
  main().then(status => { settled = true; process.exit(status) }, error => {
    settled = true
    const line = documented(error)
    if (line === null) crash(error)
    process.stderr.write(line.replace(/\n/g, ' ') + '\n')
    process.exit(1)
  })
}

module.exports = { env, run }
