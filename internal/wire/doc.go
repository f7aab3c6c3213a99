// Package wire owns the Kafka protocol's outer layer: size-prefixed frames,
// request headers v0–v2 (including KIP-482 tagged fields) and response
// headers v0–v1. It knows nothing about request bodies; those are decoded
// with franz-go's kmsg by the layers above.
//
// Every read is bounds-checked. A frame's declared size is validated before
// any memory is set aside for it, and the frame buffer then grows only as
// fast as bytes actually arrive, so a peer that announces a large frame and
// sends nothing costs almost nothing.
package wire
