// Package txn owns producer ids: handing them out to idempotent and
// transactional producers from blocks reserved in the cluster metadata.
// The transaction coordinator will live here too.
package txn
