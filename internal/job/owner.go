package job

import "context"

// CheckOwned returns nil when the job exists and belongs to the caller,
// and otherwise the not_found error every other call on the job answers
// (a job of another key is not found, never forbidden). It reads only the
// job record.
func (s *Service) CheckOwned(ctx context.Context, c Caller, jobID string) error {
	_, err := s.owned(ctx, c, jobID)
	return err
}
