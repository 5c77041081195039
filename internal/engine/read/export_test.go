package read

// JapaneseModel picks the Tesseract model for a Japanese line by its direction, for the tests of
// this package and of read_test.
func JapaneseModel(vertical bool) string {
	if vertical {
		return "jpn_vert"
	}
	return "jpn"
}
