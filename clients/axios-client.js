'use strict'
// authmock adapter for axios (Debian's node-axios, on Node 20), with the options axios documents.
//
// Usage: node axios-client.js (the inputs are the AUTHMOCK_* environment variables, README "The client
// contract"). The request config as axios's "Request Config" page teaches it:
//   - `auth: {username, password}`: HTTP Basic, sent with every request (axios hands it to Node's
//     http.request `auth` option); axios answers no challenge.
//   - `proxy: {protocol, host, port, auth: {username, password}}`: the proxy, its credentials sent as Basic
//     `Proxy-Authorization` with every request.
//   - `httpsAgent: new https.Agent({ca, cert, key})`: the CA to trust and the client certificate, Node's
//     https.Agent options as axios's README shows for TLS settings.
//   - `timeout` (ms), `data` (the body: a Buffer, or standard input as a stream), `headers`.
// Redirects are followed by axios's default transport, follow-redirects (maxRedirects 21).
const { env, run } = require('./node-support')
const fs = require('node:fs')
const https = require('node:https')
const axios = require('axios') // NODE_PATH=/usr/share/nodejs: the package's CommonJS build, dist/node/axios.cjs

// axios's proxy object for AUTHMOCK_PROXY, with these credentials if any.
function proxyConfig (user, password) {
  const proxy = new URL(env('AUTHMOCK_PROXY'))
  const config = { protocol: proxy.protocol.replace(':', ''), host: proxy.hostname, port: Number(proxy.port) }
  if (user !== undefined) config.auth = { username: user, password }
  return config
}

async function main () {
  const url = env('AUTHMOCK_URL')
  const method = env('AUTHMOCK_METHOD', 'GET')
  const repeat = Number(env('AUTHMOCK_REPEAT', '1'))
  const parallel = Number(env('AUTHMOCK_PARALLEL', '1'))

  const defaults = {}
  // TLS: one https.Agent (its connection pool) for every request. `ca` replaces Node's bundled roots; the
  // HTTPS proxy's CA is added to it, since axios reaches an https:// proxy through the same httpsAgent.
  const ca = [env('AUTHMOCK_CA_FILE'), env('AUTHMOCK_PROXY_CA_FILE')].filter(Boolean).map(f => fs.readFileSync(f))
  const agentOptions = { keepAlive: true }
  if (ca.length) agentOptions.ca = ca
  if (env('AUTHMOCK_CLIENT_CERT')) {
    agentOptions.cert = fs.readFileSync(env('AUTHMOCK_CLIENT_CERT'))
    agentOptions.key = fs.readFileSync(env('AUTHMOCK_CLIENT_KEY'))
  }
  defaults.httpsAgent = new https.Agent(agentOptions)
  if (env('AUTHMOCK_PROXY')) defaults.proxy = proxyConfig(env('AUTHMOCK_PROXY_USER'), env('AUTHMOCK_PROXY_PASSWORD', ''))
  if (env('AUTHMOCK_TIMEOUT')) defaults.timeout = Number(env('AUTHMOCK_TIMEOUT')) * 1000
  const client = axios.create(defaults)

  const headers = {}
  if (env('AUTHMOCK_HEADER_NAME')) headers[env('AUTHMOCK_HEADER_NAME')] = env('AUTHMOCK_HEADER_VALUE', '')

  // One request; a non-2xx rejects with an AxiosError whose `response` holds the status (axios's
  // "Handling Errors" page), which is the answer here, not a failure of the request.
  async function request (config) {
    try {
      return (await client.request(config)).status
    } catch (error) {
      if (axios.isAxiosError(error) && error.response) return error.response.status
      throw error
    }
  }

  function first () {
    const config = { url, method, headers }
    if (env('AUTHMOCK_USER') !== undefined) config.auth = { username: env('AUTHMOCK_USER'), password: env('AUTHMOCK_PASSWORD', '') }
    if (env('AUTHMOCK_BODY_FILE')) config.data = fs.readFileSync(env('AUTHMOCK_BODY_FILE'))
    else if (env('AUTHMOCK_BODY_STDIN')) config.data = process.stdin // a stream body (Node only)
    return request(config)
  }

  // PARALLEL concurrent chains, each REPEAT requests in a row, through the one instance.
  const chains = []
  for (let p = 0; p < parallel; p++) {
    chains.push((async () => {
      const codes = []
      for (let r = 0; r < repeat; r++) codes.push(await first())
      return codes
    })())
  }
  const codes = (await Promise.all(chains)).flat()

  if (env('AUTHMOCK_URL2')) {
    // The second transfer: the same instance and https.Agent, with the credentials given for it
    // (a request's config overrides the instance's).
    const config = { url: env('AUTHMOCK_URL2'), method: 'GET', headers }
    if (env('AUTHMOCK_USER2') !== undefined) config.auth = { username: env('AUTHMOCK_USER2'), password: env('AUTHMOCK_PASSWORD2', '') }
    if (env('AUTHMOCK_PROXY')) config.proxy = proxyConfig(env('AUTHMOCK_PROXY_USER2'), env('AUTHMOCK_PROXY_PASSWORD2', ''))
    codes.push(await request(config))
  }

  process.stdout.write(codes.join(' ') + '\n')
  return codes.every(c => c >= 200 && c < 300) ? 0 : 1
}

// A clean failure is an AxiosError without a response (axios's "Handling Errors": the request was made
// but no response came, or setting it up failed; its `code` says why). Anything else is a crash.
run(main, 'the axios request', error =>
  axios.isAxiosError(error) ? `AxiosError: ${error.code ? error.code + ' ' : ''}${error.message}` : null)
