package main

import (
	"fmt"

	"github.com/karst-broker/karst/internal/handler"
)

const apisUsage = `usage: karst apis

Print the API keys and versions this binary serves, as a Markdown table
generated from the dispatch table (the README's Supported APIs section).
`

func apisMain(args []string) int {
	if status, done := argumentsNone("apis", apisUsage, args); done {
		return status
	}
	fmt.Print(handler.MarkdownTable())
	return 0
}
