#!/usr/bin/perl
# authmock adapter for Perl's LWP::UserAgent (libwww-perl, with LWP::Protocol::https and
# LWP::Authen::Ntlm over Authen::NTLM).
#
# Usage: perl clients/perl-lwp.pl   (inputs in the AUTHMOCK_* environment variables)
# Version: perl -MLWP -e 'print "libwww-perl $LWP::VERSION\n"'
#
# The adapter only maps the inputs onto LWP's own API. Which scheme answers a challenge
# (LWP::Authen::Basic, ::Digest, ::Ntlm), how often it retries, redirects and TLS checks
# are LWP's (and IO::Socket::SSL's) decisions.
use strict;
use warnings;

use Encode ();
use HTTP::Request;
use LWP::UserAgent;

sub input {
    my ($name) = @_;
    my $value = $ENV{$name};
    return (defined $value && $value ne '') ? $value : undef;
}

# Names and passwords are text: %ENV holds their UTF-8 bytes, and Perl's convention is to
# decode input into characters (LWP::Authen::Basic encodes them itself, as UTF-8 when the
# challenge says charset="UTF-8").
sub text {
    my ($value) = @_;
    return defined $value ? Encode::decode('UTF-8', $value) : undef;
}

my %given = (
    user           => text(input('AUTHMOCK_USER')),
    password       => text(input('AUTHMOCK_PASSWORD')) // '',
    domain         => text(input('AUTHMOCK_DOMAIN')),
    proxy_user     => text(input('AUTHMOCK_PROXY_USER')),
    proxy_password => text(input('AUTHMOCK_PROXY_PASSWORD')) // '',
);

# The credentials a user has for the server (and for the proxy). LWP asks for them through
# get_basic_credentials when a server challenges; LWP::UserAgent's documentation teaches
# overriding it in a subclass when the realm is not known in advance ("Subclasses can override
# this method to prompt the user for the information. An example of this can be found in
# lwp-request", https://metacpan.org/pod/LWP::UserAgent#get_basic_credentials; lwpcook,
# "ACCESS TO PROTECTED DOCUMENTS"). Like lwp-request's -C option it returns the one user and
# password it has, whatever the realm; the $isproxy flag the method is given picks the
# proxy's. It is called for Basic, Digest and NTLM challenges alike; whether to retry, and
# with which scheme, stays LWP's decision (LWP::Authen::Basic gives up when it is handed the
# same credentials that were just refused).
package AuthmockUserAgent {
    use parent -norequire, 'LWP::UserAgent';

    sub get_basic_credentials {
        my ($self, $realm, $uri, $isproxy) = @_;
        if ($isproxy) {
            return unless defined $given{proxy_user};
            return ($given{proxy_user}, $given{proxy_password});
        }
        return unless defined $given{user};
        # LWP::Authen::Ntlm reads the domain from the user name, "DOMAIN\user"
        # (https://metacpan.org/pod/LWP::Authen::Ntlm#USAGE).
        my $user = defined $given{domain} ? "$given{domain}\\$given{user}" : $given{user};
        return ($user, $given{password});
    }
}

package main;

sub main {
    my $url = input('AUTHMOCK_URL') // die "AUTHMOCK_URL is missing\n";
    my $method = input('AUTHMOCK_METHOD') // 'GET';
    my $repeat = input('AUTHMOCK_REPEAT') // 1;

    my %options = (
        # The default is not to read *_proxy from the environment unless PERL_LWP_ENV_PROXY
        # is set; say so explicitly: only the case's proxy is used.
        env_proxy => 0,
        # LWP::Authen::Ntlm works only over persistent connections and says to enable them
        # (https://metacpan.org/pod/LWP::Authen::Ntlm#USAGE); LWP's default is one
        # connection per request, kept for every other case.
        keep_alive => defined $given{domain} ? 1 : 0,
    );

    my %ssl = (verify_hostname => 1);
    if (my $ca = input('AUTHMOCK_CA_FILE')) {
        # Trust exactly this CA file (instead of Mozilla::CA or the system store).
        $ssl{SSL_ca_file} = $ca;
    }
    if (my $cert = input('AUTHMOCK_CLIENT_CERT')) {
        # Client certificate for mutual TLS, as IO::Socket::SSL options.
        $ssl{SSL_cert_file} = $cert;
        $ssl{SSL_key_file} = input('AUTHMOCK_CLIENT_KEY');
    }
    $options{ssl_opts} = \%ssl;
    # No public-key pinning: IO::Socket::SSL's SSL_fingerprint ('sha256$pub$hex') accepts a
    # matching leaf even when verification fails, but a trusted leaf that does not match still
    # passes, and its "pub" digest is over the key bits, not the SPKI the pin is of.
    # AUTHMOCK_PIN_SHA256 is ignored.

    # The cookie cases: LWP keeps no cookies unless given a cookie_jar; `cookie_jar => {}` makes an
    # in-memory HTTP::Cookies, as LWP::UserAgent's documentation shows.
    $options{cookie_jar} = {} if input('AUTHMOCK_COOKIE_JAR');
    my $ua = AuthmockUserAgent->new(%options);

    if (my $timeout = input('AUTHMOCK_TIMEOUT')) {
        # LWP's timeout bounds each wait for the socket (connect, each read).
        $ua->timeout($timeout);
    }

    if (my $proxy = input('AUTHMOCK_PROXY')) {
        if (defined $given{proxy_user}) {
            # Proxy credentials in the proxy URL, as lwpcook shows ("Some proxies also require
            # that you send it a username/password"): LWP sends them as Basic
            # Proxy-Authorization on plain requests and on CONNECT.
            require URI;
            require URI::Escape;
            my $uri = URI->new($proxy);
            $uri->userinfo(URI::Escape::uri_escape($given{proxy_user}) . ':'
                . URI::Escape::uri_escape($given{proxy_password}));
            $proxy = $uri->as_string;
        }
        # https goes through CONNECT (LWP::Protocol::https over IO::Socket::SSL).
        $ua->proxy([qw(http https)], $proxy);
    }

    # A header the application sets itself, on the request: HTTP::Request->new($method, $url, $header)
    # (https://metacpan.org/pod/HTTP::Request#new); not the user agent's default_header, which is meant
    # for every request to every host. LWP reads no netrc for HTTP.
    my @header;
    if (my $name = input('AUTHMOCK_HEADER_NAME')) {
        @header = ($name => input('AUTHMOCK_HEADER_VALUE') // '');
    }

    my $body;
    if (my $file = input('AUTHMOCK_BODY_FILE')) {
        open(my $fh, '<:raw', $file) or die "cannot open $file: $!\n";
        local $/;
        $body = <$fh>;
        close($fh);
    }

    # Redirects: LWP follows them for GET and HEAD (requests_redirectable), up to 7.
    # AUTHMOCK_PARALLEL is not mapped: LWP::UserAgent is blocking, one request at a time.
    my (@codes, $ok);
    $ok = 1;
    for (1 .. $repeat) {
        my $request = HTTP::Request->new($method => $url, [@header]);
        $request->content($body) if defined $body;
        my $response = $ua->request($request);
        push @codes, $response->code;
        $ok = 0 unless $response->is_success;
        # LWP reports its own failures as responses: an internal 500 says so in Client-Warning,
        # and a body cut short or a failing callback in X-Died / Client-Aborted, not in
        # is_success (LWP::UserAgent, "get").
        if (($response->header('Client-Warning') // '') eq 'Internal response') {
            print STDERR "LWP::UserAgent: " . $response->status_line . "\n";
        }
        if (my $died = $response->header('X-Died') // $response->header('Client-Aborted')) {
            chomp $died;
            print STDERR "LWP::UserAgent: $died\n";
            $ok = 0;
        }
    }
    print join(' ', @codes), "\n";
    return $ok ? 0 : 1;
}

# LWP reports every failure of an exchange in the response it returns: "The request() method returns
# a HTTP::Response object"; a connection, TLS or timeout error is an internal 500 response with
# Client-Warning: Internal response, a died content callback an X-Died header
# (https://metacpan.org/pod/LWP::UserAgent#request, https://metacpan.org/pod/LWP::UserAgent#get).
# main() handles those (exit 1). A die that escapes $ua->request (LWP code outside the eval it runs
# the protocol in, e.g. an LWP::Authen module answering a challenge) or the adapter's own code is not
# an error LWP reports: a crash, its message and a stack trace on stderr and exit 70 (EX_SOFTWARE).
use Carp ();
my $trace;
my $status = eval {
    # Remember where the last die came from; the die itself goes on unchanged.
    local $SIG{__DIE__} = sub { $trace = Carp::longmess('died') };
    main();
};
if (!defined $status) {
    my $error = $@ || 'unknown error';
    chomp $error;
    print STDERR ref($error) ? ref($error) . ": $error\n" : "Error: $error\n";
    print STDERR $trace if defined $trace;
    exit 70;
}
exit $status;
