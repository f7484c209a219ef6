package job

import (
	"errors"
	"fmt"
)

// Code is an error code of the contract, as on the wire.
type Code string

// Error codes of the partner API. UnsupportedMediaType and
// PayloadTooLarge occur only on the signed upload PUT; Forbidden there
// and on a review credential's request outside its job's review
// (ReviewOnly); MethodNotAllowed answers a known path called with a
// method it does not define (docs/decisions.md).
const (
	CodeUnauthorized         Code = "unauthorized"
	CodeNotFound             Code = "not_found"
	CodeConflict             Code = "conflict"
	CodeUnprocessable        Code = "unprocessable"
	CodeRateLimited          Code = "rate_limited"
	CodeUpstream             Code = "upstream_error"
	CodeInternal             Code = "internal_error"
	CodeForbidden            Code = "forbidden"
	CodeUnsupportedMediaType Code = "unsupported_media_type"
	CodePayloadTooLarge      Code = "payload_too_large"
	CodeMethodNotAllowed     Code = "method_not_allowed"
)

// CodeProcessingFailed is the error.code of a job that ended in Failed.
const CodeProcessingFailed = "processing_failed"

// Error is a domain error with a contract code, a message for the partner
// and optional details. The HTTP layer maps Code to a status in one place.
type Error struct {
	Code    Code
	Message string
	Details map[string]any
	Err     error // underlying cause, not shown to partners
}

// Error returns the code and message (and the cause, if any).
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the contract code of err: its *Error's code, or
// internal_error for any other error.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

func internal(what string, err error) *Error {
	return &Error{Code: CodeInternal, Message: "internal error", Err: fmt.Errorf("%s: %w", what, err)}
}

func invalidField(field, format string, args ...any) *Error {
	return &Error{Code: CodeUnprocessable, Message: fmt.Sprintf(format, args...), Details: map[string]any{"field": field}}
}

// InvalidParameter is the 422 error of a bad query parameter.
func InvalidParameter(param, format string, args ...any) *Error {
	return &Error{Code: CodeUnprocessable, Message: fmt.Sprintf(format, args...), Details: map[string]any{"parameter": param}}
}
