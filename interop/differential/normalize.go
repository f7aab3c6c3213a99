package main

import (
	"fmt"
	"reflect"
)

// ignoredFields are compared as present only: their values are not expected to match between
// two brokers (wall-clock times, throttling, free-text error messages, addresses, and the epoch
// of the metadata log, which counts every record the broker ever wrote).
var ignoredFields = map[string]string{
	"ErrorMessage":               "<message>",
	"ThrottleMillis":             "<throttle>",
	"Host":                       "<host>",
	"Port":                       "<port>",
	"LogAppendTime":              "<time>",
	"TransactionStartTimestamp":  "<time>",
	"StartTimestamp":             "<time>",
	"CurrentStateTimestamp":      "<time>",
	"CurrentTxnStartOffsetTime":  "<time>",
	"FinalizedFeaturesEpoch":     "<metadata-epoch>",
	"LogDir":                     "<log-dir>",
	"Dir":                        "<log-dir>",
	"TransactionStartTimeMillis": "<time>",
	"IssueTimestamp":             "<time>",
	"ExpiryTimestamp":            "<time>",
	"MaxTimestamp":               "<time>",
	"LastCaughtUpTimestamp":      "<time>",
	"LastFetchTimestamp":         "<time>",
}

// idFields are ids each broker picks for itself. Each distinct value becomes a placeholder
// numbered by first appearance, so "the same id as in the previous answer" is still compared.
var idFields = map[string]string{
	"ClusterID":  "cluster",
	"TopicID":    "topic-id",
	"MemberID":   "member",
	"LeaderID":   "member", // JoinGroup's leader is a member id; an int32 LeaderID is a node id
	"ProducerID": "producer",
	"SessionID":  "session",
	"TokenID":    "token",
	"HMAC":       "token-hmac",
}

// normalize returns the normalized value of field when the field is one whose raw value is not
// compared.
func (f *flattener) normalize(field string, v reflect.Value) (string, bool) {
	if placeholder, ok := ignoredFields[field]; ok {
		if isKeptValue(v) {
			return "", false
		}
		return placeholder, true
	}
	kind, ok := idFields[field]
	if !ok || (field == "LeaderID" && reflect.Indirect(v).Kind() != reflect.String) {
		return "", false
	}
	if isKeptValue(v) {
		return "", false
	}
	raw := fmt.Sprint(reflect.Indirect(v).Interface())
	byValue := f.ids[kind]
	if byValue == nil {
		byValue = map[string]string{}
		f.ids[kind] = byValue
	}
	placeholder, seen := byValue[raw]
	if !seen {
		placeholder = fmt.Sprintf("<%s-%d>", kind, len(byValue)+1)
		byValue[raw] = placeholder
	}
	return placeholder, true
}

// isKeptValue reports the values that mean "none" (null, empty, -1, a zero uuid): they are
// compared as they are, since a broker answering "none" where the other answers an id is a
// difference.
func isKeptValue(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return true
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return v.String() == ""
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == -1 || v.Int() == 0
	case reflect.Array:
		return v.IsZero()
	}
	return false
}
