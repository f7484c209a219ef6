package job

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// ErrChanged is returned by DirectUploads.CopyIfMatch when the object is
// no longer the one named by its entity tag.
var ErrChanged = errors.New("object changed")

// ObjectInfo describes a stored object.
type ObjectInfo struct {
	Size int64
	ETag string // the store's entity tag of this version of the object
}

// DirectUploads is the blob store's side of uploads that partners send
// straight to it (S3 presigned PUTs to UploadKey): the service never sees
// those bytes on their way in, so it asks the store what is there. The S3
// adapter implements it.
type DirectUploads interface {
	// Stat describes the object at key; ErrNotFound if there is none.
	Stat(ctx context.Context, key string) (ObjectInfo, error)
	// CopyIfMatch copies the object at src to dst, inside the store, if
	// src's entity tag is still etag: ErrNotFound if src is absent,
	// ErrChanged if another object has replaced it.
	CopyIfMatch(ctx context.Context, dst, src, etag string) error
}

// RecordUpload records on the job the object now stored at its upload key
// (size and entity tag), so that the poll shows uploaded: true and the
// expiry rules treat the job as uploaded. The upload-event Lambda calls it
// for every S3 "Object Created" event of an upload key. Events may come
// late, twice or out of order, so the event's own facts are not trusted:
// RecordUpload looks at what is stored now. A job that is no longer
// awaiting its upload is left alone (start has already copied what it
// checked). It reports whether the job changed.
func (s *Service) RecordUpload(ctx context.Context, jobID string) (bool, error) {
	if s.cfg.Direct == nil {
		return false, errors.New("record upload: this service has no direct uploads (Config.Direct)")
	}
	info, err := s.cfg.Direct.Stat(ctx, UploadKey(jobID))
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("record upload of job %s: %w", jobID, err)
	}
	changed := false
	var replaced string
	_, err = s.update(ctx, jobID, func(j *Job) error {
		changed, replaced = false, ""
		if j.Status != AwaitingUpload {
			return errNoChange
		}
		if j.Upload != nil && j.Upload.ETag == info.ETag && j.Upload.Size == info.Size {
			return errNoChange
		}
		gen := 1
		if j.Upload != nil {
			gen = j.Upload.Generation + 1
			replaced = j.Upload.BlobKey
		}
		j.Upload = &Upload{Size: info.Size, ETag: info.ETag, StoredAt: s.now(), BlobKey: UploadKey(jobID), Generation: gen}
		j.StartError = nil
		changed = true
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		return false, nil // a job deleted since; its objects expire with the bucket's lifecycle
	}
	if err != nil {
		return false, fmt.Errorf("record upload of job %s: %w", jobID, err)
	}
	s.dropPinned(ctx, jobID, replaced)
	return changed, nil
}

// pinDirectUpload copies the object now at the job's upload key to a key
// of its own, if it is still the object it looked at, and returns the
// upload record of that copy (size and SHA-256 are filled in by the
// caller, which reads it).
func (s *Service) pinDirectUpload(ctx context.Context, j *Job) (Upload, error) {
	info, err := s.cfg.Direct.Stat(ctx, UploadKey(j.ID))
	if errors.Is(err, ErrNotFound) {
		return Upload{}, errNoUpload()
	}
	if err != nil {
		return Upload{}, internal("look at the upload", err)
	}
	if info.Size > MaxUploadBytes {
		return Upload{}, &Error{Code: CodeUnprocessable, Message: fmt.Sprintf("the stored file has %d bytes, more than the declared %d", info.Size, j.Size),
			Details: map[string]any{"reason": ReasonSizeMismatch, "declared_size": j.Size, "size": info.Size}}
	}
	key := UploadVersionKey(j.ID, uuid.NewString())
	err = s.cfg.Direct.CopyIfMatch(ctx, key, UploadKey(j.ID), info.ETag)
	if errors.Is(err, ErrChanged) || errors.Is(err, ErrNotFound) {
		return Upload{}, errUploadChanged
	}
	if err != nil {
		return Upload{}, internal("copy the upload", err)
	}
	up := Upload{Size: info.Size, ETag: info.ETag, StoredAt: s.now(), BlobKey: key, Generation: 1}
	if j.Upload != nil {
		up.Generation = j.Upload.Generation + 1
		if j.Upload.ETag == info.ETag {
			up.StoredAt = j.Upload.StoredAt
		}
	}
	return up, nil
}
