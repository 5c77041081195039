#!/bin/sh
# Registers the namespace vts uses (TEMPORAL_NAMESPACE, default "default") once the server answers.
set -eu
ns="${DEFAULT_NAMESPACE:-default}"
until temporal operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do sleep 1; done
temporal operator namespace describe --address "$TEMPORAL_ADDRESS" -n "$ns" >/dev/null 2>&1 ||
  temporal operator namespace create --address "$TEMPORAL_ADDRESS" -n "$ns" --retention 72h
