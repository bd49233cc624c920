#!/bin/sh
# Installs authmock from its release tarball: the binary into PREFIX/bin, its data (suite, client profiles,
# scenarios, schema) into PREFIX/share/authmock, README and LICENSE into PREFIX/share/doc/authmock.
#
#   ./install.sh                                   # from the unpacked directory, into ~/.local
#   PREFIX=/usr/local sudo -E ./install.sh         # system-wide
#   sh install.sh authmock-0.1.0-linux-x86_64.tar.gz   # unpack a tarball first, after checking it against
#                                                  # the .sha256 beside it (or SHA256=<hex>); a mismatch stops
# Plain POSIX sh: no bash needed.
set -eu

PREFIX=${PREFIX:-$HOME/.local}
here=$(cd "$(dirname "$0")" && pwd)
unpacked=

cleanup() { [ -z "$unpacked" ] || rm -rf "$unpacked"; }
trap cleanup EXIT

if [ $# -gt 0 ]; then
    tarball=$1
    [ -f "$tarball" ] || { echo "install.sh: no file $tarball" >&2; exit 2; }
    if [ -n "${SHA256:-}" ]; then
        expected=$SHA256
    elif [ -f "$tarball.sha256" ]; then
        expected=$(cut -d' ' -f1 <"$tarball.sha256")
    else
        echo "install.sh: no $tarball.sha256 beside the tarball and no SHA256=<hex>: refusing to install unchecked" >&2
        exit 2
    fi
    actual=$(sha256sum "$tarball" | cut -d' ' -f1)
    if [ "$actual" != "$expected" ]; then
        echo "install.sh: $tarball has SHA-256 $actual, expected $expected: not installed" >&2
        exit 1
    fi
    unpacked=$(mktemp -d)
    tar -xzf "$tarball" -C "$unpacked"
    here=$(echo "$unpacked"/authmock-*)
    [ -x "$here/bin/authmock" ] || { echo "install.sh: $tarball holds no authmock-*/bin/authmock" >&2; exit 2; }
fi

[ -x "$here/bin/authmock" ] || { echo "install.sh: no bin/authmock beside install.sh ($here)" >&2; exit 2; }
# Before anything in PREFIX is replaced: the binary links libcrypto, libcrypt and libyaml from the system;
# name the package of one that is missing, and leave a working install as it was.
if ! version=$("$here/bin/authmock" --version 2>&1); then
    echo "install.sh: $here/bin/authmock does not run here: $version" >&2
    case $version in
        *libyaml*) echo "install.sh: install libyaml (Debian, Ubuntu: apt-get install libyaml-0-2)" >&2 ;;
        *libcrypto*) echo "install.sh: install OpenSSL 3's libcrypto (Debian, Ubuntu: apt-get install libssl3)" >&2 ;;
    esac
    exit 1
fi
mkdir -p "$PREFIX/bin" "$PREFIX/share/doc"
# The data is replaced as a whole, so that a case removed upstream does not linger from an older install.
rm -rf "$PREFIX/share/authmock" "$PREFIX/share/doc/authmock"
cp -R "$here/share/authmock" "$PREFIX/share/authmock"
cp -R "$here/share/doc/authmock" "$PREFIX/share/doc/authmock"
# Through a temporary name, so that a running authmock is not overwritten in place.
cp "$here/bin/authmock" "$PREFIX/bin/.authmock.new"
chmod 755 "$PREFIX/bin/.authmock.new"
mv -f "$PREFIX/bin/.authmock.new" "$PREFIX/bin/authmock"

echo "installed authmock $version in $PREFIX/bin (data in $PREFIX/share/authmock)"
case ":$PATH:" in
    *":$PREFIX/bin:"*) ;;
    *) echo "note: $PREFIX/bin is not on PATH; add it: export PATH=\"$PREFIX/bin:\$PATH\"" ;;
esac
