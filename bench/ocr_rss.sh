#!/bin/sh
# Peak resident memory of the OCR engine against the Tesseract CLI alone on the benchmark page.
# Usage: bench/ocr_rss.sh   (from the repository root; needs /usr/bin/time from Debian "time")
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/ocr.test" ./internal/engine/ocr
cd internal/engine/ocr
# Writes the page to $VTS_BENCH_PAGE and times the CLI on it.
VTS_BENCH_PAGE="$dir/page.png" "$dir/ocr.test" -test.run '^$' -test.bench 'BenchmarkTesseractCLI$' -test.benchtime 1x >/dev/null
rss() { grep 'Maximum resident' | awk '{print $6/1024 " MB"}'; }
printf 'tesseract CLI alone (psm 11, eng):     '
/usr/bin/time -v tesseract "$dir/page.png" stdout -l eng --psm 11 tsv 2>&1 >/dev/null | rss
# The test process's figure covers itself and, through its reaped children, the largest
# tesseract or apertium process it ran.
for mode in OCREngine OCREngineFast; do
	printf '%-39s' "engine Benchmark$mode (3 pages):"
	/usr/bin/time -v "$dir/ocr.test" -test.run '^$' -test.bench "Benchmark$mode\$" -test.benchtime 3x 2>&1 >/dev/null | rss
done
