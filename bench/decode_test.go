package bench

import (
	"encoding/json"
	"net/http"
)

func decode(resp *http.Response, v any) error {
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}
