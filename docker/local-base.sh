#!/usr/bin/env bash
# For machines that cannot pull from a container registry: builds the base image the Dockerfiles name,
# docker.io/library/debian:12-slim, from the Debian archive (debootstrap --variant=minbase bookworm) and
# imports it, so `podman build --pull=never` finds it locally. Needs root, debootstrap and podman.
set -euo pipefail
ENGINE=${ENGINE:-podman}
TAG=docker.io/library/debian:12-slim
if "$ENGINE" image exists "$TAG" 2>/dev/null; then
  exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "local-base: debootstrap bookworm (a few minutes)" >&2
debootstrap --variant=minbase bookworm "$dir/rootfs" http://deb.debian.org/debian >/dev/null
tar -C "$dir/rootfs" -c . | "$ENGINE" import - "$TAG" >/dev/null
echo "local-base: $TAG imported" >&2
