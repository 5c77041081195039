#!/usr/bin/env bash
# Installs what running or testing the service needs on a Debian machine, and only what is
# missing: the OCR and translation packages, fonts, the pinned Temporal CLI, and (with --test)
# stripe-mock. Safe to run again. Without root it names the packages instead of installing them.
# The Dockerfile installs the same OCR data and fonts; keep the two lists together.
set -euo pipefail

packages=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-spa tesseract-ocr-osd apertium apertium-eng-spa
  fonts-noto-core fonts-dejavu-core)
# Chinese, Japanese and Korean pages: Tesseract's models (horizontal and vertical text, and the
# script models), and fonts that letter them and the comic-style Latin of translations.
packages+=(tesseract-ocr-jpn tesseract-ocr-jpn-vert tesseract-ocr-kor tesseract-ocr-kor-vert
  tesseract-ocr-chi-sim tesseract-ocr-chi-sim-vert tesseract-ocr-chi-tra tesseract-ocr-chi-tra-vert
  tesseract-ocr-script-jpan tesseract-ocr-script-jpan-vert
  fonts-noto-cjk fonts-comic-neue fonts-ipafont-gothic fonts-ipafont-mincho fonts-vlgothic)
# The web page's tests drive a headless Chromium; the language-detection tests draw ordinary
# pages in Liberation's serif, sans, narrow and mono faces and Breip's handwriting; the manga
# test kit draws pages in Japanese faces the engine was never tuned on (Motoya, M+, Klee One,
# UmePlus). The service itself needs none of them.
if [ "${1:-}" = "--test" ]; then
  packages+=(chromium fonts-liberation fonts-breip
    fonts-motoya-l-maruberi fonts-motoya-l-cedar fonts-mplus fonts-klee fonts-umeplus)
fi
temporal_version=v1.5.1
stripe_mock_version=v0.203.0

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages; install them with:" >&2
    echo "  sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

gobin=$(go env GOBIN)
[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"
if ! command -v temporal >/dev/null && [ ! -x "$gobin/temporal" ]; then
  echo "setup: installing the Temporal CLI $temporal_version (about two minutes, once)"
  go install "github.com/temporalio/cli/cmd/temporal@$temporal_version"
fi
if [ "${1:-}" = "--test" ] && ! command -v stripe-mock >/dev/null && [ ! -x "$gobin/stripe-mock" ]; then
  echo "setup: installing stripe-mock $stripe_mock_version"
  go install "github.com/stripe/stripe-mock@$stripe_mock_version"
fi

# A local PostgreSQL cluster that exists but is stopped is started; vts dev and the tests use it.
if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ] && ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  fi
fi
exit 0
