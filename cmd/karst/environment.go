package main

import (
	"slices"
	"strings"
)

// envPrefix marks the environment variables that set broker keys.
const envPrefix = "KARST_"

// notConfigVariables are KARST_ variables that are not broker keys: the
// binary's own switch and those Karst's tests and scripts pass to the
// broker's environment. Apache Kafka's image keeps the same kind of list
// (KafkaDockerWrapper's ExcludeServerPropsEnv: KAFKA_HEAP_OPTS, ...).
var notConfigVariables = []string{exitWithParentEnv, "KARST_BIN", "KARST_ARGS", "KARST_PID", "KARST_PIDS", "KARST_BOOTSTRAP", "KARST_SOAK", "KARST_ARTIFACTS"}

// notConfigPrefixes are the prefixes of the test and script variables.
var notConfigPrefixes = []string{"KARST_TEST_", "KARST_KILL_", "KARST_BENCH_", "KARST_TXN_", "KARST_KAFKA_", "KARST_RDKAFKA_", "KARST_GROUP_MEMBER", "KARST_CAPTURE_", "KARST_REWRITE_"}

// environmentOverrides turns KARST_* variables into key=value overrides the
// way Apache Kafka's container image turns KAFKA_* into server.properties
// lines: drop the prefix, lower-case, then '_' is '.', '___' is '-' and
// '__' is '_' (KARST_LOG_DIRS -> log.dirs, KARST_LISTENER_NAME_PLAINTEXT_MAX_CONNECTIONS
// -> listener.name.plaintext.max.connections). They are sorted by name so
// a start does not depend on the environment's order.
func environmentOverrides(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, envPrefix) || len(name) == len(envPrefix) || excludedVariable(name) {
			continue
		}
		out = append(out, propertyName(strings.TrimPrefix(name, envPrefix))+"="+value)
	}
	slices.Sort(out)
	return out
}

func excludedVariable(name string) bool {
	if slices.Contains(notConfigVariables, name) {
		return true
	}
	for _, p := range notConfigPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// propertyName is Kafka's mapping, in its order: every '_' becomes '.',
// then "..." (from "___") becomes '-' and ".." (from "__") becomes '_'.
func propertyName(env string) string {
	s := strings.ReplaceAll(strings.ToLower(env), "_", ".")
	s = strings.ReplaceAll(s, "...", "-")
	return strings.ReplaceAll(s, "..", "_")
}
