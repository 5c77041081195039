# The vts image: the binary plus the offline OCR engine's Debian packages.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /vts ./cmd/vts

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates tesseract-ocr \
      tesseract-ocr-eng tesseract-ocr-spa tesseract-ocr-osd apertium apertium-eng-spa fonts-noto-core \
      fonts-dejavu-core && rm -rf /var/lib/apt/lists/*
COPY --from=build /vts /usr/local/bin/vts
USER nobody
ENTRYPOINT []
