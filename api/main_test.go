package api_test

import (
	"testing"

	"github.com/vtsproject/vts/internal/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }
