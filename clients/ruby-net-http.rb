# authmock adapter for Ruby's Net::HTTP (Ruby 3.1, net-http 0.2.0), and for the
# net-http-digest_auth gem (1.4.1) used with it as its documentation teaches.
#
# Usage: ruby --disable-gems ruby-net-http.rb basic|digest   (inputs in the AUTHMOCK_* variables)
#
#   basic   Net::HTTP's own authentication: `req.basic_auth user, password` on every request
#           (https://docs.ruby-lang.org/en/3.1/Net/HTTP.html, "Basic Authentication"): Basic up
#           front, a 401 is final. Net::HTTP answers no challenge.
#   digest  net-http-digest_auth's documented usage (Net::HTTP::DigestAuth's class comment and
#           examples/net_http_example.rb): the request goes without credentials; on a 401 the
#           application hands `res['www-authenticate']` to `DigestAuth#auth_header(uri, ..., method)`
#           and re-issues the request once with that Authorization. The gem parses the challenge
#           and computes the answer; the adapter only carries the header back, as the example does.
#
# Everything else is Net::HTTP's: proxy credentials are the p_user/p_pass of Net::HTTP.new (Basic
# up front on plain requests and CONNECT), TLS is use_ssl with ca_file/cert/key and Net::HTTP's
# default verify_mode (VERIFY_PEER with its post-connection host check). Net::HTTP follows no
# redirects: a 3xx is the final answer.
require 'net/http'
require 'openssl'

MODE = ARGV[0] || 'basic'
require 'net/http/digest_auth' if MODE == 'digest'

def input(name)
  value = ENV[name]
  value.nil? || value.empty? ? nil : value
end

def password_input(name)
  ENV[name] || ''
end

# The errors Net::HTTP reports a failed exchange with: the socket's (SystemCallError, SocketError,
# IOError/EOFError), its timeouts (Net::OpenTimeout, Net::ReadTimeout: Timeout::Error), a response it
# cannot parse (Net::HTTPBadResponse, Net::ProtocolError), OpenSSL's handshake errors; and
# Net::HTTP::DigestAuth::Error, the gem's documented refusal of a challenge it cannot answer.
DOCUMENTED = [SystemCallError, SocketError, IOError, Timeout::Error, Net::HTTPBadResponse,
              Net::ProtocolError, Net::HTTPHeaderSyntaxError, OpenSSL::SSL::SSLError].freeze
def documented?(error)
  return true if DOCUMENTED.any? { |klass| error.is_a?(klass) }
  defined?(Net::HTTP::DigestAuth::Error) && error.is_a?(Net::HTTP::DigestAuth::Error)
end

# One Net::HTTP per origin (and per thread: a Net::HTTP is one connection, not thread-safe),
# started once and kept alive across the fetches of a run, as Net::HTTP.start's block form does.
def connection(uri, proxy_user, proxy_password)
  proxy = input('AUTHMOCK_PROXY') && URI(input('AUTHMOCK_PROXY'))
  # p_addr nil: no proxy (the default, :ENV, would read http_proxy from the environment).
  http = Net::HTTP.new(uri.host, uri.port,
                       proxy&.host, proxy&.port, proxy && proxy_user, proxy && proxy_password)
  if uri.scheme == 'https'
    http.use_ssl = true
    # Trust exactly the case's CA (without it: OpenSSL's default paths, Net::HTTP's default store).
    http.ca_file = input('AUTHMOCK_CA_FILE') if input('AUTHMOCK_CA_FILE')
    if input('AUTHMOCK_CLIENT_CERT')
      http.cert = OpenSSL::X509::Certificate.new(File.read(input('AUTHMOCK_CLIENT_CERT')))
      http.key = OpenSSL::PKey.read(File.read(input('AUTHMOCK_CLIENT_KEY')))
    end
    # verify_mode is left at Net::HTTP's default (VERIFY_PEER). No pin option: AUTHMOCK_PIN_SHA256
    # and AUTHMOCK_CERT_SHA256 are ignored.
  end
  if input('AUTHMOCK_TIMEOUT')
    timeout = Float(input('AUTHMOCK_TIMEOUT'))
    http.open_timeout = timeout
    http.read_timeout = timeout
  end
  http.start
  http
end

def new_request(uri, method)
  klass = { 'GET' => Net::HTTP::Get, 'POST' => Net::HTTP::Post, 'PUT' => Net::HTTP::Put,
            'HEAD' => Net::HTTP::Head, 'DELETE' => Net::HTTP::Delete }.fetch(method)
  req = klass.new(uri)
  # A header the application sets itself, on the request (Net::HTTPHeader#[]=).
  req[input('AUTHMOCK_HEADER_NAME')] = ENV['AUTHMOCK_HEADER_VALUE'] || '' if input('AUTHMOCK_HEADER_NAME')
  if input('AUTHMOCK_BODY_FILE')
    req.body = File.binread(input('AUTHMOCK_BODY_FILE'))
  elsif input('AUTHMOCK_BODY_STDIN')
    # A stream Net::HTTP cannot rewind (Net::HTTPGenericRequest#body_stream=), sent chunked.
    req.body_stream = $stdin
    req['Transfer-Encoding'] = 'chunked'
  end
  req
end

# One fetch: the status code.
def fetch(http, uri, method, user, password, digest)
  req = new_request(uri, method)
  if MODE == 'basic'
    # Net::HTTPHeader#basic_auth: Authorization: Basic, sent with this request.
    req.basic_auth(user, password) if user
    return http.request(req).code.to_i
  end
  res = http.request(req)
  return res.code.to_i unless user && res.code == '401' && res['www-authenticate']
  # The gem's documented flow: the credentials ride on a URI (its example sets uri.user and
  # uri.password, which the gem CGI-unescapes), the challenge is res['www-authenticate'].
  auth_uri = uri.dup
  auth_uri.user = URI.encode_www_form_component(user)
  auth_uri.password = URI.encode_www_form_component(password)
  auth = digest.auth_header(auth_uri, res['www-authenticate'], method)
  req = new_request(uri, method)
  req.add_field('Authorization', auth)
  http.request(req).code.to_i
end

def run_fetches(url, user, password, proxy_user, proxy_password, repeat, parallel)
  uri = URI(url)
  method = input('AUTHMOCK_METHOD') || 'GET'
  # One DigestAuth for the run: it keeps the nonce count (nc) across requests.
  digest = MODE == 'digest' ? Net::HTTP::DigestAuth.new : nil
  work = lambda do
    http = connection(uri, proxy_user, proxy_password)
    begin
      Array.new(repeat) { fetch(http, uri, method, user, password, digest) }
    ensure
      http.finish if http.started?
    end
  end
  return work.call if parallel <= 1

  Array.new(parallel) { Thread.new(&work) }.flat_map(&:value)
end

def main
  url = input('AUTHMOCK_URL') or raise ArgumentError, 'AUTHMOCK_URL is missing'
  codes = run_fetches(url, input('AUTHMOCK_USER'), password_input('AUTHMOCK_PASSWORD'),
                      input('AUTHMOCK_PROXY_USER'), password_input('AUTHMOCK_PROXY_PASSWORD'),
                      Integer(input('AUTHMOCK_REPEAT') || '1'), Integer(input('AUTHMOCK_PARALLEL') || '1'))
  if input('AUTHMOCK_URL2')
    # The case's second transfer, with its own credentials: Net::HTTP keeps nothing between
    # Net::HTTP objects (no pool, no credential cache), so it is a fetch of its own.
    codes += run_fetches(input('AUTHMOCK_URL2'), input('AUTHMOCK_USER2'), password_input('AUTHMOCK_PASSWORD2'),
                         input('AUTHMOCK_PROXY_USER2'), password_input('AUTHMOCK_PROXY_PASSWORD2'), 1, 1)
  end
  puts codes.join(' ')
  codes.all? { |c| c >= 200 && c < 300 } ? 0 : 1
end

begin
  exit main
rescue SystemExit
  raise
rescue Exception => e # rubocop:disable Lint/RescueException
  if documented?(e)
    warn "#{e.class}: #{e.message}"
    exit 1
  end
  # Anything else is a crash: its class, message and backtrace, exit 70 (EX_SOFTWARE).
  warn "#{e.class}: #{e.message} (crash)"
  warn e.backtrace.join("\n") if e.backtrace
  exit 70
end
