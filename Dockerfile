# syntax=docker/dockerfile:1
# authmock's container image: `authmock serve` (or any authmock command) without a Swift toolchain.
#
#   docker build -t authmock .
#   docker run --rm -p 8080:8080 authmock                      # serves basic.yaml on port 8080
#   docker run --rm -p 8080:8080 -v "$PWD/scenarios:/scenarios:ro" authmock \
#       serve /scenarios/mine.yaml --host 0.0.0.0 --port 8080 --ready-file /tmp/authmock.ready
#
# The build stage runs ci/release (the same tarball the releases ship) and unpacks it as PREFIX=/usr; the
# runtime stage is a slim Debian with only the shared libraries the binary links (the Swift runtime is
# linked in statically). ci/container-check runs this runtime stage without Docker: it reads the RUN marked
# `container-check: runtime-setup`, the COPY lines, USER, WORKDIR, ENTRYPOINT, CMD and HEALTHCHECK from
# this file, so change them here and that check follows.

ARG SWIFT_IMAGE=swift:6.3.1-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
# Headers and link libraries of the system-library targets: libcrypto (NTLM's MD4 and DES), libxcrypt
# (htpasswd's crypt(3) hashes), libyaml (the scenario reader, found through pkg-config).
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends libssl-dev libcrypt-dev libyaml-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first, so a source change does not fetch them again (Package.resolved is not committed).
COPY Package.swift ./
RUN swift package resolve
COPY . .
# out/release/authmock-VERSION-linux-ARCH.tar.gz, whose top directory holds bin/, share/ and install.sh.
RUN ci/release \
    && mkdir /staging \
    && tar -xzf out/release/authmock-*-linux-*.tar.gz -C /staging --strip-components=1

FROM ${RUNTIME_IMAGE}
# What the binary loads (ldd): libcrypto.so.3 (libssl3), libcrypt.so.1 (libcrypt1), libyaml-0.so.2
# (libyaml-0-2), libstdc++.so.6 (libstdc++6), libgcc_s.so.1 (libgcc-s1); libc and libm are libc6. No
# ca-certificates: authmock never makes an outbound TLS connection. The user has a fixed uid so that
# `runAsNonRoot` and `--user` can check it.
# container-check: runtime-setup
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends libssl3 libcrypt1 libyaml-0-2 libstdc++6 libgcc-s1 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --uid 10001 --user-group --create-home --home-dir /home/authmock --shell /usr/sbin/nologin authmock
COPY --from=build /staging/bin/authmock /usr/bin/authmock
COPY --from=build /staging/share/ /usr/share/
USER 10001:10001
WORKDIR /home/authmock
EXPOSE 8080
# Healthy once the server accepts connections: `serve` writes the ready file only then. A command of your
# own keeps `--ready-file /tmp/authmock.ready`, or the container never turns healthy.
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=3 CMD ["test", "-s", "/tmp/authmock.ready"]
ENTRYPOINT ["authmock"]
CMD ["serve", "/usr/share/authmock/scenarios/basic.yaml", "--host", "0.0.0.0", "--port", "8080", \
     "--ready-file", "/tmp/authmock.ready", "--control-host", "authmock"]
