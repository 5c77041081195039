package job

import "fmt"

// WorkflowID is the ID of a job's TranslateJob workflow: the job, in the Temporal UI.
func WorkflowID(jobID string) string { return "translate-" + jobID }

// ExpiryWorkflowID is the ID of a job's ExpireJob workflow: its scheduled deletion.
func ExpiryWorkflowID(jobID string) string { return "expire-" + jobID }

// Prefix is the folder of blob storage holding everything of one job.
func Prefix(jobID string) string { return "jobs/" + jobID + "/" }

// InputKey is where the upload's page idx is kept; the name is ours, never the user's.
func InputKey(jobID string, idx int, ext string) string {
	return fmt.Sprintf("jobs/%s/in/%03d%s", jobID, idx, ext)
}

// OutputKey is where a translated page is kept, under its sanitized, unique output name.
func OutputKey(jobID, outputName string) string { return "jobs/" + jobID + "/out/" + outputName }

// TranscriptKey is where a translated page's transcript is kept, as JSON, beside the page. Output
// names always end in an image extension, so no page is ever called "transcripts" or "cleaned".
func TranscriptKey(jobID, outputName string) string {
	return "jobs/" + jobID + "/out/transcripts/" + outputName + ".json"
}

// CleanedKey is where a page with its lettering removed and none put back is kept.
func CleanedKey(jobID, outputName string) string {
	return "jobs/" + jobID + "/out/cleaned/" + outputName
}

// ZipKey is where the job's archive is kept.
func ZipKey(jobID string) string { return "jobs/" + jobID + "/pages.zip" }

// EditWorkflowID is the ID of the EditPage workflow applying revision rev of a job's page.
func EditWorkflowID(jobID, outputName string, rev int) string {
	return fmt.Sprintf("edit-%s-%d-%s", jobID, rev, outputName)
}

// EditKey is where the edited transcript asking for revision rev of a page is kept until (and
// after) it is applied: under the job's prefix, so that a delete or an expiry removes it.
func EditKey(jobID, outputName string, rev int) string {
	return fmt.Sprintf("jobs/%s/edits/%d/%s.json", jobID, rev, outputName)
}
