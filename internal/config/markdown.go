package config

import (
	"fmt"
	"strings"
)

// BrokerKeysMarkdown renders the broker key table for documentation:
// name, type, default, valid values, update mode, description.
func BrokerKeysMarkdown() string { return keysMarkdown(brokerKeys, true) }

// TopicKeysMarkdown renders the topic key table with each key's broker
// synonyms.
func TopicKeysMarkdown() string { return keysMarkdown(topicKeys, false) }

func keysMarkdown(t *keyTable, broker bool) string {
	var b strings.Builder
	if broker {
		b.WriteString("| key | type | default | valid values | update mode | description |\n|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("| key | type | default | valid values | broker synonyms | description |\n|---|---|---|---|---|---|\n")
	}
	for _, name := range t.names {
		k := t.byName[name]
		if k.Internal {
			continue
		}
		dflt := "null"
		if k.HasDefault {
			dflt = "`" + k.Default + "`"
		}
		valid := ""
		if k.Validator != nil {
			valid = k.Validator.Valid()
		}
		col := k.Mode.String()
		if !broker {
			var syn []string
			for _, s := range topicSynonyms[name] {
				syn = append(syn, "`"+s.Name+"`")
			}
			col = strings.Join(syn, ", ")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", name, strings.ToLower(k.Type.String()), dflt,
			strings.ReplaceAll(valid, "|", `\|`), col, strings.ReplaceAll(k.Doc, "|", `\|`))
	}
	return b.String()
}
