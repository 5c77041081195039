package imageio

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// TailLen is how many trailing bytes CheckComplete needs.
const TailLen = 64

// CheckComplete tells a whole image from a truncated one without decoding it, from its first
// bytes, its last TailLen bytes and its size: a PNG ends with its IEND chunk, a JPEG with an
// end-of-image marker, and a WebP's RIFF header states its length.
func CheckComplete(format string, head, tail []byte, size int64) error {
	switch format {
	case PNG:
		if !bytes.HasSuffix(tail, []byte("IEND\xaeB`\x82")) {
			return fmt.Errorf("%w: PNG has no IEND chunk", ErrCorrupt)
		}
	case JPEG:
		if !bytes.Contains(tail, []byte{0xFF, 0xD9}) {
			return fmt.Errorf("%w: JPEG has no end-of-image marker", ErrCorrupt)
		}
	case WebP:
		if len(head) < 8 {
			return fmt.Errorf("%w: WebP header is short", ErrCorrupt)
		}
		riff := int64(binary.LittleEndian.Uint32(head[4:8])) + 8
		if riff != size && riff+1 != size {
			return fmt.Errorf("%w: WebP declares %d bytes but has %d", ErrCorrupt, riff, size)
		}
	default:
		return ErrUnknownFormat
	}
	return nil
}
