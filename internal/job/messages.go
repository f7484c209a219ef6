package job

import "fmt"

// notDone is the message of a request that needs a done job (its pages,
// take-off, search, reviews) on job j, which is not done: its status,
// what exists once it is done, and what to do next, so that a partner
// who uploaded a file and never started the job reads that start is the
// step left.
func notDone(j *Job, what string) string {
	msg := fmt.Sprintf("job is %s; %s", j.Status, what)
	switch j.Status {
	case AwaitingUpload:
		switch {
		case j.Upload != nil && j.StartError != nil:
			return msg + fmt.Sprintf(" (its file was refused at start, see start_error in GET /v1/jobs/%s: PUT a corrected file to the upload URL, then call POST /v1/jobs/%s/start)", j.ID, j.ID)
		case j.Upload != nil:
			return msg + fmt.Sprintf(" (its file is uploaded but the job was never started: call POST /v1/jobs/%s/start, then poll GET /v1/jobs/%s until it is done)", j.ID, j.ID)
		default:
			return msg + fmt.Sprintf(" (PUT its file to the upload URL, then call POST /v1/jobs/%s/start)", j.ID)
		}
	case Queued, Processing:
		return msg + fmt.Sprintf(" (poll GET /v1/jobs/%s until it is done)", j.ID)
	case Failed:
		return msg + " (a failed job is final: create a new job)"
	}
	return msg
}

// pagesOf says how a job of n pages numbers them: "1 page, page 0", "3
// pages, numbered from 0".
func pagesOf(n int) string {
	switch n {
	case 0:
		return "no pages"
	case 1:
		return "1 page, page 0"
	}
	return fmt.Sprintf("%d pages, numbered from 0", n)
}
