# The vts image: the binary plus the offline OCR engine's Debian packages (the list of
# scripts/setup.sh: Tesseract with the CJK models, Apertium, and the fonts that letter pages).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /vts ./cmd/vts

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates tesseract-ocr \
      tesseract-ocr-eng tesseract-ocr-spa tesseract-ocr-osd apertium apertium-eng-spa fonts-noto-core \
      fonts-dejavu-core \
      tesseract-ocr-jpn tesseract-ocr-jpn-vert tesseract-ocr-kor tesseract-ocr-kor-vert \
      tesseract-ocr-chi-sim tesseract-ocr-chi-sim-vert tesseract-ocr-chi-tra tesseract-ocr-chi-tra-vert \
      tesseract-ocr-script-jpan tesseract-ocr-script-jpan-vert \
      fonts-noto-cjk fonts-comic-neue fonts-ipafont-gothic fonts-ipafont-mincho fonts-vlgothic \
      && rm -rf /var/lib/apt/lists/*
COPY --from=build /vts /usr/local/bin/vts
USER nobody
ENTRYPOINT []
