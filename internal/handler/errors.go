package handler

import (
	"reflect"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrorResponse returns a well-formed response for API key at version v
// whose top-level error code (where the response has one) is code, and
// whose collections are empty. It is the answer to a request that could not
// be decoded: the client can parse it and sees the error.
func ErrorResponse(key, v int16, code int16) kmsg.Response {
	resp := kmsg.ResponseForKey(key)
	if resp == nil {
		return nil
	}
	resp.SetVersion(v)
	if d, ok := resp.(interface{ Default() }); ok {
		d.Default()
		resp.SetVersion(v)
	}
	if f := reflect.ValueOf(resp).Elem().FieldByName("ErrorCode"); f.IsValid() && f.Kind() == reflect.Int16 && f.CanSet() {
		f.SetInt(int64(code))
	}
	if r, ok := resp.(*kmsg.InitProducerIDResponse); ok {
		// Kafka's InitProducerIdRequest.getErrorResponse answers no producer
		// id and no epoch; the schema has no default for the epoch.
		r.ProducerEpoch = -1
	}
	return resp
}
