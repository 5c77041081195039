package api_test

import (
	"testing"

	"github.com/vtsproject/vts/internal/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }
