package metadata

// metadata.version feature levels (Kafka's MetadataVersion enum, as
// kafka-server-common 4.4.0 defines it: 3.3-IV3 is 7, each IV one more, up
// to 4.4-IV2 = 33, the latest production level; 4.5-IV0 = 34 is not
// production). Karst reads and writes every production level.
const (
	MetadataVersion33IV3 int16 = 7  // the oldest level KRaft supports
	MetadataVersion37IV2 int16 = 17 // directory assignment (KIP-858)
	MetadataVersion40IV1 int16 = 23 // eligible leader replicas (KIP-966)
	MetadataVersion41IV1 int16 = 27 // the latest level of Kafka 4.1
	MetadataVersion43IV0 int16 = 30 // cordoned log dirs (KIP-1066)
	MetadataVersion44IV2 int16 = 33 // the latest level of Kafka 4.4
)

// MinMetadataVersion and MaxMetadataVersion bound the metadata.version
// levels Karst supports: what Kafka 4.4.0 reports as the supported range.
const (
	MinMetadataVersion = MetadataVersion33IV3
	MaxMetadataVersion = MetadataVersion44IV2
)

// recordVersions are the record versions Kafka writes at one
// metadata.version (MetadataVersion.registerBrokerRecordVersion,
// partitionRecordVersion, partitionChangeRecordVersion), so that a log
// kept at an older level stays readable by the Kafka release it came from.
type recordVersions struct {
	registerBroker, partition, partitionChange int16
}

func recordVersionsAt(mv int16) recordVersions {
	var v recordVersions
	switch {
	case mv >= MetadataVersion43IV0:
		v = recordVersions{registerBroker: 4, partition: 2, partitionChange: 2}
	case mv >= MetadataVersion40IV1:
		v = recordVersions{registerBroker: 3, partition: 2, partitionChange: 2}
	case mv >= MetadataVersion37IV2:
		v = recordVersions{registerBroker: 3, partition: 1, partitionChange: 1}
	case mv >= 8: // 3.4-IV0
		v = recordVersions{registerBroker: 2}
	default:
		v = recordVersions{registerBroker: 1}
	}
	return v
}
