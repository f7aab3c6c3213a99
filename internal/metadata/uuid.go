package metadata

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
)

// UUID is Kafka's 128-bit Uuid (topic ids, directory ids, incarnation ids),
// stored big-endian: most significant 64 bits first, as on the wire.
type UUID [16]byte

// Reserved ids that Kafka's Uuid.randomUuid never returns.
var (
	// ZeroUUID means "no id" (Uuid.ZERO_UUID); DirectoryId.MIGRATING too.
	ZeroUUID = UUID{}
	// MetadataTopicID is the id of __cluster_metadata (Uuid.METADATA_TOPIC_ID
	// == Uuid.ONE_UUID); it is also DirectoryId.UNASSIGNED.
	MetadataTopicID = UUID{15: 1}
	// LostDirectoryID is DirectoryId.LOST.
	LostDirectoryID = UUID{15: 2}
)

// String renders the id as Kafka does: URL-safe base64 without padding.
func (u UUID) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// ParseUUID parses Kafka's base64 form.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 16 {
		return u, fmt.Errorf("metadata: invalid uuid %q", s)
	}
	copy(u[:], b)
	return u, nil
}

// IsZero reports whether u is the zero id.
func (u UUID) IsZero() bool { return u == ZeroUUID }

// RandomUUID returns a random id with Kafka's guarantees: never zero or
// one, and its string form never starts with '-' (which command-line
// tools would take for a flag).
func RandomUUID() UUID {
	for {
		var u UUID
		if _, err := rand.Read(u[:]); err != nil {
			panic("metadata: crypto/rand failed: " + err.Error())
		}
		if u.acceptable() {
			return u
		}
	}
}

func (u UUID) acceptable() bool {
	// '-' is index 62 of the URL alphabet: the first six bits.
	return u != ZeroUUID && u != MetadataTopicID && u[0]>>2 != 62
}
