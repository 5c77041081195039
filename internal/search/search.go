// Package search names the typed search attributes operators find jobs by in the Temporal UI (and
// with `temporal workflow list --query`), e.g. VtsUserId='u-123' AND VtsStatus='failed'. A
// namespace must have them registered before a job starts with them: `vts temporal setup`
// registers them, `vts dev` starts its dev server with them, and the API and the worker refuse to
// start without. The workflows set them, and so does the reconciler when it re-arms an expiry.
package search

import "go.temporal.io/sdk/temporal"

var (
	// UserID is the job's owner; the job's expiry workflow carries it too.
	UserID = temporal.NewSearchAttributeKeyKeyword("VtsUserId")
	// Status follows the job: pending, processing, then completed or failed.
	Status = temporal.NewSearchAttributeKeyKeyword("VtsStatus")
	// Pages is the number of pages uploaded.
	Pages = temporal.NewSearchAttributeKeyInt64("VtsPages")
	// Mode is the translation mode (fast, standard, advanced).
	Mode = temporal.NewSearchAttributeKeyKeyword("VtsMode")
	// SourceLang and TargetLang are the languages asked for ("auto" as sent).
	SourceLang = temporal.NewSearchAttributeKeyKeyword("VtsSourceLang")
	TargetLang = temporal.NewSearchAttributeKeyKeyword("VtsTargetLang")
	// CreditsCharged is what settlement charged.
	CreditsCharged = temporal.NewSearchAttributeKeyInt64("VtsCreditsCharged")
)

// Attributes lists every key above with its type: what registration creates and what the
// start-up check asks the namespace for.
var Attributes = []temporal.SearchAttributeKey{UserID, Status, Pages, Mode, SourceLang, TargetLang, CreditsCharged}

// Expiry is what a job's expiry workflow carries, whoever starts it.
func Expiry(userID string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(UserID.ValueSet(userID))
}
