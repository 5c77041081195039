package ocr

import "github.com/vtsproject/vts/internal/lang"

// tessLang maps the service's language codes to Tesseract's traineddata names (internal/lang's
// table).
var tessLang = lang.TesseractNames()

// isCJK is lang.IsCJK, named so here because this package's functions call their language
// argument "lang".
var isCJK = lang.IsCJK
