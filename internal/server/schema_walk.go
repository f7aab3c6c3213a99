package server

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// refuseBeforeDecoding walks body as req's schema (request_schema.go) and
// returns what Kafka's parser would throw on: a null where the schema has
// none, a collection or tag section above Kafka's caps, a compact string
// longer than 32767 bytes. It allocates nothing. walked is false when the
// version has no schema or the body ended early: kmsg then decides about
// a short body, and nulls are looked for after decoding as before.
func refuseBeforeDecoding(req kmsg.Request, body []byte) (walked bool, err error) {
	schema := schemaFor(req.Key(), req.GetVersion())
	if !schema.known {
		return false, nil
	}
	w := bodyWalk{src: body, flexible: schema.flexible}
	switch err := w.structure(schema.fields); err {
	case nil:
		return true, nil
	case errTruncated:
		return false, nil
	default:
		return true, err
	}
}

// structure walks a struct's fields and then its tag section.
func (w *bodyWalk) structure(fields []wireField) error {
	for i := range fields {
		if err := w.field(&fields[i]); err != nil {
			return err
		}
	}
	if _, err := w.tags(); err != nil {
		return err
	}
	if w.bad {
		return errTruncated
	}
	return nil
}

func (w *bodyWalk) field(f *wireField) error {
	switch f.kind {
	case wireFixed:
		w.skip(f.width)
	case wireString:
		n := w.length(stringWidth)
		switch {
		case n < 0 && !f.nullable:
			return errNullString
		case n > 0x7fff:
			return fmt.Errorf("%w: %d", errStringTooLong, n)
		}
		w.skip(max(n, 0))
	case wireBytes:
		n := w.length(arrayWidth)
		if n < 0 && !f.nullable {
			return errNullBytes
		}
		w.skip(max(n, 0))
	case wireArray:
		n, err := w.arrayLength(f.nullable)
		if err != nil {
			return err
		}
		for range n {
			if w.bad {
				return errTruncated
			}
			if err := w.field(f.elem); err != nil {
				return err
			}
		}
	case wireStruct:
		return w.structure(f.fields)
	case wireNullableStruct:
		if b := w.next(1); b == nil || int8(b[0]) < 0 {
			return nil
		}
		return w.structure(f.fields)
	}
	return nil
}
