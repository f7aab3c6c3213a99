// Package metadata owns Karst's cluster metadata — topics, partitions,
// topic and broker configs, finalized features, producer id blocks — kept
// as Apache Kafka's own KRaft metadata records in __cluster_metadata-0 and
// replayed into an in-memory image on start.
//
// # Pieces
//
//   - Records (record.go, records_*.go): hand-written, bounds-checked
//     encoders and decoders for the metadata records, framed as Kafka's
//     MetadataRecordSerde does: unsigned varint frame version (1), unsigned
//     varint api key, unsigned varint record version, then the flexible
//     message body ending in tagged fields. Records of other types decode to
//     UnknownRecord and are skipped on replay, so a log written by Kafka
//     (ACLs, SCRAM, controller registrations) still loads.
//   - Control records (control.go): LeaderChangeMessage, SnapshotHeader/
//     Footer, KRaftVersionRecord, VotersRecord. Unframed; key is (int16 0,
//     int16 type).
//   - Batches (batch.go): RecordBatch v2 build and parse, CRC-32C checked.
//   - Image (image.go, replay.go): an immutable snapshot; Replay returns a
//     new image sharing everything it did not change.
//   - Operations (ops.go): CreateTopic, DeleteTopic, CreatePartitions,
//     (Incremental)AlterConfigs, AlterClientQuotas (quotas.go),
//     AllocateProducerIDs validate against an image and return records plus an *Error carrying a Kafka error code.
//     They never mutate: the records take effect when replayed.
//   - Store (store.go): the image behind an atomic pointer (readers never
//     lock) and a mutex for writers, over a RecordLog the caller provides.
//     Loading resolves metadata transactions (Begin/End/Abort) as Kafka's
//     loader does and refuses a metadata.version outside 3.3-IV3..4.4-IV2.
//   - Features (features.go, feature_ops.go): the supported ranges, the
//     bootstrap levels and UpdateFeatures as Kafka's FeatureControlManager
//     validates it.
//   - Snapshots (snapshot.go): Image.Records writes an image back as
//     records in MetadataImage.write order; BuildSnapshot lays them out as
//     a Kafka snapshot file; BootstrapSnapshot builds the bootstrap snapshot
//     `kafka-storage format` writes (00000000000000000000-0000000000.checkpoint).
//   - quorum-state (quorum_state.go): Kafka's raft election state file.
//
// # Record versions
//
// Karst reads every record version Kafka 4.4.0 defines, and writes what
// Kafka writes at the log's metadata.version (metadata_version.go): at
// 4.4-IV2 (feature level 33) PartitionRecord v2, PartitionChangeRecord v2,
// RegisterBrokerRecord v4, all others v0; a log Kafka 4.1 formatted (level
// 27) gets RegisterBrokerRecord v3, which 4.1 reads. Control record values
// are v0 (ControlRecordUtils.*_CURRENT_VERSION).
//
// # What Kafka 4.1 needs to start on a directory Karst wrote
//
// A single-node combined KRaft node (process.roles=broker,controller) finds
// its state here; this is what Karst must write for Kafka to take over a
// directory, and what Karst must read to take over Kafka's.
//
// meta.properties, in every log dir (and the metadata log dir), a Java
// properties file:
//
//	version=1
//	cluster.id=<22-character base64 Uuid, same in every dir>
//	node.id=<node.id from the config; must match>
//	directory.id=<random Uuid, distinct per dir, not a reserved one>
//
// Kafka refuses to start on an unformatted dir (no meta.properties) and on a
// cluster.id or node.id mismatch; a missing directory.id is generated.
//
// bootstrap.checkpoint, in the metadata log dir root (not inside
// __cluster_metadata-0): written by `kafka-storage format`, read by the
// controller only when the metadata log is empty. It is a snapshot-shaped
// file of batches at offset 0, epoch 0: a control batch with a
// SnapshotHeaderRecord, a data batch of FeatureLevelRecords (the bootstrap
// features), a control batch with a SnapshotFooterRecord. If it is missing
// Kafka bootstraps metadata.version at its latest production level. Karst
// only needs it for parity with a freshly formatted Kafka dir.
//
// __cluster_metadata-0/, a Kafka log (segments .log/.index/.timeindex,
// named by 20-digit base offset) opened by KafkaMetadataLog:
//
//   - partition.metadata: "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n"
//     (Uuid.METADATA_TOPIC_ID, MetadataTopicID here).
//   - leader-epoch-checkpoint: rebuilt from the batches' partitionLeaderEpoch
//     anyway, since Kafka always recovers the metadata log from offset 0.
//   - quorum-state: JSON, data_version 0 for kraft.version 0 (static
//     controller.quorum.voters): {"clusterId":"","leaderId":1,"leaderEpoch":E,
//     "votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],
//     "data_version":0}; data_version 1 for kraft.version 1 (dynamic quorum):
//     {"leaderId":1,"leaderEpoch":E,"votedId":-1,"votedDirectoryId":"...",
//     "data_version":1}. Optional: without it (or with an epoch below the
//     log's last batch epoch) Kafka starts unattached at the log's last epoch
//     and elects itself at the next epoch.
//   - NNNNNNNNNNNNNNNNNNNN-EEEEEEEEEE.checkpoint snapshots (20-digit end
//     offset, exclusive; 10-digit epoch): header control batch, data
//     batches, footer control batch. Not needed while the log starts at
//     offset 0. Kafka takes snapshots on its own (hourly or every 20 MiB of
//     records) and may then delete old segments, so a Karst reading a
//     Kafka-written dir must load the newest snapshot and then the log from
//     its offset. 00000000000000000000-0000000000.checkpoint is the
//     bootstrap snapshot `format --standalone` writes for a dynamic quorum
//     (kraft.version 1): KRaftVersionRecord and VotersRecord.
//
// Batches in the metadata log: magic 2, uncompressed, producer id -1,
// partitionLeaderEpoch = the raft epoch of the leader that appended them
// (epochs start at 1 and never decrease along the log). Data batches hold
// framed metadata records with null keys. Each new leader epoch opens with a
// control batch holding a LeaderChangeMessage (leader, voters and granting
// voters = [node] on a single node; with kraft.version 1 also a
// KRaftVersionRecord and VotersRecord). Kafka appends the records of one
// operation as one batch (atomic) or wraps larger ones in a metadata
// transaction (BeginTransactionRecord ... EndTransactionRecord). On the
// first activation with an empty log the controller appends, in a
// transaction named "Bootstrap records", the FeatureLevelRecords of
// bootstrap.checkpoint (BootstrapRecords mirrors it). A Kafka controller also
// appends RegisterControllerRecord, RegisterBrokerRecord and
// BrokerRegistrationChangeRecords at every start, and NoOpRecords
// periodically; Karst reads and ignores them.
//
// So for Kafka to serve a Karst dir, Karst's __cluster_metadata-0 starts
// with a LeaderChangeMessage control batch at epoch 1, then data batches at
// epoch 1, with metadata.version first; each later Karst process that
// writes starts the next epoch the same way (internal/node's metadataLog,
// checked against Kafka 4.4.0, and 4.1.2, by interop/datadir). Kafka's LogManager
// ignores __cluster_metadata-0 (raft owns it), so it is not listed in the
// root checkpoint files (recovery-point-offset-checkpoint and friends).
//
// # Handing a log dir over (activate.go)
//
// Kafka's clean stop leaves its partitions leaderless (controlled
// shutdown, node in the ELR) and its broker fenced; kill -9 leaves its
// registration. Karst, on open, registers its node unfenced at
// SingleNodeBrokerEpoch and elects itself for partitions without a usable
// leader (ActivationRecords). Kafka starting on a Karst dir keeps the node
// eligible to lead (a clean, not an unclean, election) only if the
// .kafka_cleanshutdown marker in the log dir names the broker epoch of the
// registration it finds, so Karst writes that marker with
// SingleNodeBrokerEpoch after a clean stop and removes it at start.
// Without that, Kafka still serves every record but elects from
// lastKnownElr as an unclean election (leaderRecoveryState RECOVERING).
package metadata
