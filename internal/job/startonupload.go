package job

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// StartError is the stored refusal of a start check: the 422 the start
// call answers with, kept on the job so that the poll shows it when no
// caller was waiting for the answer (start on upload).
type StartError struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
	At      time.Time      `json:"at"`
}

// StartErrorView is a refused start check on the wire: the error object a
// refused POST /start answers with (code, message, details).
type StartErrorView struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

func startErrorView(e *StartError) *StartErrorView {
	if e == nil {
		return nil
	}
	d := e.Details
	if d == nil {
		d = map[string]any{}
	}
	return &StartErrorView{Code: e.Code, Message: e.Message, Details: d}
}

// refusal is the start error of a file the check refused: the message and
// details of the start call's 422.
func refusal(inv *InvalidFile, at time.Time) *StartError {
	details := map[string]any{}
	for k, v := range inv.Details {
		details[k] = v
	}
	details["reason"] = inv.Reason
	return &StartError{Code: string(CodeUnprocessable), Message: "the uploaded file cannot be processed: " + inv.Message, Details: details, At: at}
}

// StartUploaded starts jobID as the start call would (the same check and
// the same transition) when the job asked for it at init
// (start_on_upload) and an upload is recorded that no start check has
// refused yet. The local upload PUT and the upload-event Lambda call it
// after recording an upload. It reports whether this call queued the job.
//
// Events repeat and race with each other and with the start call; the
// job record's version makes exactly one of them queue the job, and the
// others find it no longer awaiting_upload and change nothing. A refused
// file leaves the job awaiting_upload with the refusal stored as
// Job.StartError (the poll's start_error) and is not checked again until
// a new upload replaces it. A 4xx answer is therefore no error here;
// errors are failures a retry may cure.
func (s *Service) StartUploaded(ctx context.Context, jobID string) (bool, error) {
	j, err := s.cfg.Store.GetJob(ctx, jobID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("start on upload of job %s: %w", jobID, err)
	}
	if !j.StartOnUpload || j.Status != AwaitingUpload || j.Upload == nil || j.Upload.Invalid || j.StartError != nil {
		return false, nil
	}
	if err := s.canStart(); err != nil {
		return false, err
	}
	load := func() (*Job, error) {
		j, err := s.cfg.Store.GetJob(ctx, jobID)
		if errors.Is(err, ErrNotFound) {
			return nil, errJobNotFound(jobID)
		}
		if err != nil {
			return nil, internal("load job", err)
		}
		return j, nil
	}
	_, err = s.start(ctx, jobID, load)
	var ae *Error
	switch {
	case err == nil:
		s.log.Info("started on upload", "job_id", jobID)
		return true, nil
	case errors.As(err, &ae) && ae.Code == CodeUnprocessable:
		// Refusals of the file are stored by start; one found before the
		// file was read (none stored, or larger than allowed) is stored here.
		if _, uerr := s.update(ctx, jobID, func(j *Job) error {
			if j.Status != AwaitingUpload || j.StartError != nil {
				return errNoChange
			}
			j.StartError = &StartError{Code: string(ae.Code), Message: ae.Message, Details: ae.Details, At: s.now()}
			return nil
		}); uerr != nil && !errors.Is(uerr, ErrNotFound) {
			return false, fmt.Errorf("record the refused start of job %s: %w", jobID, uerr)
		}
		s.log.Info("start on upload refused the file", "job_id", jobID, "reason", ae.Details["reason"])
		return false, nil
	case errors.As(err, &ae) && (ae.Code == CodeConflict || ae.Code == CodeNotFound):
		// 409: another start won, or uploads kept replacing the file (the
		// next upload's event tries again); 404: the job is gone.
		return false, nil
	default:
		return false, err
	}
}
