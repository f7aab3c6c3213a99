// Package storage owns every partition log under the data directory — what
// Kafka calls the LogManager. It opens the logs the cluster metadata says
// this node hosts (Reconcile), creates the directories of new partitions
// with their partition.metadata, removes the directories of deleted topics,
// keeps aside as "-stray" (never deletes) directories holding a topic the
// metadata does not know, locks the log dir against a second process,
// keeps the log dir's root checkpoint files, and runs retention and the log cleaner.
//
// Lookups (Get) read an immutable map swapped atomically on each change, so
// the produce and fetch paths never take a lock here.
package storage
