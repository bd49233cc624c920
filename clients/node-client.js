'use strict'
// authmock adapter for Node's global fetch() (Node 20, undici inside Node).
//
// Usage: node node-client.js (the inputs are the AUTHMOCK_* environment variables, README "The client
// contract"). fetch() has no credentials API and no challenge handling (the Fetch standard leaves 401s to
// the browser's UI, which Node has not): the application builds `Authorization: Basic …` itself and sends it
// on every request, as MDN's Authorization page and Node's Buffer documentation teach (base64 of
// "user:password", UTF-8). Everything else — redirects, TLS checks, the proxy tunnel — is fetch's and undici's.
//   - Custom CA: NODE_EXTRA_CA_CERTS (the profile's env:), read by Node at start-up: nothing to do here.
//   - Proxy: undici's ProxyAgent (Debian's node-undici, /usr/share/nodejs) as fetch's `dispatcher`, its
//     `token` option for the proxy's credentials (the Basic the undici 5.15 docs show), `proxyTls.ca` for an
//     HTTPS proxy's CA, `requestTls` for the client certificate inside the tunnel.
//   - Client certificate without a proxy: undici's Agent with `connect: {cert, key}` as the dispatcher.
// The undici package is loaded only when one of these needs it (its require costs ~40 ms).
const { env, run } = require('./node-support')
const fs = require('node:fs')

// `Basic base64(user:password)`: the header value an application computes for fetch.
function basic (user, password) {
  return 'Basic ' + Buffer.from(`${user}:${password}`, 'utf8').toString('base64')
}

let undici = null
function undiciPackage () {
  if (!undici) undici = require('undici') // NODE_PATH=/usr/share/nodejs (the profile's env:)
  return undici
}

// The dispatcher fetch is given for these proxy credentials: a ProxyAgent per set of credentials (undici
// binds the proxy's credentials to the agent), or an Agent with the client certificate, or none (Node's
// global dispatcher).
const agents = new Map()
function dispatcherFor (proxyUser, proxyPassword) {
  const proxy = env('AUTHMOCK_PROXY')
  const certFile = env('AUTHMOCK_CLIENT_CERT')
  const tls = certFile ? { cert: fs.readFileSync(certFile), key: fs.readFileSync(env('AUTHMOCK_CLIENT_KEY')) } : undefined
  if (!proxy) {
    if (!tls) return undefined
    if (!agents.has('')) agents.set('', new (undiciPackage().Agent)({ connect: tls }))
    return agents.get('')
  }
  const key = proxyUser === undefined ? '' : `${proxyUser}:${proxyPassword}`
  if (!agents.has(key)) {
    const options = { uri: proxy }
    if (proxyUser !== undefined) options.token = basic(proxyUser, proxyPassword)
    if (env('AUTHMOCK_PROXY_CA_FILE')) options.proxyTls = { ca: fs.readFileSync(env('AUTHMOCK_PROXY_CA_FILE')) }
    if (tls) options.requestTls = tls
    agents.set(key, new (undiciPackage().ProxyAgent)(options))
  }
  return agents.get(key)
}

function requestBody () {
  if (env('AUTHMOCK_BODY_FILE')) return { body: fs.readFileSync(env('AUTHMOCK_BODY_FILE')) }
  if (env('AUTHMOCK_BODY_STDIN')) {
    // A stream body, as undici documents it for fetch: a web ReadableStream with duplex: 'half'.
    const { Readable } = require('node:stream')
    return { body: Readable.toWeb(process.stdin), duplex: 'half' }
  }
  return {}
}

async function fetchOnce (url, method, user, password, dispatcher, body, extraHeaders) {
  const headers = { ...extraHeaders }
  if (user !== undefined) headers.Authorization = basic(user, password)
  const init = { method, headers, ...body }
  if (dispatcher) init.dispatcher = dispatcher
  // AUTHMOCK_TIMEOUT bounds the whole fetch, body included (AbortSignal.timeout, MDN's fetch timeout recipe).
  if (env('AUTHMOCK_TIMEOUT')) init.signal = AbortSignal.timeout(Number(env('AUTHMOCK_TIMEOUT')) * 1000)
  // redirect: 'follow' is fetch's default.
  const response = await fetch(url, init)
  await response.arrayBuffer() // the whole body: a transfer cut short rejects here
  return response.status
}

async function main () {
  const url = env('AUTHMOCK_URL')
  const method = env('AUTHMOCK_METHOD', 'GET')
  const repeat = Number(env('AUTHMOCK_REPEAT', '1'))
  const parallel = Number(env('AUTHMOCK_PARALLEL', '1'))
  const user = env('AUTHMOCK_USER')
  const password = env('AUTHMOCK_PASSWORD', '')
  const dispatcher = dispatcherFor(env('AUTHMOCK_PROXY_USER'), env('AUTHMOCK_PROXY_PASSWORD', ''))
  // A header the application sets itself ({header}): an entry of fetch's `headers`.
  const headers = env('AUTHMOCK_HEADER_NAME') ? { [env('AUTHMOCK_HEADER_NAME')]: env('AUTHMOCK_HEADER_VALUE', '') } : {}

  // PARALLEL concurrent chains, each REPEAT fetches in a row, all through the one dispatcher.
  const chains = []
  for (let p = 0; p < parallel; p++) {
    chains.push((async () => {
      const codes = []
      for (let r = 0; r < repeat; r++) codes.push(await fetchOnce(url, method, user, password, dispatcher, requestBody(), headers))
      return codes
    })())
  }
  const codes = (await Promise.all(chains)).flat()

  if (env('AUTHMOCK_URL2')) {
    // The second transfer, in the same process and through the same dispatcher when its proxy
    // credentials are the same (another ProxyAgent for other ones: undici binds them to the agent).
    const second = dispatcherFor(env('AUTHMOCK_PROXY_USER2'), env('AUTHMOCK_PROXY_PASSWORD2', ''))
    codes.push(await fetchOnce(env('AUTHMOCK_URL2'), 'GET', env('AUTHMOCK_USER2'), env('AUTHMOCK_PASSWORD2', ''), second, {}, {}))
  }

  process.stdout.write(codes.join(' ') + '\n')
  return codes.every(c => c >= 200 && c < 300) ? 0 : 1
}

// A clean failure is what fetch documents rejecting with (MDN, fetch(): Exceptions): a TypeError for a
// network error or a request it will not make (undici puts the reason in `cause`), a DOMException
// `AbortError`/`TimeoutError` when the signal fires. Anything else is a crash (stack, exit 70).
run(main, 'fetch()', error => {
  if (error instanceof TypeError || (error instanceof DOMException && /^(AbortError|TimeoutError)$/.test(error.name))) {
    const cause = error.cause ? ` (${error.cause.name || 'Error'}${error.cause.code ? ' ' + error.cause.code : ''}: ${error.cause.message})` : ''
    return `${error.name}: ${error.message}${cause}`
  }
  return null
})
