package handler

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
)

// errorCode maps an error from the layers below to the Kafka error code a
// client expects; nil is 0.
func errorCode(err error) int16 {
	if err == nil {
		return 0 // before ke escapes to errors.As: the common case allocates nothing
	}
	var ke *kerr.Error
	switch {
	case errors.As(err, &ke):
		return ke.Code
	case errors.Is(err, klog.ErrCorruptRecord):
		return kerr.CorruptMessage.Code
	case errors.Is(err, klog.ErrInvalidRecord):
		return kerr.InvalidRecord.Code
	case errors.Is(err, klog.ErrMessageTooLarge):
		return kerr.MessageTooLarge.Code
	case errors.Is(err, klog.ErrInvalidTimestamp):
		return kerr.InvalidTimestamp.Code
	case errors.Is(err, klog.ErrOffsetOutOfRange):
		return kerr.OffsetOutOfRange.Code
	case errors.Is(err, klog.ErrOutOfOrderSequence):
		return kerr.OutOfOrderSequenceNumber.Code
	case errors.Is(err, klog.ErrInvalidProducerEpoch):
		return kerr.InvalidProducerEpoch.Code
	case errors.Is(err, klog.ErrInvalidTxnState):
		return kerr.InvalidTxnState.Code
	case errors.Is(err, klog.ErrTransactionCoordinatorFenced):
		return kerr.TransactionCoordinatorFenced.Code
	case errors.Is(err, klog.ErrClosed):
		return kerr.NotLeaderForPartition.Code
	case errors.Is(err, klog.ErrStorage):
		return kerr.KafkaStorageError.Code
	}
	if code := metadata.ErrorCode(err); code != -1 {
		return code
	}
	return kerr.UnknownServerError.Code
}

// errorMessage is the text Kafka would put beside the code, if any.
func errorMessage(err error) *string {
	if err == nil {
		return nil
	}
	if m := metadata.ErrorMessage(err); m != nil {
		return m
	}
	s := err.Error()
	return &s
}
