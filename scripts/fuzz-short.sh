#!/usr/bin/env bash
# Runs every fuzz target for a fixed number of executions from the committed seed corpora
# (testdata/fuzz/<Name>/ in each package). A failure leaves its input under that directory:
# commit it with the fix, and it stays a regression test of plain `go test`.
#
# Budgets are counts (-fuzztime Nx), not durations: with a duration, Go 1.26's fuzz coordinator
# can report its own deadline as a failure ("context deadline exceeded", no input written) when a
# loaded machine's worker is still mid-call as the time runs out (go.dev/issue/75804). A count has
# no deadline to race; a slow machine takes longer instead. Each count is about 20 s of a 2-core
# machine; FUZZSCALE multiplies them all (FUZZSCALE=10 for a longer local hunt).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZSCALE="${FUZZSCALE:-1}"
targets=(
	"./internal/filename FuzzSanitize 80000"
	"./internal/imageio FuzzInspect 60000"
	"./api FuzzUpload 8000"
	"./internal/archive FuzzOpen 150000"
)
for t in "${targets[@]}"; do
	read -r pkg name execs <<<"$t"
	n=$((execs * FUZZSCALE))
	echo "== $name ($pkg, ${n} executions)"
	# Minimizing each new input can eat a short run whole; a few seconds of it is plenty here.
	go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "${n}x" -fuzzminimizetime 5s
done
