package handler

import "github.com/karst-broker/karst/internal/wire"

func wireHeader(key, version int16) wire.RequestHeader {
	return wire.RequestHeader{APIKey: key, APIVersion: version, CorrelationID: 1}
}
