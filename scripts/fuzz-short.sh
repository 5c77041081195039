#!/usr/bin/env bash
# Runs every fuzz target for a short while (FUZZTIME, default 20s each) from the committed seed
# corpora (testdata/fuzz/<Name>/ in each package). A failure leaves its input under that
# directory: commit it with the fix, and it stays a regression test of plain `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-20s}"
targets=(
	"./internal/filename FuzzSanitize"
	"./internal/imageio FuzzInspect"
	"./api FuzzUpload"
	"./internal/archive FuzzOpen"
)
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	echo "== $name ($pkg, $FUZZTIME)"
	# Minimizing each new input can eat a short run whole; a few seconds of it is plenty here.
	go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 5s
done
