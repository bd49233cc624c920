# authmock adapter for Faraday 1.1 (Debian's ruby-faraday) on its default adapter, Net::HTTP.
#
# Usage: ruby ruby-faraday.rb [follow-redirects]   (inputs in the AUTHMOCK_* environment variables)
#
# As Faraday 1.1's documentation teaches (https://lostisland.github.io/faraday/middleware/authentication,
# docs/middleware/request/authentication.md at v1.1.0): `conn.basic_auth(user, password)` in the
# connection block, which sets the connection's Authorization header (Basic, up front, on every
# request the connection makes). Faraday answers no challenge. The proxy is the `proxy:` option with
# its user and password (docs/usage/customize.md, "Proxy"; Faraday::ProxyOptions), TLS the `ssl:`
# option (Faraday::SSLOptions: ca_file, client_cert, client_key; verify defaults to true). Faraday 1.1
# follows no redirects: that is faraday_middleware's FollowRedirects, another gem, used only with the
# argument `follow-redirects` (`conn.response :follow_redirects`, its defaults: 3 redirects, Authorization
# cleared when the Location names another scheme, host or port).
require 'faraday'
FOLLOW_REDIRECTS = ARGV.include?('follow-redirects')
require 'faraday_middleware' if FOLLOW_REDIRECTS

def input(name)
  value = ENV[name]
  value.nil? || value.empty? ? nil : value
end

def main
  url = input('AUTHMOCK_URL') or raise ArgumentError, 'AUTHMOCK_URL is missing'
  method = (input('AUTHMOCK_METHOD') || 'GET').downcase.to_sym
  repeat = Integer(input('AUTHMOCK_REPEAT') || '1')
  parallel = Integer(input('AUTHMOCK_PARALLEL') || '1')

  # Only the case's proxy: Faraday otherwise reads http_proxy and friends (customize.md, "Proxy").
  Faraday.ignore_env_proxy = true

  options = { url: url }
  if input('AUTHMOCK_PROXY')
    proxy = { uri: input('AUTHMOCK_PROXY') }
    if input('AUTHMOCK_PROXY_USER')
      proxy[:user] = input('AUTHMOCK_PROXY_USER')
      proxy[:password] = ENV['AUTHMOCK_PROXY_PASSWORD'] || ''
    end
    options[:proxy] = proxy
  end

  ssl = {}
  ssl[:ca_file] = input('AUTHMOCK_CA_FILE') if input('AUTHMOCK_CA_FILE')
  if input('AUTHMOCK_CLIENT_CERT')
    require 'openssl'
    # SSLOptions' client_cert and client_key are OpenSSL objects, as its documentation says.
    ssl[:client_cert] = OpenSSL::X509::Certificate.new(File.read(input('AUTHMOCK_CLIENT_CERT')))
    ssl[:client_key] = OpenSSL::PKey.read(File.read(input('AUTHMOCK_CLIENT_KEY')))
  end
  options[:ssl] = ssl unless ssl.empty?
  # No pin option in Faraday: AUTHMOCK_PIN_SHA256 and AUTHMOCK_CERT_SHA256 are ignored.

  if input('AUTHMOCK_TIMEOUT')
    timeout = Float(input('AUTHMOCK_TIMEOUT'))
    options[:request] = { timeout: timeout, open_timeout: timeout }
  end

  conn = Faraday.new(options) do |f|
    f.basic_auth(input('AUTHMOCK_USER'), ENV['AUTHMOCK_PASSWORD'] || '') if input('AUTHMOCK_USER')
    f.response :follow_redirects if FOLLOW_REDIRECTS
    f.adapter Faraday.default_adapter
  end

  headers = {}
  # A header the application sets itself, on the request (Faraday::Request#headers).
  headers[input('AUTHMOCK_HEADER_NAME')] = ENV['AUTHMOCK_HEADER_VALUE'] || '' if input('AUTHMOCK_HEADER_NAME')

  fetch = lambda do
    conn.run_request(method, url, nil, headers) do |req|
      if input('AUTHMOCK_BODY_FILE')
        req.body = File.binread(input('AUTHMOCK_BODY_FILE'))
      elsif input('AUTHMOCK_BODY_STDIN')
        # An IO body goes to Net::HTTP's body_stream (Faraday's net_http adapter), sent chunked.
        req.body = $stdin
        req.headers['Transfer-Encoding'] = 'chunked'
      end
    end.status
  end

  codes = if parallel <= 1
            Array.new(repeat) { fetch.call }
          else
            Array.new(parallel) { Thread.new { Array.new(repeat) { fetch.call } } }.flat_map(&:value)
          end

  if input('AUTHMOCK_URL2')
    # The case's second transfer on the same connection, with the credentials given for it: a new
    # conn.basic_auth replaces the connection's Authorization header. Given none, the connection
    # keeps the first's, as Faraday documents (connection headers go with every request).
    conn.basic_auth(input('AUTHMOCK_USER2'), ENV['AUTHMOCK_PASSWORD2'] || '') if input('AUTHMOCK_USER2')
    # Its proxy credentials likewise replace the connection's (Connection#proxy=).
    if options[:proxy] && input('AUTHMOCK_PROXY_USER2')
      conn.proxy = options[:proxy].merge(user: input('AUTHMOCK_PROXY_USER2'),
                                         password: ENV['AUTHMOCK_PROXY_PASSWORD2'] || '')
    end
    codes << conn.run_request(:get, input('AUTHMOCK_URL2'), nil, {}).status
  end

  puts codes.join(' ')
  codes.all? { |c| c >= 200 && c < 300 } ? 0 : 1
end

begin
  exit main
rescue SystemExit
  raise
rescue Faraday::Error => e
  # Faraday's documented errors: Faraday::ConnectionFailed, Faraday::TimeoutError, Faraday::SSLError
  # (lib/faraday/error.rb), what its adapters turn the transport's exceptions into; FollowRedirects'
  # FaradayMiddleware::RedirectLimitReached is a Faraday::ClientError.
  warn "#{e.class}: #{e.message}"
  exit 1
rescue Exception => e # rubocop:disable Lint/RescueException
  # Anything else escaped Faraday (or the adapter): a crash, exit 70 (EX_SOFTWARE).
  warn "#{e.class}: #{e.message} (crash)"
  warn e.backtrace.join("\n") if e.backtrace
  exit 70
end
