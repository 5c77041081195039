package store

// IndexedQueries maps each index of the jobs table that a hot query relies on to that query, as
// the store sends it, for the test that checks the planner uses it.
var IndexedQueries = map[string]string{
	"jobs_active":    countActiveJobs,
	"jobs_unsettled": unsettledJobs.query(),
	"jobs_stranded":  strandedJobs.query(),
	"jobs_expiry":    overdueExpiries.query(),
}
