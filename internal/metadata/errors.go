package metadata

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Error is a refused operation: a Kafka error code and the message Kafka
// would put beside it. errors.Is(err, kerr.TopicAlreadyExists) works.
type Error struct {
	Err     *kerr.Error
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Err.Message
	}
	return e.Err.Message + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Code is the Kafka error code.
func (e *Error) Code() int16 { return e.Err.Code }

func opError(code *kerr.Error, msg string) *Error { return &Error{Err: code, Message: msg} }

// ErrorCode maps an error from this package to a Kafka error code: 0 for
// nil, the code of an *Error or *kerr.Error, UNKNOWN_SERVER_ERROR (-1) for
// anything else (such as a failed log append).
func ErrorCode(err error) int16 {
	if err == nil {
		return 0
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Code
	}
	return kerr.UnknownServerError.Code
}

// ErrorMessage returns the message to send beside ErrorCode(err), or nil.
func ErrorMessage(err error) *string {
	var e *Error
	if errors.As(err, &e) && e.Message != "" {
		return &e.Message
	}
	return nil
}
