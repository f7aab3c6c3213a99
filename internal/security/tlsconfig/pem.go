package tlsconfig

import (
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"regexp"
	"strings"
)

// pemBlock finds PEM blocks the way Kafka's PEM key stores do: between
// the BEGIN and END lines whatever white space there is, so a value
// written on one server.properties line, or with line continuations that
// joined the base64 lines, reads as its file form would.
var pemBlock = regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END ([A-Z0-9 ]+)-----`)

// decodePEM returns the blocks of data; a block whose base64 does not
// decode, or whose END line names another type, is an error.
func decodePEM(data []byte) ([]*pem.Block, error) {
	var out []*pem.Block
	for _, m := range pemBlock.FindAllSubmatch(data, -1) {
		kind, body, end := string(m[1]), m[2], string(m[3])
		if kind != end {
			return nil, fmt.Errorf("PEM block BEGIN %s ends with END %s", kind, end)
		}
		der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(body)), ""))
		if err != nil {
			return nil, fmt.Errorf("PEM block %s: %w", kind, err)
		}
		out = append(out, &pem.Block{Type: kind, Bytes: der})
	}
	return out, nil
}
