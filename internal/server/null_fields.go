package server

import (
	"bytes"
	"errors"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kafka's generated parsers throw on a null (a negative length) in a field that is
// not nullable ("non-nullable field topics was serialized as null") and
// its socket server then closes the connection. kmsg instead reads a null
// array as empty and null bytes as empty bytes, so such a request would
// be answered, emptily and with no error. kmsg's decoded struct cannot
// tell null from empty, but encoding it again can: it writes an empty
// length (0x00000000, or compact 0x01) where the body has a null one
// (0xffffffff, or compact 0x00). The two encodings agree up to the first
// field the body encodes otherwise than kmsg would, so the first byte at
// which they differ is the start of that field. Other differences (a
// non-minimal varint, tags out of order, a boolean other than 0 or 1, a
// tagged field sent at its default) are accepted, and a null after one
// of them goes unseen: Kafka's own clients send none of those.

var errNullField = errors.New("a non-nullable field was serialized as null")

// refuseNulls returns errNullField when body, which decoded into req, has
// a null where req's schema allows none.
func refuseNulls(req kmsg.Request, body []byte) error {
	again := req.AppendTo(make([]byte, 0, len(body)))
	if bytes.Equal(body, again) {
		return nil // the usual case, checked without a byte loop
	}
	i := 0
	for i < len(body) && i < len(again) && body[i] == again[i] {
		i++
	}
	if nullWhereEmpty(body[i:], again[i:], req.IsFlexible()) {
		return errNullField
	}
	return nil
}

// nullWhereEmpty reports whether body starts with a null length where
// encoded, kmsg's encoding of the same field, starts with an empty one.
func nullWhereEmpty(body, encoded []byte, flexible bool) bool {
	if flexible {
		return len(body) > 0 && len(encoded) > 0 && body[0] == 0x00 && encoded[0] == 0x01
	}
	// Any negative length is a null to Kafka's parser; kmsg reads any
	// negative array length as empty.
	return len(body) >= 4 && len(encoded) >= 4 &&
		body[0]&0x80 != 0 && encoded[0]|encoded[1]|encoded[2]|encoded[3] == 0
}
