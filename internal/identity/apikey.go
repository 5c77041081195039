package identity

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
)

// APIKeyPrefix starts every API key, so that people, log scrubbers and secret scanners can
// recognise one, and so that a bearer credential is told from an ID token without parsing it.
const APIKeyPrefix = "vts_live_"

// apiKeyRandomBytes is the key's entropy: 256 bits, beyond any guessing.
const apiKeyRandomBytes = 32

// apiKeyLen is the length of a well-formed key: the prefix and 43 base64url characters.
var apiKeyLen = len(APIKeyPrefix) + base64.RawURLEncoding.EncodedLen(apiKeyRandomBytes)

// shownPrefixLen is how much of a key its listing shows: enough to tell keys apart, far too
// little to matter (6 of 43 random characters).
var shownPrefixLen = len(APIKeyPrefix) + 6

// NewAPIKey returns a fresh key, the part of it a listing may show, and the SHA-256 that is all
// the database keeps. The key itself is shown to its owner once and never stored.
func NewAPIKey() (key, shown string, hash []byte) {
	b := make([]byte, apiKeyRandomBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it crashes the program instead)
	key = APIKeyPrefix + base64.RawURLEncoding.EncodeToString(b)
	return key, key[:shownPrefixLen], HashAPIKey(key)
}

// LooksLikeAPIKey reports whether a bearer credential is meant as an API key (rather than an
// ID token), whether or not it is a valid one.
func LooksLikeAPIKey(s string) bool { return strings.HasPrefix(s, APIKeyPrefix) }

// WellFormedAPIKey reports whether s has the shape of a key this service issues; anything else
// is refused without a database lookup.
func WellFormedAPIKey(s string) bool {
	if len(s) != apiKeyLen || !LooksLikeAPIKey(s) {
		return false
	}
	_, err := base64.RawURLEncoding.Strict().DecodeString(s[len(APIKeyPrefix):])
	return err == nil
}

// HashAPIKey is the stored form of a key. A plain SHA-256 suffices: the key has 256 bits of
// entropy, so there is nothing for a slow hash to protect against.
func HashAPIKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// SameHash compares two key hashes in constant time.
func SameHash(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }
