# The two commands of the README. `make run` brings the whole service up on this machine;
# `make test` runs every test against real PostgreSQL, Temporal, Tesseract, Apertium and stripe-mock.
GOBIN := $(shell go env GOPATH)/bin
export PATH := $(GOBIN):$(PATH)

.PHONY: run test fuzz bench build

run:
	@scripts/setup.sh
	go run ./cmd/vts dev

test:
	@scripts/setup.sh --test
	go vet ./...
	go test -count=1 -timeout 25m ./...

fuzz:
	scripts/fuzz-short.sh

bench:
	go test -run '^$$' -bench . -benchtime 5x ./bench/...

build:
	go build -o bin/vts ./cmd/vts
