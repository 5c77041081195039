module github.com/vtsproject/vts

go 1.26.0

require (
	github.com/HugoSmits86/nativewebp v0.9.3
	golang.org/x/image v0.47.0
)
