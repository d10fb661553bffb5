# The dprl command alone (a static binary, nothing else) for the sweeps' Kubernetes Jobs, which run `dprl sweep
# run|merge ...` with dprl on PATH. Build from the repository root: `make image` (buildah), or
#   docker build -f docker/cmd.Dockerfile --build-arg DPRL_COMMIT=$(git rev-parse HEAD) -t dprl-cmd .
# BASE is only the build stage: any Debian 12 with or without Go 1.26.8, root or not. `make image` passes the
# JupyterLab image, whose module and build caches already hold every dependency.
ARG BASE=docker.io/library/golang:1.26.8-bookworm
FROM ${BASE} AS build
COPY docker/go-toolchain.sum docker/install-go.sh /tmp/dprl-docker/
RUN /tmp/dprl-docker/install-go.sh
ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin GOTOOLCHAIN=local CGO_ENABLED=0
WORKDIR /tmp/src
COPY . .
# The context has no .git, so the commit comes in as an argument and is linked in (dprl version, and every
# shard's manifest, report it).
ARG DPRL_COMMIT=
RUN go build -ldflags "-s -w -X github.com/dprl-project/dprl/dprl/sweep.linkedCommit=${DPRL_COMMIT}" \
    -o /tmp/dprl ./dprl/cmd/dprl

FROM scratch
COPY --from=build /tmp/dprl /usr/local/bin/dprl
ENV PATH=/usr/local/bin
# The distroless "nonroot" user; the results volume must be writable by it (fsGroup 65532 in a pod).
USER 65532:65532
ARG DPRL_COMMIT=
LABEL org.opencontainers.image.title="dprl command" \
      org.opencontainers.image.source="https://github.com/dprl-project/dprl" \
      org.opencontainers.image.revision="${DPRL_COMMIT}"
ENTRYPOINT ["dprl"]
CMD ["version"]
