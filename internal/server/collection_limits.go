package server

import "errors"

// Kafka 4.4's generated parsers refuse, before allocating anything for
// it, an array whose declared length is above MessageUtil.MAX_ARRAY_LENGTH
// ("Tried to read a collection of size N, which exceeds the maximum
// allowed size of 1000000.") and a tag section declaring more than
// MessageUtil.MAX_TAGGED_FIELD_COUNT fields ("... tagged fields, which
// exceeds the maximum allowed count of 10000."); the exception ends the
// request's parse and the socket server closes the connection. kmsg has
// neither cap: it checks a length only against the bytes left, so a body
// of a few MiB may declare millions of elements and be decoded. Karst
// applies Kafka's caps while walking the body's bytes before decoding it
// (bodyWalk.arrayLength and bodyWalk.tags), and closes the connection as
// Kafka does.

const (
	maxCollectionLength = 1_000_000
	maxTaggedFields     = 10_000
)

var (
	errCollectionTooLarge  = errors.New("an array declares more than 1000000 elements, Kafka's maximum")
	errTooManyTaggedFields = errors.New("a tag section declares more than 10000 tagged fields, Kafka's maximum")
	// errStringTooLong is Kafka's "string field ... had invalid length": a
	// compact string longer than an int16 length could say.
	errStringTooLong = errors.New("a string is longer than 32767 bytes")
)

// refusedAsKafkaRefuses reports whether err is one for which Kafka's
// parser throws and its socket server closes the connection.
func refusedAsKafkaRefuses(err error) bool {
	for _, refused := range []error{errDecodeTooCostly, errNullField, errCollectionTooLarge, errTooManyTaggedFields, errStringTooLong} {
		if errors.Is(err, refused) {
			return true
		}
	}
	return false
}
