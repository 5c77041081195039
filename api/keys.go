package api

import (
	"errors"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/vtsproject/vts/internal/identity"
	"github.com/vtsproject/vts/internal/store"
)

const maxKeyNameRunes = 100

type keyRequest struct {
	UserID string `json:"userId"`
	Name   string `json:"name"`
}

// keyManager authorizes a request that manages API keys. A key cannot manage keys: a leaked key
// must not be able to mint its own successors or revoke its owner's others.
func (s *Server) keyManager(r *http.Request, userID string) error {
	if strings.TrimSpace(userID) == "" {
		return newError(http.StatusBadRequest, "missing_user_id", "the userId field is required")
	}
	if cred, err := bearer(r); err == nil && identity.LooksLikeAPIKey(cred) {
		return newError(http.StatusForbidden, "api_key_not_allowed", "API keys are managed with an ID token, not with an API key")
	}
	return s.authorize(r, userID)
}

// decodeAsKeyManager is decodeAsUser for the requests that manage API keys: the body's JSON
// into v, then keyManager's check of *userID, a field of v.
func (s *Server) decodeAsKeyManager(w http.ResponseWriter, r *http.Request, v any, userID *string) error {
	if err := decodeJSON(w, r, v); err != nil {
		return err
	}
	return s.keyManager(r, *userID)
}

// createKey is POST /api/keys: a new key for a Pro user, shown in this answer only.
func (s *Server) createKey(w http.ResponseWriter, r *http.Request) {
	var req keyRequest
	if err := s.decodeAsKeyManager(w, r, &req, &req.UserID); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	name := strings.TrimSpace(req.Name)
	if name == "" || utf8.RuneCountInString(name) > maxKeyNameRunes || strings.ContainsFunc(name, func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
	}) {
		writeError(w, r, s.Log, newError(http.StatusBadRequest, "invalid_name", "name must be 1 to 100 printable characters"))
		return
	}
	key, shown, hash := identity.NewAPIKey()
	k, err := s.Store.CreateAPIKey(r.Context(), req.UserID, name, shown, hash)
	switch {
	case errors.Is(err, store.ErrPlanRequired):
		writeError(w, r, s.Log, errPlanRequired)
		return
	case errors.Is(err, store.ErrTooManyKeys):
		writeError(w, r, s.Log, newError(http.StatusConflict, "too_many_keys", "revoke a key before creating another"))
		return
	case err != nil:
		writeError(w, r, s.Log, err)
		return
	}
	s.Log.Info("API key created", "user", req.UserID, "key", k.ID)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Location", "/api/keys/"+k.ID)
	writeJSON(w, http.StatusCreated, struct {
		store.APIKey
		Key string `json:"key"`
	}{*k, key})
}

// listKeys is GET /api/keys?userId=...: the user's active keys, never the keys themselves.
func (s *Server) listKeys(w http.ResponseWriter, r *http.Request) {
	userID := r.URL.Query().Get("userId")
	if err := s.keyManager(r, userID); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	keys, err := s.Store.ListAPIKeys(r.Context(), userID)
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": keys})
}

// revokeKey is DELETE /api/keys/{id}: the key stops working on the next request.
func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) {
	var req deleteRequest
	if err := s.decodeAsKeyManager(w, r, &req, &req.UserID); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	id := chi.URLParam(r, "id")
	err := s.Store.RevokeAPIKey(r.Context(), id, req.UserID)
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, r, s.Log, newError(http.StatusNotFound, "key_not_found", "no such API key"))
		return
	}
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	s.Log.Info("API key revoked", "user", req.UserID, "key", id)
	w.WriteHeader(http.StatusNoContent)
}
