package handler

import (
	"fmt"
	"strings"
)

// MarkdownTable renders the dispatch table for the README, so the
// documented API list is generated from the code that serves it.
func MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| Key | API | Versions |\n|---:|---|---|\n")
	for _, a := range Table() {
		fmt.Fprintf(&b, "| %d | %s | %d–%d |\n", a.Key, a.Name, a.MinVersion, a.MaxVersion)
	}
	return b.String()
}
